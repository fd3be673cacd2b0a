"""Worker processes: a persistent query's tasks run outside the engine process (Python threads would
share one core).

A worker is started as a fresh interpreter (LMDB environments do not survive fork) and gets a
``WorkerSpec``: the query's physical topology (``plan.topology`` - plain data, no SQL to parse or analyse)
and the properties. It has no engine: a ``WorkerContext`` is its ``RuntimeContext`` (its own log, a
processing log forwarding to the engine, the query's properties, serdes over its own schema-registry
client, its state directory, the partitions it owns). It builds the tasks of the partitions it owns from
the topology, compiling their expressions in its own process (compiled code is never pickled):

- on the EmbeddedLog the engine deals the partitions (``spec.partitions``);
- on Kafka the worker is a member of the query's consumer group (range assignor, so the partition
  numbers of every input topic land together). On revoke its tasks commit what they hold and are
  dropped, their stores closed (on a lost assignment the held work is discarded instead); on assign it
  rebuilds the tasks of the new partitions, whose stores restore from their changelogs before
  processing. The member consumer only holds the membership (its partitions are paused); records are
  read by the KafkaLog.

Only the owned partitions' tasks and stores are built (``WorkerContext.owns``). Tasks commit on
``commit.interval.ms`` (``commit_interval_ms``), and at once when their input is caught up.

Under ``exactly_once_v2`` on Kafka each worker has a transactional producer whose id is stable per
(query, engine instance, worker index): a restarted worker fences its crashed predecessor, and offsets are
sent to the transaction with the member's group metadata, so a member that lost its partitions is fenced
too. The worker dies with the engine process (PR_SET_PDEATHSIG and a parent check), like a crash.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from ksqlpy.catalog import Source
from ksqlpy.log import open_log
from ksqlpy.log.base import Log
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.log.kafka_config import consumer_config
from ksqlpy.plan.topology import Topology
from ksqlpy.properties import explicitly_set, resolve
from ksqlpy.runtime import commit_pipeline
from ksqlpy.runtime.context import ALONE, Hosting
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.query_stats import QueryStats, late_dropped, tasks_written
from ksqlpy.runtime.query_tasks import QueryTasks, build_tasks
from ksqlpy.runtime.serdes import SerdeFactory
from ksqlpy.runtime.task import poll_batch, prefetch_all
from ksqlpy.schema_registry import open_registry

_LOG = logging.getLogger("ksqlpy.workers")
_STATUS_EVERY_S = 0.2
_RETRY_S = 1.0
EOS = ("exactly_once_v2", "exactly_once", "exactly_once_beta")


@dataclass
class WorkerSpec:
    query_id: str
    topology: Topology
    properties: dict[str, Any]
    data_dir: str
    index: int
    count: int
    group: str
    topics: list[str]
    log_dir: str | None = None  # the EmbeddedLog's directory; None on Kafka
    partitions: list[int] | None = None  # dealt by the engine (EmbeddedLog); None: the consumer group decides
    transactional_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    explicit: dict[str, Any] = field(default_factory=dict)  # the properties a user set


EOS_COMMIT_INTERVAL_MS = 100  # Kafka Streams' default under exactly-once


def commit_interval_ms(properties: dict[str, Any], explicit: dict[str, Any]) -> int:
    """How often a worker commits: ``commit.interval.ms`` when set (``explicit``: the properties the user
    set), else Kafka Streams' defaults - 100 ms under exactly-once, ksqlDB's 2000 ms otherwise."""
    if explicitly_set("commit.interval.ms", [explicit]):
        return max(0, int(resolve("commit.interval.ms", explicit)))
    if guarantee(properties) in EOS:
        return EOS_COMMIT_INTERVAL_MS
    return max(0, int(resolve("commit.interval.ms", properties, default=2000)))


def guarantee(properties: dict[str, Any]) -> str:
    return str(resolve("processing.guarantee", properties, default="at_least_once")).strip().lower()


# ---------------------------------------------------------------------------------------------- context
class WorkerContext:
    """A worker process's ``RuntimeContext``: no engine, only what the query's tasks need."""

    def __init__(self, log: Log, plog: ProcessingLog, properties: dict[str, Any], data_dir: str,
                 explicit: dict[str, Any] | None = None) -> None:
        self.log = log
        self.plog = plog
        self.properties = dict(properties)
        self.data_dir = data_dir
        self._explicit = dict(explicit or {})
        self.owned: frozenset[int] | None = None  # the partitions this worker runs (None: all)
        self.hosting: Hosting = ALONE
        # the host's warm copies of stores (``context.WarmCopies``): a member thread in a cluster's server
        # starts its stores from the standby copies the server keeps (a worker process has none)
        self.copies: Callable[[str, int], Any] | None = None
        self.serdes = SerdeFactory(self.prop, open_registry(self.properties, log))

    def prop(self, name: str, default: Any = None) -> Any:
        return resolve(name, self.properties, default=default)

    def effective_properties(self) -> dict[str, Any]:
        return dict(self.properties)

    def explicit_properties(self) -> dict[str, Any]:
        return dict(self._explicit)

    def key_serde(self, source: Source) -> Any:
        return self.serdes.key_serde(source)

    def value_serde(self, source: Source) -> Any:
        return self.serdes.value_serde(source)

    def owns(self, partition: int) -> bool:
        return self.owned is None or partition in self.owned

    def warm_copy(self, changelog: str, partition: int) -> Any:
        return self.copies(changelog, partition) if self.copies is not None else None


# ---------------------------------------------------------------------------------------------- process
def _die_with_parent() -> None:
    """Linux: get SIGKILL when the engine process dies, so a killed engine leaves no orphan workers."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def main(argv: list[str]) -> None:
    """``python -m ksqlpy.runtime.workers FD PPID``: the spec arrives on the connection FD.

    A fresh interpreter rather than multiprocessing's spawn: spawn re-runs the parent's ``__main__``
    script, which breaks any script that starts an engine at import time.
    """
    conn = Connection(int(argv[0]))
    _die_with_parent()  # a spare waits here, maybe long (coordinator.Spares)
    try:
        conn.send({"type": "ready"})  # imported: what is left of a start is building the tasks (Spares.wait_ready)
        spec = conn.recv()
    except (EOFError, OSError):
        os._exit(0)  # the engine closed, or let this spare go, before it had a query for it
    worker_main(spec, conn, int(argv[1]))


def worker_main(spec: WorkerSpec, conn: Connection, ppid: int) -> None:
    """Entry point of a worker process."""
    _die_with_parent()
    if os.getppid() != ppid:
        os._exit(0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the engine decides when workers stop
    nice = int(spec.extra.get("nice", 0))  # ksqlpy.workers.nice (coordinator.worker_nice)
    if nice > 0:
        os.nice(nice)
    runner = None
    try:
        runner = WorkerRunner(spec, conn, ppid)
        prof_dir = os.environ.get("KSQLPY_WORKER_PROFILE")  # a directory: cProfile of each worker's loop
        if prof_dir:
            import cProfile

            prof = cProfile.Profile(time.thread_time)  # CPU of this thread: preemption does not count
            try:
                prof.runcall(runner.run)
            finally:
                prof.dump_stats(os.path.join(prof_dir, f"{spec.query_id}-{spec.index}-{os.getpid()}.prof"))
        else:
            runner.run()
    except BaseException as e:  # noqa: BLE001 - report, then exit non-zero: the engine restarts the worker
        with contextlib.suppress(Exception):
            conn.send({"type": "fatal", "index": spec.index, "error": f"{type(e).__name__}: {e}",
                       "trace": traceback.format_exc()})
        os._exit(2)
    finally:
        if runner is not None:
            runner.close()
    os._exit(0)


class WorkerRunner:
    """The loop of one worker: membership, (re)building tasks, polling them, reporting status."""

    def __init__(self, spec: WorkerSpec, conn: Connection, ppid: int) -> None:
        self.spec = spec
        self.conn = conn
        self.ppid = ppid
        props = dict(spec.properties)
        eos = guarantee(props) in EOS
        if spec.log_dir is not None:
            log: Any = EmbeddedLog(spec.log_dir)
        else:
            if eos and spec.transactional_id:
                props["ksqlpy.transactional.id"] = spec.transactional_id
            log = open_log(props)
        self.log = log
        include_rows = str(spec.properties.get("ksql.logging.processing.rows.include", "false")).lower() == "true"
        plog = ProcessingLog(sink=self._forward_plog, include_rows=include_rows)
        os.makedirs(spec.data_dir, exist_ok=True)
        self.ctx = WorkerContext(log, plog, spec.properties, spec.data_dir, spec.explicit)
        self.query: QueryTasks | None = None
        self.tasks: list[Any] = []
        self.assigned: set[int] = set()
        self.pending: set[int] | None = None  # a new assignment to build at the top of the loop
        self.member: Any = None
        self.stop = False
        self.processed = 0
        self.stats = QueryStats()  # cumulative for this worker; the engine adds what each status gained
        self._dropped_written = 0  # records written and dropped late by tasks since dropped (rebalance, retry)
        self._dropped_late = 0
        self.error: str | None = None
        self.last_status = 0.0
        self.idle = False

    # -- messages to the engine
    def _send(self, msg: dict[str, Any]) -> None:
        try:
            self.conn.send(msg)
        except (OSError, EOFError, BrokenPipeError):
            self.stop = True  # the engine is gone

    def _forward_plog(self, entry: dict[str, Any]) -> None:
        self._send({"type": "plog", "entry": entry})

    def _status(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last_status < _STATUS_EVERY_S:
            return
        self.last_status = now
        self._send({"type": "status", "index": self.spec.index, "pid": os.getpid(), "assigned": sorted(self.assigned),
                    "positions": {t.task_id: t.position for t in self.tasks}, "processed": self.processed,
                    "idle": self.idle, "error": self.error, "stats": self._counters()})

    def _counters(self) -> dict[str, Any]:
        """``QueryStats.snapshot`` with what the current and the dropped tasks wrote and dropped late."""
        aggregation = self.query.aggregation if self.query is not None else None
        self.stats.produced = self._dropped_written + tasks_written(self.tasks)
        self.stats.late = self._dropped_late + late_dropped(aggregation)
        self.stats.observe(self.tasks)
        return self.stats.snapshot()

    # -- tasks
    def build(self, partitions: set[int]) -> None:
        self.drop(commit=True)
        self.assigned = set(partitions)
        if not partitions:
            return
        self.ctx.owned = frozenset(partitions)  # only these partitions' tasks and stores
        started = time.monotonic()
        self.query = build_tasks(self.ctx, self.spec.topology)
        self._log_restores(time.monotonic() - started)
        self.tasks = [t for t in self.query.tasks if t.partition in partitions]
        interval = int(self.spec.extra.get("commit_interval_ms", 0)) / 1000
        for t in self.tasks:
            if hasattr(t, "commit_interval_s"):
                t.commit_interval_s = interval
        if commit_pipeline.wanted(self.ctx.prop):
            commit_pipeline.attach(self.tasks)
        confirm = getattr(self.log, "confirm_producer", None)
        if confirm is not None and self.member is not None:
            confirm(self.spec.group, {(t.topic, t.partition): t.position for t in self.tasks})
        _LOG.info("worker %s/%s of %s runs %s", self.spec.index, self.spec.count, self.spec.query_id,
                  [t.task_id for t in self.tasks])
        prefetch_all(self.tasks)

    def _log_restores(self, seconds: float) -> None:
        """Per partition, what the restore phase took from warm copies and what it replayed."""
        per: dict[int, list[int]] = {}
        for kv in self.query.stores if self.query is not None else []:
            got = per.setdefault(kv.partition, [0, 0])
            got[0] += kv.seeded
            got[1] += kv.restored
        if per:  # one line per build (the server rate-limits repeated lines of one template)
            _LOG.info("restore of %s (build %.3f s): %s", self.spec.query_id, seconds, "; ".join(
                f"partition {p}: {seeded} entries from a warm copy, {replayed} changelog records replayed"
                for p, (seeded, replayed) in sorted(per.items())))

    def commit_held(self) -> None:
        """Commit what the tasks hold (revoke, stop); if that fails the work is re-read by the next owner.
        A fenced producer is re-raised once every task dropped its held work: this worker must go."""
        fenced: Exception | None = None
        for t in self.tasks:
            commit = getattr(t, "commit_now", None)
            if commit is None:
                continue
            if fenced is not None:
                t.discard()
                continue
            try:
                commit()
            except Exception as e:  # noqa: BLE001 - gone: the held batches are simply not committed
                _LOG.warning("worker %s of %s: commit of %s failed: %s", self.spec.index, self.spec.query_id,
                             t.task_id, e)
                if getattr(e, "producer", False):
                    fenced = e
        if fenced is not None:
            raise fenced

    def drop(self, *, commit: bool) -> None:
        """Close the tasks: ``commit`` their held batches first (a clean hand-over) or discard them."""
        if commit:
            self.commit_held()
        else:
            for t in self.tasks:
                discard = getattr(t, "discard", None)
                if discard is not None:
                    discard()
        self._dropped_written += tasks_written(self.tasks)
        self.stats.observe(self.tasks)  # their per-topic counts, before they go (new tasks count from zero)
        self.stats.forget_tasks()
        if self.query is not None:
            self._dropped_late += late_dropped(self.query.aggregation)
        self.tasks = []
        self.assigned = set()
        if self.query is not None:
            q, self.query = self.query, None
            with contextlib.suppress(Exception):
                q.close()

    # -- Kafka membership
    def join_group(self) -> None:
        from confluent_kafka import Consumer  # (Kafka only: not imported by a worker on the embedded log)

        # the member only holds the membership: it pauses what it is given before fetching anything, and
        # its fetch buffers are kept small in case a fetch starts first
        conf = consumer_config(self.spec.properties, **{"group.id": self.spec.group,
                                                        "partition.assignment.strategy": "range",
                                                        "enable.partition.eof": False,
                                                        "queued.max.messages.kbytes": 1024,
                                                        "fetch.max.bytes": 1_048_576})
        session = int(conf.setdefault("session.timeout.ms", 10_000))
        conf.setdefault("heartbeat.interval.ms", max(100, min(3000, session // 3)))
        self.member = Consumer(conf)
        self.log.register_member(self.spec.group, self.member)

        def on_assign(consumer: Any, partitions: list[Any]) -> None:
            consumer.assign(partitions)
            consumer.pause(partitions)  # records are read by the KafkaLog, not by the member
            self.pending = {p.partition for p in partitions}

        def on_revoke(consumer: Any, partitions: list[Any]) -> None:
            self.drop(commit=True)  # the generation is still valid here: held batches commit, then close
            self.pending = set()

        def on_lost(consumer: Any, partitions: list[Any]) -> None:
            self.drop(commit=False)  # another member may own them already: its commit wins
            self.pending = set()

        self.member.subscribe(self.spec.topics, on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)

    def _poll_member(self) -> None:
        if self.member is None:
            return
        self.member.poll(0)  # rebalance callbacks run here; heartbeats run in librdkafka's threads
        if self.pending is not None:
            parts, self.pending = self.pending, None
            self.build(parts)

    # -- the loop
    def _control(self) -> None:
        if os.getppid() != self.ppid:
            os._exit(0)
        try:
            while self.conn.poll(0):
                msg = self.conn.recv()
                if msg == "stop":
                    self.stop = True
        except (EOFError, OSError):
            os._exit(0)  # the engine is gone

    def run(self) -> None:
        if self.spec.partitions is not None:
            self.build(set(self.spec.partitions))
        else:
            self.join_group()
        while not self.stop:
            self._control()
            self._poll_member()
            n = 0
            started = time.perf_counter()
            try:
                for t in self.tasks:
                    n += poll_batch(t)
                self.error = None
            except Exception as e:  # noqa: BLE001 - a failed batch is retried from its committed position
                n = self._failed(e)
            if n:
                self.stats.record(n, time.perf_counter() - started)
            self.processed += n
            self.idle = n == 0
            self._status()
            if not n:
                self.log.wait_for_data(0.05)
        self.commit_held()  # a clean stop hands over everything processed
        self._status(force=True)

    def _failed(self, e: Exception) -> int:
        self.error = f"{type(e).__name__}: {e}"
        _LOG.warning("worker %s of %s: %s", self.spec.index, self.spec.query_id, self.error)
        if getattr(e, "producer", False):
            raise e  # a newer instance owns this transactional id: this one must go
        parts = set(self.assigned)
        self.drop(commit=False)  # the failed work is re-read from the committed positions
        self._status(force=True)
        time.sleep(_RETRY_S)
        if self.member is None:
            self.build(parts)
        else:
            self.pending = parts if self.member.assignment() else None
        return 0

    def close(self) -> None:
        self.drop(commit=False)  # run() committed on a clean stop; anything else failed
        if self.member is not None:
            with contextlib.suppress(Exception):
                self.log.register_member(self.spec.group, None)
                self.member.close()  # leave the group: the others get the partitions at once
        with contextlib.suppress(Exception):
            self.log.close()


if __name__ == "__main__":
    main(sys.argv[1:])
