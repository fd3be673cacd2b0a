"""Persistent and transient (push) queries: from a logical plan to running tasks."""

from __future__ import annotations

import logging
import queue
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ksqlpy.analysis.query import analyze_query
from ksqlpy.catalog import Source
from ksqlpy.engine.results import TombstoneRow
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.bound import ColumnRef
from ksqlpy.grammar import ast as A
from ksqlpy.plan.logical import Aggregate, ColumnRole, ResultKind, Sink
from ksqlpy.plan.lower import lower
from ksqlpy.plan.topology import Topology
from ksqlpy.runtime.query_tasks import QueryTasks, build_tasks
from ksqlpy.runtime.record_cache import cache_entries
from ksqlpy.runtime.task import Task, poll_batch, prefetch_all

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

_LOG = logging.getLogger("ksqlpy.queries")


class PersistentQuery:
    def __init__(self, query_id: str, sql: str, plan: Sink, sink: Source, built: QueryTasks) -> None:
        self.query_id = query_id
        self.sql = sql  # the statement as the command log holds it (backfill markers, RESET QUERY)
        # what SHOW QUERIES, EXPLAIN and DESCRIBE show: the statement as ksqlDB's injectors left it
        # (``analysis.sql_formatter``); set by the statement that creates the query
        self.statement_text = sql
        self.plan = plan
        self.sink_name = sink.name
        self.sink = sink
        self.built = built
        self.topology: Topology = built.topology  # what runs (EXPLAIN, worker processes)
        self.source_names = built.source_names
        self.tasks: list[Any] = built.tasks
        self.state = "RUNNING"
        self.aggregation: Any = built.aggregation  # runtime.aggregate.Aggregation (pull queries, backfill)
        self.materialization: Any = built.materialization  # runtime.materialize.Materialization (pull queries)
        self.workers: Any = None  # runtime.coordinator.QueryWorkers when it runs in worker processes
        self.copies: Any = None  # engine.pull_copies.Copies: its stores' copies here, once a pull query read them
        self._prefetched = False

    @property
    def resources(self) -> list[Any]:
        """What the query holds besides its running tasks (its stores, when worker processes run it)."""
        return [self.built]

    def poll(self) -> int:
        if self.state != "RUNNING":
            return 0
        if not self._prefetched:
            self._prefetched = True
            prefetch_all(self.tasks)
        return sum(poll_batch(t) for t in self.tasks)

    def close(self) -> None:
        """Stop: what the tasks processed but hold for the commit interval is committed first (a clean
        stop hands everything over, as Kafka Streams commits on close)."""
        if self.state == "RUNNING":
            for t in self.tasks:
                if getattr(t, "pending", False):
                    try:
                        t.commit_now()
                    except Exception:  # noqa: BLE001 - the held work is read again from the committed offsets
                        _LOG.warning("query %s: committing held work on close failed", self.query_id, exc_info=True)
        self.state = "TERMINATED"
        copies = self.copies
        if copies is None:
            self.built.close()
            return
        with copies.closing():  # a pull query reads them without the engine lock
            self.built.close()

    def cleanup(self) -> None:
        """After TERMINATE/DROP: delete the query's internal topics and local state (ksqlDB's cleanup)."""
        self.built.cleanup()


def partition_counts(engine: Engine) -> Callable[[str], int | None]:
    """``topic -> partitions`` (None for a topic that does not exist) on the engine's log."""
    return lambda topic: engine.log.partition_count(topic)


def persistent_topology(engine: Engine, plan: Sink, sink: Source, query_id: str) -> Topology:
    return lower(plan, query_id, engine, sink=sink, persistent=True, partitions=partition_counts(engine))


def build_persistent(engine: Engine, plan: Sink, sink: Source, query_id: str, sql: str) -> PersistentQuery:
    topology = persistent_topology(engine, plan, sink, query_id)
    return PersistentQuery(query_id, sql, plan, sink, build_tasks(engine, topology))


def overridden_properties(engine: Engine) -> dict[str, str]:
    """The properties a query is started with beyond the server's configuration - the session's (SET) and
    the request's - as a query's description lists them (``overriddenProperties``)."""
    return {k: str(v) for k, v in engine.overrides().items()}


class TransientQuery:
    """A push query: rows go to an in-memory queue the caller iterates."""

    def __init__(self, engine: Engine, query_id: str, plan: Sink, columns: list[tuple[str, Any]],
                 limit: int | None) -> None:
        self.engine = engine
        self.query_id = query_id
        self.plan = plan
        self.columns = columns
        self.limit = limit
        self.rows: queue.Queue[tuple | None] = queue.Queue()
        self.emitted = 0
        self.tasks: list[Task] = []
        self.done = False
        # why it ended, when it failed while running (not closed by its client, LIMIT or the end of its rows):
        # the response's last element says so, as ksqlDB's writers end a failed push query with an error
        self.error: str | None = None
        self.resources: list[Any] = []  # state stores, internal topics: released once no task runs
        self._polling = False
        self._started = time.monotonic()  # for the push-query latency metric (metrics.py)
        # False: the query's deletes (TombstoneRow) are left out before LIMIT counts - a scalable push query
        # taps its source's writer, where ksqlDB ignores records with a null value
        self.keep_deletes = True
        self.overridden_properties: dict[str, str] = {}

    def _on_rows(self, rows: list[tuple]) -> None:
        for r in rows:
            if self.done:
                return
            if not self.keep_deletes and isinstance(r, TombstoneRow):
                continue
            if self.limit is not None and self.emitted >= self.limit:  # LIMIT 0: no row is ever queued
                self.close()
                return
            self.rows.put(r)
            self.emitted += 1
            if self.limit is not None and self.emitted >= self.limit:
                self.close()
                return

    def poll(self) -> int:
        if self.done:
            self._release()
            return 0
        self._polling = True
        try:
            n = 0
            for t in self.tasks:
                if self.done:
                    break
                n += t.poll()
            if n and not self.done:
                # its consumers' records per topic, for DESCRIBE EXTENDED while it runs (ksqlDB's transient
                # queries carry the same collectors as persistent ones); forgotten when it is released
                self.engine.stats.observe(self.query_id, self.tasks)
            return n
        finally:
            self._polling = False
            if self.done:
                self._release()

    def fail(self, message: str) -> None:
        """End the query because it failed: its rows so far stay queued, then the end."""
        if not self.done:
            self.error = message
        self.close()

    def close(self) -> None:
        if not self.done:
            self.done = True
            self.rows.put(None)
            self.engine.transient.pop(self.query_id, None)
            self.engine.stats.push_ended(time.monotonic() - self._started)
        if not self._polling:
            self._release()

    def _release(self) -> None:
        self.engine.stats.forget(self.query_id)
        resources, self.resources = self.resources, []
        for r in resources:
            r.close()

    def __iter__(self):  # type: ignore[no-untyped-def]
        while True:
            r = self.rows.get()
            if r is None:
                return
            yield r

    def get(self, timeout: float | None = None) -> tuple | None:
        """Next row, or None when the query ended; raises queue.Empty on timeout."""
        return self.rows.get(timeout=timeout)


def tombstone_positions(plan: Sink) -> list[int]:
    """Which columns of a push query's rows carry the result's key, filled in its deletes (ksqlDB's
    TombstoneFactory: a projected key column keeps its value, every other column is NULL): the GROUP BY
    keys and window bounds of an aggregation, else the key columns (and window bounds) of the table or
    joined source."""
    agg = plan.find(Aggregate)
    value = plan.project.value
    if agg is not None:
        names = set(agg.key_names) | ({"WINDOWSTART", "WINDOWEND"} if agg.window is not None else set())
        return [i for i, c in enumerate(value) if isinstance(c.expr, ColumnRef) and c.expr.name in names]
    schema = plan.project.input.schema
    return [i for i, c in enumerate(value)
            if isinstance(c.expr, ColumnRef) and schema.columns[c.expr.index].role in (ColumnRole.KEY,
                                                                                       ColumnRole.WINDOW)]


def build_transient(engine: Engine, stmt: A.SelectStatement, properties: dict[str, Any]) -> TransientQuery:
    # a push query (EMIT ...) aggregates without GROUP BY as one group; a pull query over a stream does not
    plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=None, persistent=False,
                         sql=stmt.text, implicit_group=stmt.query.emit is not None)
    engine.transient_counter += 1
    # ksqlDB's transient id: ``transient_<leftmost source's alias>_<random positive long>`` (QueryIdUtil);
    # random, so a transient query never resumes another one's position
    qid = f"transient_{plan.scans[0].alias}_{secrets.randbits(63)}"
    cols = [(c.name, c.type) for c in plan.project.value]
    agg = plan.find(Aggregate)
    aggregating = agg is not None
    table = plan.bottom.result_kind is ResultKind.TABLE
    tq = TransientQuery(engine, qid, plan, cols, plan.limit)
    # what SHOW QUERIES EXTENDED / EXPLAIN <id> show it was started with: the session's and request's
    # overrides (ksqlDB's TransientQueryMetadata keeps its statement's config overrides)
    tq.overridden_properties = overridden_properties(engine)
    windowed = agg is not None and agg.window is not None
    keyed = frozenset(tombstone_positions(plan))

    def deleted(values: tuple) -> TombstoneRow:
        return TombstoneRow(v if i in keyed else None for i, v in enumerate(values))

    def on_rows(rows: list[tuple]) -> None:
        if aggregating:  # (key group or (key group, ws, we), value group | None, ts)
            tq._on_rows([(r[0][0] if windowed else r[0]) if r[1] is not None
                         else deleted(r[0][0] if windowed else r[0]) for r in rows])
        elif table:  # tables (and aggregations) also hand over their deletes: (value group, None, ts) rows
            tq._on_rows([r[0] if r[1] is not None else deleted(r[0]) for r in rows])
        else:
            tq._on_rows([r[0] for r in rows if r[0] is not None])

    topology = lower(plan, qid, engine, sink=None, persistent=False, partitions=partition_counts(engine),
                     properties=properties)
    if plan.limit is not None and plan.limit < 0:
        # the grammar's LIMIT takes a signed integer and only pull queries have a rule against a negative one
        # (PullQueryValidator, checked before this); a push query's row queue takes the LIMIT in ksqlDB's
        # LimitedQueueCallback, which refuses it when the query is built - after planning - with an
        # IllegalArgumentException that EngineExecutor rethrows as the statement's error (from memory)
        raise KsqlStatementError(f"limit must be positive, was:{plan.limit}")
    # the record cache: the request's properties over the session's over the engine's
    entries = cache_entries(engine.effective_properties(), properties)
    built = build_tasks(engine, topology, on_rows=on_rows, cache_entries=entries)
    tq.topology = topology  # what runs (SHOW QUERIES EXTENDED describes it)
    tq.tasks.extend(built.tasks)
    tq.resources.append(built)
    engine.transient[qid] = tq
    return tq
