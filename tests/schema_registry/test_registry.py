"""The embedded registry: ids, versions, dedupe, and durability on the engine's log across restarts."""

from __future__ import annotations

import json

from ksqlpy.engine.engine import Engine
from ksqlpy.schema_registry import EmbeddedSchemaRegistry, open_registry, subject


def test_ids_versions_and_dedupe() -> None:
    reg = EmbeddedSchemaRegistry()
    a = reg.register("t-value", json.dumps({"type": "int"}))
    assert reg.register("t-value", '{"type":   "int"}') == a  # same schema, same version
    b = reg.register("t-value", '"string"')
    assert b != a and reg.latest("t-value").id == b and reg.latest("t-value").version == 2
    assert reg.register("u-value", '"string"') == b  # one id per schema across subjects
    assert reg.by_id(a).schema_type == "AVRO" and reg.latest("nope") is None
    assert reg.register("x-value", '"long"', schema_id=7) == 7
    assert reg.register("y-value", '"boolean"') == 3  # holes are filled first
    assert subject("t", True) == "t-key"


def test_url_selects_http_client() -> None:
    assert type(open_registry({"ksql.schema.registry.url": "http://localhost:1"})).__name__ == "HttpSchemaRegistry"
    assert isinstance(open_registry({}), EmbeddedSchemaRegistry)


def test_registry_survives_restart(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.execute("CREATE STREAM S (K STRING KEY, A INT) WITH (kafka_topic='s', format='AVRO', partitions=1);")
        sid = e.schema_registry.latest("s-value").id
    with Engine(str(tmp_path), {}) as e:
        got = e.schema_registry.latest("s-value")
        assert got is not None and got.id == sid
        assert "KsqlDataSourceSchema" in got.schema
        assert e.schema_registry.subjects() == ["s-key", "s-value"]
