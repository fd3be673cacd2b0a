"""INSERT INTO ... VALUES: evaluate the constant expressions, coerce to the columns, produce one record."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.binder import bind
from ksqlpy.expr.bound import Cast
from ksqlpy.expr.fold import constant_value
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext
from ksqlpy.grammar import ast as A
from ksqlpy.log.base import ProducerRecord

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine


def _evaluate(engine: Engine, e: Any, target: T.SqlType, column: str) -> Any:
    ctx = BindContext(engine.functions, engine.catalog.types())
    b = bind(e, Scope(), ctx)
    if not isinstance(b.type, T.NullType) and b.type != target:
        if T.can_implicitly_cast(b.type, target) or (b.type == T.STRING and target in (T.TIMESTAMP, T.DATE, T.TIME)):
            b = Cast(b, type=target, implicit=True)
        else:
            raise KsqlStatementError(f"Expected type {target} for field {column} but got {_sql(e)}({b.type})")
    try:
        return constant_value(b, ctx.registry)
    except Exception as ex:  # noqa: BLE001
        raise KsqlStatementError(f"Failed to insert values into '{column}': {ex}") from ex


def _sql(e: Any) -> str:
    from ksqlpy.expr.format import format_expression

    return format_expression(e)


def insert_values(engine: Engine, stmt: A.InsertValues) -> None:
    src = engine.catalog.source(stmt.target)
    if src is None:
        msg = f"Cannot insert values into an unknown stream/table: `{stmt.target}`"
        upper = engine.catalog.source(stmt.target.upper())
        exact = next((s for s in engine.catalog.sources() if s.name.upper() == stmt.target.upper()), None)
        if upper is not None and stmt.target != stmt.target.upper():
            msg += f"\nDid you mean {upper.name}? Hint: try removing double quotes from the source name."
        elif exact is not None:
            msg += f'\nDid you mean "{exact.name}"? Hint: wrap the source name in double quotes to make it case-sensitive.'
        raise KsqlStatementError(msg)
    if src.is_source:
        raise KsqlStatementError(f"Cannot insert values into read-only {src.kind.lower()}: {src.name}")
    if str(engine.prop("ksql.insert.into.values.enabled", "true")).lower() == "false":
        raise KsqlStatementError("The server has disabled INSERT INTO ... VALUES functionality. To enable it, "
                                 "restart your ksqlDB server with 'ksql.insert.into.values.enabled'=true")
    if src.windowed:
        raise KsqlStatementError(f"Cannot insert values into windowed {src.kind.lower()}: {src.name}")
    if stmt.columns is None:
        names = [c.name for c in src.columns]
    else:
        names = list(stmt.columns)
    if len(names) != len(stmt.values):
        raise KsqlStatementError(f"Expected a value for each column. Expected Columns: {names}. "
                                 f"Got {[_sql(v) for v in stmt.values]}")
    given: dict[str, Any] = {}
    ts = None
    for name, e in zip(names, stmt.values, strict=True):
        if name == "ROWTIME":
            ts = _evaluate(engine, e, T.BIGINT, name)
            continue
        col = src.column(name)
        if col is None:
            raise KsqlStatementError(f"Column name {name} does not exist.")
        if col.headers or col.header_key is not None:
            raise KsqlStatementError(f"Cannot insert into HEADER columns: {name}")
        given[name] = _evaluate(engine, e, col.type, name)
    key = tuple(given.get(c.name) for c in src.key_columns)
    value = tuple(given.get(c.name) for c in src.value_columns)
    if src.kind == "TABLE" and any(k is None for k in key):
        raise KsqlStatementError(f"Failed to insert values into '{src.name}'. Value for primary key column(s) "
                                 f"{', '.join(c.name for c in src.key_columns)} is required for tables")
    if src.timestamp_column and src.timestamp_column in given:
        ts = given[src.timestamp_column]
    try:
        kb = engine.key_serde(src).serialize(key) if src.key_columns else None
        vb = engine.value_serde(src).serialize(value)
    except Exception as ex:  # noqa: BLE001
        raise KsqlStatementError(f"Failed to insert values into '{src.name}'. {ex}") from ex
    engine.log.produce(ProducerRecord(src.topic, kb, vb, ts))
