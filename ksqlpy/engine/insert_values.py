"""INSERT INTO ... VALUES as ksqlDB's ``InsertValuesExecutor`` runs it: check the target, pair columns with
values (no column list: key columns then value columns), evaluate each constant expression, coerce it
STRICTly to its column, and produce one record.

Target problems are plain errors (``/ksql`` code 40000); everything after them reads
``Failed to insert values into '<target>'. <reason>`` (40001), in ksqlDB's order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.analysis.pseudo_columns import offsets_enabled
from ksqlpy.analysis.source_hints import did_you_mean
from ksqlpy.catalog import Source
from ksqlpy.engine.insert_key_schema import KeySchemaMismatch, check_key_schema
from ksqlpy.engine.results import StatementResult
from ksqlpy.errors import KsqlError, KsqlStatementError
from ksqlpy.expr.constant_resolver import ResolveFailed, resolve_constant
from ksqlpy.expr.stages import BindContext, Clause
from ksqlpy.grammar import ast as A
from ksqlpy.log.base import ProducerRecord
from ksqlpy.schema_registry.sources import with_serializer_names

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

ROWTIME = "ROWTIME"
NOT_INSERTABLE = ("ROWPARTITION", "ROWOFFSET")  # pseudo columns the producer decides


class InsertTargetError(KsqlError):
    """The target cannot take INSERT VALUES at all (ksqlDB's plain ``KsqlException``: code 40000)."""

    error_code = 40000


DISABLED = ("The server has disabled INSERT INTO ... VALUES functionality. To enable it, restart your ksqlDB server "
            "with 'ksql.insert.into.values.enabled'=true")


class _Reason(Exception):
    """Why the values do not make a record; reported inside ``Failed to insert values into ...``."""


def insert_values(engine: Engine, stmt: A.InsertValues) -> None:
    src = _target(engine, stmt)
    # after the target checks, read from the configuration alone (InsertValuesExecutor.throwIfDisabled over
    # getConfig(false)): a request's override does not turn the server's switch
    if str(engine.configured("ksql.insert.into.values.enabled", "true")).lower() == "false":
        raise InsertTargetError(DISABLED)
    try:
        key, value, ts = _record(engine, src, stmt)
    except _Reason as e:
        raise KsqlStatementError(f"Failed to insert values into '{stmt.target}'. {e}") from None
    try:
        check_key_schema(getattr(engine, "schema_registry", None), src)
    except KeySchemaMismatch as e:
        raise KsqlStatementError(f"Failed to insert values into '{stmt.target}'. {e}") from None
    # the serializers name their schema after the latest registered one (addSerializerMissingFormatFields)
    writer = with_serializer_names(getattr(engine, "schema_registry", None), src)
    try:
        kb = engine.key_serde(writer).serialize(key) if src.key_columns else None
    except Exception as ex:  # noqa: BLE001 - a serializer's failure is the user's value
        raise KsqlStatementError(f"Failed to insert values into '{stmt.target}'. Could not serialize key") from ex
    try:
        vb = engine.value_serde(writer).serialize(value)
    except Exception as ex:  # noqa: BLE001
        raise KsqlStatementError(f"Failed to insert values into '{stmt.target}'. Could not serialize value"
                                 f"{': ' + str(ex) if str(ex) else ''}") from ex
    if ts is not None and ts < 0:
        # Kafka's ProducerRecord refuses it when the record is made from the serialized key and value, still
        # inside InsertValuesExecutor's wrapped build (from memory of both)
        raise KsqlStatementError(f"Failed to insert values into '{stmt.target}'. Invalid timestamp: {ts}. "
                                 "Timestamp should always be non-negative or null.")
    engine.log.produce(ProducerRecord(src.topic, kb, vb, ts))


def insert_values_statement(engine: Engine, stmt: A.InsertValues) -> StatementResult:
    """INSERT VALUES as a statement: the row written, an empty message."""
    insert_values(engine, stmt)
    return StatementResult("message", stmt.text, message="")


def _target(engine: Engine, stmt: A.InsertValues) -> Source:
    src = engine.catalog.source(stmt.target)
    if src is None:
        raise InsertTargetError(f"Cannot insert values into an unknown stream/table: `{stmt.target}`"
                                f"{did_you_mean(engine.catalog, stmt.target)}")
    if src.windowed:
        raise InsertTargetError("Cannot insert values into windowed stream/table!")
    from ksqlpy.engine.internal_topics import is_read_only

    if is_read_only(engine, src.topic):
        raise InsertTargetError(f"Cannot insert values into read-only topic: {src.topic}")
    if src.is_source:
        raise InsertTargetError(f"Cannot insert values into read-only {src.kind.lower()}: {src.name}")
    headers = [c.name for c in src.header_columns]
    if headers:
        named = headers if stmt.columns is None else [n for n in stmt.columns if n in headers]
        if named:
            raise InsertTargetError(f"Cannot insert into HEADER columns: {', '.join(named)}")
    return src


def _record(engine: Engine, src: Source, stmt: A.InsertValues) -> tuple[tuple, tuple, int | None]:
    """ksqlDB's ``GenericRecordFactory.build``: (key, value, timestamp or None for now)."""
    implicit = stmt.columns is None
    names = [c.name for c in src.key_columns + src.value_columns] if implicit else list(stmt.columns or [])
    if len(names) != len(stmt.values):
        raise _Reason(f"Expected a value for each column. Expected Columns: "
                      f"[{', '.join(stmt.columns or [])}]. Got [{', '.join(_sql(v) for v in stmt.values)}]")
    columns: list[tuple[str, T.SqlType]] = []
    not_insertable = NOT_INSERTABLE if offsets_enabled(engine.effective_properties()) else ()
    for name in names:
        col = src.column(name)
        if col is None and name not in (ROWTIME, *not_insertable):
            raise _Reason(f"Column name `{name}` does not exist.")
        if name in not_insertable:
            raise _Reason(f"Inserting into column `{name}` is not allowed.")
        columns.append((name, T.BIGINT if col is None else col.type))
    given: dict[str, Any] = {}
    for (name, target), e in zip(columns, stmt.values, strict=True):
        given[name] = _value(engine, e, target, name)
    if src.kind == "TABLE":
        missing = [c.name for c in src.key_columns if c.name not in given]
        if missing:
            raise _Reason(f"Value for primary key column(s) {', '.join(missing)} is required for tables")
    key = tuple(given.get(c.name) for c in src.key_columns)
    value = tuple(given.get(c.name) for c in src.value_columns)
    return key, value, _timestamp(src, given)


def _value(engine: Engine, e: exp.Expression, target: T.SqlType, column: str) -> Any:
    """The constant ``e`` evaluated once and coerced STRICTly to ``target``."""
    reference = _column_reference(e)
    if reference is not None:
        raise _Reason(f"Unsupported column reference in insert value: {_sql(reference)}")
    try:
        return resolve_constant(e, target, column, BindContext(engine.functions, engine.catalog.types()),
                                Clause.INSERT_VALUE)
    except ResolveFailed as failed:
        raise _Reason(failed.reason) from None


def _column_reference(e: exp.Expression) -> exp.Column | None:
    """The first column a value names (lambda parameters are not columns)."""
    for col in e.find_all(exp.Column):
        lam = col.find_ancestor(exp.Lambda)
        params = set()
        while lam is not None:
            params |= {p.name.upper() for p in lam.expressions}
            lam = lam.find_ancestor(exp.Lambda)
        if col.table or col.name.upper() not in params:
            return col
    return None


def _timestamp(src: Source, given: dict[str, Any]) -> int | None:
    """ROWTIME if given, else None (now).

    The source's TIMESTAMP column is not read here: ksqlDB's GenericRecordFactory writes it as data and
    the record time is ROWTIME or the wall clock; readers of the source take their ROWTIME from the column
    through the timestamp extractor (a value it cannot parse is their processing-log entry, not a refused
    insert).
    """
    del src
    if ROWTIME not in given:
        return None
    if given[ROWTIME] is None:
        # ``(long) values.getOrDefault(ROWTIME, clock)``: a ROWTIME given as NULL is in the map, and unboxing it
        # throws a NullPointerException without a message - the insert fails with the empty reason (after the
        # table's key check, before anything is serialized; from memory of GenericRecordFactory.build)
        raise _Reason("")
    return int(given[ROWTIME])


def _sql(e: Any) -> str:
    from ksqlpy.expr.format import format_expression

    return format_expression(e)
