"""Servers sharing a command topic run the prepared statement the accepting server wrote (its sandbox's
injectors' output), so a server that starts later - or restarts - after the registry subject moved on builds
the same sources as the one that accepted them (ksqlDB's command carries the injected statement's plan).

Two or three ``ServerContext``s over one embedded log (and its embedded registry) stand in for the servers."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.grammar import parse
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.server.config import build_config
from ksqlpy.server.context import ServerContext

V1 = {"type": "record", "name": "Reading", "namespace": "src.ns", "fields": [{"name": "A", "type": "int"}]}
V2 = {**V1, "fields": [*V1["fields"], {"name": "B", "type": ["null", "string"], "default": None}]}


class Servers:
    def __init__(self, root: str) -> None:
        self.root = root
        self.log = EmbeddedLog(os.path.join(root, "log"))
        self.started: list[ServerContext] = []

    def start(self, name: str, **config: Any) -> ServerContext:
        data = os.path.join(self.root, name)
        settings = {"ksql.logging.processing.stream.auto.create": "false",
                    "ksql.logging.processing.topic.auto.create": "false", **config}
        built = build_config(None, "http://127.0.0.1:1", data, settings)
        ctx = ServerContext(built, Engine(data, built.engine_properties, log=self.log, lock=False))
        ctx.initialize()
        assert ctx.state == "READY", ctx.init_error
        self.started.append(ctx)
        return ctx

    def close(self) -> None:
        for ctx in self.started:
            if ctx.runner is not None:
                ctx.runner.close()
            ctx.engine._stop.set()
            if ctx.engine._runner is not None:
                ctx.engine._runner.join(5)
        self.log.close()


@pytest.fixture
def servers(tmp_path: Any) -> Iterator[Servers]:
    s = Servers(str(tmp_path))
    try:
        yield s
    finally:
        s.close()


def run(ctx: ServerContext, sql: str, properties: dict[str, Any] | None = None) -> tuple[Any, int]:
    result, seq, _ = ctx.run_distributed(parse(sql)[0], properties or {})
    return result, seq


def columns(ctx: ServerContext, name: str) -> list[tuple[str, str]]:
    src = ctx.engine.catalog.source(name)
    assert src is not None, name
    return [(c.name, str(c.type)) for c in src.columns]


def stored(log: EmbeddedLog, topic: str) -> list[dict[str, Any]]:
    batch = log.fetch(topic, 0, 0, 1000)
    return [orjson.loads(v) for v in batch.values if v is not None]


def test_a_later_server_builds_what_the_first_accepted(servers: Servers) -> None:
    a = servers.start("a")
    a.engine.log.create_topic("in", 1)
    a.engine.schema_registry.register("in-value", json.dumps(V1))
    created, seq = run(a, "CREATE STREAM S WITH (kafka_topic='in', value_format='AVRO');")
    run(a, "CREATE STREAM S2 AS SELECT * FROM S;")
    # the REST statementText and the command are the injected statement
    text = "CREATE STREAM S (A INTEGER) WITH (KAFKA_TOPIC='in', KEY_FORMAT='KAFKA', VALUE_FORMAT='AVRO');"
    assert created.injected_text == text
    records = stored(servers.log, a.commands.topic)
    assert [r["statement"] for r in records][0] == text and all(r["prepared"] for r in records)
    assert "CLEANUP_POLICY='delete', KAFKA_TOPIC='S2'" in records[1]["statement"]
    a.engine.schema_registry.register("in-value", json.dumps(V2))
    b = servers.start("b", **{"ksql.persistence.default.format.key": "JSON"})
    for ctx in (a, b):
        assert columns(ctx, "S") == columns(ctx, "S2") == [("A", "INTEGER")]
        assert ctx.engine.catalog.source("S").key_format == "KAFKA"
    assert set(b.engine.queries) == set(a.engine.queries)


def test_schema_ids_run_on_every_server(servers: Servers) -> None:
    """The own runner and another server's both run the injected CREATE: columns beside the ids."""
    a, b = servers.start("a"), servers.start("b")
    a.engine.log.create_topic("in", 1)
    vid = a.engine.schema_registry.register("in-value", json.dumps(V1))
    created, seq = run(a, f"CREATE STREAM S WITH (kafka_topic='in', value_format='AVRO', value_schema_id={vid});",
                       {"auto.offset.reset": "earliest"})
    assert created.injected_text == ("CREATE STREAM S (A INTEGER) WITH (KAFKA_TOPIC='in', KEY_FORMAT='KAFKA', "
                                     f"VALUE_FORMAT='AVRO', VALUE_SCHEMA_FULL_NAME='src.ns.Reading', "
                                     f"VALUE_SCHEMA_ID={vid});")
    b.wait_for_command(seq)
    assert b.statuses["stream/S/create"]["status"] == "SUCCESS", b.statuses
    for ctx in (a, b):
        assert columns(ctx, "S") == [("A", "INTEGER")]
        assert ctx.engine.catalog.source("S").sql == created.injected_text
    (record,) = stored(servers.log, a.commands.topic)
    assert record["streamsProperties"] == {"auto.offset.reset": "earliest"}


def test_a_session_variable_reaches_every_server_substituted(servers: Servers) -> None:
    a, b = servers.start("a"), servers.start("b")
    (stmt,) = parse("CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='${t}', value_format='JSON', "
                    "partitions=1);", {"t": "vt"})
    _, seq, _ = a.run_distributed(stmt, {})
    b.wait_for_command(seq)
    assert b.engine.catalog.source("S").topic == "vt"
    assert "${" not in stored(servers.log, a.commands.topic)[0]["statement"]


def test_a_sink_topic_is_configured_from_what_the_user_wrote(servers: Servers) -> None:
    """The command's CREATE ... AS SELECT carries TopicCreateInjector's RETENTION_MS and CLEANUP_POLICY; the
    runner that creates the sink topic configures it as the statement sent would (a RETENTION_MS written is
    the topic's retention.ms, one the injector added is not), and takes them without refusing them."""
    a = servers.start("a")
    run(a, "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    run(a, "CREATE STREAM PLAIN AS SELECT * FROM S;")
    run(a, "CREATE STREAM KEPT WITH (retention_ms=5000) AS SELECT * FROM S;")
    run(a, "CREATE TABLE W AS SELECT ID, COUNT(*) C FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID;")
    records = {r["statement"].split(" WITH ")[0]: r for r in stored(servers.log, a.commands.topic)}
    assert records["CREATE STREAM PLAIN"]["injectedProperties"] == [
        "CLEANUP_POLICY", "KAFKA_TOPIC", "PARTITIONS", "REPLICAS", "RETENTION_MS"]
    assert "RETENTION_MS" not in records["CREATE STREAM KEPT"]["injectedProperties"]
    assert servers.log.describe_topic("PLAIN").config == {"cleanup.policy": "delete"}
    assert servers.log.describe_topic("KEPT").config == {"cleanup.policy": "delete", "retention.ms": "5000"}
    assert servers.log.describe_topic("W").config == {"cleanup.policy": "compact,delete"}


def test_a_default_key_format_override_reaches_the_other_server(servers: Servers) -> None:
    """ksql.persistence.default.format.key in a request's properties is a format name, not a key to hide:
    the other server (without this one's secret store) reads it back and builds the same sink."""
    a, b = servers.start("a"), servers.start("b")
    run(a, "CREATE STREAM S (V STRING, N INT) WITH (kafka_topic='s', value_format='JSON', key_format='NONE', "
           "partitions=1);")
    created, seq = run(a, "CREATE STREAM K AS SELECT * FROM S PARTITION BY V;",
                       {"ksql.persistence.default.format.key": "JSON"})
    b.wait_for_command(seq)
    assert b.statuses["stream/K/create"]["status"] == "SUCCESS", b.statuses
    assert a.engine.catalog.source("K").key_format == b.engine.catalog.source("K").key_format == "JSON"
