"""JSON_SR schemas ksqlDB did not generate: a ``oneOf``/``anyOf`` of several types is Connect's union STRUCT
(JsonSchemaData: ``io.confluent.connect.json.OneOf`` with a field per non-null branch), the same rule as
Avro's unions with Connect's JSON names; ``[null, T]`` stays T."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from ksqlpy import types as T
from ksqlpy.engine.engine import Engine
from ksqlpy.serde.json_sr import sql_type_of

F0, F1 = "IO.CONFLUENT.CONNECT.JSON.ONEOF.FIELD.0", "IO.CONFLUENT.CONNECT.JSON.ONEOF.FIELD.1"


@pytest.mark.parametrize("key", ["oneOf", "anyOf"])
def test_a_union_of_several_types_is_a_struct_of_its_branches(key: str) -> None:
    schema = {key: [{"type": "null"}, {"type": "integer"}, {"type": "string"}]}
    assert sql_type_of(schema) == T.Struct(((F0, T.BIGINT), (F1, T.STRING)))
    nested = {key: [{"type": "integer", "connect.type": "int32"},
                    {"type": "object", "properties": {"a": {"type": "string"}}}]}
    assert sql_type_of(nested) == T.Struct(((F0, T.INTEGER), (F1, T.Struct((("A", T.STRING),)))))


def test_null_and_one_type_is_that_type_and_a_lone_branch_is_a_struct() -> None:
    assert sql_type_of({"oneOf": [{"type": "null"}, {"type": "number"}]}) == T.DOUBLE
    assert sql_type_of({"oneOf": [{"type": "boolean"}]}) == T.Struct(((F0, T.BOOLEAN),))
    assert sql_type_of({"oneOf": [{"type": "null"}, {"type": "integer"}, {"type": "string"}]},
                       upper=False) == T.Struct((("io.confluent.connect.json.OneOf.field.0", T.BIGINT),
                                                 ("io.confluent.connect.json.OneOf.field.1", T.STRING)))


def test_a_source_infers_union_columns_and_reads_them(tmp_path: Path) -> None:
    with Engine(str(tmp_path), {"auto.offset.reset": "earliest"}) as e:
        e.log.create_topic("in", 1)
        sid = e.schema_registry.register("in-value", json.dumps({"type": "object", "properties": {
            "id": {"type": "integer", "connect.index": 0},
            "u": {"oneOf": [{"type": "null"}, {"type": "integer"}, {"type": "string"}], "connect.index": 1}}}),
            "JSON")
        e.execute("CREATE STREAM I WITH (kafka_topic='in', value_format='JSON_SR');")
        src = e.catalog.source("I")
        assert [(c.name, c.type) for c in src.columns] == [
            ("ID", T.BIGINT), ("U", T.Struct(((F0, T.BIGINT), (F1, T.STRING))))]
        payload = json.dumps({"id": 1, "u": {F0.lower(): None, F1.lower(): "x"}}).encode()
        from ksqlpy.log.base import ProducerRecord
        e.log.produce(ProducerRecord("in", None, struct.pack(">bI", 0, sid) + payload, 0, partition=0))
        [res] = e.execute(f"SELECT ID, U->`{F1}` AS S FROM I;")
        assert res.data["rows"] == [(1, "x")]
