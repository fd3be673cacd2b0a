"""The host's pull-query limits (server/pull_limits.py): ``ksql.query.pull.max.qps``,
``ksql.query.pull.max.concurrent.requests`` and ``ksql.query.pull.max.hourly.bandwidth.megabytes`` refuse a
pull query - a table's or a stream's, prepared or not - with 429 / 42900 on /query and /query-stream (HTTP/1.1
and HTTP/2, a real server on loopback), and close /ws/query with 1003 and the same message; push queries, and
pull queries a cluster peer forwarded, are not counted by the rate and concurrency limits."""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import ConfigError, build_config  # noqa: E402
from ksqlpy.server.errors import ServerError  # noqa: E402
from ksqlpy.server.pull_limits import (  # noqa: E402
    BandwidthLimiter,
    ConcurrencyLimiter,
    PullLimits,
    RateLimiter,
    _java_double,
)
from ksqlpy.testing.server_process import ServerProcess  # noqa: E402

CONCURRENCY_0 = ("Host is at concurrency limit for pull queries. Currently set to 0 maximum concurrent "
                 "operations.")
BANDWIDTH = "Host is at bandwidth rate limit for pull queries."
RATE_1 = "Host is at rate limit for pull queries. Currently set to 1.0 qps."
SETUP = ("CREATE TABLE LT (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='lt', partitions=1, value_format='JSON');"
         "CREATE STREAM LS (ID INT KEY, V STRING) WITH (kafka_topic='ls', partitions=1, value_format='JSON');"
         "CREATE TABLE LQ AS SELECT * FROM LT;")
PULLS = ["SELECT * FROM LQ WHERE ID = 1;", "SELECT * FROM LQ;", "SELECT * FROM LS;"]


# ------------------------------------------------------------------ the limiters alone


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_rate_limiter_is_guava_smooth_bursty() -> None:
    clock = Clock()
    r = RateLimiter(2, clock)
    assert r.try_acquire()  # the first is due at once
    assert not r.try_acquire()  # the next in half a second
    clock.now += 0.5
    assert r.try_acquire()
    assert not r.try_acquire()
    clock.now += 10  # an idle spell stores one second's permits, no more
    assert [r.try_acquire() for _ in range(4)] == [True, True, True, False]
    assert not RateLimiter(0, clock).try_acquire()


def test_concurrency_limiter_gives_back_once() -> None:
    c = ConcurrencyLimiter(1)
    release = c.increment()
    with pytest.raises(ServerError) as refused:
        c.increment()
    assert refused.value.status == 429 and refused.value.error_code == 42900
    assert refused.value.message == ("Host is at concurrency limit for pull queries. Currently set to 1 maximum "
                                     "concurrent operations.")
    release()
    release()  # a second release does not add a permit
    c.increment()
    with pytest.raises(ServerError):
        c.increment()


def test_bandwidth_limiter_counts_the_last_hour() -> None:
    clock = Clock()
    b = BandwidthLimiter(1, clock)
    b.allow()
    b.add(1024 * 1024)
    b.allow()  # at the limit is not over it
    b.add(1)
    with pytest.raises(ServerError) as refused:
        b.allow()
    assert (refused.value.status, refused.value.message) == (429, BANDWIDTH)
    clock.now += 3600  # the window slid past both
    b.allow()


def test_admission_order_and_forwarded_queries() -> None:
    limits = PullLimits(qps=1, concurrent=1, megabytes=0)
    ticket = limits.admit()
    assert ticket is not None
    with pytest.raises(ServerError) as refused:
        limits.admit()
    assert refused.value.message == RATE_1  # the rate comes first
    forwarded = limits.admit(forwarded=True)  # not counted by rate or concurrency; the bandwidth is clear
    assert forwarded is not None
    ticket.finish(10)
    ticket.finish(10)  # counted once
    assert limits.bandwidth is not None and limits.bandwidth.in_window == 10
    with pytest.raises(ServerError) as refused:
        limits.admit(forwarded=True)
    assert refused.value.message == BANDWIDTH
    assert not PullLimits().active and PullLimits().admit() is None


def test_qps_rendered_as_java_double() -> None:
    assert [_java_double(v) for v in (1, 50, 0, 10_000_000, 2_147_483_646)] == [
        "1.0", "50.0", "0.0", "1.0E7", "2.147483646E9"]


def test_a_limit_that_is_not_a_number_stops_the_server(tmp_path: Any) -> None:
    with pytest.raises(ConfigError, match="ksql.query.pull.max.qps"):
        build_config(data_dir=str(tmp_path), overrides={"ksql.query.pull.max.qps": "many"})


# ------------------------------------------------------------------ a real server: every endpoint


def _ready(get: Callable[[str], Any]) -> None:
    end = time.monotonic() + 60
    while get("/info").status_code != 200:
        assert time.monotonic() < end, "server not ready"
        time.sleep(0.05)


def _setup(post: Callable[..., Any]) -> None:
    r = post("/ksql", json={"ksql": SETUP, "streamsProperties": {}})
    assert r.status_code == 200, r.text
    r = post("/ksql", json={"ksql": "INSERT INTO LT (ID, V) VALUES (1, 'a'); INSERT INTO LS (ID, V) VALUES (1, 'a');",
                            "streamsProperties": {}})
    assert r.status_code == 200, r.text


@pytest.fixture(scope="module")
def no_concurrency(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("pulllimits")),
                         {"ksql.query.pull.max.concurrent.requests": "0",
                          "ksql.logging.processing.stream.auto.create": "false"})
    proc.start()
    try:
        with httpx.Client(base_url=proc.url, timeout=20) as c:
            _setup(c.post)
        yield proc
    finally:
        proc.stop()


@pytest.fixture(params=["http1", "http2"])
def client(request: pytest.FixtureRequest, no_concurrency: ServerProcess) -> Iterator[Any]:
    h2 = request.param == "http2"
    with httpx.Client(base_url=no_concurrency.url, http1=not h2, http2=h2, timeout=20) as c:
        yield c


def _refused(r: Any, message: str) -> None:
    assert r.status_code == 429, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.json() == {"@type": "generic_error", "error_code": 42900, "message": message}


@pytest.mark.parametrize("sql", PULLS)
@pytest.mark.parametrize("accept", [None, "application/json", "application/vnd.ksql.v1+json",
                                    "application/vnd.ksqlapi.delimited.v1"])
def test_every_pull_query_is_refused_on_query_stream(client: Any, sql: str, accept: str | None) -> None:
    headers = {"Accept": accept} if accept else {}
    for _ in range(2):  # the second time a prepared lookup
        _refused(client.post("/query-stream", json={"sql": sql, "properties": {}}, headers=headers), CONCURRENCY_0)


@pytest.mark.parametrize("sql", PULLS)
def test_every_pull_query_is_refused_on_query(client: Any, sql: str) -> None:
    for _ in range(2):
        _refused(client.post("/query", json={"ksql": sql, "streamsProperties": {}},
                             headers={"Accept": "application/vnd.ksqlapi.delimited.v1"}), CONCURRENCY_0)


def test_query_legacy_accept_over_http1(no_concurrency: ServerProcess) -> None:
    with httpx.Client(base_url=no_concurrency.url, timeout=20) as c:
        _refused(c.post("/query", json={"ksql": PULLS[0], "streamsProperties": {}}), CONCURRENCY_0)


def test_analysis_errors_come_before_the_limit(client: Any) -> None:
    r = client.post("/query-stream", json={"sql": "SELECT * FROM NOPE;", "properties": {}})
    assert r.status_code == 400 and r.json()["error_code"] == 40001, r.text


@pytest.mark.parametrize("sql, message", [
    ("SELECT ID, COUNT(*) FROM LQ GROUP BY ID;", "Pull queries don't support GROUP BY clauses."),
    ("SELECT * FROM LQ WINDOW TUMBLING (SIZE 1 SECOND);", "Pull queries don't support WINDOW clauses."),
    ("SELECT ROWOFFSET FROM LQ;", "Pull queries don't support the following columns in SELECT clauses: `ROWOFFSET`"),
    ("SELECT NOPE FROM LQ;", "NOPE"),
    ("SELECT NOPE FROM LS;", "NOPE"),
    ("SELECT * FROM LS WHERE NOPE = 1;", "NOPE"),
    # the analysis's errors before PullQueryValidator's rules, all before the limit
    ("SELECT NOPE FROM LQ GROUP BY ID;", "SELECT column 'NOPE' cannot be resolved."),
    ("SELECT * FROM LS PARTITION BY NOPE;", "PARTITION BY column 'NOPE' cannot be resolved."),
    ("SELECT * FROM LQ JOIN LT ON LQ.NOPE = LT.ID;", "JOIN ON column 'LQ.NOPE' cannot be resolved."),
    ("SELECT * FROM LQ JOIN LT ON LQ.ID = LT.ID;", "Pull queries don't support JOIN clauses."),
])
def test_the_pull_query_analysis_comes_before_the_limit(client: Any, sql: str, message: str) -> None:
    """ksqlDB's QueryExecutor analyses the statement (sources and columns resolved, PullQueryValidator's
    clause rules) before it checks the host's limits."""
    r = client.post("/query-stream", json={"sql": sql, "properties": {}})
    assert r.status_code == 400 and message in r.json()["message"], r.text


@pytest.mark.parametrize("sql, properties", [
    ("SELECT * FROM LT WHERE ID = 1;", {}),  # a table nothing materializes: its plan's error
    ("SELECT * FROM LQ WHERE V = 'a';", {"ksql.query.pull.table.scan.enabled": "false"}),  # a scan refused
    ("SELECT * FROM LS;", {"ksql.query.pull.stream.enabled": "false"}),  # createStreamPullQuery's switch
])
def test_the_plan_and_the_stream_switch_come_after_the_limit(client: Any, sql: str,
                                                             properties: dict[str, str]) -> None:
    """After the limits: the table's plan (executeTablePullQuery: the WHERE's access, the store) and the
    stream switch (createStreamPullQuery)."""
    _refused(client.post("/query-stream", json={"sql": sql, "properties": properties}), CONCURRENCY_0)


@pytest.mark.parametrize("sql", [
    "SELECT * FROM LQ WHERE V = 1;",  # WHERE's comparison typed
    "SELECT * FROM LQ WHERE ID = 'x';",
    "SELECT * FROM LQ WHERE V;",  # WHERE not a boolean
    "SELECT V + 1 FROM LQ;",  # a select item typed
    "SELECT NOSUCHFN(V) FROM LQ;",  # a function resolved
    "SELECT * FROM LS WHERE V = 1;",  # a stream's: createStreamPullQuery plans it
    "SELECT V + 1 FROM LS;",
])
def test_logical_planning_comes_after_the_limit(client: Any, sql: str) -> None:
    """Typing WHERE and the select items, resolving functions, belong to logical planning: ksqlDB's
    QueryExecutor has checked the host's limits by then (executeTablePullQuery / createStreamPullQuery plan
    the query after them). Without the limit each of these is a 400 (tests/engine/test_pull_switches.py)."""
    _refused(client.post("/query-stream", json={"sql": sql, "properties": {}}), CONCURRENCY_0)
    _refused(client.post("/query", json={"ksql": sql, "streamsProperties": {}}), CONCURRENCY_0)


def test_push_queries_and_ksql_are_not_pull_queries(client: Any) -> None:
    r = client.post("/query-stream", json={"sql": "SELECT * FROM LS EMIT CHANGES LIMIT 1;",
                                           "properties": {"auto.offset.reset": "earliest"}})
    assert r.status_code == 200, r.text
    assert r.text.strip().splitlines()[-1] == '[1,"a"]'
    r = client.post("/ksql", json={"ksql": PULLS[0], "streamsProperties": {}})
    assert r.status_code == 400 and r.json()["error_code"] == 40002  # /ksql refuses a SELECT before any limit


def test_a_forwarded_pull_query_is_not_counted_here(client: Any) -> None:
    r = client.post("/query-stream", json={"sql": PULLS[0], "properties": {},
                                           "requestProperties": {"request.ksql.internal.request": True}})
    assert r.status_code == 200, r.text


# ------------------------------------------------------------------ in process: /ws/query and the other limits


def _app(tmp: Any, limits: dict[str, str]) -> Any:
    config = build_config(data_dir=str(tmp), overrides={"ksql.logging.processing.stream.auto.create": "false",
                                                        **limits})
    return TestClient(create_app(config))


def _ws_end(c: Any, sql: str) -> tuple[int, str]:
    with c.websocket_connect("/ws/query?request=" + quote(json.dumps({"ksql": sql}))) as ws:
        frames = []
        while True:
            try:
                frames.append(ws.receive_text())
            except WebSocketDisconnect as closed:
                return closed.code, json.loads(frames[-1])["error"]


def test_ws_pull_query_closes_with_the_limit(tmp_path: Any) -> None:
    with _app(tmp_path, {"ksql.query.pull.max.concurrent.requests": "0"}) as c:
        _ready(c.get)
        _setup(c.post)
        for sql in PULLS:
            assert _ws_end(c, sql) == (1003, CONCURRENCY_0)


def test_rate_limit_on_every_endpoint(tmp_path: Any) -> None:
    with _app(tmp_path, {"ksql.query.pull.max.qps": "1"}) as c:
        _ready(c.get)
        _setup(c.post)
        time.sleep(1.1)
        # an idle second stores one permit: besides the one due, one more goes through at once (Guava's burst)
        statuses = [c.post("/query-stream", json={"sql": PULLS[0]}) for _ in range(3)]
        assert [r.status_code for r in statuses[:2]] == [200, 200]
        _refused(statuses[2], RATE_1)
        _refused(c.post("/query", json={"ksql": PULLS[2]}), RATE_1)
        assert _ws_end(c, PULLS[1]) == (1003, RATE_1)
        time.sleep(1.1)
        assert c.post("/query", json={"ksql": PULLS[1]}).status_code == 200


def test_bandwidth_limit_and_concurrency_given_back(tmp_path: Any) -> None:
    with _app(tmp_path, {"ksql.query.pull.max.hourly.bandwidth.megabytes": "0",
                         "ksql.query.pull.max.concurrent.requests": "1"}) as c:
        _ready(c.get)
        _setup(c.post)
        r = c.post("/query-stream", json={"sql": PULLS[2]})  # a stream's pull query: streamed, then counted
        assert r.status_code == 200 and '"a"' in r.text
        # not the concurrency limit: the first query gave its permit back when its response ended
        _refused(c.post("/query-stream", json={"sql": PULLS[0]}), BANDWIDTH)
        _refused(c.post("/query", json={"ksql": PULLS[1]}), BANDWIDTH)
        assert _ws_end(c, PULLS[0]) == (1003, BANDWIDTH)
        r = c.post("/query-stream", json={"sql": "SELECT * FROM LS EMIT CHANGES LIMIT 1;",
                                          "properties": {"auto.offset.reset": "earliest"}})
        assert r.status_code == 200, r.text  # push queries are not pull queries


def test_scalable_push_bandwidth(tmp_path: Any) -> None:
    """``ksql.query.push.v2.max.hourly.bandwidth.megabytes``: the same rule for scalable push queries, with its
    own count; conventional push queries and pull queries are not counted by it."""
    with _app(tmp_path, {"ksql.query.push.v2.enabled": "true",
                         "ksql.query.push.v2.max.hourly.bandwidth.megabytes": "0"}) as c:
        _ready(c.get)
        _setup(c.post)
        c.post("/ksql", json={"ksql": "CREATE STREAM LC AS SELECT * FROM LS;"})
        scalable = "SELECT * FROM LC EMIT CHANGES LIMIT 1;"
        with c.stream("POST", "/query-stream", json={"sql": scalable}) as r:
            assert r.status_code == 200
            lines = r.iter_lines()
            header = json.loads(next(lines))
            assert header["queryId"].startswith("SCALABLE_PUSH_QUERY_")
            c.post("/ksql", json={"ksql": "INSERT INTO LS (ID, V) VALUES (2, 'b');"})
            assert json.loads(next(lines)) == [2, "b"]
        end = time.monotonic() + 10  # the response's bytes are added when it has ended
        while (r := c.post("/query-stream", json={"sql": scalable})).status_code == 200:
            assert time.monotonic() < end
            time.sleep(0.05)
        _refused(r, "Host is at bandwidth rate limit for push queries.")
        assert _ws_end(c, scalable) == (1003, "Host is at bandwidth rate limit for push queries.")
        r = c.post("/query-stream", json={"sql": "SELECT * FROM LS EMIT CHANGES LIMIT 1;",
                                          "properties": {"auto.offset.reset": "earliest"}})
        assert r.status_code == 200, r.text  # not scalable (from earliest): not counted
        assert c.post("/query-stream", json={"sql": PULLS[0]}).status_code == 200
