"""Statement execution: one dispatch table from statement type to its handler (not if-chains), and the
error boundary every statement runs in. The handlers live by family: ``source_statements`` (CREATE, DROP,
ALTER, types), ``persistent_statements`` (CREATE ... AS SELECT, INSERT INTO), ``insert_values``,
``query_statements`` (TERMINATE, PAUSE/RESUME, RESET, SELECT), ``metadata_statements`` (SHOW, DESCRIBE,
EXPLAIN), ``session_statements`` (SET/UNSET, DEFINE/UNDEFINE, ALTER SYSTEM), ``asserts``, ``connectors``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ksqlpy.analysis.prepared_types import check_types_resolve
from ksqlpy.engine import (
    asserts,
    connectors,
    insert_values,
    metadata_statements,
    persistent_statements,
    query_statements,
    session_statements,
    source_statements,
)
from ksqlpy.engine.results import StatementResult
from ksqlpy.errors import KsqlError, KsqlParseError, KsqlStatementError, name_location
from ksqlpy.grammar import ast as A
from ksqlpy.grammar import limits

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

_LOG = logging.getLogger("ksqlpy.statements")


def unsupported(engine: Engine, stmt: A.Statement) -> StatementResult:
    raise KsqlStatementError(f"Unsupported: {type(stmt).__name__} statements are not supported yet")


HANDLERS: dict[type, Callable[[Any, Any], StatementResult]] = {
    # sources and types
    A.CreateSource: source_statements.create_source,
    A.Drop: source_statements.drop_source,
    A.AlterSource: source_statements.alter_source,
    A.CreateType: source_statements.create_type,
    A.DropType: source_statements.drop_type,
    # persistent queries and writes
    A.CreateAsSelect: persistent_statements.create_as_select,
    A.InsertInto: persistent_statements.insert_into,
    A.InsertValues: insert_values.insert_values_statement,
    # queries
    A.Terminate: query_statements.terminate,
    A.PauseResume: query_statements.pause_resume,
    A.ResetQuery: query_statements.reset_query,
    A.SelectStatement: query_statements.select,
    # metadata
    A.Show: metadata_statements.show,
    A.Describe: metadata_statements.describe,
    A.Explain: metadata_statements.explain,
    # properties and variables
    A.SetProperty: session_statements.set_property,
    A.UnsetProperty: session_statements.unset_property,
    A.DefineVariable: session_statements.define,
    A.UndefineVariable: session_statements.undefine,
    A.AlterSystem: session_statements.alter_system,
    # assertions
    A.AssertTopic: asserts.assert_once,
    A.AssertSchema: asserts.assert_once,
    # connectors
    A.CreateConnector: connectors.create_connector,
    A.DropConnector: connectors.drop_connector,
}


def dispatch(engine: Engine, stmt: A.Statement) -> StatementResult:
    handler = HANDLERS.get(type(stmt), unsupported)
    try:
        check_types_resolve(stmt, engine.catalog.types())  # prepared before the statement's handler runs
        with limits.guard():  # a statement within the nesting limit that still overflows is too large
            return handler(engine, stmt)
    except KsqlParseError:
        raise
    except KsqlError as e:
        name_location(e)  # every SQL error says where it is when the analysis knows
        raise
    except Exception as e:  # noqa: BLE001 - no Python exception text reaches a user
        raise unexpected_error(stmt, e) from e


UNEXPECTED = "ksqlpy failed unexpectedly"


def is_unexpected(e: BaseException) -> bool:
    """Whether ``e`` is ``unexpected_error``'s stand-in for a bug: its marker, raised from an exception that
    is no user error (a user error whose message echoes a statement saying the same words is not)."""
    cause = e.__cause__
    return cause is not None and not isinstance(cause, KsqlError) and UNEXPECTED in str(e)


def unexpected_error(stmt: A.Statement, e: Exception) -> KsqlStatementError:
    """A failure that is not a user error is a bug: logged with its traceback; the user reads which kind
    of statement failed and where the details are - never a Python exception's text. (The lower layers'
    rules a statement can break - topic names and partitions, format capabilities - raise KsqlErrors of
    their own where the rule lives: ``log.topic_names``, ``serde.base.FormatRuleError``.)"""
    _LOG.error("statement failed unexpectedly: %s", stmt.text, exc_info=e)
    what = type(stmt).__name__
    return KsqlStatementError(f"Could not execute the statement ({what}): {UNEXPECTED}. The details "
                              "are in the engine's log; please report this as a bug.")

