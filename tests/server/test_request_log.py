"""The request log (server/request_log.py), as ksqlDB's LoggingHandler writes it: a line per request, whatever
answered it, with the client, the user, the time, the request line, the status, the body bytes each way and the
User-Agent; left out by status (``ksql.logging.server.skip.response.codes``), by uri
(``ksql.endpoint.logging.ignored.paths.regex``) and by rate (``ksql.logging.server.rate.limited.*``); the query
string only with ``ksql.endpoint.logging.log.queries``. The rule's units, then a real server on loopback over
HTTP/1.1, HTTP/2, the lean front's lookups and a WebSocket."""

from __future__ import annotations

import json
import logging
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("hypercorn")
pytest.importorskip("h2")

from starlette.testclient import TestClient  # noqa: E402
from test_lean import LOOKUP, Running, _serve_with_table, exchange, lookup_request  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import ConfigError, build_config  # noqa: E402
from ksqlpy.server.context import ServerContext  # noqa: E402
from ksqlpy.server.request_log import (  # noqa: E402
    LOGGER_NAME,
    RateLimiter,
    RequestFacts,
    RequestLog,
    RequestLogConfigError,
    RequestLogPolicy,
    lean_body_length,
    parse_pairs,
    rfc1123,
)

LINE = re.compile(r'(?P<host>\S+) - (?P<user>\S+) \[(?P<time>\w{3}, \d{1,2} \w{3} \d{4} \d\d:\d\d:\d\d GMT)\] '
                  r'"(?P<method>\S+) (?P<uri>\S+) (?P<version>HTTP/1\.1|HTTP/2\.0|HTTP/1\.0)" (?P<status>\d+) '
                  r'(?P<sent>\d+) "-" "(?P<agent>[^"]*)" (?P<read>\d+)\Z')


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def lines(self) -> list[tuple[int, dict[str, str]]]:
        out = []
        for r in self.records:
            m = LINE.match(r.getMessage())
            if m is not None:
                out.append((r.levelno, m.groupdict()))
        return out

    def find(self, method: str, uri: str, agent: str | None = None, timeout_s: float = 10.0) -> tuple[int, dict[str, str]]:
        """The line of a request (written when its response has ended: wait for it)."""
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            for level, fields in self.lines():
                if fields["method"] == method and fields["uri"] == uri and agent in (None, fields["agent"]):
                    return level, fields
            time.sleep(0.02)
        raise AssertionError(f"no line for {method} {uri}: {[r.getMessage() for r in self.records]}")


@pytest.fixture
def captured() -> Iterator[Captured]:
    logger = logging.getLogger(LOGGER_NAME)
    handler, level = Captured(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


# ---------------------------------------------------------------------------------------------- units
class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_rate_limiter_is_guava_s_smooth_bursty() -> None:
    clock = Clock()
    one = RateLimiter(1.0, clock)
    assert one.try_acquire() and not one.try_acquire()  # the first permit at once, none stored at first
    clock.t += 0.5
    assert not one.try_acquire()
    clock.t += 0.5
    assert one.try_acquire() and not one.try_acquire()
    clock.t += 10  # idle: at most a second's worth (one permit) stored, then the fresh one a second on
    assert one.try_acquire() and one.try_acquire() and not one.try_acquire()
    four = RateLimiter(4.0, clock)
    clock.t += 5
    assert sum(four.try_acquire() for _ in range(10)) == 5  # four stored + one fresh
    half = RateLimiter(0.5, clock)
    assert half.try_acquire()
    clock.t += 1.9
    assert not half.try_acquire()
    clock.t += 0.1
    assert half.try_acquire()


def test_pairs_as_ksqldb_parses_them() -> None:
    assert parse_pairs("p", "") == {}
    assert parse_pairs("p", "/query:1, /ksql:2.5 ,401:0.1") == {"/query": "1", "/ksql": "2.5", "401": "0.1"}
    for value, reason in (("/query", "Chunk [/query] is not a valid entry"),
                          ("/a:1,", "Chunk [] is not a valid entry"),
                          ("/a:1:2", "Chunk [/a:1:2] is not a valid entry"),
                          ("/a:1,/a:2", "Duplicate key [/a] found.")):
        with pytest.raises(RequestLogConfigError) as e:
            parse_pairs("p", value)
        assert str(e.value) == f"Invalid config value for 'p'. value: {value}. reason: {reason}"


@pytest.mark.parametrize("props, message", [
    ({"ksql.logging.server.rate.limited.request.paths": "/query:fast"},
     "Invalid value fast for configuration ksql.logging.server.rate.limited.request.paths: Not a double"),
    ({"ksql.logging.server.rate.limited.response.codes": "4o4:1"},
     "Invalid value 4o4 for configuration ksql.logging.server.rate.limited.response.codes: Not an int"),
    ({"ksql.logging.server.rate.limited.response.codes": "404:x"},
     "Invalid value x for configuration ksql.logging.server.rate.limited.response.codes: Not a double"),
    ({"ksql.logging.server.rate.limited.response.codes": "404"},
     "Invalid config value for 'ksql.logging.server.rate.limited.response.codes'. value: 404. reason: "
     "Chunk [404] is not a valid entry"),
    ({"ksql.logging.server.skip.response.codes": "404,ok"},
     "Invalid value ok for configuration ksql.logging.server.skip.response.codes: Not an int"),
])
def test_bad_settings_stop_the_server_at_start(tmp_path: Path, props: dict[str, str], message: str) -> None:
    with pytest.raises(RequestLogConfigError) as e:
        RequestLogPolicy.from_properties(props)
    assert str(e.value) == message
    with pytest.raises(ConfigError) as stopped:
        build_config(data_dir=str(tmp_path), overrides=props)
    assert str(stopped.value) == message


def test_bad_ignore_regex_stops_the_server(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ksql.endpoint.logging.ignored.paths.regex"):
        build_config(data_dir=str(tmp_path), overrides={"ksql.endpoint.logging.ignored.paths.regex": "(/chc"})


def test_settings_read() -> None:
    policy = RequestLogPolicy.from_properties({
        "ksql.endpoint.logging.log.queries": "TRUE", "ksql.endpoint.logging.ignored.paths.regex": ".*heartbeat.*",
        "ksql.logging.server.skip.response.codes": " 404 , 503", "ksql.logging.server.rate.limited.request.paths":
        "/query:2.5", "ksql.logging.server.rate.limited.response.codes": "401:1e-1"})
    assert policy.log_queries and policy.ignored is not None and policy.ignored.pattern == ".*heartbeat.*"
    assert policy.skip_codes == {404, 503} and policy.path_rates == {"/query": 2.5} and policy.code_rates == {401: 0.1}
    default = RequestLogPolicy.from_properties({})
    assert not default.log_queries and default.ignored is None and not default.skip_codes
    assert not default.path_rates and not default.code_rates


def test_rfc1123_time_as_java_prints_it() -> None:
    assert rfc1123(784111777) == "Sun, 6 Nov 1994 08:49:37 GMT"  # the day of the month without a leading zero
    assert rfc1123(1764288000) == "Fri, 28 Nov 2025 00:00:00 GMT"


def _facts(path: str = "/info", status: int = 200, query: str = "", user: str | None = None) -> RequestFacts:
    return RequestFacts(host="10.0.0.7", method="GET", path=path, query=query, version="HTTP/1.1",
                        user_agent="curl/8.0", user=user, status=status, sent=12, read=3)


def _log(**props: str) -> tuple[RequestLog, Captured, Clock]:
    logger = logging.getLogger(f"{LOGGER_NAME}.unit{time.monotonic_ns()}")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    handler = Captured()
    logger.addHandler(handler)
    clock = Clock()
    return RequestLog(RequestLogPolicy.from_properties(props), logger, clock, lambda: 784111777.0), handler, clock


def test_line_and_level_by_status() -> None:
    log, seen, _ = _log()
    for status in (200, 101, 302, 400, 404, 429, 500, 503):
        log.record(_facts(status=status))
    log.record(_facts(user="fred"))
    messages = [(r.levelno, r.getMessage()) for r in seen.records]
    assert messages[0] == (logging.INFO, '10.0.0.7 - - [Sun, 6 Nov 1994 08:49:37 GMT] "GET /info HTTP/1.1" 200 12 '
                                         '"-" "curl/8.0" 3')
    assert [level for level, _ in messages] == [logging.INFO] * 3 + [logging.WARNING] * 3 + [logging.ERROR] * 2 \
        + [logging.INFO]
    assert messages[-1][1].startswith("10.0.0.7 - fred [")


def test_query_string_only_when_asked() -> None:
    plain, seen, _ = _log()
    plain.record(_facts(path="/ws/query", query="request=secret"))
    with_queries, seen_q, _ = _log(**{"ksql.endpoint.logging.log.queries": "true"})
    with_queries.record(_facts(path="/ws/query", query="request=secret"))
    with_queries.record(_facts(path="/info"))
    assert '"GET /ws/query HTTP/1.1"' in seen.records[0].getMessage()
    assert '"GET /ws/query?request=secret HTTP/1.1"' in seen_q.records[0].getMessage()
    assert '"GET /info HTTP/1.1"' in seen_q.records[1].getMessage()  # no '?' without a query


def test_skip_codes_and_ignored_uris() -> None:
    log, seen, _ = _log(**{"ksql.logging.server.skip.response.codes": "404,503",
                           "ksql.endpoint.logging.ignored.paths.regex": "/chc/.*|.*heartbeat"})
    for facts in (_facts(status=404), _facts(status=503), _facts(path="/chc/live"), _facts(path="/heartbeat"),
                  _facts(path="/lag"), _facts(path="/chc"), _facts(path="/heartbeat/x"), _facts(status=500)):
        log.record(facts)
    assert [LINE.match(r.getMessage())["uri"] for r in seen.records] == ["/lag", "/chc", "/heartbeat/x", "/info"]
    # the regex sees the uri as logged: with the query string when queries are logged
    log_q, seen_q, _ = _log(**{"ksql.endpoint.logging.log.queries": "true",
                               "ksql.endpoint.logging.ignored.paths.regex": "/info"})
    log_q.record(_facts(query="a=1"))
    log_q.record(_facts())
    assert [LINE.match(r.getMessage())["uri"] for r in seen_q.records] == ["/info?a=1"]


def test_rate_limits_by_path_then_status() -> None:
    log, seen, clock = _log(**{"ksql.logging.server.rate.limited.request.paths": "/query:1",
                               "ksql.logging.server.rate.limited.response.codes": "401:0.5"})
    for _ in range(3):
        log.record(_facts(path="/query"))
    assert [r.getMessage() for r in seen.records][1:] == ["Hit rate limit for path /query with limit 1.0"]
    assert len(seen.lines()) == 1
    clock.t += 1
    log.record(_facts(path="/query"))
    assert len(seen.lines()) == 2
    log.record(_facts(path="/ksql", status=401))
    log.record(_facts(path="/ksql", status=401))  # the 'hit' line is itself limited: once every five seconds
    assert len(seen.lines()) == 3 and len(seen.records) == 4
    clock.t += 5
    log.record(_facts(path="/other", status=401))
    log.record(_facts(path="/other", status=401))
    assert seen.records[-1].getMessage() == "Hit rate limit for response code 401 with limit 0.5"
    assert seen.records[-1].levelno == logging.INFO
    # a path under its limit still meets its status's: both are checked
    log2, seen2, _ = _log(**{"ksql.logging.server.rate.limited.request.paths": "/query:100",
                             "ksql.logging.server.rate.limited.response.codes": "400:1"})
    log2.record(_facts(path="/query", status=400))
    log2.record(_facts(path="/query", status=400))
    assert len(seen2.lines()) == 1


def test_lean_body_length() -> None:
    assert lean_body_length(b"HTTP/1.1 200 \r\ncontent-length: 5\r\n\r\nhello") == 5
    chunked = b"HTTP/1.1 200 \r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\na\r\n0123456789\r\n0\r\n\r\n"
    assert lean_body_length(chunked) == 13


def test_authenticated_user_named(tmp_path: Path, captured: Captured) -> None:
    users = tmp_path / "users.properties"
    users.write_text("fred: letmein,admin\n")
    config = build_config(data_dir=str(tmp_path / "data"), overrides={
        "ksql.logging.processing.stream.auto.create": "false", "authentication.method": "BASIC",
        "authentication.users.file": str(users)})
    with TestClient(create_app(config)) as c:
        end = time.monotonic() + 30
        while c.get("/info", auth=("fred", "letmein")).status_code != 200 and time.monotonic() < end:
            time.sleep(0.05)
        assert c.get("/healthcheck", auth=("fred", "letmein"), headers={"User-Agent": "agent/1"}).status_code == 200
        assert c.get("/info", auth=("fred", "wrong"), headers={"User-Agent": "agent/1"}).status_code == 401
        assert c.get("/chc/live", headers={"User-Agent": "agent/1"}).status_code == 200
    _, ok = captured.find("GET", "/healthcheck")
    level, refused = captured.find("GET", "/info", "agent/1")
    _, probe = captured.find("GET", "/chc/live")
    assert (ok["user"], ok["status"], ok["agent"]) == ("fred", "200", "agent/1")
    assert (refused["user"], refused["status"], level) == ("-", "401", logging.WARNING)
    assert probe["user"] == "-"


# ---------------------------------------------------------------------------------------------- a real server
class LogServer(Running):
    def __init__(self, data_dir: str, **props: str) -> None:
        super().__init__(data_dir)
        self.config = build_config(listeners=self.url, data_dir=data_dir,
                                   overrides={"ksql.logging.processing.stream.auto.create": "false", **props})
        self.ctx = ServerContext(self.config)
        self.app = create_app(self.config, self.ctx)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    yield from _serve_with_table(LogServer(str(tmp_path_factory.mktemp("reqlog"))).start())


def _sent(response: Any) -> int:
    return len(response.content)


def test_every_endpoint_logged(server: Running, captured: Captured) -> None:
    ua = {"User-Agent": "reqlog-test/1.0"}
    with httpx.Client(base_url=server.url, timeout=20, headers=ua) as c:
        answers = {
            ("GET", "/info"): c.get("/info"),
            ("GET", "/healthcheck"): c.get("/healthcheck"),
            ("GET", "/chc/ready"): c.get("/chc/ready"),
            ("GET", "/v1/metadata"): c.get("/v1/metadata"),
            ("GET", "/clusterStatus"): c.get("/clusterStatus"),
            ("GET", "/no/such/route"): c.get("/no/such/route"),
            ("POST", "/ksql"): c.post("/ksql", json={"ksql": "SHOW STREAMS;"}),
            ("POST", "/query"): c.post("/query", json={"ksql": "SELECT * FROM NOPE;"}),
            ("POST", "/close-query"): c.post("/close-query", json={"queryId": "none"}),
            ("POST", "/inserts-stream"): c.post("/inserts-stream", content=b'{"target":"LEAN_S"}\n{"ID":9,"V":"x"}\n'),
        }
    for (method, uri), response in answers.items():
        level, line = captured.find(method, uri)
        assert line["host"] == "127.0.0.1" and line["user"] == "-" and line["version"] == "HTTP/1.1"
        assert line["agent"] == "reqlog-test/1.0"
        assert int(line["status"]) == response.status_code, (uri, line)
        assert int(line["sent"]) == _sent(response), (uri, line)
        request_body = response.request.content
        assert int(line["read"]) == len(request_body), (uri, line)
        expected = logging.ERROR if response.status_code >= 500 else logging.WARNING \
            if response.status_code >= 400 else logging.INFO
        assert level == expected, (uri, line)
    assert {captured.find(m, u)[1]["status"] for m, u in [("GET", "/no/such/route"), ("POST", "/query")]} == {"404", "400"}


def test_query_string_left_out_by_default(server: Running, captured: Captured) -> None:
    with httpx.Client(base_url=server.url, timeout=20) as c:
        c.get("/info?password=secret")
        c.get("/healthcheck", headers={"User-Agent": ""})
    _, line = captured.find("GET", "/info")
    assert "secret" not in " ".join(r.getMessage() for r in captured.records)
    assert captured.find("GET", "/healthcheck")[1]["agent"] == ""


def test_http2_and_streams(server: Running, captured: Captured) -> None:
    with httpx.Client(base_url=server.url, timeout=20, http1=False, http2=True) as c:
        r = c.post("/query-stream", json={"sql": "SELECT * FROM LEAN_T WHERE ID = 1;"},
                   headers={"Accept": "application/json"})
        assert r.status_code == 200
    _, line = captured.find("POST", "/query-stream")
    assert line["version"] == "HTTP/2.0" and line["status"] == "200" and int(line["sent"]) == len(r.content)
    assert int(line["read"]) == len(r.request.content)


def test_lean_front_lookups_logged(server: Running, captured: Captured) -> None:
    before = server.front.answered
    [answer] = exchange(server.port, lookup_request("/query-stream", 2, "application/json",
                                                    [("User-Agent", "lean/1")]))
    assert server.front.answered == before + 1  # the front answered it, not the app
    _, line = captured.find("POST", "/query-stream")
    body = json.dumps({"sql": LOOKUP.format(2)}, separators=(",", ":")).encode()
    assert (line["agent"], line["status"], line["version"]) == ("lean/1", "200", "HTTP/1.1")
    assert int(line["sent"]) == len(answer[2]) and int(line["read"]) == len(body)


def test_websocket_logged_when_closed(server: Running, captured: Captured) -> None:
    request = quote(json.dumps({"ksql": "SELECT * FROM LEAN_T WHERE ID = 2;"}))
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as s:
        s.sendall((f"GET /ws/query?request={request} HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                   "Sec-WebSocket-Version: 13\r\nUser-Agent: ws/1\r\n\r\n").encode())
        head = s.recv(4096)
        assert head.startswith(b"HTTP/1.1 101")
        end = time.monotonic() + 10
        while time.monotonic() < end:  # the pull query's frames, then the server's close
            if not s.recv(4096):
                break
    _, line = captured.find("GET", "/ws/query")
    assert line["status"] == "101" and line["agent"] == "ws/1" and int(line["sent"]) > 0
    assert "request=" not in line["uri"]


@pytest.fixture(scope="module")
def filtered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    r = LogServer(str(tmp_path_factory.mktemp("reqlogf")), **{
        "ksql.endpoint.logging.log.queries": "true", "ksql.endpoint.logging.ignored.paths.regex": "/chc/.*",
        "ksql.logging.server.skip.response.codes": "404",
        "ksql.logging.server.rate.limited.request.paths": "/healthcheck:0.2"}).start()
    try:
        yield r
    finally:
        r.stop()


def test_filters_on_a_real_server(filtered: Running, captured: Captured) -> None:
    with httpx.Client(base_url=filtered.url, timeout=20) as c:
        c.get("/chc/live")
        c.get("/no/such/route")
        for _ in range(3):
            c.get("/healthcheck")
        c.get("/info?verbose=1")
    captured.find("GET", "/info?verbose=1")
    uris = [fields["uri"] for _, fields in captured.lines()]
    assert "/chc/live" not in uris and "/no/such/route" not in uris
    assert uris.count("/healthcheck") == 1
    assert "Hit rate limit for path /healthcheck with limit 0.2" in [r.getMessage() for r in captured.records]
