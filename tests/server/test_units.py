"""Server building blocks without a server: configuration, values on the wire, negotiation, command log."""

from __future__ import annotations

import decimal
from typing import Any

import pytest

from ksqlpy import grammar
from ksqlpy import types as T
from ksqlpy.engine.command_log import CommandLog, command_id, command_topic_name, is_distributed, replay
from ksqlpy.server.config import ConfigError, build_config, parse_listener, parse_properties
from ksqlpy.server.errors import ServerError
from ksqlpy.server.models import KsqlRequest, parse_body
from ksqlpy.server.properties import check_overrides, check_property
from ksqlpy.server.streaming import DELIMITED, JSON, KSQL_V1_JSON, accept_list, choose
from ksqlpy.server.values import converter, dumps, row_converter


def test_properties_file_syntax() -> None:
    text = "# comment\n! also\nlisteners=http://0.0.0.0:9000\nksql.service.id : svc_\nkey value with spaces\n" \
           "long = a\\\n    b\nesc=tab\\there\\u0041\n"
    assert parse_properties(text) == {"listeners": "http://0.0.0.0:9000", "ksql.service.id": "svc_",
                                      "key": "value with spaces", "long": "ab", "esc": "tab\thereA"}


def test_flags_override_the_file(tmp_path: Any) -> None:
    f = tmp_path / "ksql-server.properties"
    f.write_text("listeners=http://0.0.0.0:9000\nksql.service.id=svc_\nksql.streams.state.dir=/tmp/x\n")
    cfg = build_config(str(f), "http://127.0.0.1:9001", None)
    assert cfg.listeners[0].url == "http://127.0.0.1:9001" and cfg.service_id == "svc_"
    assert cfg.data_dir == "/tmp/x"
    assert build_config(str(f), None, "/tmp/y").data_dir == "/tmp/y"
    assert "listeners" not in cfg.engine_properties


def test_config_errors(tmp_path: Any) -> None:
    with pytest.raises(ConfigError, match="Cannot read"):
        build_config(str(tmp_path / "missing.properties"))
    with pytest.raises(ConfigError, match="scheme"):
        parse_listener("ftp://x:1")
    with pytest.raises(ConfigError, match="users.file"):
        build_config(overrides={"authentication.method": "BASIC"})
    with pytest.raises(ConfigError, match="ssl.certificate.location"):
        build_config(listeners="https://127.0.0.1:8443")
    with pytest.raises(ConfigError, match="not a number"):
        build_config(overrides={"ksql.max.push.queries": "many"})


def test_values_as_ksqldb_writes_them() -> None:
    assert converter(T.TIMESTAMP)(1_600_000_000_123) == "2020-09-13T12:26:40.123"
    assert converter(T.DATE)(18_000) == "2019-04-14"
    assert converter(T.TIME)(3_600_000) == "01:00"
    assert converter(T.TIME)(3_661_000) == "01:01:01"
    assert converter(T.TIME)(3_661_005) == "01:01:01.005"
    assert converter(T.BYTES)(b"\x01\x02") == "AQI="
    row = row_converter([T.Decimal(10, 2), T.Array(T.TIMESTAMP), T.Struct((("A", T.DATE),)),
                         T.Map(T.STRING, T.BYTES), T.DOUBLE, T.STRING])
    out = row((decimal.Decimal("1E+3"), [0], {"A": 1}, {"k": b"a"}, float("nan"), "s"))
    assert dumps(out) == b'[1000,["1970-01-01T00:00:00.000"],{"A":"1970-01-02"},{"k":"YQ=="},"NaN","s"]'
    assert row_converter([T.INTEGER, T.STRING])((1, None)) == [1, None]


def test_accept_negotiation() -> None:
    assert accept_list("application/json;q=0.5, application/vnd.ksql.v1+json") == [KSQL_V1_JSON, JSON]
    supported = [DELIMITED, JSON, KSQL_V1_JSON]
    assert choose(None, supported, DELIMITED) == DELIMITED
    assert choose("*/*", supported, DELIMITED) == DELIMITED
    assert choose("text/html, application/json", supported, DELIMITED) == JSON
    assert choose("text/html", supported, DELIMITED) is None
    assert choose("application/json;q=0", supported, DELIMITED) == DELIMITED


def test_request_bodies() -> None:
    req = parse_body(b'{"ksql":"SHOW STREAMS;","unknown":1}', KsqlRequest)
    assert req.ksql == "SHOW STREAMS;" and req.streamsProperties == {}
    for bad in (b"{", b"[]", b'{"ksql": [1]}', b'{"streamsProperties": 1}', b""):
        with pytest.raises(ServerError) as e:
            parse_body(bad, KsqlRequest)
        assert e.value.error_code == 40000 and e.value.message.startswith("Invalid JSON in request")


def test_overridable_properties() -> None:
    check_property("auto.offset.reset", set())
    check_property("ksql.streams.cache.max.bytes.buffering", set())
    check_property("ksql.functions.anything.at.all", set())
    for unknown in ("nope", "ksql.anything"):  # a ksql.* name KsqlConfig does not define is unknown too
        with pytest.raises(ServerError, match="Not recognizable"):
            check_property(unknown, set())
    with pytest.raises(ServerError, match="denylist"):
        check_property("ksql.streams.num.stream.threads", {"num.stream.threads"})
    assert check_overrides({"auto.offset.reset": "earliest", "commit.interval.ms": 10, "ksql.suppress.enabled": None} |
                           {"ksql.lambdas.enabled": True}, set()) == {
        "auto.offset.reset": "earliest", "commit.interval.ms": "10", "ksql.lambdas.enabled": "true"}


@pytest.mark.parametrize("sql, cid", [
    ("CREATE STREAM S (A INT) WITH (kafka_topic='t', value_format='JSON');", "stream/S/create"),
    ("CREATE TABLE T AS SELECT A, COUNT(*) FROM S GROUP BY A;", "table/T/create"),
    ("INSERT INTO S2 SELECT * FROM S;", "stream/S2/create"),
    ("DROP TABLE T;", "table/T/drop"),
    ("CREATE TYPE ADDR AS STRUCT<A INT>;", "type/ADDR/create"),
    ("DROP TYPE ADDR;", "type/ADDR/drop"),
    ("TERMINATE CSAS_X_1;", "terminate/CSAS_X_1/execute"),
    ("TERMINATE ALL;", "terminate/ALL/execute"),
    ("PAUSE ALL;", "pause/ALL/execute"),
    ("RESUME CTAS_T_2;", "resume/CTAS_T_2/execute"),
])
def test_command_ids(sql: str, cid: str) -> None:
    stmt = grammar.parse(sql)[0]
    assert command_id(stmt) == cid and is_distributed(stmt)


def test_local_statements_are_not_distributed() -> None:
    for sql in ("SHOW STREAMS;", "DESCRIBE S;", "INSERT INTO S (A) VALUES (1);", "SET 'a'='b';"):
        assert not is_distributed(grammar.parse(sql)[0])
    assert not is_distributed(grammar.parse("TERMINATE transient_S_1;")[0], {"TRANSIENT_S_1"})


def test_command_log_round_trip_and_replay(tmp_path: Any) -> None:
    """Commands written with their offsets replay to the same catalog and the same query ids."""
    from ksqlpy.engine import Engine
    from ksqlpy.engine.command_log import execute_command

    assert command_topic_name("default_") == "_confluent-ksql-default__command_topic"
    with Engine(str(tmp_path / "a")) as engine:
        log = CommandLog(engine.log, "default_")
        log.ensure_topic()
        log.ensure_topic()  # idempotent
        ids = []
        for sql in ("CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', partitions=1, "
                    "value_format='JSON');", "CREATE STREAM S2 AS SELECT * FROM S;",
                    "CREATE TABLE T AS SELECT ID, COUNT(*) AS N FROM S GROUP BY ID;", "TERMINATE ALL;"):
            stmt = grammar.parse(sql)[0]
            offset = log.next_offset()
            result = execute_command(engine, stmt, offset, {"auto.offset.reset": "earliest"})
            ids.append(result.query_id)
            assert log.append(command_id(stmt), stmt.text, {"auto.offset.reset": "earliest"}, {}) == offset
        assert ids[1:3] == ["CSAS_S2_1", "CTAS_T_2"]
        commands = log.read_all()
        assert [c.offset for c in commands] == [0, 1, 2, 3]
        assert commands[1].command_id == "stream/S2/create"
        assert commands[1].streams_properties == {"auto.offset.reset": "earliest"}
        data_dir = engine.data_dir
    with Engine(data_dir) as engine:
        seen: list[Any] = []
        replay(engine, CommandLog(engine.log, "default_").read_all(), lambda c, r, e: seen.append((c, r, e)))
        assert [e for _, _, e in seen] == [None] * 4
        assert [r.query_id for _, r, _ in seen[1:3]] == ["CSAS_S2_1", "CTAS_T_2"]
        assert {s.name for s in engine.catalog.sources()} == {"S", "S2", "T"}
        assert engine.queries == {}


def test_replay_reports_a_failing_command_and_goes_on(tmp_path: Any) -> None:
    from ksqlpy.engine import Engine
    from ksqlpy.engine.command_log import Command

    with Engine(str(tmp_path)) as engine:
        commands = [Command(0, "stream/X/drop", "DROP STREAM X;"),
                    Command(1, "type/T/create", "CREATE TYPE T AS INT;"),
                    Command(2, "type/U/create", "CREATE TYPE U AS INT;", version=99)]
        seen: list[Any] = []
        replay(engine, commands, lambda c, r, e: seen.append((c.offset, e is None)))
        assert seen == [(0, False), (1, True), (2, False)]
        assert engine.catalog.type("T") is not None and engine.catalog.type("U") is None


def test_a_query_started_for_a_client_that_left_is_closed() -> None:
    """Bug: a request cancelled while its query was starting leaked the push query."""
    import time as _time

    import anyio

    from ksqlpy.server import queries as Q

    closed: list[str] = []

    class Ctx:
        def close_push(self, qid: str) -> bool:
            closed.append(qid)
            return True

    def slow_start() -> Q.QueryRun:
        _time.sleep(0.2)
        return Q.QueryRun(Q.PUSH, "transient_X_1")

    async def main() -> None:
        with anyio.move_on_after(0.05):
            await Q.start(Ctx(), slow_start)  # type: ignore[arg-type]
        assert closed == ["transient_X_1"]

    anyio.run(main)
