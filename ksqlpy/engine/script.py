"""A script given to ``Engine.execute``: every statement prepared, the whole validated, then run.

From memory of ksqlDB's ``KsqlContext.sql`` (the embedded engine's front door) and ``KsqlResource`` (the
server's ``/ksql``): the text is parsed whole, then each statement is prepared and executed against one
sandbox of the engine that keeps the effects of the statements before it, and only when every statement
passed does any of them run for real. A script whose third statement names a missing source therefore runs
nothing - not its first two. The same sandbox check holds a statement to the server's cap on persistent
queries (``ksql.query.persistent.active.limit``, ``sandbox.check_capacity``), whichever front door sent it.

Statements are prepared in order as the engine would prepare each one when its turn came: a DEFINE or
UNDEFINE earlier in the script changes the variables of the later ones, a CREATE TYPE or DROP TYPE the type
names they may use, a SET or UNSET of ``ksql.variable.substitution.enable`` whether they are substituted.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ksqlpy import grammar
from ksqlpy.engine.config import as_bool
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import ast as A
from ksqlpy.grammar.variables import define, undefine

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

LOG = logging.getLogger(__name__)

SUBSTITUTION = "ksql.variable.substitution.enable"
# statements that change only what the statements after them see: no sandbox is needed to check them
_SCRIPT_LOCAL = (A.SetProperty, A.UnsetProperty, A.DefineVariable, A.UndefineVariable)
_UNLIMITED = 2**31 - 1


def prepare_script(engine: Engine, sql: str, properties: dict[str, Any] | None) -> list[A.Statement]:
    """Every statement of ``sql``, in order, each parsed with the variables and types the statements before it
    leave (error positions are those of the whole script)."""
    configured = as_bool(engine.prop(SUBSTITUTION, "true"))
    enabled = as_bool((properties or {}).get(SUBSTITUTION, configured))
    return [stmt for stmt, _ in prepared_statements(sql, engine.variables, engine.catalog.types(),
                                                    substitution=enabled, configured=configured)]


def prepared_statements(
    sql: str, variables: Mapping[str, str] | None = None, types: Iterable[str] = (), *,
    substitution: bool = True, configured: bool | None = None, terminated: bool = False,
) -> Iterator[tuple[A.Statement, int]]:
    """Each statement of ``sql`` with the offset of its text in ``sql``, prepared only when the one before it
    has been taken (a caller that refuses a statement - headless mode's supported kinds - does so before the
    next one is prepared, as ksqlDB's executors prepare a statement and handle it in turn).

    ``variables``/``types``: what the script starts with (copied, never changed); ``substitution``: whether
    ``${name}`` is substituted at the start, ``configured`` what an UNSET of the switch returns to (the
    starting value when None); ``terminated``: every statement must end in ';' (``grammar.parse``)."""
    pieces = grammar.split_statements(sql)
    if len(pieces) > 1:
        # ksqlDB's KsqlEngine.parse: a syntax error anywhere fails the script before anything is prepared
        grammar.check_syntax(sql)
    default = substitution if configured is None else configured
    enabled = substitution
    scope = dict(variables or {})
    known = set(types)
    pos = 0
    for text in pieces:
        at = sql.find(text, pos)
        if at >= 0:
            before = sql[:at]
            padded = "\n" * before.count("\n") + " " * (len(before) - (before.rfind("\n") + 1)) + text
            pos = at + len(text)
        else:
            padded = text
        for stmt in grammar.parse(padded, scope if enabled else None, allow_run_script=False,
                                  types=frozenset(known), terminated=terminated):
            stmt.text = stmt.text.strip()
            if isinstance(stmt, A.SetProperty) and stmt.name == SUBSTITUTION:
                enabled = as_bool(stmt.value)
            elif isinstance(stmt, A.UnsetProperty) and stmt.name == SUBSTITUTION:
                enabled = default
            elif isinstance(stmt, A.DefineVariable):
                define(scope, stmt.name, stmt.value)
            elif isinstance(stmt, A.UndefineVariable):
                undefine(scope, stmt.name)
            elif isinstance(stmt, A.CreateType):
                known.add(stmt.name)
            elif isinstance(stmt, A.DropType):
                known.discard(stmt.name)
            yield stmt, max(at, 0)


def needs_sandbox(engine: Engine, statements: list[A.Statement]) -> bool:
    """Whether running ``statements`` must wait for a sandbox's verdict: several statements (a later failure
    must leave the earlier ones unrun), or one that starts a persistent query while the cap is set (one
    statement alone is otherwise its own validation: it fails before it changes anything)."""
    runnable = [s for s in statements if not isinstance(s, _SCRIPT_LOCAL)]
    if len(runnable) > 1:
        return True
    from ksqlpy.engine.sandbox import ACTIVE_LIMIT

    try:
        limit = int(str(engine.configured(ACTIVE_LIMIT, _UNLIMITED)).strip())
    except ValueError:
        return False
    return limit < _UNLIMITED and any(isinstance(s, A.CreateAsSelect | A.InsertInto) for s in runnable)


def validate_script(engine: Engine, statements: list[A.Statement], properties: dict[str, Any] | None,
                    command_offset: int | None = None) -> None:
    """Run ``statements`` against one sandbox of ``engine`` (``sandbox.validate``); the first statement that
    fails there fails the script. A failure that is the sandbox's own (no user error: a gap of the sandbox,
    logged) lets the script run - a statement that really fails says so when its turn comes."""
    from ksqlpy.engine.sandbox import validate
    from ksqlpy.engine.statements import is_unexpected

    if not needs_sandbox(engine, statements):
        return
    try:
        validate(engine, statements, dict(properties or {}), next_offset=command_offset)
    except KsqlError as e:
        if is_unexpected(e):
            LOG.warning("validating a script in the sandbox failed unexpectedly; running it")
            return
        raise
    except Exception:  # noqa: BLE001 - a gap of the sandbox must not refuse a script that would run
        LOG.warning("validating a script in the sandbox failed unexpectedly; running it", exc_info=True)
