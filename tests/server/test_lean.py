"""The lean HTTP/1.1 front (``server/lean.py``): a real server (the front and Hypercorn on a loopback port,
the app and engine in this process so the front's counters can be read) and raw HTTP/1.1 bytes.

A prepared key lookup is answered by the front with the bytes the ordinary route sends; every other request,
on the same connection or not, still goes through Hypercorn and the app."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("hypercorn")
pytest.importorskip("h2")

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402
from ksqlpy.server.context import ServerContext  # noqa: E402
from ksqlpy.server.lean import lean_candidate, parse_head  # noqa: E402
from ksqlpy.server.lean_serve import serve_lean  # noqa: E402
from ksqlpy.server.main import hypercorn_config  # noqa: E402
from ksqlpy.testing.server_process import free_port  # noqa: E402

V1_JSON = "application/vnd.ksql.v1+json"
LOOKUP = "SELECT * FROM LEAN_T WHERE ID = {};"


class Running:
    """``serve_lean`` in a thread of its own (its own event loop), as ``ksqlpy server`` runs it."""

    def __init__(self, data_dir: str, keep_alive_timeout: float | None = None, lean: bool = True) -> None:
        self.keep_alive_timeout = keep_alive_timeout
        self.port = free_port()
        self.config = build_config(listeners=f"http://127.0.0.1:{self.port}", data_dir=data_dir,
                                   overrides={"ksql.logging.processing.stream.auto.create": "false",
                                              "ksqlpy.server.lean.lookups": str(lean).lower()})
        self.ctx = ServerContext(self.config)
        self.app = create_app(self.config, self.ctx)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stop_event: asyncio.Event | None = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        self.loop, self.stop_event = asyncio.get_running_loop(), asyncio.Event()

        async def trigger() -> None:
            assert self.stop_event is not None
            await self.stop_event.wait()
            self.ctx.begin_shutdown()

        hc = hypercorn_config(self.config)
        if self.keep_alive_timeout is not None:
            hc.keep_alive_timeout = self.keep_alive_timeout
        if self.config.get("ksqlpy.server.lean.lookups") == "false":
            from hypercorn.asyncio import serve

            await serve(self.app, hc, shutdown_trigger=trigger)  # type: ignore[arg-type]
            return
        await serve_lean(self.app, self.ctx, self.config, hc, trigger)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def front(self) -> Any:
        return self.app.state.lean_front

    def start(self) -> Running:
        self.thread.start()
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                if httpx.get(self.url + "/info", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("server not ready")

    def stop(self) -> None:
        if self.loop is not None and self.stop_event is not None and self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.stop_event.set)
        self.thread.join(30)


def _serve_with_table(r: Running) -> Iterator[Running]:
    try:
        with httpx.Client(base_url=r.url, timeout=20) as c:
            sql = ("CREATE STREAM LEAN_S (ID INT KEY, V STRING) WITH (kafka_topic='lean_s', partitions=2, "
                   "value_format='JSON'); CREATE TABLE LEAN_T AS SELECT ID, COUNT(*) AS N, LATEST_BY_OFFSET(V) AS V "
                   "FROM LEAN_S GROUP BY ID; INSERT INTO LEAN_S (ID, V) VALUES (1, 'a'); "
                   "INSERT INTO LEAN_S (ID, V) VALUES (2, 'b'); INSERT INTO LEAN_S (ID, V) VALUES (2, 'c');")
            assert c.post("/ksql", json={"ksql": sql, "streamsProperties": {"auto.offset.reset": "earliest"}}
                          ).status_code == 200
            end = time.monotonic() + 30
            while time.monotonic() < end:  # this first lookup runs the full path and prepares the shape
                r2 = c.post("/query-stream", json={"sql": LOOKUP.format(2)}, headers={"Accept": "application/json"})
                if r2.status_code == 200 and r2.json()[1:] == [[2, 2, "c"]]:
                    break
                time.sleep(0.05)
            else:
                raise AssertionError("the table did not catch up")
        yield r
    finally:
        r.stop()


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    yield from _serve_with_table(Running(str(tmp_path_factory.mktemp("lean"))).start())


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """The same server and table with ``ksqlpy.server.lean.lookups=false``: every lookup takes the route."""
    yield from _serve_with_table(Running(str(tmp_path_factory.mktemp("plain")), lean=False).start())


# ---------------------------------------------------------------------------------------------- raw HTTP
def request(path: str, body: bytes = b"", method: str = "POST", headers: list[tuple[str, str]] | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: test"]
    lines += [f"{k}: {v}" for k, v in (headers or [])]
    if method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def lookup_request(path: str, key: int, accept: str | None = None, extra: list[tuple[str, str]] | None = None) -> bytes:
    import orjson

    field = "sql" if path == "/query-stream" else "ksql"
    headers = ([("Accept", accept)] if accept else []) + (extra or [])
    return request(path, orjson.dumps({field: LOOKUP.format(key)}), headers=headers)


def read_response(f: Any) -> tuple[bytes, list[tuple[bytes, bytes]], bytes]:
    """(status line, headers, body) of one response; Content-Length or chunked."""
    status = f.readline().rstrip(b"\r\n")
    headers = []
    while True:
        line = f.readline().rstrip(b"\r\n")
        if not line:
            break
        name, _, value = line.partition(b":")
        headers.append((name.lower(), value.strip()))
    h = dict(headers)
    if b"content-length" in h:
        body = f.read(int(h[b"content-length"]))
    else:
        body = b""
        while True:
            size = int(f.readline().strip(), 16)
            chunk = f.read(size + 2)[:size]
            if not size:
                break
            body += chunk
    return status, headers, body


def exchange(port: int, *requests: bytes) -> list[tuple[bytes, list[tuple[bytes, bytes]], bytes]]:
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(b"".join(requests))
        f = s.makefile("rb")
        return [read_response(f) for _ in requests]


def comparable(resp: tuple[bytes, list[tuple[bytes, bytes]], bytes]) -> tuple[Any, ...]:
    status, headers, body = resp
    return status, [(k, v) for k, v in headers if k != b"date"], re.sub(rb"query_\d+", b"query_N", body)


# ---------------------------------------------------------------------------------------------- tests
@pytest.mark.parametrize("path,accept", [("/query-stream", None), ("/query-stream", "application/json"),
                                         ("/query-stream", V1_JSON), ("/query", None), ("/query", V1_JSON),
                                         ("/query", "application/json")])
def test_lookups_answered_before_routing_have_the_route_s_bytes(running: Running, plain: Running, path: str,
                                                                accept: str | None) -> None:
    from ksqlpy.server.lookups import LookupMiddleware

    before, before_mw = running.front.answered, LookupMiddleware.answered
    [lean] = exchange(running.port, lookup_request(path, 2, accept))
    assert running.front.answered == before + 1
    # a repeated header is something the front leaves to Hypercorn: the middleware answers before routing
    [middleware] = exchange(running.port, lookup_request(path, 2, accept, [("X-Twice", "1"), ("X-Twice", "2")]))
    assert running.front.answered == before + 1 and LookupMiddleware.answered == before_mw + 1
    [route] = exchange(plain.port, lookup_request(path, 2, accept))  # neither: FastAPI's route
    assert LookupMiddleware.answered == before_mw + 1
    assert comparable(lean) == comparable(middleware) == comparable(route)
    assert lean[0] == b"HTTP/1.1 200 " and b'[2,2,"c"]' in lean[2]


def test_http2_lookup_answered_before_routing_has_the_route_s_answer(running: Running, plain: Running) -> None:
    from ksqlpy.server.lookups import LookupMiddleware

    got = []
    for server in (running, plain):
        before = LookupMiddleware.answered
        with httpx.Client(base_url=server.url, http1=False, http2=True, timeout=20) as c:
            r = c.post("/query", json={"ksql": LOOKUP.format(2)}, headers={"Accept": V1_JSON})
        assert r.http_version == "HTTP/2" and r.status_code == 200
        assert LookupMiddleware.answered == before + (server is running)
        got.append(([(k, v) for k, v in r.headers.items() if k != "date"],
                    re.sub(r"query_\d+", "query_N", r.text)))
    assert got[0] == got[1] and '"columns":[2,2,"c"]' in got[0][1]


def test_one_connection_mixes_lookups_and_other_requests(running: Running) -> None:
    before = running.front.answered
    with socket.create_connection(("127.0.0.1", running.port), timeout=20) as s:
        f = s.makefile("rb")

        def ask(*reqs: bytes) -> list[Any]:
            s.sendall(b"".join(reqs))
            return [read_response(f) for _ in reqs]

        [a] = ask(lookup_request("/query-stream", 1, "application/json"))
        [b] = ask(request("/ksql", b'{"ksql": "LIST STREAMS;"}'))
        [c] = ask(lookup_request("/query-stream", 2, "application/json"))
        # pipelined behind a request Hypercorn answers: the lookup waits its turn on Hypercorn's side
        d, e = ask(request("/info", method="GET"), lookup_request("/query-stream", 1, "application/json"))
        [g] = ask(lookup_request("/query-stream", 2, "application/json"))
    assert a[2].endswith(b'[1,1,"a"]]') and c[2].endswith(b'[2,2,"c"]]') and g[2].endswith(b'[2,2,"c"]]')
    assert b'"@type":"streams"' in b[2] and b"KsqlServerInfo" in d[2] and e[2].endswith(b'[1,1,"a"]]')
    assert running.front.answered == before + 3  # a, c and g; e went through Hypercorn


def test_what_the_front_does_not_answer_goes_the_ordinary_way(running: Running) -> None:
    import orjson

    before = running.front.answered
    with_props = request("/query-stream", orjson.dumps({"sql": LOOKUP.format(1), "properties": {"auto.offset.reset": "earliest"}}),
                         headers=[("Accept", "application/json")])
    unknown = request("/query-stream", orjson.dumps({"sql": "SELECT * FROM NOPE WHERE ID = 1;"}))
    not_acceptable = lookup_request("/query-stream", 1, "text/html")
    bad_json = request("/query-stream", b"{nope")
    proto = lookup_request("/query", 1, "application/vnd.ksql.v1+protobuf")
    got = exchange(running.port, with_props, unknown, not_acceptable, bad_json, proto)
    assert running.front.answered == before
    assert got[0][0] == b"HTTP/1.1 200 " and got[0][2].endswith(b'[1,1,"a"]]')
    assert got[1][0].startswith(b"HTTP/1.1 400") and b"NOPE does not exist" in got[1][2]
    assert got[2][0].startswith(b"HTTP/1.1 406")
    assert got[3][0].startswith(b"HTTP/1.1 400") and b"Invalid JSON" in got[3][2]
    assert got[4][0] == b"HTTP/1.1 200 " and b"protoSchema" in got[4][2]


def test_connection_close_and_http2_prior_knowledge(running: Running) -> None:
    with socket.create_connection(("127.0.0.1", running.port), timeout=20) as s:
        s.sendall(lookup_request("/query-stream", 1, "application/json", [("Connection", "close")]))
        f = s.makefile("rb")
        status, headers, body = read_response(f)
        assert status == b"HTTP/1.1 200 " and (b"connection", b"close") in headers and body.endswith(b'[1,1,"a"]]')
        assert f.read() == b""  # closed after the response
    with httpx.Client(base_url=running.url, http1=False, http2=True, timeout=20) as c:
        r = c.post("/query-stream", json={"sql": LOOKUP.format(1)}, headers={"Accept": "application/json"})
        assert r.http_version == "HTTP/2" and r.json()[1:] == [[1, 1, "a"]]


def test_shutdown_closes_an_idle_lean_connection(tmp_path: Any) -> None:
    r = Running(str(tmp_path)).start()
    s = socket.create_connection(("127.0.0.1", r.port), timeout=20)
    try:
        s.sendall(request("/query-stream", b'{"sql": "SELECT 1 FROM NOPE WHERE X = 1;"}'))
        status, _, _ = read_response(s.makefile("rb"))
        assert status.startswith(b"HTTP/1.1 400")
        r.stop()
        assert not r.thread.is_alive()
        assert s.recv(100) == b""
    finally:
        s.close()
        r.stop()


def test_parse_head() -> None:
    ok = b"POST /query-stream HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\nConnection: keep-alive"
    method, target, headers, length = parse_head(ok)  # type: ignore[misc]
    assert (method, target, length) == (b"POST", b"/query-stream", 12) and lean_candidate(method, target, headers)
    assert parse_head(b"GET /info HTTP/1.1\r\nHost: x")[3] == 0  # type: ignore[index]
    for bad in (b"PRI * HTTP/2.0", b"POST /query HTTP/1.0\r\nHost: x", b"POST /query HTTP/1.1\r\nHost: x\r\n folded",
                b"POST /query HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked",
                b"GET /ws/query HTTP/1.1\r\nHost: x\r\nUpgrade: websocket",
                b"POST /query HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 1",
                b"POST /query HTTP/1.1\r\nHost: x\r\nContent-Length: -1"):
        assert parse_head(bad) is None, bad
    for not_lean in (b"POST /ksql HTTP/1.1\r\nHost: x", b"POST /query HTTP/1.1\r\nContent-Length: 0",
                     b"POST /query HTTP/1.1\r\nHost: x\r\nExpect: 100-continue",
                     b"POST /query?x=1 HTTP/1.1\r\nHost: x"):
        method, target, headers, _ = parse_head(not_lean)  # type: ignore[misc]
        assert not lean_candidate(method, target, headers), not_lean


def test_websocket_upgrade_through_the_front(running: Running) -> None:
    import json
    from urllib.parse import quote

    from wsproto import ConnectionType, WSConnection
    from wsproto.events import AcceptConnection, Request, TextMessage

    ws = WSConnection(ConnectionType.CLIENT)
    req = json.dumps({"ksql": "SELECT * FROM LEAN_S EMIT CHANGES LIMIT 1;",
                      "streamsProperties": {"auto.offset.reset": "earliest"}})
    texts: list[str] = []
    with socket.create_connection(("127.0.0.1", running.port), timeout=20) as s:
        s.sendall(ws.send(Request(host="test", target="/ws/query?request=" + quote(req))))
        accepted = False
        end = time.monotonic() + 20
        while len(texts) < 2 and time.monotonic() < end:
            data = s.recv(65536)
            if not data:
                break
            ws.receive_data(data)
            for event in ws.events():
                accepted = accepted or isinstance(event, AcceptConnection)
                if isinstance(event, TextMessage):
                    texts.append(event.data)
    assert accepted and [f["name"] for f in json.loads(texts[0])] == ["ID", "V"]
    assert json.loads(texts[1])["row"]["columns"] == [1, "a"]


def test_keep_alive_timeout_counts_the_lookups_the_front_answers(tmp_path: Any) -> None:
    """An idle connection closes after the keep-alive timeout, whether only the front served it or
    Hypercorn too; lookups the front answers keep a shared connection alive, as Hypercorn's requests do."""
    r = Running(str(tmp_path), keep_alive_timeout=1.0).start()
    try:
        with httpx.Client(base_url=r.url, timeout=20) as c:
            assert c.post("/ksql", json={"ksql": "CREATE STREAM KA_S (ID INT KEY, V STRING) WITH (kafka_topic='ka_s', "
                                                  "partitions=1, value_format='JSON'); CREATE TABLE KA_T AS SELECT ID, "
                                                  "COUNT(*) AS N FROM KA_S GROUP BY ID; INSERT INTO KA_S (ID, V) "
                                                  "VALUES (1, 'a');",
                                          "streamsProperties": {"auto.offset.reset": "earliest"}}).status_code == 200
        ask = request("/query-stream", b'{"sql": "SELECT * FROM KA_T WHERE ID = 1;"}')
        end = time.monotonic() + 30
        while not exchange(r.port, ask)[0][2].endswith(b"[1,1]\n"):
            assert time.monotonic() < end
            time.sleep(0.05)
        quiet = socket.create_connection(("127.0.0.1", r.port), timeout=20)  # never used: closed by the front
        shared = socket.create_connection(("127.0.0.1", r.port), timeout=20)
        f = shared.makefile("rb")
        shared.sendall(request("/info", method="GET"))  # Hypercorn now shares this connection
        assert read_response(f)[0] == b"HTTP/1.1 200 "
        answered = r.front.answered
        for _ in range(12):  # 2.4 s of lookups, more than twice the timeout
            shared.sendall(ask)
            assert read_response(f)[2].endswith(b"[1,1]\n")
            time.sleep(0.2)
        assert r.front.answered == answered + 12
        assert quiet.recv(10) == b""
        shared.settimeout(20)
        assert shared.recv(10) == b""  # closed by Hypercorn once the lookups stopped
        quiet.close()
        shared.close()
    finally:
        r.stop()
