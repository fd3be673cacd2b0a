"""PROTOBUF schemas for collections inside collections, as Connect's ProtobufData (ksqlDB's converter) writes
them: a MAP whose values are ARRAYs or MAPs is a repeated ``ConnectDefault<n>Entry {key = 1; value = 2}``
message - every MAP so, as ProtobufData builds no map_entry option; such entries read back as the MAP they were."""

from __future__ import annotations

from ksqlpy import types as T
from ksqlpy.engine.engine import Engine
from ksqlpy.schema_registry import EmbeddedSchemaRegistry, HttpSchemaRegistry
from ksqlpy.schema_registry.http_server import RegistryServer
from ksqlpy.serde import value_serde
from ksqlpy.serde.protobuf_schema import parse_proto
from ksqlpy.serde.protobuf_types import schema_text, sql_type_of
from ksqlpy.serde.protobuf_wire import decode, unframe

ROUTES = T.Map(T.STRING, T.Array(T.INTEGER))
GRID = T.Map(T.STRING, T.Map(T.STRING, T.Array(T.DOUBLE)))
STOPS = T.Map(T.STRING, T.Struct((("NAME", T.STRING), ("ZONES", T.Array(T.INTEGER)))))
COLS = [("ID", T.BIGINT), ("ROUTES", ROUTES), ("GRID", GRID), ("STOPS", STOPS)]
ROW = (4, {"north": [1, 2, 3], "south": []}, {"a": {"x": [0.5], "y": []}, "b": {}},
       {"s1": {"NAME": "harbour", "ZONES": [7, 8]}})


def test_generated_schema_nests_entries_as_connect_does() -> None:
    text = schema_text(COLS)
    assert "repeated ConnectDefault2Entry ROUTES = 2;" in text
    assert "repeated int32 value = 2;" in text  # an ARRAY value: a repeated field inside the entry
    assert "repeated ConnectDefault3Entry GRID = 3;" in text and "repeated ConnectDefault4Entry value = 2;" in text
    assert "repeated ConnectDefault5Entry STOPS = 4;" in text and "ConnectDefault6 value = 2;" in text
    file = parse_proto(text)
    assert list(sql_type_of(file, file.messages[0]).fields) == COLS  # inference gives the columns back


def test_nested_collections_round_trip_through_the_http_registry(tmp_path) -> None:
    with RegistryServer(EmbeddedSchemaRegistry()) as srv:
        writer = value_serde("PROTOBUF", COLS, registry=HttpSchemaRegistry(srv.url), topic="n")
        data = writer.serialize(ROW)
        rs = srv.registry.latest("n-value")
        file = parse_proto(rs.schema)
        sid, _, body = unframe(data)
        assert sid == rs.id
        # the wire holds one entry message per map key, each with its own repeated value
        raw = decode(file, file.messages[0], body)
        assert raw["ROUTES"] == [{"key": "north", "value": [1, 2, 3]}, {"key": "south"}]
        reader = value_serde("PROTOBUF", COLS, registry=HttpSchemaRegistry(srv.url), topic="n")
        assert reader.deserialize(data) == ROW
        # an engine over the same registry infers the columns and derives from them
        with Engine(str(tmp_path), {"ksql.schema.registry.url": srv.url}) as e:
            e.log.create_topic("n", 1)
            e.execute("CREATE STREAM N WITH (kafka_topic='n', value_format='PROTOBUF');")
            assert [(c.name, c.type) for c in e.catalog.source("N").columns] == COLS
            e.execute("CREATE STREAM LONGEST WITH (value_format='PROTOBUF') AS SELECT ID, "
                      "MAP('n' := ROUTES['north'], 'all' := ARRAY[1, 2]) AS PICK, GRID['a'] AS A FROM N;")
            with e.log.transaction() as tx:
                from ksqlpy.log.base import ProducerRecord

                tx.produce_many([ProducerRecord("n", None, data, 0)])
            e.drain(10)
            out = e.catalog.source("LONGEST")
            batch = e.log.fetch("LONGEST", 0, 0, 10)
            assert e.value_serde(out).deserialize(batch.values[0]) == (
                4, {"n": [1, 2, 3], "all": [1, 2]}, {"x": [0.5], "y": []})
            assert "repeated ConnectDefault2Entry PICK = 2;" in srv.registry.latest("LONGEST-value").schema


def test_harness_codec_reads_and_writes_entry_maps() -> None:
    from ksqlpy.testing.protobuf_codec import ProtobufSrCodec

    reg = EmbeddedSchemaRegistry()
    reg.register("h-value", schema_text(COLS), "PROTOBUF")
    codec = ProtobufSrCodec(reg, "h-value")
    data = codec.encode({"ID": 9, "ROUTES": {"east": [5, 6]}, "GRID": {"g": {"z": [1.5]}}})
    assert value_serde("PROTOBUF", COLS, registry=reg, topic="h").deserialize(data) == (
        9, {"east": [5, 6]}, {"g": {"z": [1.5]}}, {})
    assert codec.decode(data) == {"ID": 9, "ROUTES": {"east": [5, 6]}, "GRID": {"g": {"z": [1.5]}}, "STOPS": {}}
