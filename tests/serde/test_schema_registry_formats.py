"""AVRO and JSON_SR: wire format, round trips, ksqlDB's schema generation, inference and errors."""

from __future__ import annotations

import io
import json
import struct
from decimal import Decimal

import fastavro
import pytest

from ksqlpy import types as T
from ksqlpy.engine.engine import Engine
from ksqlpy.errors import KsqlStatementError
from ksqlpy.schema_registry import EmbeddedSchemaRegistry
from ksqlpy.serde import check_format, key_serde, value_serde
from ksqlpy.serde.avro_format import avro_schema, sql_type_of
from ksqlpy.serde.json_sr import json_schema
from ksqlpy.serde.json_sr import sql_type_of as json_type

COLS = [("A", T.INTEGER), ("D", T.Decimal(4, 2)), ("TS", T.TIMESTAMP),
        ("S", T.Struct((("X", T.STRING), ("Y", T.Array(T.BIGINT))))), ("M", T.Map(T.STRING, T.DOUBLE))]
ROW = (1, Decimal("12.30"), 1_600_000_000_000, {"X": "x", "Y": [1, None]}, {"k": 1.5})


def test_avro_round_trip_and_wire_format() -> None:
    reg = EmbeddedSchemaRegistry()
    s = value_serde("AVRO", COLS, registry=reg, topic="t")
    data = s.serialize(ROW)
    magic, sid = struct.unpack(">bI", data[:5])
    assert magic == 0 and reg.by_id(sid).subject == "t-value"
    assert s.deserialize(data) == ROW
    # any Avro reader with the registered schema reads the same payload
    datum = fastavro.schemaless_reader(io.BytesIO(data[5:]), fastavro.parse_schema(json.loads(reg.by_id(sid).schema)))
    assert datum["A"] == 1 and datum["D"] == Decimal("12.30") and datum["S"] == {"X": "x", "Y": [1, None]}
    assert s.serialize(None) is None and s.deserialize(None) is None


def test_generated_schema_is_ksqldbs() -> None:
    schema = avro_schema([("A", T.INTEGER), ("S", T.Struct((("X", T.DATE),)))], wrap=True)
    assert schema["name"] == "KsqlDataSourceSchema" and schema["namespace"] == "io.confluent.ksql.avro_schemas"
    assert schema["fields"][0] == {"name": "A", "type": ["null", "int"], "default": None}
    nested = schema["fields"][1]["type"][1]
    assert nested["name"] == "KsqlDataSourceSchema_S" and nested["fields"][0]["type"][1]["logicalType"] == "date"
    assert avro_schema([("A", T.BIGINT)], wrap=False) == "long"  # the root is required, as ksqlDB's
    named = avro_schema([("A", T.BIGINT)], wrap=True, full_name="com.x.Rec")
    assert named["name"] == "Rec" and named["namespace"] == "com.x"


def test_unwrapped_value_and_key() -> None:
    reg = EmbeddedSchemaRegistry()
    v = value_serde("AVRO", [("V", T.STRING)], wrap_single_value=False, registry=reg, topic="t")
    assert v.deserialize(v.serialize(("a",))) == ("a",)
    assert json.loads(reg.latest("t-value").schema) == "string"
    assert v.serialize((None,)) is None  # a NULL unwrapped value is no record
    k = key_serde("AVRO", [("K", T.INTEGER)], registry=reg, topic="t")
    assert k.deserialize(k.serialize((5,))) == (5,)
    assert json.loads(reg.latest("t-key").schema) == "int"
    s = key_serde("AVRO", [("K", T.Struct((("A", T.INTEGER),)))], registry=reg, topic="u")
    assert s.deserialize(s.serialize(({"A": 1},))) == ({"A": 1},)
    assert json.loads(reg.latest("u-key").schema)["type"] == "record"


def test_reader_uses_writer_schema_and_coerces() -> None:
    reg = EmbeddedSchemaRegistry()
    sid = reg.register("t-value", json.dumps({"type": "record", "name": "r", "fields": [
        {"name": "foo", "type": "int"}, {"name": "extra", "type": "string"}]}))
    out = io.BytesIO()
    out.write(struct.pack(">bI", 0, sid))
    fastavro.schemaless_writer(out, fastavro.parse_schema(json.loads(reg.by_id(sid).schema)),
                               {"foo": 10, "extra": "x"})
    s = value_serde("AVRO", [("FOO", T.STRING), ("MISSING", T.INTEGER)], registry=reg, topic="t")
    assert s.deserialize(out.getvalue()) == ("10", None)


def test_schema_errors() -> None:
    with pytest.raises(KsqlStatementError, match="Illegal initial character: 1A"):
        check_format("AVRO", is_key=False, columns=[("1A", T.INTEGER)])
    with pytest.raises(KsqlStatementError, match="Avro only supports MAPs with STRING keys"):
        check_format("AVRO", is_key=False, columns=[("M", T.Map(T.INTEGER, T.INTEGER))])


def test_json_sr_round_trip_and_schema() -> None:
    reg = EmbeddedSchemaRegistry()
    s = value_serde("JSON_SR", [("A", T.INTEGER), ("B", T.STRING)], registry=reg, topic="t")
    data = s.serialize((1, "x"))
    assert data[0] == 0 and json.loads(data[5:]) == {"A": 1, "B": "x"}
    assert s.deserialize(data) == (1, "x")
    assert reg.latest("t-value").schema_type == "JSON"
    schema = json_schema([("A", T.INTEGER)], wrap=True)
    assert json_type(schema) == T.Struct((("A", T.INTEGER),))


def test_inference_from_avro_schema() -> None:
    t = sql_type_of({"type": "record", "name": "r", "fields": [
        {"name": "c1", "type": ["null", "long"]}, {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A"]}},
        {"name": "d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 2}}]})
    assert t == T.Struct((("C1", T.BIGINT), ("E", T.STRING), ("D", T.Decimal(4, 2))))


def test_engine_infers_columns_and_writes_avro(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.log.create_topic("in", 1)
        e.schema_registry.register("in-value", json.dumps({"type": "record", "name": "r", "fields": [
            {"name": "c1", "type": "int"}]}))
        e.execute("CREATE STREAM I WITH (kafka_topic='in', value_format='AVRO');")
        assert [c.name for c in e.catalog.source("I").columns] == ["C1"]
        e.execute("CREATE STREAM O AS SELECT C1 * 2 AS X FROM I;")
        e.execute("INSERT INTO I (C1) VALUES (21);")
        e.drain(5)
        batch = e.log.fetch("O", 0, 0, 10)
        assert e.value_serde(e.catalog.source("O")).deserialize(batch.values[0]) == (42,)
        with pytest.raises(KsqlStatementError, match="does not exist in the Schema Registry"):
            e.execute("CREATE STREAM J WITH (kafka_topic='nothing', value_format='AVRO', partitions=1);")


def test_sink_schema_id_fills_fields_the_row_lacks() -> None:
    """With VALUE_SCHEMA_ID the record is the registered schema's: defaults, NULL for optional fields, and
    a required field without default refused with ksqlDB's message (SinkSchemaError fails the query)."""
    from ksqlpy.serde.base import SinkSchemaError

    reg = EmbeddedSchemaRegistry()
    sid = reg.register("o-value", json.dumps({"type": "object", "properties": {
        "A": {"type": "integer", "connect.index": 0}, "B": {"type": "string", "connect.index": 1},
        "C": {"type": "integer", "default": 5, "connect.index": 2}}}), "JSON")
    s = value_serde("JSON_SR", [("A", T.BIGINT)], registry=reg, topic="o", schema_id=sid)
    assert json.loads(s.serialize((4,))[5:]) == {"A": 4, "B": None, "C": 5}
    assert s.deserialize(s.serialize((4,))) == (4,)
    strict = reg.register("p-value", json.dumps({"type": "object", "properties": {
        "A": {"type": "integer"}, "B": {"type": "string"}}, "required": ["B"]}), "JSON")
    with pytest.raises(SinkSchemaError, match=r"Missing default value for required field: \[B\]"):
        value_serde("JSON_SR", [("A", T.BIGINT)], registry=reg, topic="p", schema_id=strict).serialize((4,))
    avro = reg.register("q-value", json.dumps({"type": "record", "name": "R", "fields": [
        {"name": "A", "type": ["null", "long"]}, {"name": "B", "type": "double"}]}))
    with pytest.raises(SinkSchemaError, match=r"required field: \[B\]"):
        value_serde("AVRO", [("A", T.BIGINT)], registry=reg, topic="q", schema_id=avro).serialize((4,))


@pytest.mark.parametrize("names", ["", ", key_schema_full_name='my.ns.K', value_schema_full_name='my.ns.V'"])
@pytest.mark.parametrize("kind", ["CSAS", "CREATE"])
def test_json_sr_schemas_are_registered_by_the_statement(tmp_path, kind: str, names: str) -> None:  # type: ignore[no-untyped-def]
    """ksqlDB's SchemaRegisterInjector registers a JSON_SR sink's (or a new source's) key and value schemas when
    the statement runs, before any record; JSON_SR accepts the schema names, and Connect's JSON Schema has no
    title for them."""
    e = Engine(str(tmp_path), {})
    try:
        if kind == "CSAS":
            e.execute("CREATE STREAM src (k INT KEY, v INT) WITH (kafka_topic='src', format='JSON', partitions=1);")
            e.execute(f"CREATE STREAM sink WITH (kafka_topic='sink', format='JSON_SR'{names}) AS SELECT * FROM src;")
        else:
            e.execute(f"CREATE STREAM sink (k INT KEY, v INT) WITH (kafka_topic='sink', format='JSON_SR', "
                      f"partitions=1{names});")
        key, value = e.schema_registry.latest("sink-key"), e.schema_registry.latest("sink-value")
        assert key is not None and value is not None
        assert json.loads(key.schema) == {"oneOf": [{"type": "null"}, {"type": "integer", "connect.type": "int32"}]}
        assert json.loads(value.schema) == {"type": "object", "properties": {"V": {
            "connect.index": 0, "oneOf": [{"type": "null"}, {"type": "integer", "connect.type": "int32"}]}}}
    finally:
        e.close()


@pytest.mark.parametrize("fmt", ["JSON", "JSON_SR", "AVRO", "PROTOBUF_NOSR", "KAFKA"])
def test_an_unwrapped_null_column_is_null_bytes(fmt: str) -> None:
    """ksqlDB's UnwrappedSerializer hands the single column to KsqlConnectSerializer, which writes null for a
    null datum: a single NULL key column is a null Kafka key, an unwrapped NULL value a tombstone."""
    reg = EmbeddedSchemaRegistry()
    cols = [("C", T.INTEGER)]
    assert key_serde(fmt, cols, registry=reg, topic="t").serialize((None,)) is None
    assert value_serde(fmt, cols, wrap_single_value=False, registry=reg, topic="t").serialize((None,)) is None
    assert value_serde(fmt, cols, wrap_single_value=False, registry=reg, topic="t").serialize((5,)) is not None


@pytest.mark.parametrize("fmt", ["AVRO", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR"])
def test_a_wrapped_null_column_is_a_record(fmt: str) -> None:
    """Wrapped (a PROTOBUF key, a multi-column key, a wrapped value), NULL columns are a record's fields."""
    reg = EmbeddedSchemaRegistry()
    one, two = [("C", T.INTEGER)], [("C", T.INTEGER), ("D", T.STRING)]
    assert key_serde(fmt, two, registry=reg, topic="t").serialize((None, None)) is not None
    assert value_serde(fmt, one, wrap_single_value=True, registry=reg, topic="t").serialize((None,)) is not None
    if fmt == "PROTOBUF":
        assert key_serde(fmt, one, registry=reg, topic="t").serialize((None,)) is not None
