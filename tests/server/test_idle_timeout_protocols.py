"""``ksql.idle.connection.timeout.seconds`` over the other protocols (test_connection_bounds covers HTTP/1.1 and
an HTTP/2 push query): an idle HTTP/2 connection is closed after it, and an open /ws/query push query is not
idle, however long no row comes - as ksqlDB's Vert.x idle timeout counts a connection with a stream in
progress as busy."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from urllib.parse import quote

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("h2")
pytest.importorskip("wsproto")
import h2.config  # noqa: E402
import h2.connection  # noqa: E402
import wsproto  # noqa: E402
import wsproto.events  # noqa: E402

from ksqlpy.testing.server_process import ServerProcess  # noqa: E402


@pytest.fixture(scope="module")
def timed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("idle")), {
        "ksql.logging.processing.stream.auto.create": "false", "ksql.idle.connection.timeout.seconds": "2"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def test_an_idle_http2_connection_is_closed(timed: ServerProcess) -> None:
    with socket.create_connection(("127.0.0.1", timed.port), timeout=15) as s:
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        conn.initiate_connection()
        conn.send_headers(1, [(":method", "GET"), (":path", "/info"), (":scheme", "http"), (":authority", "x")],
                          end_stream=True)
        s.sendall(conn.data_to_send())
        start = time.monotonic()
        while data := s.recv(65536):
            conn.receive_data(data)
            s.sendall(conn.data_to_send())
        assert 1.5 < time.monotonic() - start < 12


def test_a_websocket_push_query_is_not_idle(timed: ServerProcess) -> None:
    with httpx.Client(base_url=timed.url, timeout=20) as c:
        r = c.post("/ksql", json={"ksql": "CREATE STREAM W (ID INT KEY, V STRING) WITH (kafka_topic='w', "
                                          "partitions=1, value_format='JSON');"})
        assert r.status_code == 200, r.text
        ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
        target = "/ws/query?request=" + quote(json.dumps({"ksql": "SELECT * FROM W EMIT CHANGES;"}))
        with socket.create_connection(("127.0.0.1", timed.port), timeout=15) as s:
            s.sendall(ws.send(wsproto.events.Request(host="localhost", target=target)))
            frames: list[str] = []

            def read_until(n: int) -> None:
                while len(frames) < n:
                    data = s.recv(65536)
                    assert data, f"closed by the server after {frames}"
                    ws.receive_data(data)
                    for event in ws.events():
                        if isinstance(event, wsproto.events.TextMessage):
                            frames.append(event.data)
                        assert not isinstance(event, wsproto.events.CloseConnection), (event, frames)

            read_until(1)  # the columns
            time.sleep(3.5)  # no row for longer than the idle timeout
            r = c.post("/ksql", json={"ksql": "INSERT INTO W (ID, V) VALUES (1, 'a');"})
            assert r.status_code == 200, r.text
            read_until(2)
            assert json.loads(frames[1]) == {"row": {"columns": [1, "a"]}}
