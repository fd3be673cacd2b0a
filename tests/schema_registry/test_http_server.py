"""The HTTP registry: Confluent's REST API through our own client, subject deletion, and an engine on it."""

from __future__ import annotations

from decimal import Decimal

from ksqlpy import types as T
from ksqlpy.engine.engine import Engine
from ksqlpy.schema_registry import EmbeddedSchemaRegistry, HttpSchemaRegistry
from ksqlpy.schema_registry.http_server import RegistryServer
from ksqlpy.serde import value_serde


def test_client_and_server_speak_confluents_api() -> None:
    with RegistryServer() as srv:
        client = HttpSchemaRegistry(srv.url)
        sid = client.register("t-value", 'syntax = "proto3"; message M { int32 a = 1; }', "PROTOBUF")
        got = client.by_id(sid)
        assert got.schema_type == "PROTOBUF" and "message M" in got.schema
        latest = client.latest("t-value")
        assert (latest.id, latest.version, latest.subject) == (sid, 1, "t-value")
        assert client.subjects() == ["t-value"] and client.latest("nope") is None and client.by_id(999) is None
        assert client.register("u-key", '"int"', schema_id=42) == 42 and client.by_id(42).schema_type == "AVRO"


def test_deleted_subjects_are_gone_but_ids_stay_readable(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        reg = e.schema_registry
        sid = reg.register("d-value", '"string"')
        assert reg.delete_subject("d-value") == [1] and reg.delete_subject("d-value") == []
        assert reg.latest("d-value") is None and reg.by_id(sid) is not None
        reg.register("d-value", '"long"')
    with Engine(str(tmp_path), {}) as e:  # the deletion is durable: one version after the restart
        assert [rs.schema for rs in e.schema_registry.versions("d-value")] == ['"long"']


def test_protobuf_round_trip_through_the_http_registry(tmp_path) -> None:
    cols = [("ID", T.BIGINT), ("PRICE", T.Decimal(6, 2)), ("TAGS", T.Array(T.STRING))]
    with RegistryServer(EmbeddedSchemaRegistry()) as srv:
        writer = value_serde("PROTOBUF", cols, registry=HttpSchemaRegistry(srv.url), topic="p")
        data = writer.serialize((7, Decimal("12.50"), ["a"]))
        assert srv.registry.latest("p-value").schema_type == "PROTOBUF"
        reader = value_serde("PROTOBUF", cols, registry=HttpSchemaRegistry(srv.url), topic="p")
        assert reader.deserialize(data) == (7, Decimal("12.50"), ["a"])
        with Engine(str(tmp_path), {"ksql.schema.registry.url": srv.url}) as e:
            e.execute("CREATE STREAM P WITH (kafka_topic='p', value_format='PROTOBUF', partitions=1);")
            assert [(c.name, c.type) for c in e.catalog.source("P").columns] == cols
