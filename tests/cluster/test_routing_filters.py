"""Lag-aware routing of pull queries (``server/routing.py``): ksqlDB's routing filters in their order
(active host unless standby reads are on, liveness, ``ksql.query.pull.max.allowed.offset.lag``), its
refusal naming every partition without a valid host and the hosts scanned, its "Exhausted standby hosts"
refusal when every candidate failed, and the ``sourceHost`` of each row for a debug request."""

from __future__ import annotations

import dataclasses
import threading
import time
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from ksqlpy.engine import consistency
from ksqlpy.server import routing
from ksqlpy.server.membership import HostView, Membership
from ksqlpy.server.ownership import QueryPlacement
from ksqlpy.server.queries import PULL_TABLE, QueryRun, pull_chunks
from ksqlpy.server.streaming import StreamedRowWriter

ME, B, C = "http://a:1", "http://b:2", "http://c:3"
QID = "CTAS_T_1"


def _ctx(hosts: dict[str, tuple[list[int], list[int], dict[int, int], bool]],
         config: dict[str, Any] | None = None) -> Any:
    """A server context whose membership knows ``hosts``: url -> (active, standby, lags, alive)."""
    config = dict(config or {})
    now = int(time.time() * 1000)
    engine = SimpleNamespace(session_properties={}, prop=lambda name, default=None: default, queries={})
    ctx = SimpleNamespace(config=SimpleNamespace(properties=config, get=config.get), engine=engine)
    m = Membership.__new__(Membership)
    m.ctx, m.engine, m.me, m.lock, m.remote = ctx, engine, ME, threading.RLock(), True
    m.hosts = {url: HostView(url, now if alive else now - 60_000,
                             {QID: QueryPlacement(8, active, standby, lags)})
               for url, (active, standby, lags, alive) in hosts.items()}
    ctx.membership = m
    return ctx


def test_the_active_host_serves_and_standbys_only_with_standby_reads() -> None:
    ctx = _ctx({ME: ([0], [3], {3: 0}, True), B: ([3], [0], {}, True)})
    assert routing._plan(ctx, QID, {0, 3}, {}) == {0: [ME], 3: [B]}
    scanned = routing._scan(ctx, QID, 3, {})
    assert [(s.url, s.reason) for s in scanned] == [(B, None),
                                                    (ME, "Host is not the active host for this partition.")]
    on = {"ksql.query.pull.enable.standby.reads": True}
    assert routing._plan(ctx, QID, {3}, on) == {3: [B, ME]}


def test_a_dead_active_gives_way_to_a_standby_within_the_lag() -> None:
    ctx = _ctx({ME: ([0], [3], {3: 5}, True), B: ([3], [], {}, False), C: ([], [3], {3: 2}, True)})
    on = {"ksql.query.pull.enable.standby.reads": "true"}
    assert routing._plan(ctx, QID, {3}, on) == {3: [C, ME]}  # least lag first
    assert routing._plan(ctx, QID, {3}, {**on, "ksql.query.pull.max.allowed.offset.lag": 4}) == {3: [C]}


def test_no_host_within_the_lag_is_ksqldbs_refusal_naming_the_hosts_scanned() -> None:
    ctx = _ctx({ME: ([0], [3], {3: 50}, True), B: ([3], [], {}, False)})
    props = {"ksql.query.pull.enable.standby.reads": True, "ksql.query.pull.max.allowed.offset.lag": 10}
    with pytest.raises(routing.RoutingError) as e:
        routing._plan(ctx, QID, {0, 3}, props)
    msg = e.value.message
    assert msg.startswith("Unable to execute pull query. [Partition 3 failed to find valid host. Hosts scanned: "
                          "[b:2 (Host is not alive as of time ")
    assert msg.endswith("), a:1 (Host excluded because lag 50 exceeds maximum allowed lag 10.)]]")
    assert "Partition 0" not in msg  # partition 0 has a valid host
    # a dead host is named with its last status update, when it was last known alive
    last = ctx.membership.hosts[B].timestamp
    assert f"b:2 (Host is not alive as of time {last}.)" in msg


def test_the_lag_bound_applies_to_the_active_host_too_and_a_request_overrides_the_server() -> None:
    ctx = _ctx({ME: ([], [], {}, True), B: ([2], [], {2: 7}, True)},
               config={"ksql.query.pull.max.allowed.offset.lag": 5})
    with pytest.raises(routing.RoutingError, match=r"Partition 2 failed to find valid host. Hosts scanned: "
                                                   r"\[b:2 \(Host excluded because lag 7 exceeds maximum allowed "
                                                   r"lag 5\.\)\]"):
        routing._plan(ctx, QID, {2}, {})
    assert routing._plan(ctx, QID, {2}, {"ksql.query.pull.max.allowed.offset.lag": "7"}) == {2: [B]}


def test_a_partition_no_host_reports_is_refused_with_no_hosts_scanned() -> None:
    ctx = _ctx({ME: ([0], [], {}, True)})
    with pytest.raises(routing.RoutingError) as e:
        routing._plan(ctx, QID, {1, 5}, {})
    assert e.value.message == ("Unable to execute pull query. [Partition 1 failed to find valid host. Hosts scanned: "
                               "[], Partition 5 failed to find valid host. Hosts scanned: []]")


def _first() -> QueryRun:
    return QueryRun(PULL_TABLE, "query_1", [("K", "STRING", True), ("N", "BIGINT", False)], rows=[])


def test_failed_hosts_give_way_and_then_the_query_is_exhausted(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx({ME: ([0], [], {}, True), B: ([1], [], {}, True), C: ([], [1], {}, True)})
    asked: list[str] = []

    def forward(url: str, sql: str, props: Any, variables: Any, parts: set[int], timeout_s: float,
                tokens: Any = None) -> list[Any]:
        asked.append(url)
        if url == B:
            raise routing.ForwardError("connection refused")
        return [["k1", 4]]

    monkeypatch.setattr(routing, "forward", forward)
    local = lambda props: QueryRun(PULL_TABLE, "query_1", rows=[("k0", 2)])  # noqa: E731
    sql = "SELECT * FROM T;"
    run = routing._gather(ctx, _first(), {0: [ME], 1: [B, C]}, sql, {}, {}, local, debug=True)
    assert sorted(run.rows) == [["k0", 2], ["k1", 4]] and asked == [B, C]
    assert dict(zip([r[0] for r in run.rows], run.row_hosts or [], strict=True)) == {"k0": "a:1", "k1": "c:3"}
    assert sorted(run.source_hosts) == ["a:1", "c:3"]
    # no host left for partition 1: the rows read meanwhile (partition 0's, here), then the error that ends the
    # response after them (ksqlDB's HARouting fails while it runs the rounds, after the header)
    run = routing._gather(ctx, _first(), {0: [ME], 1: [B]}, sql + "\n", {}, {}, local)
    assert run.rows == [["k0", 2]]
    assert run.error == "Unable to execute pull query: SELECT * FROM T;. Exhausted standby hosts to try."


def test_a_local_run_that_fails_gives_way_to_the_next_host(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx({ME: ([0], [], {}, True), C: ([], [0], {}, True)})
    monkeypatch.setattr(routing, "forward", lambda *a, **k: [["k0", 5]])
    local = lambda props: QueryRun(PULL_TABLE, "query_1", error="boom")  # noqa: E731
    run = routing._gather(ctx, _first(), {0: [ME, C]}, "SELECT * FROM T;", {}, {}, local)
    assert run.rows == [["k0", 5]] and run.error is None
    run = routing._gather(ctx, _first(), {0: [ME]}, "SELECT * FROM T;", {}, {}, local)
    assert run.rows == [] and run.error.endswith("Exhausted standby hosts to try.")


def test_a_debug_requests_rows_carry_their_source_host() -> None:
    run = QueryRun(PULL_TABLE, "query_1", [("K", "STRING", True), ("N", "BIGINT", False)],
                   rows=[["k0", 2], ["k1", 4]], row_hosts=["a:1", "c:3"])
    body = b"".join(pull_chunks(run, StreamedRowWriter(run.query_id, run.columns)))
    elements = orjson.loads(body)
    assert elements[1:] == [{"row": {"columns": ["k0", 2]}, "sourceHost": "a:1"},
                            {"row": {"columns": ["k1", 4]}, "sourceHost": "c:3"}]
    run.row_hosts = None  # not a debug request: rows as ever
    assert orjson.loads(b"".join(pull_chunks(run, StreamedRowWriter(run.query_id, run.columns))))[1] == \
        {"row": {"columns": ["k0", 2]}}


def _vector(offsets: dict[str, dict[int, int]]) -> str:
    return consistency.OffsetVector(offsets).serialize()


def test_a_consistency_token_merges_the_parts_every_host_served(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx({ME: ([0], [], {}, True), B: ([1], [], {}, True)})

    def forward(url: str, sql: str, props: Any, variables: Any, parts: set[int], timeout_s: float,
                tokens: list[Any]) -> list[Any]:
        tokens.append(_vector({"in": {1: 7}}))  # what host B read of partition 1
        return [["k1", 4]]

    monkeypatch.setattr(routing, "forward", forward)
    local = lambda props: QueryRun(PULL_TABLE, "query_1", rows=[("k0", 2)],  # noqa: E731
                                   consistency_token=_vector({"in": {0: 3}}))
    first = dataclasses.replace(_first(), consistency_token=_vector({"other": {5: 1}}))  # the request's bound
    run = routing._gather(ctx, first, {0: [ME], 1: [B]}, "SELECT * FROM T;", {}, {}, local)
    assert consistency.OffsetVector.deserialize(run.consistency_token).offsets == {
        "other": {5: 1}, "in": {0: 3, 1: 7}}
    # without tokens (the switch off) the answer has none
    run = routing._gather(ctx, _first(), {0: [ME], 1: [B]}, "SELECT * FROM T;", {}, {},
                          lambda props: QueryRun(PULL_TABLE, "query_1", rows=[("k0", 2)]))
    assert run.consistency_token is None


class _Conn:
    """An HTTP connection that records the request and answers with ``body``."""

    def __init__(self, body: list[Any]) -> None:
        self.body, self.sent, self.timeout = body, None, 1.0

    def request(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> None:
        self.sent = orjson.loads(body)

    def getresponse(self) -> Any:
        return SimpleNamespace(status=200, read=lambda: orjson.dumps(self.body))


def test_a_forwarded_pull_query_carries_the_requests_vector_and_brings_back_its_token(
        monkeypatch: pytest.MonkeyPatch) -> None:
    token = _vector({"in": {1: 9}})
    conn = _Conn([{"header": {"queryId": "q", "schema": "`K` STRING KEY"}}, {"row": {"columns": ["k1"]}},
                  {"consistencyToken": {"consistencyToken": token}}])
    monkeypatch.setattr(routing, "_connection", lambda url, timeout_s: conn)
    bound = _vector({"in": {1: 2}})
    tokens: list[Any] = []
    ctx_token = consistency.requested.set(bound)
    try:
        assert routing.forward(B, "SELECT * FROM T;", {}, {}, {1}, tokens=tokens) == [["k1"]]
    finally:
        consistency.requested.reset(ctx_token)
    assert conn.sent["requestProperties"][consistency.REQUEST_VECTOR] == bound
    assert conn.sent["requestProperties"][routing.PULL_PARTITIONS] == "1"
    assert tokens == [token]
    # a request without a vector forwards none
    routing.forward(B, "SELECT * FROM T;", {}, {}, {1}, tokens=[])
    assert consistency.REQUEST_VECTOR not in conn.sent["requestProperties"]
    # a host whose store is behind the bound answers with the error element: a failed host, the next is asked
    conn.body = [{"header": {"queryId": "q", "schema": "`K` STRING KEY"}},
                 {"errorMessage": {"@type": "generic_error", "error_code": 50000, "message": "Exhausted"}}]
    with pytest.raises(routing.ForwardError):
        routing.forward(B, "SELECT * FROM T;", {}, {}, {1}, tokens=[])
