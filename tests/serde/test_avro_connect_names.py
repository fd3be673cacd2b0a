"""Connect's logical types named by ``connect.name`` alone: the SQL type, and the bytes read and written."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ksqlpy import types as T
from ksqlpy.serde.avro_format import sql_type_of, to_avro, to_sql
from ksqlpy.serde.avro_logical import decimal_precision, decimal_scale, logical_type

P = "org.apache.kafka.connect.data."


@pytest.mark.parametrize(("schema", "expected"), [
    ({"type": "int", "connect.name": P + "Date"}, T.DATE),
    ({"type": "int", "connect.name": P + "Time"}, T.TIME),
    ({"type": "long", "connect.name": P + "Timestamp"}, T.TIMESTAMP),
    ({"type": "bytes", "connect.name": P + "Decimal", "connect.parameters": {"scale": "2"}}, T.Decimal(64, 2)),
    ({"type": "fixed", "name": "F", "size": 3, "connect.name": P + "Decimal",
      "connect.parameters": {"scale": "1", "connect.decimal.precision": "5"}}, T.Decimal(5, 1)),
    ({"type": "long", "connect.name": P + "Date"}, T.BIGINT),
    ({"type": "int", "connect.name": P + "Timestamp"}, T.INTEGER),
    ({"type": "string", "connect.name": P + "Decimal"}, T.STRING),
    ({"type": "long", "connect.name": "com.example.Millis"}, T.BIGINT),
])
def test_the_connect_name_types_the_column(schema: dict, expected: T.SqlType) -> None:
    assert sql_type_of(schema) == expected


def test_avro_attributes_win_over_connect_parameters() -> None:
    s = {"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 1, "connect.name": P + "Decimal",
         "connect.parameters": {"scale": "3", "connect.decimal.precision": "9"}}
    assert (logical_type(s), decimal_precision(s), decimal_scale(s)) == ("decimal", 4, 1)


def test_a_decimal_named_by_connect_reads_and_writes_at_its_scale() -> None:
    s = {"type": "bytes", "connect.name": P + "Decimal",
         "connect.parameters": {"scale": "2", "connect.decimal.precision": "6"}}
    raw = to_avro(s, Decimal("-12.34"), T.Decimal(6, 2), {})
    assert raw == (-1234).to_bytes(2, "big", signed=True)
    assert to_sql(s, raw, T.Decimal(6, 2), {}) == Decimal("-12.34")
