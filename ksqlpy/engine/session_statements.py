"""Statements on properties and variables: SET/UNSET (the session's overrides, checked as ksqlDB's
``PropertyOverrider`` does), the SHOW PROPERTIES listing, DEFINE/UNDEFINE, and ALTER SYSTEM's refusal."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ksqlpy.engine.results import StatementResult
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import ast as A

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine



def properties_listing(engine: Engine) -> dict[str, Any]:
    """SHOW PROPERTIES: every property as it resolves for this statement, under its canonical name
    (``ksql.streams.<name>`` for Kafka settings, whichever spelling set it); ``overwrittenProperties``:
    what the session or request changed from the configuration; ``defaultProperties``: what nobody set."""
    from ksqlpy.engine import config as C
    from ksqlpy.engine import property_names as N
    from ksqlpy.engine.property_listing import LISTED_DEFAULTS, listed

    effective = engine.effective_properties()
    configured = C.Properties(C.DEFAULT_PROPERTIES, engine.config)
    # every property ksqlDB lists (property_listing.py) - its SSL settings never - with what resolves here
    shown = {k: v for k, v in listed(dict(effective.items())).items() if not C.bare(k).startswith("ssl.")}
    listing = [{"name": k, "scope": "KSQL", "value": N.shown_value(k, v),
                "editable": k in N.QUERY_LEVEL, "level": "QUERY" if k in N.QUERY_LEVEL else "SERVER"}
               for k, v in sorted(shown.items())]
    # overwritten: an override whose value differs from the server's (its configuration over the defaults)
    server = listed(dict(configured.items()))
    overwritten = sorted(k for k, v in engine.overrides().items() if str(server.get(k)) != str(v))
    # at its default (ksqlDB's ListPropertiesExecutor: the value is its definition's default, whoever set it -
    # a SET to the default value leaves it a default): the value the listing shows when nothing is set
    unset = listed(dict(C.Properties(C.DEFAULT_PROPERTIES).items()))
    defaults = sorted(k for k, v in shown.items()
                      if (k in C.DEFAULT_PROPERTIES or k in LISTED_DEFAULTS) and k in unset and str(unset[k]) == str(v))
    return {"properties": listing, "overwrittenProperties": overwritten, "defaultProperties": defaults}


def set_property(engine: Engine, stmt: A.SetProperty) -> StatementResult:
    check_override(stmt.name, stmt.value)  # now, naming the setting - not when a query trips on it
    set_override(engine.session_properties, stmt.name, stmt.value)
    return StatementResult("message", stmt.text, message=f"Successfully changed local property '{stmt.name}' to "
                                                         f"'{stmt.value}'.")


def check_override(name: str, value: Any) -> None:
    """SET's checks (``PropertyOverrider``, from memory): a known property, a value its config accepts
    (LocalPropertyParser), then one the server does not fix at start (LocalPropertyValidator)."""
    from ksqlpy.engine import property_names as N
    from ksqlpy.engine.property_values import check_property

    if not N.recognized(name):
        raise KsqlStatementError(N.unknown_property(name))
    check_property(name, value)
    fixed = N.immutable_name(name)
    if fixed is not None:
        raise KsqlStatementError(N.cannot_override(fixed))


def set_override(overrides: dict[str, Any], name: str, value: Any) -> None:
    """SET in a map of overrides: the latest SET of a property wins, whichever spelling it used."""
    unset_override(overrides, name)
    overrides[name] = value


def unset_override(overrides: dict[str, Any], name: str) -> Any:
    """UNSET under either spelling; the value it had, or None."""
    from ksqlpy.engine.config import canonical

    old = None
    for k in [k for k in overrides if canonical(k) == canonical(name)]:
        old = overrides.pop(k)
    return old


def unset_property(engine: Engine, stmt: A.UnsetProperty) -> StatementResult:
    unset_override(engine.session_properties, stmt.name)
    return StatementResult("message", stmt.text, message=f"Successfully unset local property '{stmt.name}'.")


def define(engine: Engine, stmt: A.DefineVariable) -> StatementResult:
    from ksqlpy.grammar.variables import define as define_variable

    define_variable(engine.variables, stmt.name, stmt.value)
    return StatementResult("message", stmt.text)


def undefine(engine: Engine, stmt: A.UndefineVariable) -> StatementResult:
    from ksqlpy.grammar.variables import undefine as undefine_variable
    from ksqlpy.grammar.variables import undefine_warning

    if undefine_variable(engine.variables, stmt.name) is None:
        return StatementResult("message", stmt.text, warnings=[undefine_warning(stmt.name)])
    return StatementResult("message", stmt.text)


def alter_system(engine: Engine, stmt: A.AlterSystem) -> StatementResult:
    """ALTER SYSTEM changes a property of every server of a Confluent Cloud cluster; a self-managed ksqlDB
    (and ksqlpy) takes server properties from its configuration."""
    raise KsqlStatementError(f"ALTER SYSTEM is only available in Confluent Cloud. Set '{stmt.name}' in the server "
                             "configuration, or use SET for the current session.")
