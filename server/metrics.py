"""``GET /metrics``: the engine's and the server's statistics in Prometheus' text format.

Per persistent query (label ``query_id``): records consumed and produced, processing-log entries, records
dropped as late, consumer lag per input topic and partition, state size on disk, and a histogram of
per-poll processing time. Per server: requests by route and status with their durations, pull query
latency, push queries started and running and their latency (start to end). Query values are read from the engine when the page is
scraped (``EngineCollector``); request counters are kept by a small ASGI middleware.

Registered by ``install(app, ctx)``: one route and one middleware, nothing else in the app changes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from ksqlpy.engine import metrics as M

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
REQUEST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _histogram(family: Any, labels: list[str], counts: list[int], total_s: float,
               bounds: tuple[float, ...] = M.BATCH_BUCKETS) -> None:
    """``counts`` per bucket of ``bounds`` (then +Inf) -> cumulative Prometheus buckets."""
    running = 0
    buckets = []
    for bound, n in zip([*bounds, float("inf")], counts, strict=True):
        running += n
        buckets.append(("+Inf" if bound == float("inf") else repr(bound), running))
    family.add_metric(labels, buckets, total_s)


class EngineCollector:
    """Reads the engine's queries at scrape time (prometheus_client's custom-collector protocol)."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx

    def describe(self) -> list[Any]:
        return []  # metrics are known only when collected; skip the registry's duplicate check

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        engine = self.ctx.engine
        q = ["query_id"]
        consumed = CounterMetricFamily("ksqlpy_query_consumed_records", "Input records processed by the query", labels=q)
        produced = CounterMetricFamily("ksqlpy_query_produced_records", "Records the query wrote to its sink", labels=q)
        errors = CounterMetricFamily("ksqlpy_query_processing_errors", "Processing-log entries of the query", labels=q)
        late = CounterMetricFamily("ksqlpy_query_late_records", "Records dropped by the query as late", labels=q)
        lag = GaugeMetricFamily("ksqlpy_query_consumer_lag", "Records in an input partition not yet committed",
                                labels=["query_id", "topic", "partition"])
        state = GaugeMetricFamily("ksqlpy_query_state_bytes", "Size of the query's local state on disk", labels=q)
        running = GaugeMetricFamily("ksqlpy_query_running", "1 while the query runs, 0 paused or failed", labels=q)
        batches = HistogramMetricFamily("ksqlpy_query_batch_processing_seconds",
                                        "Time one poll of the query took (a batch per task)", labels=q)
        if engine is not None:
            stats = engine.stats
            for qid, query in list(engine.queries.items()):
                s = stats.query(qid)
                consumed.add_metric([qid], s.consumed)
                produced.add_metric([qid], M.produced(engine, query))
                errors.add_metric([qid], engine.plog.by_query.get(qid, 0))
                late.add_metric([qid], M.late_records(engine, query))
                for p in M.positions(engine, query):
                    lag.add_metric([qid, p.topic, str(p.partition)], p.lag)
                state.add_metric([qid], M.state_bytes(engine, qid))
                running.add_metric([qid], 1 if query.state == "RUNNING" else 0)
                _histogram(batches, [qid], list(s.batch_counts), s.batch_sum_s)
        yield from (consumed, produced, errors, late, lag, state, running, batches)

        pull = HistogramMetricFamily("ksqlpy_pull_query_duration_seconds", "Latency of pull queries")
        push_started = CounterMetricFamily("ksqlpy_push_queries", "Push queries started")
        push_active = GaugeMetricFamily("ksqlpy_push_queries_active", "Push queries running now")
        push = HistogramMetricFamily("ksqlpy_push_query_duration_seconds",
                                     "Latency of push queries, start to end (recorded when one ends)")
        if engine is not None:
            _histogram(pull, [], list(engine.stats.pull_counts), engine.stats.pull_sum_s)
            _histogram(push, [], list(engine.stats.push_counts), engine.stats.push_sum_s, M.PUSH_BUCKETS)
            push_started.add_metric([], engine.stats.push_started)
            push_active.add_metric([], len(engine.transient))
        yield from (pull, push_started, push_active, push)
        yield from _backfill_metrics(engine)


def _backfill_metrics(engine: Any) -> Iterator[Any]:
    """The Spark backfills of this process (``ksqlpy.backfill.service``): per source partition records read
    and to read, per run the records committed and the ETA."""
    from prometheus_client.core import GaugeMetricFamily

    qp = ["query_id", "partition"]
    read = GaugeMetricFamily("ksqlpy_backfill_records_read", "Records of a source partition the backfill has read",
                             labels=qp)
    total = GaugeMetricFamily("ksqlpy_backfill_records_total", "Records of a source partition the backfill reads",
                              labels=qp)
    committed = GaugeMetricFamily("ksqlpy_backfill_committed_records", "Output rows the backfill has committed",
                                  labels=["query_id"])
    eta = GaugeMetricFamily("ksqlpy_backfill_eta_seconds", "Estimated seconds until the backfill has read "
                            "everything (-1 unknown)", labels=["query_id"])
    active = GaugeMetricFamily("ksqlpy_backfill_running", "1 while the query's backfill runs", labels=["query_id"])
    service = getattr(engine, "_backfills", None) if engine is not None else None
    if service is not None:
        for status in service.statuses():
            qid = status["queryId"]
            for p in status["partitions"]:
                read.add_metric([qid, str(p["partition"])], p["recordsRead"])
                total.add_metric([qid, str(p["partition"])], p["recordsTotal"])
            committed.add_metric([qid], status["committedRecords"])
            eta.add_metric([qid], -1 if status["etaSeconds"] is None else status["etaSeconds"])
            active.add_metric([qid], 1 if status["phase"] in ("STARTING", "COMPUTING", "COMMITTING") else 0)
    yield from (read, total, committed, eta, active)


class RequestMetrics:
    """ASGI middleware: requests by route and status, and their durations."""

    def __init__(self, app: Any, registry: Any) -> None:
        from prometheus_client import Counter, Histogram

        self.app = app
        self.requests = Counter("ksqlpy_server_requests", "HTTP requests served", ["method", "route", "status"],
                                registry=registry)
        self.duration = Histogram("ksqlpy_server_request_duration_seconds", "HTTP request duration (until the "
                                  "response ended; a push query's whole life)", ["route"], registry=registry,
                                  buckets=REQUEST_BUCKETS)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [500]

        async def sending(message: dict[str, Any]) -> None:
            if message.get("type") == "http.response.start":
                status[0] = int(message.get("status", 500))
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = getattr(scope.get("route"), "path", None) or "other"
            self.requests.labels(scope.get("method", ""), route, str(status[0])).inc()
            self.duration.labels(route).observe(time.perf_counter() - started)


def install(app: Any, ctx: Any) -> None:
    """Add ``GET /metrics`` and the request middleware to ``app`` (prometheus-client, the server extra)."""
    try:
        from prometheus_client import CollectorRegistry, generate_latest
    except ImportError:  # the route says what is missing instead of a 404
        from fastapi.responses import PlainTextResponse

        @app.get("/metrics", tags=["info"], include_in_schema=False)
        async def no_metrics() -> Any:
            return PlainTextResponse("Install prometheus-client (pip install 'ksqlpy[server]') for /metrics.\n",
                                     status_code=501)
        return
    from fastapi.responses import Response

    registry = CollectorRegistry(auto_describe=False)
    registry.register(EngineCollector(ctx))
    app.add_middleware(RequestMetrics, registry=registry)

    @app.get("/metrics", tags=["info"], include_in_schema=False)
    async def metrics() -> Any:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE)
