"""Cleartext HTTP/2 by ``Upgrade: h2c`` (RFC 7540 section 3.2) on a real server over loopback: a request
without a body is switched (101, then its answer on stream 1 over HTTP/2, and the connection speaks HTTP/2
from then on); a request with a body keeps HTTP/1.1 - the server ignores the Upgrade, which the RFC allows and
every client that offers one must accept - and is answered whole, the connection staying usable. ksqlDB's
Java client never offers an Upgrade (it speaks HTTP/2 with prior knowledge); ``curl --http2`` does."""

from __future__ import annotations

import base64
import json
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("h2")
import h2.config  # noqa: E402
import h2.connection  # noqa: E402
import h2.events  # noqa: E402

from ksqlpy.testing.server_process import ServerProcess  # noqa: E402

SETTINGS = base64.urlsafe_b64encode(b"\x00\x03\x00\x00\x00\x64").rstrip(b"=")  # MAX_CONCURRENT_STREAMS 100


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("h2c")), {"ksql.logging.processing.stream.auto.create": "false"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def _recv_until(sock: socket.socket, done: Any, limit_s: float = 10.0) -> bytes:
    data = b""
    end = time.monotonic() + limit_s
    while not done(data):
        assert time.monotonic() < end, data[:300]
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def _http1_response(data: bytes) -> tuple[int, dict[str, str], bytes] | None:
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        return None
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    if len(body) < length:
        return None
    return int(lines[0].split()[1]), headers, body[:length]


def _upgrade_head(method: str, path: str, extra: str = "") -> bytes:
    return (f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\n"
            f"Upgrade: h2c\r\nHTTP2-Settings: {SETTINGS.decode()}\r\n{extra}\r\n").encode()


def test_upgrade_without_a_body_switches_to_http2(server: ServerProcess) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(_upgrade_head("GET", "/info"))
        data = _recv_until(sock, lambda d: b"\r\n\r\n" in d)
        head, _, rest = data.partition(b"\r\n\r\n")
        assert head.split(b"\r\n")[0].split()[1] == b"101", head
        assert b"upgrade: h2c" in head.lower()
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        conn.initiate_upgrade_connection(SETTINGS)
        sock.sendall(conn.data_to_send())
        bodies: dict[int, bytes] = {}
        statuses: dict[int, str] = {}
        ended: set[int] = set()

        def feed(raw: bytes) -> None:
            for event in conn.receive_data(raw):
                if isinstance(event, h2.events.ResponseReceived):
                    statuses[event.stream_id] = dict(event.headers)[b":status"].decode()
                elif isinstance(event, h2.events.DataReceived):
                    bodies[event.stream_id] = bodies.get(event.stream_id, b"") + event.data
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    ended.add(event.stream_id)
            sock.sendall(conn.data_to_send())

        feed(rest)
        end = time.monotonic() + 10
        while 1 not in ended:
            assert time.monotonic() < end
            feed(sock.recv(65536))
        assert statuses[1] == "200"
        assert json.loads(bodies[1])["KsqlServerInfo"]["version"]
        # the connection is HTTP/2 now: another request on stream 3
        conn.send_headers(3, [(":method", "GET"), (":path", "/healthcheck"), (":scheme", "http"),
                              (":authority", "localhost")], end_stream=True)
        sock.sendall(conn.data_to_send())
        while 3 not in ended:
            assert time.monotonic() < end
            feed(sock.recv(65536))
        assert statuses[3] == "200" and json.loads(bodies[3])["isHealthy"] is True


def test_upgrade_with_a_body_is_answered_over_http1(server: ServerProcess) -> None:
    body = json.dumps({"ksql": "SHOW STREAMS;", "streamsProperties": {}}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(_upgrade_head("POST", "/ksql", f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n")
                     + body)
        found = _http1_response(_recv_until(sock, lambda d: _http1_response(d) is not None))
        assert found is not None
        status, headers, payload = found
        assert status == 200 and "upgrade" not in headers
        assert json.loads(payload)[0]["@type"] == "streams"
        # still HTTP/1.1 on the same connection
        sock.sendall(b"GET /healthcheck HTTP/1.1\r\nHost: localhost\r\n\r\n")
        again = _http1_response(_recv_until(sock, lambda d: _http1_response(d) is not None))
        assert again is not None and again[0] == 200 and json.loads(again[2])["isHealthy"] is True


@pytest.mark.skipif(shutil.which("curl") is None, reason="no curl")
@pytest.mark.parametrize("args", [
    ["--http2", "-X", "GET", "/info"],
    ["--http2", "-H", "Content-Type: application/json", "--data", '{"ksql":"SHOW TOPICS;"}', "/ksql"],
    ["--http2-prior-knowledge", "-H", "Content-Type: application/json", "--data", '{"ksql":"SHOW TOPICS;"}',
     "/ksql"],
])
def test_curl_http2_offers(server: ServerProcess, args: list[str]) -> None:
    *opts, path = args
    out = subprocess.run(["curl", "-sS", "--max-time", "20", "-w", "\n%{http_code} %{http_version}", *opts,
                          server.url + path], capture_output=True, text=True, timeout=30, check=True).stdout
    body, _, status = out.rpartition("\n")
    code, version = status.split()
    assert code == "200", out
    assert version == ("1.1" if "--data" in opts and "--http2" in opts else "2"), out
    assert json.loads(body)
