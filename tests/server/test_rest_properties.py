"""Properties over REST: ``ksql.streams.<name>`` and ``<name>`` are one property in the server's
configuration (-D, the properties file), ``/ksql`` ``streamsProperties``, SET inside a request, ``/query``
``streamsProperties`` and ``/query-stream`` ``properties``; the request wins over the configuration; unknown
and denylisted names get ksqlDB's messages under either spelling."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from server_helpers import ksql

from ksqlpy.server.config import build_config
from ksqlpy.testing.server_process import ServerProcess

SPELLINGS = ["auto.offset.reset", "ksql.streams.auto.offset.reset"]


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server configured with the prefixed spelling (as ksqlDB's docs write it) and a denylist naming the
    bare one."""
    props = tmp_path_factory.mktemp("props") / "server.properties"
    props.write_text("ksql.streams.auto.offset.reset=earliest\nksql.properties.overrides.denylist=num.stream.threads\n")
    proc = ServerProcess(str(tmp_path_factory.mktemp("server")), extra_args=[str(props)])
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture
def c(configured: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=configured.url, timeout=20) as client:
        yield client


def _stream(c: httpx.Client, name: str) -> None:
    ksql(c, f"CREATE STREAM {name} (ID INT KEY, V STRING) WITH (kafka_topic='{name.lower()}', partitions=1, "
            f"value_format='JSON'); INSERT INTO {name} (ID, V) VALUES (1, 'a');")


def _push_rows(c: httpx.Client, path: str, sql: str, props: dict[str, str]) -> list[Any]:
    key, pkey = ("sql", "properties") if path == "/query-stream" else ("ksql", "streamsProperties")
    r = c.post(path, json={key: sql, pkey: props}, headers={"Accept": "application/json"}, timeout=8)
    assert r.status_code == 200, r.text
    body = r.json()
    return [x for x in body[1:] if not (isinstance(x, dict) and "finalMessage" in x)]


def test_server_configuration_in_the_prefixed_spelling_applies(c: httpx.Client) -> None:
    _stream(c, "CONF1")
    # no request property: the configuration's earliest, not the built-in latest
    assert _push_rows(c, "/query-stream", "SELECT * FROM CONF1 EMIT CHANGES LIMIT 1;", {}) == [[1, "a"]]
    listing = {p["name"]: p for p in ksql(c, "SHOW PROPERTIES;")[0]["properties"]}
    assert listing["ksql.streams.auto.offset.reset"]["value"] == "earliest"
    assert "auto.offset.reset" not in listing


@pytest.mark.parametrize("name", SPELLINGS)
@pytest.mark.parametrize("path", ["/query", "/query-stream"])
def test_request_properties_beat_the_configuration(c: httpx.Client, name: str, path: str) -> None:
    stream = f"LATE{abs(hash((name, path))) % 10000}"
    _stream(c, stream)
    # latest: nothing old comes; a row inserted after the query started does
    key, pkey = ("sql", "properties") if path == "/query-stream" else ("ksql", "streamsProperties")
    with c.stream("POST", path, json={key: f"SELECT * FROM {stream} EMIT CHANGES LIMIT 1;", pkey: {name: "latest"}},
                  headers={"Accept": "application/json"}) as r:
        time.sleep(0.5)
        ksql(c, f"INSERT INTO {stream} (ID, V) VALUES (2, 'b');")
        body = r.read()
    assert b"[2,\"b\"]" in body and b"[1,\"a\"]" not in body


@pytest.mark.parametrize("name", SPELLINGS)
def test_streams_properties_and_set_on_ksql(c: httpx.Client, name: str) -> None:
    other = SPELLINGS[1 - SPELLINGS.index(name)]
    body = ksql(c, "SHOW PROPERTIES;", streamsProperties={name: "latest"})[0]
    listing = {p["name"]: p["value"] for p in body["properties"]}
    assert listing["ksql.streams.auto.offset.reset"] == "latest"
    assert body["overwrittenProperties"] == ["ksql.streams.auto.offset.reset"]
    # SET in the request wins over streamsProperties, whichever spelling either uses
    body = ksql(c, f"SET '{other}'='earliest'; SHOW PROPERTIES;", streamsProperties={name: "latest"})[0]
    assert {p["name"]: p["value"] for p in body["properties"]}["ksql.streams.auto.offset.reset"] == "earliest"
    assert body["overwrittenProperties"] == []  # earliest is what the server is configured with
    # both spellings in one map: the prefixed one wins
    body = ksql(c, "SHOW PROPERTIES;", streamsProperties={"auto.offset.reset": "latest",
                                                           "ksql.streams.auto.offset.reset": "earliest"})[0]
    assert {p["name"]: p["value"] for p in body["properties"]}["ksql.streams.auto.offset.reset"] == "earliest"


def test_unknown_denylisted_and_invalid_overrides(c: httpx.Client) -> None:
    cases = [
        ({"no.such.thing": "1"}, "Not recognizable as ksql, streams, consumer, or producer property: 'no.such.thing'"),
        ({"ksql.foo.bar": "1"}, "Not recognizable as ksql, streams, consumer, or producer property: 'ksql.foo.bar'"),
        # the pull and push query settings are names KsqlConfig defines, not an open namespace
        ({"ksql.query.pull.table.scans.enabled": "true"},
         "Not recognizable as ksql, streams, consumer, or producer property: 'ksql.query.pull.table.scans.enabled'"),
        ({"ksql.query.push.v2.nope": "true"},
         "Not recognizable as ksql, streams, consumer, or producer property: 'ksql.query.push.v2.nope'"),
        ({"ksql.streams.num.stream.threads": "2"},
         "One or more properties overrides set locally are prohibited by the KSQL server denylist (use UNSET to "
         "reset their default value): [ksql.streams.num.stream.threads]"),
        ({"auto.offset.reset": "sideways"},
         "Invalid value sideways for configuration auto.offset.reset: String must be one of: latest, earliest, none"),
        ({"producer.acks": "everyone"}, "Invalid value everyone for configuration acks: String must be one of: all, "
                                        "-1, 0, 1"),
        ({"ksql.streams.producer.compression.type": "Zstd"}, "Invalid value Zstd for configuration compression.type: "
                                                             "String must be one of: none, gzip, snappy, lz4, zstd"),
    ]
    for props, message in cases:
        for path, key, pkey in (("/ksql", "ksql", "streamsProperties"), ("/query", "ksql", "streamsProperties"),
                                ("/query-stream", "sql", "properties")):
            sql = "SHOW STREAMS;" if path == "/ksql" else "SELECT * FROM CONF1;"
            r = c.post(path, json={key: sql, pkey: props})
            assert r.status_code == 400, (path, props, r.text)
            assert r.json() == {"@type": "generic_error", "error_code": 40000, "message": message}
    r = c.post("/ksql", json={"ksql": "SET 'not.a.property'='1'; SHOW STREAMS;"})
    assert r.status_code == 400
    assert r.json()["message"] == "Unknown property: not.a.property"
    assert r.json()["statementText"] == "SET 'not.a.property'='1';"
    for name in ("ksql.foo.bar", "ksql.query.pull.nope"):
        r = c.post("/ksql", json={"ksql": f"SET '{name}'='1'; SHOW STREAMS;"})
        assert (r.status_code, r.json()["message"]) == (400, f"Unknown property: {name}")
    for name in ("num.stream.threads", "ksql.streams.num.stream.threads"):
        r = c.get(f"/is_valid_property/{name}")
        assert (r.status_code, r.json()) == (400, {"@type": "generic_error", "error_code": 40000, "message": (
            "One or more properties overrides set locally are prohibited by the KSQL server denylist (use UNSET "
            f"to reset their default value): [{name}]")})
    # /is_valid_property consults only the denylist: a name no config defines is valid there (the request that
    # then carries it is refused, and the CLI refuses to SET it)
    for name in ("ksql.foo.bar", "not.a.property", "ksql.query.pull.nope"):
        r = c.get(f"/is_valid_property/{name}")
        assert (r.status_code, r.json()) == (200, True)
    for name in ("ksql.nested.error.set.null", "ksql.functions.collect_set.limit", "ksql.any.key.name.enabled",
                 "ksql.string.case.config.toggle", "ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__"):
        assert c.get(f"/is_valid_property/{name}").json() is True
    for name in SPELLINGS:
        assert c.get(f"/is_valid_property/{name}").json() is True


# (request name, the definition's name the refusal gives): the properties the server fixes at start, under
# ksql.streams. and a client prefix too (named as their definitions)
IMMUTABLE = [("ksql.extension.dir", "ksql.extension.dir"), ("bootstrap.servers", "bootstrap.servers"),
             ("ksql.streams.bootstrap.servers", "bootstrap.servers"),
             ("ksql.query.persistent.active.limit", "ksql.query.persistent.active.limit"),
             ("ksql.pull.queries.enable", "ksql.pull.queries.enable"), ("ksql.hidden.topics", "ksql.hidden.topics"),
             ("ksql.readonly.topics", "ksql.readonly.topics"),
             ("ksql.source.table.materialization.enabled", "ksql.source.table.materialization.enabled"),
             ("ksql.headers.columns.enabled", "ksql.headers.columns.enabled"),
             ("ssl.truststore.location", "ssl.truststore.location"),
             ("ksql.streams.producer.ssl.keystore.password", "ssl.keystore.password")]


@pytest.mark.parametrize("name,definition", IMMUTABLE)
def test_a_property_the_server_fixes_cannot_be_overridden(c: httpx.Client, name: str, definition: str) -> None:
    """ksqlDB reads a request's overrides and SET with its LocalPropertyParser, whose LocalPropertyValidator
    refuses what ImmutableProperties lists: 'Cannot override property '<definition's name>'' - a request
    override on every endpoint (400/40000), SET in /ksql as the statement's error (40001), nothing run."""
    value = "true" if name.endswith(("enable", "enabled")) else "5" if name.endswith("limit") else "x"
    message = f"Cannot override property '{definition}'"
    for path, key, pkey, sql in (("/ksql", "ksql", "streamsProperties", "SHOW STREAMS;"),
                                 ("/query", "ksql", "streamsProperties", "SELECT * FROM CONF1;"),
                                 ("/query-stream", "sql", "properties", "SELECT * FROM CONF1;")):
        r = c.post(path, json={key: sql, pkey: {name: value}})
        assert (r.status_code, r.json()) == (400, {"@type": "generic_error", "error_code": 40000,
                                                   "message": message}), (path, r.text)
    set_ = f"SET '{name}'='{value}';"
    r = c.post("/ksql", json={"ksql": f"{set_} CREATE STREAM IMM (ID INT KEY) WITH (kafka_topic='imm', "
                                      "partitions=1, value_format='JSON');"})
    assert r.status_code == 400, r.text
    assert {k: r.json()[k] for k in ("error_code", "message", "statementText")} == {
        "error_code": 40001, "message": message, "statementText": set_}
    assert "IMM" not in {s["name"] for s in ksql(c, "SHOW STREAMS;")[0]["streams"]}


def test_an_immutable_property_with_a_bad_value_names_the_value_first(c: httpx.Client) -> None:
    """The value is parsed by its config before the validator looks at the name (LocalPropertyParser)."""
    r = c.post("/ksql", json={"ksql": "SHOW STREAMS;", "streamsProperties": {"ksql.pull.queries.enable": "no"}})
    assert r.status_code == 400
    assert r.json()["message"].startswith("Invalid value no for configuration ksql.pull.queries.enable:"), r.text


def test_cli_config_file_layering(tmp_path: Any) -> None:
    """The server's own layering: the file's prefixed spelling loses to -D's bare one."""
    f = tmp_path / "p.properties"
    f.write_text("ksql.streams.auto.offset.reset=earliest\n")
    config = build_config(str(f), overrides={"auto.offset.reset": "latest"}, data_dir=str(tmp_path))
    assert config.engine_properties.get("auto.offset.reset") == "latest"
    assert "ksql.streams.auto.offset.reset" not in config.engine_properties


@pytest.mark.parametrize("name,value", [
    ("ksql.any.key.name.enabled", "true"), ("ksql.shared.runtime.enabled", "false"),
    ("ksql.string.case.config.toggle", "true"), ("ksql.deadletterqueue.insert.error", "x"),
    ("ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__", "0"),
    ("ksql.query.pull.consistency.token.enabled", "false"), ("ksql.query.pull.enable.standby.reads", "true"),
    ("ksql.query.pull.forwarding.timeout.ms", "20000"), ("ksql.query.push.v2.continuation.tokens.enabled", "false"),
    ("ksql.query.push.v2.new.latest.delay.ms", "5000")])
def test_defined_names_are_accepted_as_overrides_and_by_set(c: httpx.Client, name: str, value: str) -> None:
    """Every name KsqlConfig (or Kafka Streams, internal ones included) defines passes the request check and SET."""
    for path, key, pkey, sql in (("/ksql", "ksql", "streamsProperties", "SHOW STREAMS;"),
                                 ("/query-stream", "sql", "properties", "SELECT * FROM NO_SUCH_SOURCE;")):
        r = c.post(path, json={key: sql, pkey: {name: value}})
        assert "Not recognizable" not in r.text, (path, r.text)
    r = c.post("/ksql", json={"ksql": f"SET '{name}'='{value}'; SHOW STREAMS;"})
    assert r.status_code == 200, r.text


def test_is_valid_property_with_shared_runtimes(tmp_path: Any) -> None:
    """With shared runtimes on, /is_valid_property refuses a property that is not query-level (it can only be
    set for the whole cluster) and still accepts the query-level ones (from memory of ksqlDB's
    KsqlResource.isValidProperty)."""
    proc = ServerProcess(str(tmp_path), {"ksql.runtime.feature.shared.enabled": "true"})
    proc.start()
    try:
        with httpx.Client(base_url=proc.url, timeout=20) as c:
            for name in ("auto.offset.reset", "ksql.streams.auto.offset.reset", "ksql.query.pull.table.scan.enabled"):
                assert (c.get(f"/is_valid_property/{name}").json()) is True
            for name in ("ksql.any.key.name.enabled", "num.stream.threads", "ksql.foo.bar"):
                r = c.get(f"/is_valid_property/{name}")
                assert r.status_code == 400
                assert r.json() == {"@type": "generic_error", "error_code": 40000, "message": (
                    f"When shared runtimes are enabled, the config {{{name}=}} can only be set for the entire "
                    "cluster and all queries currently running in it, and not configurable for individual "
                    "queries. Please use ALTER SYSTEM to change this config for all queries.")}
    finally:
        proc.stop()
