"""/ws/query's close codes and reasons for each failure (server/websocket.py), and its refusals before the
handshake (server-state gate, authentication) as HTTP responses with the error envelope - in-process."""

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
from starlette.testclient import TestClient, WebSocketDenialResponse  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402
from ksqlpy.server.websocket import close_reason  # noqa: E402


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    config = build_config(data_dir=str(tmp_path_factory.mktemp("wsrules")),
                          overrides={"ksql.logging.processing.stream.auto.create": "false",
                                     "ksql.server.command.response.timeout.ms": "200"})
    with serving(create_app(config)) as c:
        c.post("/ksql", json={"ksql": "CREATE STREAM WR (ID INT KEY, V STRING) WITH (kafka_topic='wr', "
                                      "partitions=1, value_format='JSON');"})
        yield c


def _ended(ws: Any) -> tuple[int, str, str]:
    """The end of a socket: ksqlDB's SessionUtil.closeSilently sends the message whole in a final
    {"error": ...} frame, then closes with the code and the message (cut to 123 bytes) as the reason.
    (code, reason, the final frame's message)."""
    final = json.loads(ws.receive_text())
    assert set(final) == {"error"}, final
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_text()
    return closed.value.code, closed.value.reason, final["error"]


def _closed(app_client: Any, query: str) -> tuple[int, str]:
    with app_client.websocket_connect("/ws/query" + query) as ws:
        code, reason, message = _ended(ws)
    assert reason == close_reason(message)
    return code, reason


def _req(**body: Any) -> str:
    return "?request=" + quote(json.dumps(body))


@pytest.mark.parametrize("query, code, reason", [
    ("", 1003, 'Error parsing request: argument "content" is null'),
    ("?request=" + quote("{bad"), 1003, "Error parsing request: unexpected character"),
    ("?request=" + quote("[]"), 1003, "Error parsing request: Cannot deserialize value of type "
                                      "`io.confluent.ksql.rest.entity.KsqlRequest` from Array value"),
    (_req(ksql=["x"]), 1003, "Error parsing request: Cannot deserialize value of type `java.lang.String`"),
    (_req(ksql="SHOW STREAMS;") + "&version=2", 1003, "Received invalid api version: 2"),
    (_req(ksql="SELEC * FROM WR;"), 1003, "Error parsing query: line 1:1: Syntax Error"),
    (_req(ksql=""), 1003, 'Error parsing query: "ksql" field must be populated'),
    (_req(ksql="SHOW STREAMS;"), 1003,
     "Statement type `io.confluent.ksql.parser.tree.ListStreams' not supported for this resource"),
    (_req(ksql="DESCRIBE WR;"), 1003,
     "Statement type `io.confluent.ksql.parser.tree.ShowColumns' not supported for this resource"),
    (_req(ksql="INSERT INTO WR (ID, V) VALUES (1, 'a');"), 1003,
     "Statement type `io.confluent.ksql.parser.tree.InsertValues' not supported for this resource"),
    (_req(ksql="SELECT * FROM NOPE EMIT CHANGES;"), 1003, "NOPE does not exist"),
    (_req(ksql="SELECT * FROM WR EMIT CHANGES;", commandSequenceNumber=10**9), 1013, ""),
])
def test_websocket_close_codes(app_client: Any, query: str, code: int, reason: str) -> None:
    got_code, got_reason = _closed(app_client, query)
    assert got_code == code and reason in got_reason, (got_code, got_reason)
    assert len(got_reason.encode()) <= 123


def test_websocket_runs_the_first_statement(app_client: Any) -> None:
    with app_client.websocket_connect("/ws/query" + _req(ksql="SELECT * FROM WR; SHOW STREAMS;")) as ws:
        assert [f["name"] for f in json.loads(ws.receive_text())] == ["ID", "V"]
        assert _ended(ws) == (1000, "done", "done")
    assert _closed(app_client, _req(ksql="SHOW STREAMS; SELECT * FROM WR;"))[1].startswith(
        "Statement type `io.confluent.ksql.parser.tree.ListStreams'")


def test_websocket_pull_query_closes_done(app_client: Any) -> None:
    with app_client.websocket_connect("/ws/query" + _req(ksql="SELECT * FROM WR;")) as ws:
        assert [f["name"] for f in json.loads(ws.receive_text())] == ["ID", "V"]
        # the normal end is closeSilently too (WebSocketSubscriber.onComplete): its final frame says "done"
        assert _ended(ws) == (1000, "done", "done")


def test_a_long_message_is_whole_in_the_final_frame_and_cut_in_the_reason(app_client: Any) -> None:
    name = "N" * 150
    with app_client.websocket_connect("/ws/query" + _req(ksql=f"SELECT * FROM {name} EMIT CHANGES;")) as ws:
        code, reason, message = _ended(ws)
    assert code == 1003 and name in message and len(message) > 150
    assert reason == message[:120] + "..."


def test_close_reason_fits_a_close_frame() -> None:
    assert close_reason("short") == "short"
    long = "é" * 100
    cut = close_reason(long)
    assert len(cut.encode()) <= 123 and cut.endswith("...") and long.startswith(cut[:-3])


def test_refused_before_the_handshake_while_not_ready(tmp_path: Any) -> None:
    c = TestClient(create_app(build_config(data_dir=str(tmp_path))))  # no lifespan: never initialized
    with pytest.raises(WebSocketDenialResponse) as denied:
        with c.websocket_connect("/ws/query" + _req(ksql="SELECT * FROM WR EMIT CHANGES;")):
            pass
    assert denied.value.status_code == 503 and denied.value.json()["error_code"] == 50302


def test_refused_before_the_handshake_without_credentials() -> None:
    from ksqlpy.server.auth import BasicAuthMiddleware

    async def app(scope: Any, receive: Any, send: Any) -> None:  # never reached
        raise AssertionError("authentication let the handshake through")

    c = TestClient(BasicAuthMiddleware(app, {"u": "p"}, realm="R"))
    with pytest.raises(WebSocketDenialResponse) as denied:
        with c.websocket_connect("/ws/query" + _req(ksql="SELECT * FROM WR EMIT CHANGES;")):
            pass
    r = denied.value
    assert r.status_code == 401 and r.headers["www-authenticate"] == 'Basic realm="R"'
    assert r.json() == {"@type": "generic_error", "error_code": 40100, "message": "Unauthorized"}


def test_a_push_query_ends_going_away_when_the_server_shuts_down(app_client: Any) -> None:
    ctx = app_client.app.state.ctx
    with app_client.websocket_connect("/ws/query" + _req(ksql="SELECT * FROM WR EMIT CHANGES;")) as ws:
        json.loads(ws.receive_text())
        before = ctx.state
        ctx.state = "TERMINATING"
        try:
            ended = _ended(ws)
        finally:
            ctx.state = before
    assert ended == (1001, "The server is shutting down", "The server is shutting down")
