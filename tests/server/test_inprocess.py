"""The ASGI app in-process (Starlette's TestClient): WebSocket queries, PRINT, the start-up gate."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
from app_client import serving  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    config = build_config(data_dir=str(tmp_path_factory.mktemp("inproc")),
                          overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as c:
        c.post("/ksql", json={"ksql": "CREATE STREAM WS (ID INT KEY, V STRING) WITH (kafka_topic='ws', "
                                      "partitions=1, value_format='JSON'); INSERT INTO WS (ID, V) VALUES (1, 'a'); "
                                      "INSERT INTO WS (ID, V) VALUES (2, 'b');"})
        yield c


def ws_url(sql: str, **props: Any) -> str:
    return "/ws/query?request=" + quote(json.dumps({"ksql": sql, "streamsProperties": props}))


def test_websocket_push_query(app_client: TestClient) -> None:
    with app_client.websocket_connect(ws_url("SELECT * FROM WS EMIT CHANGES LIMIT 2;",
                                             **{"auto.offset.reset": "earliest"})) as ws:
        fields = json.loads(ws.receive_text())
        assert fields == [{"name": "ID", "schema": {"type": "INTEGER", "fields": None, "memberSchema": None}},
                          {"name": "V", "schema": {"type": "STRING", "fields": None, "memberSchema": None}}]
        assert json.loads(ws.receive_text()) == {"row": {"columns": [1, "a"]}}
        assert json.loads(ws.receive_text()) == {"row": {"columns": [2, "b"]}}
        assert json.loads(ws.receive_text()) == {"error": "done"}  # SessionUtil.closeSilently's final frame
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1000


def test_websocket_bad_statement_closes_1003(app_client: TestClient) -> None:
    with app_client.websocket_connect(ws_url("SELECT * FROM NOPE EMIT CHANGES;")) as ws:
        assert "NOPE does not exist" in json.loads(ws.receive_text())["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1003


def test_print_topic(app_client: TestClient) -> None:
    r = app_client.post("/query", json={"ksql": "PRINT 'ws' FROM BEGINNING LIMIT 2;"})
    lines = r.text.splitlines()
    assert lines[:2] == ["Key format: KAFKA_INT", "Value format: JSON or KAFKA_STRING"]
    assert lines[2].startswith("rowtime: ") and lines[2].endswith(', key: 1, value: {"V":"a"}, partition: 0')
    assert len(lines) == 4
    missing = app_client.post("/query", json={"ksql": "PRINT 'WS';"})
    # the topics matching but for case, as the statements to type (ksqlDB's handlePrintTopic)
    assert missing.status_code == 400 and missing.json()["message"] == (
        "Could not find topic 'WS', or the KSQL user does not have permissions to list the topic. Topic names are "
        "case-sensitive.\nDid you mean:\n\tprint ws;")
    missing = app_client.post("/query", json={"ksql": "PRINT 'nowhere';"})
    assert missing.status_code == 400 and missing.json()["message"] == (
        "Could not find topic 'nowhere', or the KSQL user does not have permissions to list the topic. Topic names "
        "are case-sensitive.")
    assert app_client.post("/query-stream", json={"sql": "PRINT 'ws';"},
                           headers={"Accept": "application/json"}).status_code == 406


def test_openapi_schema_describes_the_bodies(app_client: TestClient) -> None:
    spec = app_client.get("/openapi.json").json()
    body = spec["paths"]["/ksql"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    # ksqlDB's KsqlRequest reads an absent ksql as empty (refused later, by the statement rules)
    assert "ksql" in body["properties"] and "streamsProperties" in body["properties"] and not body.get("required")
    stream = spec["paths"]["/query-stream"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert stream["required"] == ["sql"] and "/close-query" in spec["paths"]


def test_not_ready_until_initialized(tmp_path: Any) -> None:
    app = create_app(build_config(data_dir=str(tmp_path)))
    c = TestClient(app)  # no lifespan: the server never initializes
    r = c.get("/info")
    assert r.status_code == 503 and r.json()["error_code"] == 50302
    assert c.get("/chc/ready").status_code == 200


def test_terminate_cluster(tmp_path: Any) -> None:
    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as c:
        r = c.post("/ksql", json={"ksql": "CREATE STREAM A (ID INT KEY, V INT) WITH (kafka_topic='a', partitions=1, "
                                          "value_format='JSON'); CREATE STREAM B AS SELECT * FROM A;"})
        assert r.status_code == 200, r.text
        assert c.post("/ksql/terminate", json={"deleteTopicList": ["["]}).status_code == 400
        r = c.post("/ksql/terminate", json={"deleteTopicList": ["B"]})
        assert r.status_code == 200
        assert r.json()[0]["commandId"] == "cluster/TerminateCluster/terminate"
        after = c.post("/ksql", json={"ksql": "SHOW STREAMS;"})
        assert after.status_code == 503 and after.json()["error_code"] == 50304
        log = c.app.state.ctx.engine.log  # type: ignore[attr-defined]
        assert not log.topic_exists("B") and log.topic_exists("a")
        assert not log.topic_exists("_confluent-ksql-default__command_topic")


def test_pull_on_source_table_with_headers_prints_the_source_schema(app_client: TestClient) -> None:
    """ksqlDB answers ``SELECT *`` on a SOURCE table with the source's schema: keys, header columns (with
    their HEADER clause), values - while rows keep the select order (keys, values, headers)."""
    r = app_client.post("/ksql", json={"ksql": "CREATE SOURCE TABLE HT (K INT PRIMARY KEY, TXT STRING, "
                                               "H BYTES HEADER('abc')) WITH (kafka_topic='ht', partitions=1, "
                                               "value_format='DELIMITED');"})
    assert r.status_code == 200, r.text
    body = app_client.post("/query", json={"ksql": "SELECT * FROM HT;"},
                           headers={"Accept": "application/vnd.ksql.v1+json"}).json()
    assert body[0]["header"]["schema"] == "`K` INTEGER KEY, `H` BYTES HEADER('abc'), `TXT` STRING"
    body = app_client.post("/query", json={"ksql": "SELECT K, TXT FROM HT;"},
                           headers={"Accept": "application/vnd.ksql.v1+json"}).json()
    assert body[0]["header"]["schema"] == "`K` INTEGER KEY, `TXT` STRING"


def test_protobuf_query_responses(app_client: TestClient) -> None:
    """``application/vnd.ksql.v1+protobuf``: the header adds the row message's .proto (maps as Connect's
    entry messages), each row is the base64 of one message of it."""
    import base64

    from ksqlpy.serde.protobuf_schema import parse_proto
    from ksqlpy.serde.protobuf_wire import decode

    app_client.post("/ksql", json={"ksql": "CREATE STREAM PB (ID INT KEY, N STRING, M MAP<STRING, INT>) WITH "
                                           "(kafka_topic='pb', partitions=1, value_format='JSON'); "
                                           "INSERT INTO PB (ID, N, M) VALUES (7, 'x', MAP('a' := 1));"})
    r = app_client.post("/query", json={"ksql": "SELECT * FROM PB;"},
                        headers={"Accept": "application/vnd.ksql.v1+protobuf"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/vnd.ksql.v1+protobuf")
    body = json.loads(r.text)
    header = body[0]["header"]
    assert header["schema"] == "`ID` INTEGER, `N` STRING, `M` MAP<STRING, INTEGER>"
    assert header["protoSchema"] == (
        'syntax = "proto3";\n\nmessage ConnectDefault1 {\n  int32 ID = 1;\n  string N = 2;\n'
        "  repeated ConnectDefault2Entry M = 3;\n\n  message ConnectDefault2Entry {\n    string key = 1;\n"
        "    int32 value = 2;\n  }\n}\n")
    file = parse_proto(header["protoSchema"])
    row = decode(file, file.messages[0], base64.b64decode(body[1]["row"]["protobufBytes"]))
    assert row == {"ID": 7, "N": "x", "M": [{"key": "a", "value": 1}]}
    assert body[-1] == {"finalMessage": "Query Completed"}


def test_a_push_query_reading_from_earliest_is_never_scalable(app_client: TestClient) -> None:
    """A scalable push query reads from latest (ksqlDB's ScalablePushUtil): with ``auto.offset.reset``
    earliest a push query over a query's sink is a conventional one even with ``ksql.query.push.v2.enabled``,
    and shows the record whose key is NULL (a scalable one leaves it out:
    tests/cases/rest/scalable-push-eligibility.json)."""
    r = app_client.post("/ksql", json={"ksql": "CREATE STREAM NK (K INT KEY, V INT) WITH (kafka_topic='nk', "
                                               "partitions=1, value_format='JSON'); CREATE STREAM NK2 AS SELECT * "
                                               "FROM NK; INSERT INTO NK (V) VALUES (1); "
                                               "INSERT INTO NK (K, V) VALUES (2, 2); INSERT INTO NK (K, V) VALUES (3, 3);"})
    assert r.status_code == 200, r.text

    def rows(**props: Any) -> list[Any]:
        body = app_client.post("/query", json={"ksql": "SELECT * FROM NK2 EMIT CHANGES LIMIT 2;", "streamsProperties":
                                               {"auto.offset.reset": "earliest", **props}},
                               headers={"Accept": "application/vnd.ksql.v1+json"}).json()
        return [e["row"]["columns"] for e in body if "row" in e]

    assert rows() == [[None, 1], [2, 2]]
    assert rows(**{"ksql.query.push.v2.enabled": "true"}) == [[None, 1], [2, 2]]


def test_a_join_is_never_a_scalable_push_query(app_client: TestClient) -> None:
    """ksqlDB serves only a plain query over a query's sink as a scalable push query, never a join: with
    ``ksql.query.push.v2.enabled`` a join over such a sink still sees the records without a key (a LEFT
    stream-table join emits them at once)."""
    r = app_client.post("/ksql", json={"ksql": "CREATE STREAM JK (K INT KEY, V INT) WITH (kafka_topic='jk', "
                                               "partitions=1, value_format='JSON'); CREATE STREAM JK2 AS SELECT * "
                                               "FROM JK; CREATE TABLE JT (ID INT PRIMARY KEY, W STRING) WITH "
                                               "(kafka_topic='jt', partitions=1, value_format='JSON'); "
                                               "INSERT INTO JK (V) VALUES (1); INSERT INTO JK (K, V) VALUES (2, 2);"})
    assert r.status_code == 200, r.text
    body = app_client.post("/query", json={"ksql": "SELECT JK2.K, JK2.V, JT.W FROM JK2 LEFT JOIN JT ON JK2.K = JT.ID "
                                                   "EMIT CHANGES LIMIT 2;",
                                           "streamsProperties": {"auto.offset.reset": "earliest",
                                                                 "ksql.query.push.v2.enabled": "true"}},
                           headers={"Accept": "application/vnd.ksql.v1+json"}).json()
    assert [e["row"]["columns"] for e in body if "row" in e] == [[None, 1, None], [2, 2, None]]


def test_websocket_push_query_on_a_table_leaves_deletes_out(app_client: TestClient) -> None:
    """ksqlDB's WebSocket push query runs with excludeTombstones: a table's delete sends no frame, and LIMIT
    counts the rows sent (a WHERE's row that stops matching is a delete of the result too)."""
    app_client.post("/ksql", json={"ksql": "CREATE TABLE WT (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='wt', "
                                           "partitions=1, value_format='JSON'); INSERT INTO WT (ID, V) VALUES (1, 'a');"})
    from ksqlpy.log.base import ProducerRecord

    # a tombstone for key 1 (a KAFKA INT key), straight onto the table's topic, then two more rows
    app_client.app.state.ctx.engine.log.produce(ProducerRecord("wt", (1).to_bytes(4, "big"), None, None, None, 0))
    app_client.post("/ksql", json={"ksql": "INSERT INTO WT (ID, V) VALUES (2, 'b'); INSERT INTO WT (ID, V) VALUES "
                                           "(3, 'x'); INSERT INTO WT (ID, V) VALUES (3, 'c');"})
    with app_client.websocket_connect(ws_url("SELECT * FROM WT EMIT CHANGES LIMIT 2;",
                                             **{"auto.offset.reset": "earliest"})) as ws:
        ws.receive_text()
        assert json.loads(ws.receive_text()) == {"row": {"columns": [1, "a"]}}
        assert json.loads(ws.receive_text()) == {"row": {"columns": [2, "b"]}}
        assert json.loads(ws.receive_text()) == {"error": "done"}
    with app_client.websocket_connect(ws_url("SELECT * FROM WT WHERE V <> 'x' EMIT CHANGES LIMIT 3;",
                                             **{"auto.offset.reset": "earliest"})) as ws:
        ws.receive_text()
        rows = [json.loads(ws.receive_text()) for _ in range(3)]
        assert rows == [{"row": {"columns": [1, "a"]}}, {"row": {"columns": [2, "b"]}},
                        {"row": {"columns": [3, "c"]}}]
