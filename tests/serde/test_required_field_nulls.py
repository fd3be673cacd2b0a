"""NULL in a field the sink's registered schema requires: Connect's ConnectSchema.validateValue message, with
the field's Connect type (INT32, FLOAT32...), for AVRO and JSON_SR (required-fields.json runs the queries)."""

from __future__ import annotations

import json

import pytest

from ksqlpy import types as T
from ksqlpy.schema_registry import EmbeddedSchemaRegistry
from ksqlpy.serde import value_serde
from ksqlpy.serde.base import SinkSchemaError

COLS = [("A", T.DOUBLE), ("B", T.STRING)]


@pytest.mark.parametrize(("avro", "connect"), [("int", "INT32"), ("float", "FLOAT32"), ("boolean", "BOOLEAN"),
                                              ({"type": "int", "logicalType": "date"}, "INT32"),
                                              ({"type": "enum", "name": "E", "symbols": ["X"]}, "STRING")])
def test_avro_required_field(avro: object, connect: str) -> None:
    reg = EmbeddedSchemaRegistry()
    sid = reg.register("t-value", json.dumps({"type": "record", "name": "V", "fields": [
        {"name": "A", "type": avro}, {"name": "B", "type": ["null", "string"], "default": None}]}), "AVRO")
    serde = value_serde("AVRO", COLS, registry=reg, topic="t", schema_id=sid)
    with pytest.raises(SinkSchemaError, match=f'null used for required field: "A", schema type: {connect}$'):
        serde.serialize((None, "x"))


@pytest.mark.parametrize(("schema", "connect"), [({"type": "integer", "connect.type": "int32"}, "INT32"),
                                                ({"type": "number", "connect.type": "float32"}, "FLOAT32"),
                                                ({"type": "number"}, "FLOAT64"), ({"type": "string"}, "STRING")])
def test_json_sr_required_property(schema: dict, connect: str) -> None:
    reg = EmbeddedSchemaRegistry()
    sid = reg.register("t-value", json.dumps({"type": "object", "required": ["A"], "properties": {
        "A": {**schema, "connect.index": 0},
        "B": {"oneOf": [{"type": "null"}, {"type": "string"}], "connect.index": 1}}}), "JSON")
    serde = value_serde("JSON_SR", COLS, registry=reg, topic="t", schema_id=sid)
    with pytest.raises(SinkSchemaError, match=f'null used for required field: "A", schema type: {connect}$'):
        serde.serialize((None, "x"))
    assert serde.serialize((1.5, None)) is not None


def test_json_sr_required_union_with_null_and_unlisted_property_take_null() -> None:
    reg = EmbeddedSchemaRegistry()
    sid = reg.register("t-value", json.dumps({"type": "object", "required": ["A"], "properties": {
        "A": {"oneOf": [{"type": "null"}, {"type": "number"}], "connect.index": 0},
        "B": {"type": "string", "connect.index": 1}}}), "JSON")
    serde = value_serde("JSON_SR", COLS, registry=reg, topic="t", schema_id=sid)
    assert json.loads(serde.serialize((None, None))[5:]) == {"A": None, "B": None}
