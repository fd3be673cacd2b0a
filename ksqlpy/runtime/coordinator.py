"""The engine's side of worker processes: start them, deal partitions, watch them, restart the dead.

Enabled per query by ``ksqlpy.workers=process`` (the default ``inline`` runs tasks in the engine process,
which is what ``Engine.drain()`` and the conformance runner use). ``num.stream.threads`` workers are
started per query and per engine when it is set, else ``ksqlpy.workers.count`` (``auto``: as many as the
query's partitions and the cores allow), never more than the query has partitions.

On the EmbeddedLog the coordinator deals partition numbers round-robin and restarts a dead worker with
the same partitions (its stores catch up from their changelogs; its tasks resume from the committed
positions). On Kafka it only supervises: the consumer group spreads partitions over every worker of every
engine sharing the ``ksql.service.id``, and moves them when a worker or an engine dies.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from multiprocessing.connection import Connection
from typing import Any

from ksqlpy.private_files import FILE_MODE, private_dir
from ksqlpy.properties import explicitly_set
from ksqlpy.runtime import commit_pipeline
from ksqlpy.runtime.assignment import (
    COUNT_PROPERTY,
    deal,
    default_worker_count,
    partition_count,
    query_topics,
    task_topics,
    worker_count,
)
from ksqlpy.runtime.context import RuntimeContext
from ksqlpy.runtime.member_thread import start_thread
from ksqlpy.runtime.workers import WorkerSpec, commit_interval_ms

_LOG = logging.getLogger("ksqlpy.workers")
_WATCH_S = 0.05
_RESTART_BACKOFF_S = 0.2
_MAX_MESSAGES_PER_DRAIN = 10_000
# taken spares are replaced once the engine's worker-run queries are idle, or this long after the take
_REFILL_AFTER_S = 5.0
WORKERS_PROPERTY = "ksqlpy.workers"
SPARES_PROPERTY = "ksqlpy.workers.spares"


def wants_workers(ctx: RuntimeContext, query: Any) -> bool:
    """Process workers for the queries of CSAS/CTAS/INSERT INTO ... SELECT (a persistent topology writing a
    sink; not a source table's CST query) when ``ksqlpy.workers`` is ``process``; member threads
    (``member_thread.py``) for them when the engine serves in a cluster (``members_in_threads``)."""
    if not query.tasks or (not _in_processes(ctx) and not ctx.hosting.members_in_threads):
        return False
    topology = query.topology
    return bool(topology.persistent and topology.sink is not None)


def wants_spares(ctx: RuntimeContext) -> bool:
    """Spare worker interpreters at engine start: process mode configured, ``ksqlpy.workers.spares`` not 0."""
    return _in_processes(ctx) and spare_count(ctx) > 0


def _in_processes(ctx: RuntimeContext) -> bool:
    return str(ctx.prop(WORKERS_PROPERTY, "inline")).strip().lower() == "process"


def instance_id(data_dir: str) -> str:
    """A stable id for this engine's data directory (part of the workers' transactional ids)."""
    path = os.path.join(data_dir, "instance.id")
    try:
        with open(path) as f:
            got = f.read().strip()
            if got:
                return got
    except OSError:
        pass
    new = uuid.uuid4().hex[:12]
    private_dir(data_dir)
    with open(path, "w", opener=lambda p, fl: os.open(p, fl, FILE_MODE)) as f:
        f.write(new)
    return new


def start_interpreter() -> tuple[Any, Connection]:
    """A worker interpreter: it imports the runtime, then waits for its ``WorkerSpec`` on the connection."""
    mine, theirs = socket.socketpair()
    fd = theirs.fileno()
    p = subprocess.Popen([sys.executable, "-m", "ksqlpy.runtime.workers", str(fd), str(os.getpid())],
                         pass_fds=[fd], stdin=subprocess.DEVNULL)
    theirs.close()
    return p, Connection(mine.detach())


class Spares:
    """Worker interpreters started ahead of the queries that will use them (``ksqlpy.workers.spares``).

    A worker's start-up - a fresh interpreter importing ksqlpy - was ~0.3-0.4 s of CPU inside every query
    start (benchmarks, eighth pass); a spare has done it before the query exists and only builds its tasks.
    Taken spares are replaced (``refill``) once the worker-run queries are idle, or ``_REFILL_AFTER_S``
    after the take: replaced at once, their imports competed for the cores with the workers that had just
    taken them (q3 with two workers: 0.9 CPU-seconds of its process tree against 0.5 without).
    """

    def __init__(self, count: int) -> None:
        self.count = max(0, count)
        self.ready: list[tuple[Any, Connection]] = []
        self.warm: set[int] = set()  # pids of the spares that reported their imports done (``wait_ready``)
        self.short_since: float | None = None  # when fewer than ``count`` were left, until refilled
        self._lock = threading.Lock()

    def fill(self) -> None:
        with self._lock:
            while len(self.ready) < self.count:
                self.ready.append(start_interpreter())
            self.short_since = None

    def take(self) -> tuple[Any, Connection] | None:
        got = None
        with self._lock:
            while self.ready and got is None:
                p, conn = self.ready.pop(0)
                self.warm.discard(p.pid)
                if p.poll() is None:
                    got = (p, conn)
                else:
                    with contextlib.suppress(Exception):
                        conn.close()
            if self.short_since is None and len(self.ready) < self.count:
                self.short_since = time.monotonic()
        return got

    def refill(self, idle: bool) -> None:
        """Replace the taken spares when the worker-run queries are ``idle`` (caught up) or the first take
        was ``_REFILL_AFTER_S`` ago."""
        since = self.short_since
        if since is not None and (idle or time.monotonic() - since >= _REFILL_AFTER_S):
            self.fill()

    def wait_ready(self, timeout_s: float) -> bool:
        """Wait until every spare has imported what a worker runs (it says so before waiting for a spec),
        at most ``timeout_s``; whether they all have."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self._lock:
                for p, conn in self.ready:
                    if p.pid in self.warm:
                        continue
                    with contextlib.suppress(EOFError, OSError):
                        if conn.poll(0) and conn.recv().get("type") == "ready":
                            self.warm.add(p.pid)
                done = all(p.pid in self.warm for p, _ in self.ready)
            if done or time.monotonic() >= deadline:
                return done
            time.sleep(0.01)

    def close(self) -> None:
        with self._lock:
            ready, self.ready, self.count = self.ready, [], 0
        for _, conn in ready:
            with contextlib.suppress(Exception):
                conn.close()  # a spare reads EOF instead of a spec and exits
        for p, _ in ready:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)


def spare_count(ctx: RuntimeContext) -> int:
    """``ksqlpy.workers.spares``: ``auto`` (the default) - the workers one query would get on this machine
    (``num.stream.threads`` if set, else ``ksqlpy.workers.count`` for a query of many partitions) - or a
    number; 0 starts none."""
    text = str(ctx.prop(SPARES_PROPERTY, "auto")).strip().lower()
    if text != "auto":
        try:
            return max(0, int(text))
        except ValueError:
            pass
    if explicitly_set("num.stream.threads", [ctx.explicit_properties()]):
        return worker_count(ctx.prop("num.stream.threads", 1), 1 << 16)
    return default_worker_count(ctx.prop(COUNT_PROPERTY, "auto"), 1 << 16)


class _Worker:
    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.process: Any = None
        self.conn: Any = None
        self.status: dict[str, Any] = {}
        self.counted: dict[str, Any] = {}  # the counters of the worker's last status (QueryStats.snapshot)
        self.restarts = 0
        self.fatal: str | None = None


class QueryWorkers:
    """The worker processes of one persistent query in this engine."""

    def __init__(self, ctx: RuntimeContext, query: Any, spares: Spares | None = None) -> None:
        self.ctx = ctx
        self.spares = spares
        self.query_id = query.query_id
        props = dict(ctx.effective_properties())
        explicit = ctx.explicit_properties()
        partitions = partition_count(query.tasks)
        if explicitly_set("num.stream.threads", [explicit]) or not _in_processes(ctx):  # ksqlDB's name, when
            # set; member threads (a cluster's inline mode) share one interpreter: more would not run faster
            n = worker_count(ctx.prop("num.stream.threads", 1), partitions)
        else:
            n = default_worker_count(ctx.prop(COUNT_PROPERTY, "auto"), partitions)
        group = query.tasks[0].group
        log_dir = getattr(ctx.log, "path", None)
        dealt = deal(partitions, n) if log_dir is not None else [None] * n
        inst = instance_id(ctx.data_dir)
        extra = {"commit_interval_ms": worker_commit_interval_ms(ctx, props, explicit), "nice": worker_nice(ctx)}
        self.group = group
        # every input partition of every task (a repartition topic's included), upstream first
        self.inputs = [(topic, t.partition) for t in query.tasks for topic in task_topics(t)]
        self.workers = [_Worker(WorkerSpec(
            query_id=query.query_id, topology=query.topology, properties=props,
            data_dir=os.path.join(ctx.data_dir, "workers", query.query_id, str(i)), index=i, count=n,
            group=group, topics=query_topics(query.tasks), log_dir=log_dir, partitions=dealt[i],
            transactional_id=f"{group}-{inst}-{i}", extra=extra, explicit=explicit)) for i in range(n)]
        self.threads = not _in_processes(ctx)  # inline in a cluster: member threads, not processes
        self.stopping = False
        # the watcher thread and callers of statuses() both read the workers' connections: one reader at
        # a time, or two threads split one message's bytes between them
        self._conn_lock = threading.RLock()

    def start(self) -> None:
        for w in self.workers:
            self._spawn(w)

    def _spawn(self, w: _Worker) -> None:
        if self.threads:
            w.process, w.conn = start_thread(w.spec, self.ctx.hosting.store_copies)
            return
        got = self.spares.take() if self.spares is not None else None
        p, conn = got if got is not None else start_interpreter()
        conn.send(w.spec)
        w.process, w.conn = p, conn

    def watch(self) -> None:
        """Read status messages; restart workers that died while the query runs."""
        for w in self.workers:
            self._drain_messages(w)
            if self.stopping or w.process is None or w.process.poll() is None:
                continue
            code = w.process.returncode
            _LOG.warning("worker %s of %s exited with %s%s; restarting", w.spec.index, self.query_id, code,
                         f" ({w.fatal})" if w.fatal else "")
            w.restarts += 1
            w.status = {}
            with self._conn_lock, contextlib.suppress(Exception):
                w.conn.close()
            time.sleep(_RESTART_BACKOFF_S)
            if not self.stopping:
                with self._conn_lock:
                    self._spawn(w)

    def _drain_messages(self, w: _Worker) -> None:
        with self._conn_lock:
            self._drain_locked(w)

    def _drain_locked(self, w: _Worker) -> None:
        conn = w.conn
        if conn is None:
            return
        try:
            # at most a bounded number per call: a worker that keeps sending must not keep the lock forever
            for _ in range(_MAX_MESSAGES_PER_DRAIN):
                if not conn.poll(0):
                    break
                msg = conn.recv()
                kind = msg.get("type")
                if kind == "status":
                    w.status = msg
                    self._counters(w, msg)
                elif kind == "plog":
                    self._plog(msg["entry"])
                elif kind == "fatal":
                    w.fatal = msg.get("error")
                    _LOG.error("worker %s of %s failed: %s", w.spec.index, self.query_id, msg.get("trace"))
        except (EOFError, OSError):
            pass

    def _plog(self, entry: dict[str, Any]) -> None:
        self.ctx.plog.forwarded(entry)

    def _counters(self, w: _Worker, msg: dict[str, Any]) -> None:
        """Add what the worker's counters gained since its previous status to the host's statistics (a
        restarted worker - a new pid - counts from zero again)."""
        now = msg.get("stats")
        sink = getattr(self.ctx, "stats", None)  # the engine's EngineStats (metrics.py); a bare host has none
        if now is None or sink is None:
            return
        before = w.counted if w.counted.get("pid") == msg.get("pid") else None
        sink.worker_status(self.query_id, now, before)
        w.counted = {**now, "pid": msg.get("pid")}

    def ends(self) -> dict[tuple[str, int], int] | None:
        """The input end offsets if the workers (of every engine sharing the group) have committed up to
        them, else None. Read from the log, so it holds whoever runs the partitions."""
        log = self.ctx.log
        ends = {}
        for topic, p in self.inputs:
            end = log.end_offset(topic, p)
            committed = log.committed(self.group, topic, p)
            if committed is None or committed < end:
                return None
            ends[(topic, p)] = end
        return ends

    def behind(self) -> dict[tuple[str, int], tuple[int | None, int]]:
        """(committed, end) of each input partition whose committed offset is short of its end: what a
        drain that gave up reports."""
        log = self.ctx.log
        out = {}
        for topic, p in self.inputs:
            end = log.end_offset(topic, p)
            committed = log.committed(self.group, topic, p)
            if committed is None or committed < end:
                out[(topic, p)] = (committed, end)
        return out

    def pids(self) -> list[int]:
        return [w.process.pid for w in self.workers if w.process is not None and w.process.poll() is None]

    def idle(self) -> bool:
        """Every worker's last status says its last poll found no input."""
        return all(w.status.get("idle") for w in self.workers)

    def statuses(self) -> list[dict[str, Any]]:
        for w in self.workers:
            self._drain_messages(w)
        return [dict(w.status) for w in self.workers]

    def stop(self, timeout: float = 15.0) -> None:
        self.stopping = True
        for w in self.workers:
            with contextlib.suppress(Exception):
                w.conn.send("stop")
        deadline = time.monotonic() + timeout
        for w in self.workers:
            if w.process is None:
                continue
            try:
                w.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                w.process.kill()
                w.process.wait(5)
            self._drain_messages(w)
            with contextlib.suppress(Exception):
                w.conn.close()


class WorkerManager:
    """All worker-run queries of one engine, watched by one thread."""

    def __init__(self, ctx: RuntimeContext) -> None:
        self.ctx = ctx
        self.spares: Spares | None = None
        self.queries: dict[str, QueryWorkers] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def prestart(self) -> None:
        """Start the spare worker interpreters (``Spares``) of process mode, before any query needs them."""
        if self.spares is None and _in_processes(self.ctx):
            self.spares = Spares(spare_count(self.ctx))
        if self.spares is not None:
            self.spares.fill()

    def start(self, query: Any) -> QueryWorkers:
        qw = QueryWorkers(self.ctx, query, self.spares)
        with self._lock:
            self.queries[query.query_id] = qw
        qw.start()
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="ksqlpy-workers", daemon=True)
            self._thread.start()
        return qw

    def _watch(self) -> None:
        while not self._stop.wait(_WATCH_S):
            with self._lock:
                current = list(self.queries.values())
            for qw in current:
                try:
                    qw.watch()
                except Exception:  # noqa: BLE001 - the watcher must survive
                    _LOG.exception("watching workers of %s", qw.query_id)
            if self.spares is not None:
                try:
                    self.spares.refill(all(qw.idle() for qw in current))
                except Exception:  # noqa: BLE001 - a spare that cannot start now is started again later
                    _LOG.exception("starting spare workers")

    def caught_up(self) -> dict[str, Any] | None:
        """Every worker-run query's ``ends()`` (None if one is behind). Caught up for good when two calls
        in a row give the same ends: a commit between reading an input and the repartition topic it feeds
        shows up as a moved end."""
        with self._lock:
            current = list(self.queries.values())
        got: dict[str, Any] = {}
        for qw in current:
            ends = qw.ends()
            if ends is None:
                return None
            got[qw.query_id] = ends
        return got

    def behind(self) -> dict[str, dict[tuple[str, int], tuple[int | None, int]]]:
        """Per worker-run query, the input partitions not committed up to their ends (``QueryWorkers.behind``)."""
        with self._lock:
            current = list(self.queries.values())
        return {qw.query_id: got for qw in current if (got := qw.behind())}

    def stop(self, query_id: str) -> None:
        with self._lock:
            qw = self.queries.pop(query_id, None)
        if qw is not None:
            qw.stop()

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            current, self.queries = list(self.queries.values()), {}
        for qw in current:
            qw.stop()
        if self.spares is not None:
            self.spares.close()
        if self._thread is not None:
            self._thread.join(5)


NICE_PROPERTY = "ksqlpy.workers.nice"


def worker_nice(ctx: RuntimeContext) -> int:
    """``ksqlpy.workers.nice``: how much lower than the engine's process a worker process is scheduled (its
    nice increment; default 0, at most 19 - the value is checked as an INT of at least 0 where it is set,
    ``property_values``). With workers as busy as the cores, a request the engine's process serves (a pull
    query over REST) otherwise waits for the scheduler to take a core from a worker."""
    try:
        n = int(str(ctx.prop(NICE_PROPERTY, 0)).strip())
    except ValueError:
        return 0
    return max(0, min(19, n))


def start_workers(manager: WorkerManager, query: Any) -> None:
    """Run ``query`` in worker processes (see ``wants_workers``)."""
    query.workers = manager.start(query)
    # the engine's own copy stays built (its stores answer nothing new) but no longer runs
    query.tasks = []


def inline_commit_interval(ctx: RuntimeContext, query: Any) -> None:
    """On a log whose commit is a network round trip (Kafka), a query run in the engine process commits on
    ``commit.interval.ms`` as worker processes do (and at once whenever its input is caught up): under a
    backlog, one producer flush and offset commit (or one transaction) per interval instead of per batch.
    On the embedded log a commit is a local transaction: per batch, which keeps state and held outputs
    small (measured: a windowed aggregation held for 2 s ran ~20 % slower, mostly in garbage collection).
    With ``ksqlpy.commit.pipelined`` its eligible tasks commit behind processing (``commit_pipeline``)."""
    if commit_pipeline.wanted(ctx.prop):
        commit_pipeline.attach(query.tasks)
    explicit = ctx.explicit_properties()
    if not getattr(ctx.log, "remote_commit", False) and not _interval_set(explicit):
        return
    interval = commit_interval_ms(dict(ctx.effective_properties()), explicit) / 1000
    for t in query.tasks:
        if hasattr(t, "commit_interval_s"):
            t.commit_interval_s = interval


def worker_commit_interval_ms(ctx: RuntimeContext, props: dict[str, Any], explicit: dict[str, Any]) -> int:
    """A worker's commit interval, by the rule an inline query follows (``inline_commit_interval``): on a
    log whose commit is a network round trip, or when ``commit.interval.ms`` is set, ``commit_interval_ms``;
    on the embedded log 0 - every batch commits in its own short local transaction (holding batches for
    2 s cost ~10-20 % more CPU per record in collections of the held objects, as measured inline)."""
    if getattr(ctx.log, "remote_commit", False) or _interval_set(explicit):
        return commit_interval_ms(props, explicit)
    return 0


def _interval_set(explicit: dict[str, Any]) -> bool:
    return "commit.interval.ms" in explicit or "ksql.streams.commit.interval.ms" in explicit


class DrainTimeout(TimeoutError):
    """``Engine.drain()`` gave up: its queries had not processed (worker-run ones: committed) all their input
    when the timeout passed. A TimeoutError, as the conformance runner expects of a drain that timed out."""


def drain_timeout(manager: WorkerManager | None, timeout_s: float, processing: bool) -> DrainTimeout:
    """What a drain that gave up says: the worker-run queries behind, partition by partition (committed
    offset of end), or that the queries in this process still had input."""
    parts: list[str] = []
    try:
        behind = manager.behind() if manager is not None else {}
    except Exception as e:  # noqa: BLE001 - the report must not hide the timeout
        behind, parts = {}, [f"(offsets unreadable: {e})"]
    for query_id, lag in sorted(behind.items()):
        where = ", ".join(f"{t}-{p} committed {'none' if c is None else c} of {end}" for (t, p), (c, end) in sorted(lag.items()))
        parts.append(f"{query_id} (worker processes): {where}")
    if processing:
        parts.append("queries in this process were still processing input")
    detail = "; ".join(parts) if parts else "worker-run queries had not committed their input twice in a row"
    return DrainTimeout(f"queries did not catch up within {timeout_s:g}s: {detail}")


def workers_caught_up(manager: WorkerManager | None, previous: dict[str, Any] | None
                      ) -> tuple[bool, dict[str, Any] | None]:
    """For ``Engine.drain()``: (done, what to pass next time). Done when no query runs in workers, or
    when every worker-run query has committed all its input twice in a row with the same ends."""
    if manager is None or not manager.queries:
        return True, None
    got = manager.caught_up()
    return got is not None and got == previous, got
