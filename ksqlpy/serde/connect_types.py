"""Kafka Connect's type check on read, shared by the Connect formats (AVRO, PROTOBUF).

ksqlDB's ``ConnectDataTranslator.toKsqlValue`` validates the writer's Connect schema against the column's
before it looks at the value (``validateSchema``), so a field whose schema a column cannot read fails every
record - NULL values included. A column takes its own Connect type and Connect's widening only: BIGINT and
TIMESTAMP also int32, DOUBLE float32, STRING the integer types and boolean (``STRING_ACCEPTABLE_TYPES``,
never a float). The error names both types as Connect does (``Schema.Type.getName``: lowercase) and the
path from the row: ``->COL``, ``->COL->FIELD``, ``->ARRAY``, ``->MAP_KEY``, ``->MAP_VALUE`` (a bare
unwrapped value: the empty path) - ``ConnectDataTranslator.throwTypeMismatchException``.
"""

from __future__ import annotations

from ksqlpy import types as T
from ksqlpy.serde.base import SerdeError

# the Connect type of a column of each SQL type (ksqlDB's SchemaConverters: DECIMAL is Connect's Decimal,
# a BYTES schema; DATE and TIME int32 logical types, TIMESTAMP int64)
_SQL_CONNECT = {"INTEGER": "int32", "BIGINT": "int64", "DOUBLE": "float64", "STRING": "string",
                "BOOLEAN": "boolean", "BYTES": "bytes", "DECIMAL": "bytes", "DATE": "int32", "TIME": "int32",
                "TIMESTAMP": "int64", "ARRAY": "array", "MAP": "map", "STRUCT": "struct"}
# the writer's Connect types a column of each SQL type reads (validateSchema's checkType calls)
ACCEPTS: dict[str, frozenset[str]] = {
    "INTEGER": frozenset({"int8", "int16", "int32"}), "DATE": frozenset({"int32"}), "TIME": frozenset({"int32"}),
    "BIGINT": frozenset({"int8", "int16", "int32", "int64"}), "TIMESTAMP": frozenset({"int32", "int64"}),
    "DOUBLE": frozenset({"float32", "float64"}),
    "STRING": frozenset({"int8", "int16", "int32", "int64", "boolean", "string"}),
    "BOOLEAN": frozenset({"boolean"}), "BYTES": frozenset({"bytes"}), "DECIMAL": frozenset({"bytes"}),
    "ARRAY": frozenset({"array"}), "MAP": frozenset({"map"}), "STRUCT": frozenset({"struct"}),
}


def sql_connect_type(t: T.SqlType) -> str:
    """The Connect type name of a column of SQL type ``t``."""
    return _SQL_CONNECT.get("DECIMAL" if isinstance(t, T.Decimal) else t.name, t.name.lower())


def check(got: str, t: T.SqlType, path: str) -> None:
    """Fail the record unless a column of type ``t`` reads a value of Connect type ``got``."""
    accepted = ACCEPTS.get("DECIMAL" if isinstance(t, T.Decimal) else t.name)
    if accepted is not None and got not in accepted:
        raise SerdeError(f"Cannot deserialize type {got} as type {sql_connect_type(t)} for path: {path}")
