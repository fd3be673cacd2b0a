"""The logical type an Avro schema is read as, and a decimal's precision and scale.

Avro's own ``logicalType`` first; else Kafka Connect's ``connect.name`` (with ``connect.parameters``), which
Connect's AvroConverter writes and Confluent's AvroData.toConnectSchema turns into the Connect schema's name:
ksqlDB's SchemaConverters read a Connect logical type by that name, so a ``long`` named
``org.apache.kafka.connect.data.Timestamp`` is a TIMESTAMP and a ``bytes`` named ``...Decimal`` with the
``scale`` parameter a DECIMAL, whether or not ``logicalType`` is there too.
"""

from __future__ import annotations

from typing import Any

# Connect's logical types by the name Kafka Connect's AvroConverter writes as ``connect.name`` (AvroData
# names the Connect schema after it; ksqlDB's SchemaConverters read a logical type by the Connect name), on
# the Avro type each is based on
_CONNECT_LOGICAL = {("int", "org.apache.kafka.connect.data.Date"): "date",
                    ("int", "org.apache.kafka.connect.data.Time"): "time-millis",
                    ("long", "org.apache.kafka.connect.data.Timestamp"): "timestamp-millis",
                    ("bytes", "org.apache.kafka.connect.data.Decimal"): "decimal",
                    ("fixed", "org.apache.kafka.connect.data.Decimal"): "decimal"}


# the Avro types each logical type of the Avro spec annotates; on another type Avro ignores the annotation
# (Java's LogicalTypes.fromSchemaIgnoreInvalid) and Confluent's AvroData, which switches on the Avro type
# before it looks at ``logicalType``, reads the plain type: a ``long`` marked ``date`` is a BIGINT
_LOGICAL_BASES = {"date": ("int",), "time-millis": ("int",), "time-micros": ("long",),
                  "timestamp-millis": ("long",), "timestamp-micros": ("long",),
                  "local-timestamp-millis": ("long",), "local-timestamp-micros": ("long",),
                  "decimal": ("bytes", "fixed"), "uuid": ("string",), "duration": ("fixed",)}


def logical_type(schema: Any) -> str | None:
    """The logical type a (resolved, non-union) Avro schema is read as: its ``logicalType`` where the Avro
    type under it is one that logical type annotates, else the Connect logical type its ``connect.name``
    names (Confluent's AvroData.toConnectSchema gives the Connect schema that name, so a ``long`` named
    ``org.apache.kafka.connect.data.Timestamp`` is a TIMESTAMP)."""
    if not isinstance(schema, dict):
        return None
    logical = schema.get("logicalType")
    if logical is not None and str(schema.get("type")) in _LOGICAL_BASES.get(str(logical), (str(schema.get("type")),)):
        return str(logical)
    name = schema.get("connect.name")
    return _CONNECT_LOGICAL.get((str(schema.get("type")), str(name))) if name is not None else None


# Confluent's AvroData (from memory of toConnectSchema) on a decimal whose precision is no JSON number
PRECISION_NOT_A_NUMBER = ("precision property must be a JSON Integer. "
                          "https://avro.apache.org/docs/1.9.1/spec.html#Decimal")


def _json_number(v: Any) -> bool:
    """Whether Jackson reads ``v`` as a ``Number`` (a JSON integer or fraction; ``true`` is none)."""
    return isinstance(v, int | float) and not isinstance(v, bool)


def decimal_scale(schema: Any) -> int:
    """A decimal schema's scale: Avro's ``scale`` - as AvroData reads it, a JSON number's integer part, 0
    for anything else (a string ``"2"`` too) - else Connect's ``scale`` parameter (AvroData's)."""
    if not isinstance(schema, dict):
        return 0
    if "scale" in schema:
        scale = schema["scale"]
        return int(scale) if _json_number(scale) else 0
    return int((schema.get("connect.parameters") or {}).get("scale", 0))


def decimal_precision(schema: Any) -> int:
    """A decimal schema's precision: Avro's ``precision`` (a JSON number's integer part; anything else, a
    string ``"5"`` too, AvroData refuses: UnreadableSchemaError), else Connect's ``connect.decimal.precision``
    parameter, else ksqlDB's default of 64 (DecimalUtil.precision) - ``{"type": "bytes", "logicalType":
    "decimal"}`` is a DECIMAL(64, 0)."""
    if "precision" in schema:
        precision = schema["precision"]
        if not _json_number(precision):
            from ksqlpy.serde.base import UnreadableSchemaError

            raise UnreadableSchemaError(PRECISION_NOT_A_NUMBER)
        return int(precision)
    return int((schema.get("connect.parameters") or {}).get("connect.decimal.precision", 64))
