"""Connection and size bounds of the server, each a setting with a default: the number of connections
(``ksqlpy.server.connections.max``, capped by the open-file limit, which start-up raises to the hard limit),
the time a new connection has for its first request head (``ksqlpy.server.header.timeout.ms``), idle
connections (``ksql.idle.connection.timeout.seconds``), the request body (``ksql.server.request.max.bytes``)
and a /ksql response (``ksqlpy.server.response.max.bytes``); repeated log lines are rate-limited."""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from ksqlpy.server.config import SERVER_DEFAULTS
from ksqlpy.server.log_limits import RepeatFilter
from ksqlpy.testing.server_process import ServerProcess

QUIET = {"ksql.logging.processing.stream.auto.create": "false"}


def connect(server: ServerProcess) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    return s


def closed_by_server(s: socket.socket, within_s: float) -> bool:
    s.settimeout(within_s)
    try:
        while True:
            data = s.recv(65536)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def info(s: socket.socket) -> bytes:
    s.sendall(b"GET /info HTTP/1.1\r\nhost: x\r\n\r\n")
    s.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
    while len(body) < length:
        body += s.recv(65536)
    return head


def test_the_defaults() -> None:
    assert SERVER_DEFAULTS["ksqlpy.server.connections.max"] == 4096
    assert SERVER_DEFAULTS["ksqlpy.server.header.timeout.ms"] == 30_000
    assert SERVER_DEFAULTS["ksql.idle.connection.timeout.seconds"] == 600
    assert SERVER_DEFAULTS["ksqlpy.server.response.max.bytes"] == 64 << 20
    assert SERVER_DEFAULTS["ksql.server.request.max.bytes"] == 10 << 20


@pytest.fixture(scope="module")
def bounded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("bounded")), {
        **QUIET, "ksqlpy.server.connections.max": "20", "ksql.server.request.max.bytes": "100000",
        "ksqlpy.server.response.max.bytes": "20000"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def admitted(server: ServerProcess, within_s: float = 15.0) -> socket.socket:
    """A connection that got a 200 on /info, retried while the server still counts a connection closed
    just before (it notices a client's close on its event loop, which a loaded machine runs late)."""
    deadline = time.monotonic() + within_s
    while True:
        s = connect(server)
        try:
            head = info(s)
        except ConnectionError:  # refused: the 503 is written and the socket closed as the request arrives
            head = b"HTTP/1.1 503 (reset)"
        if head.startswith(b"HTTP/1.1 200"):
            return s
        s.close()
        assert head.startswith(b"HTTP/1.1 503") and time.monotonic() < deadline, head
        time.sleep(0.1)


def test_connections_past_the_limit_get_503_and_a_freed_slot_is_reused(bounded: ServerProcess) -> None:
    held = [admitted(bounded) for _ in range(20)]  # all admitted, each still open
    extra = connect(bounded)
    extra.settimeout(10)
    answer = extra.recv(65536)
    assert answer.startswith(b"HTTP/1.1 503") and b"ksqlpy.server.connections.max" in answer
    assert closed_by_server(extra, 5)
    held.pop().close()
    again = admitted(bounded)  # the freed slot, once the server has seen the close
    for s in [*held, again]:
        s.close()


def test_a_request_body_past_the_limit_is_413(bounded: ServerProcess) -> None:
    r = httpx.post(bounded.url + "/ksql", json={"ksql": "SHOW STREAMS;" + " " * 200_000}, timeout=30)
    assert r.status_code == 413
    assert "ksql.server.request.max.bytes" in r.json()["message"]


def test_a_response_past_the_limit_is_400_naming_the_setting(bounded: ServerProcess) -> None:
    r = httpx.post(bounded.url + "/ksql", json={"ksql": "SHOW FUNCTIONS; " * 50}, timeout=60)
    assert r.status_code == 400, r.text
    assert "ksqlpy.server.response.max.bytes" in r.json()["message"]
    assert httpx.post(bounded.url + "/ksql", json={"ksql": "SHOW STREAMS;"}).status_code == 200


@pytest.fixture(scope="module")
def timed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("timed")), {
        **QUIET, "ksqlpy.server.header.timeout.ms": "1000", "ksql.idle.connection.timeout.seconds": "2"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def test_a_slow_request_head_is_cut_at_the_header_timeout(timed: ServerProcess) -> None:
    s = connect(timed)
    s.sendall(b"GET /info HTTP/1.1\r\nhost: x\r\n")  # never finished
    start = time.monotonic()
    assert closed_by_server(s, 10)
    assert 0.8 < time.monotonic() - start < 8
    s.close()


def test_an_idle_connection_is_closed_after_the_idle_timeout(timed: ServerProcess) -> None:
    s = connect(timed)
    assert info(s).startswith(b"HTTP/1.1 200")  # a complete head: the header timeout no longer applies
    time.sleep(1.2)
    assert info(s).startswith(b"HTTP/1.1 200")  # in use: still open past the header timeout
    start = time.monotonic()
    assert closed_by_server(s, 15)
    assert 1.5 < time.monotonic() - start < 12
    s.close()


def test_an_open_push_query_is_not_idle(timed: ServerProcess) -> None:
    with httpx.Client(base_url=timed.url, http1=False, http2=True, timeout=30) as h2:
        h2.post("/ksql", json={"ksql": "CREATE STREAM P (ID INT KEY, V STRING) WITH (kafka_topic='p', "
                                       "partitions=1, value_format='JSON');"})
        with h2.stream("POST", "/query-stream", json={"sql": "SELECT * FROM P EMIT CHANGES;"}) as r:
            lines = r.iter_lines()
            assert "queryId" in next(lines)
            time.sleep(3.5)  # quiet for longer than the idle timeout
            h2.post("/ksql", json={"ksql": "INSERT INTO P (ID, V) VALUES (1, 'a');"})
            assert next(lines) == '[1,"a"]'


def test_start_up_raises_the_soft_open_file_limit_and_an_idle_flood_leaves_the_server_up(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """1,100 idle connections against a 1,024-descriptor server: the connection limit is capped below the
    descriptor limit, the excess is refused, the header timeout reaps the idle ones, the log stays small."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2400:
        pytest.skip(f"this test process may open only {hard} files")
    proc = ServerProcess(str(tmp_path_factory.mktemp("flood")), {**QUIET, "ksqlpy.server.header.timeout.ms": "3000"},
                         open_files=(256, 1024))
    proc.start()
    try:
        with open(f"/proc/{proc.proc.pid}/limits") as f:  # type: ignore[union-attr]
            line = next(line for line in f if line.startswith("Max open files"))
        assert line.split()[3:5] == ["1024", "1024"]  # the soft limit was raised to the hard one
        conns = []
        for _ in range(1100):
            try:
                conns.append(connect(proc))
            except OSError:
                break
        assert len(conns) == 1100
        time.sleep(5)  # the header timeout (3 s) closes the admitted idle ones; the rest were refused
        ended = sum(closed_by_server(s, 5) for s in conns)
        assert ended == 1100
        assert httpx.get(proc.url + "/info", timeout=10).status_code == 200
        for s in conns:
            s.close()
        assert os.path.getsize(proc.log_path) < 200_000
    finally:
        proc.stop()


def test_repeated_log_lines_are_rate_limited() -> None:
    now = [0.0]
    flt = RepeatFilter(burst=3, interval_s=10, clock=lambda: now[0])  # type: ignore[arg-type]

    def rec(msg: str) -> logging.LogRecord:
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, msg, None, None)

    passed = [flt.filter(rec("socket.accept() out of system resource")) for _ in range(1000)]
    assert sum(passed) == 3
    assert flt.filter(rec("another message"))
    now[0] = 11.0
    again = rec("socket.accept() out of system resource")
    assert flt.filter(again)
    assert "997 more like this" in again.getMessage()


def test_a_connection_the_client_closed_is_closed_at_once(bounded: ServerProcess) -> None:
    """Hypercorn kept the server's side open (CLOSE-WAIT, a descriptor) until its keep-alive timer ran
    out; 25 short requests in a row on a server that admits 20 connections all succeed."""
    for _ in range(25):
        assert httpx.get(bounded.url + "/info", timeout=10).status_code == 200
