"""Rules a query follows the same way over /query, /query-stream and /ws/query (in-process): PRINT's lines
and INTERVAL, a push query's LIMIT 0, a pull query's consistency token and bound."""

from __future__ import annotations

import base64
import json
import time
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
from ksqlpy.server.printing import PrintSession  # noqa: E402

ON = {"ksql.query.pull.consistency.token.enabled": True, "auto.offset.reset": "earliest"}
VECTOR = "request.ksql.query.pull.consistency.offset.vector"
V1 = {"Accept": "application/vnd.ksql.v1+json"}


def _token(vector: dict[str, dict[str, int]]) -> str:
    return base64.b64encode(json.dumps({"version": 0, "offsetVector": vector}, separators=(",", ":")).encode()).decode()


@pytest.fixture(scope="module")
def c(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    config = build_config(data_dir=str(tmp_path_factory.mktemp("wsrules")),
                          overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as client:
        end = time.monotonic() + 30
        for sql in ["CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='rules_s', partitions=1, "
                    "value_format='JSON');",
                    "CREATE TABLE T AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID;",
                    "INSERT INTO S (ID, V) VALUES (1, 'a'); INSERT INTO S (ID, V) VALUES (2, 'b'); "
                    "INSERT INTO S (ID, V) VALUES (1, 'c');"]:
            assert client.post("/ksql", json={"ksql": sql}).status_code == 200
        while time.monotonic() < end:
            r = client.post("/query", json={"ksql": "SELECT * FROM T WHERE ID = 1;"},
                            headers={"Accept": "application/json"})
            if r.status_code == 200 and "[1,2]" in r.text:
                break
            time.sleep(0.1)
        yield client


def ws_frames(c: TestClient, sql: str, props: dict[str, Any] | None = None,
              request_props: dict[str, Any] | None = None) -> tuple[list[Any], int]:
    """Every text frame (decoded) and the close code."""
    body: dict[str, Any] = {"ksql": sql, "streamsProperties": props or {}}
    if request_props is not None:
        body["requestProperties"] = request_props
    frames: list[Any] = []
    with c.websocket_connect("/ws/query?request=" + quote(json.dumps(body))) as ws:
        try:
            while True:
                frames.append(json.loads(ws.receive_text()))
        except WebSocketDisconnect as e:
            return frames, e.code
    raise AssertionError("no close frame")


# ----------------------------------------------------------------------------------------------- PRINT


def test_websocket_print_sends_the_record_lines_alone(c: TestClient) -> None:
    http = c.post("/query", json={"ksql": "PRINT 'rules_s' FROM BEGINNING LIMIT 2;"}).text.splitlines()
    assert http[:2] == ["Key format: KAFKA_INT", "Value format: JSON or KAFKA_STRING"]
    frames, code = ws_frames(c, "PRINT 'rules_s' FROM BEGINNING LIMIT 2;")
    # PrintPublisher: each record's line as a JSON string, no format lines, no newline; then the close
    assert frames[:-1] == http[2:4] and code == 1000 and frames[-1] == {"error": "done"}
    assert all(f.startswith("rowtime: ") and not f.endswith("\n") for f in frames[:-1])
    frames, _ = ws_frames(c, "PRINT 'rules_s' FROM BEGINNING INTERVAL 2 LIMIT 2;")
    assert [f.split(", key: ")[1] for f in frames[:-1]] == ['1, value: {"V":"a"}, partition: 0',
                                                            '1, value: {"V":"c"}, partition: 0']


def test_websocket_print_guesses_formats_from_the_sampled_records_only() -> None:
    text, number = (0, None, b'{"a":1}', 0), (0, None, b"\x00\x00\x00\x00\x00\x00\x00\x07", 0)
    http = PrintSession(None, 2, None)
    http.lines([text, number, text])  # every record of the poll narrows, the sampled ones are printed
    assert http.formatter.values.describe() == "MIXED"
    ws = PrintSession(None, 2, None, websocket=True)
    lines = ws.lines([text, number, text])
    assert ws.formatter.values.describe() == "JSON or KAFKA_STRING"
    assert [ln.split("value: ")[1] for ln in lines] == ['{"a":1}, partition: 0'] * 2
    ws = PrintSession(None, 1, 2, websocket=True)  # LIMIT: the records past it are not looked at
    assert len(ws.lines([text, text, number])) == 2 and ws.formatter.values.describe() == "JSON or KAFKA_STRING"


@pytest.mark.parametrize("interval", [0, -1, -20])
def test_a_print_interval_below_one_is_refused_on_every_endpoint(c: TestClient, interval: int) -> None:
    message = f"INTERVAL must be greater than one, but was: {interval}"
    for clause in (f"INTERVAL {interval}", f"SAMPLE {interval}"):
        sql = f"PRINT 'rules_s' FROM BEGINNING {clause} LIMIT 1;"
        r = c.post("/query", json={"ksql": sql})
        assert (r.status_code, r.json()["message"], r.json()["error_code"]) == (400, message, 40000), sql
        r = c.post("/query-stream", json={"sql": sql})
        assert (r.status_code, r.json()["message"]) == (400, message), sql
        assert ws_frames(c, sql) == ([{"error": message}], 1003), sql
    # the topic is looked for first
    r = c.post("/query", json={"ksql": f"PRINT 'nowhere' INTERVAL {interval};"})
    assert r.status_code == 400 and r.json()["message"].startswith("Could not find topic 'nowhere'")


def test_the_embedded_shell_refuses_a_print_interval_below_one(tmp_path: Any) -> None:
    from ksqlpy.cli.backend import BackendError
    from ksqlpy.cli.printer import print_topic
    from ksqlpy.engine.engine import Engine

    with Engine(str(tmp_path / "e"), {}) as e:
        e.execute("CREATE STREAM P (ID INT KEY, V INT) WITH (kafka_topic='p', format='JSON', partitions=1);")
        with pytest.raises(BackendError, match="^INTERVAL must be greater than one, but was: 0$"):
            next(print_topic(e.log, "p", from_beginning=True, interval=0, limit=1))
        with pytest.raises(BackendError, match="^Could not find topic 'q'"):
            next(print_topic(e.log, "q", from_beginning=True, interval=0, limit=1))


# ----------------------------------------------------------------------------------------- push LIMIT 0


def test_a_push_query_with_limit_0_ends_without_a_row_on_every_endpoint(c: TestClient) -> None:
    props = {"auto.offset.reset": "earliest"}
    for sql in ("SELECT * FROM S EMIT CHANGES LIMIT 0;", "SELECT * FROM T EMIT CHANGES LIMIT 0;",
                "SELECT ID, COUNT(*) FROM S GROUP BY ID EMIT CHANGES LIMIT 0;"):
        frames, code = ws_frames(c, sql, props)
        assert [type(f) for f in frames] == [list, dict] and frames[1] == {"error": "done"} and code == 1000, sql
        body = c.post("/query", json={"ksql": sql, "streamsProperties": props}, headers=V1).json()
        assert [list(e) for e in body] == [["header"], ["finalMessage"]], sql
        assert body[1]["finalMessage"] == "Limit Reached"
        lines = c.post("/query-stream", json={"sql": sql, "properties": props}).text.splitlines()
        assert len(lines) == 1 and "queryId" in json.loads(lines[0]), sql
    # and LIMIT 1 still ends after one row over the WebSocket
    frames, code = ws_frames(c, "SELECT * FROM S EMIT CHANGES LIMIT 1;", props)
    assert frames[1:] == [{"row": {"columns": [1, "a"]}}, {"error": "done"}] and code == 1000


# ---------------------------------------------------------------------------------- consistency token


def test_websocket_pull_query_ends_with_the_consistency_token(c: TestClient) -> None:
    token = _token({"rules_s": {"0": 2}})
    frames, code = ws_frames(c, "SELECT * FROM T WHERE ID = 1;", ON)
    assert frames[1:] == [{"row": {"columns": [1, 2]}}, {"consistencyToken": {"consistencyToken": token}},
                          {"error": "done"}] and code == 1000
    old = c.post("/query", json={"ksql": "SELECT * FROM T WHERE ID = 1;", "streamsProperties": ON}, headers=V1)
    assert old.json()[-1] == frames[2]  # the same element as /query's
    frames, _ = ws_frames(c, "SELECT * FROM T WHERE ID = 1;", {})  # the switch off: no token
    assert frames[1:] == [{"row": {"columns": [1, 2]}}, {"error": "done"}]
    frames, _ = ws_frames(c, "SELECT * FROM S WHERE ID = 1;", ON)  # a stream's pull query: none
    assert not any("consistencyToken" in f for f in frames if isinstance(f, dict))


def test_websocket_pull_query_is_bounded_by_the_requests_token(c: TestClient) -> None:
    sql = "SELECT * FROM T WHERE ID = 1;"
    reached = _token({"rules_s": {"0": 1}})
    frames, code = ws_frames(c, sql, ON, {VECTOR: reached})
    assert frames[1] == {"row": {"columns": [1, 2]}} and code == 1000
    frames, code = ws_frames(c, sql, ON, {VECTOR: _token({"rules_s": {"0": 9}})})  # the store is behind
    message = f"Unable to execute pull query: {sql}. Exhausted standby hosts to try."
    assert frames[1:] == [{"error": message}] and code == 1011
    r = c.post("/query", json={"ksql": sql, "streamsProperties": ON,
                               "requestProperties": {VECTOR: _token({"rules_s": {"0": 9}})}}, headers=V1)
    assert r.json()[-1]["errorMessage"]["message"] == frames[1]["error"]  # as /query says it
    frames, code = ws_frames(c, sql, ON, {VECTOR: "not a token"})
    http = c.post("/query", json={"ksql": sql, "streamsProperties": ON, "requestProperties": {VECTOR: "not a token"}},
                  headers=V1)
    assert http.status_code == 400 and frames == [{"error": http.json()["message"]}] and code == 1003
