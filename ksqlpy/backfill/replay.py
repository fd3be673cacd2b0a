"""The replay lowering: the streaming runtime's own tasks of a query run in a Spark task over the history.

Joins (stream-table, stream-stream, table-table, foreign-key) and queries over a TABLE source need the
order in which a task interleaves its inputs: which table row a stream record meets, when a join window
closes, which update retracts which. The runtime decides that in one place (``runtime.join_task``: the
record with the lowest timestamp first, the table side first on equal timestamps, alignment with the
in-process upstream tasks; ``runtime.alignment``). Rather than re-derive those rules in Spark, this
lowering runs the very tasks ``runtime.query_tasks`` builds for the query, on a Spark worker:

* a ``ReplayLog`` serves them: the source topics are read from the engine's log up to the run's end
  offsets (``Bounds``); every other topic - the sink, the changelogs, the repartition, subscription and
  response topics - lives in a private embedded log of the Spark task;
* the tasks are polled until no input has records left, as ``Engine.drain`` polls them;
* what they wrote is staged: the sink's records per partition in order (``SINK`` rows, or on the embedded log
  the log's own chunks, ``job.SinkLayout``), the changelogs' final entries per key (``CHANGELOG`` rows:
  ``src`` the changelog's index in ``changelog_topics``), the processing log (``PLOG``) and the counts
  (``SUMMARY``).

The driver commits them (``handoff``), commits the query's positions at the run's end offsets and
re-initializes the query's tasks: the stores replay their changelogs as a restarted task's do, so the
streaming query continues with the state it would have had.

Parallelism: a query whose tasks exchange no records (one sub-topology per partition: co-partitioned
joins, a CTAS over a table) runs one Spark task per partition; a query with a repartition or a foreign-key
join's subscription topics runs in one Spark task holding every partition, as the streaming runtime does
in one process (its result depends on how the in-process tasks interleave, which the replay keeps).
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ksqlpy.backfill.job import CHANGELOG, SINK, SUMMARY, BackfillJob, WorkerEngine, new_plog
from ksqlpy.backfill.staging import OUT_SCHEMA
from ksqlpy.log.base import Log, LogTransaction, RecordBatch
from ksqlpy.plan.topology import TopicKind, Topology


def source_topics(topology: Topology) -> list[str]:
    """The topics the query reads that are not its own (internal) topics, upstream first."""
    internal = {t.name for t in topology.internal_topics()}
    return [t for t in topology.input_topics() if t not in internal]


def changelog_topics(topology: Topology) -> list[str]:
    """The query's changelog topics, in one order on the driver and the workers."""
    return sorted(t.name for t in topology.internal_topics() if t.kind is TopicKind.CHANGELOG)


def exchanges(topology: Topology) -> bool:
    """Whether the query's tasks pass records between partitions (a repartition topic, a foreign-key join's
    subscription and response topics): its partitions are then replayed together."""
    return any(t.kind is not TopicKind.CHANGELOG for t in topology.internal_topics())


def task_groups(topology: Topology) -> list[list[int]]:
    """The partitions each Spark task replays (a sub-topology's task partitions: a foreign-key join's right
    side may have other partitions than its left)."""
    n = max((s.partitions for s in topology.sub_topologies), default=1)
    if exchanges(topology):
        return [list(range(n))]
    return [[p] for p in range(n)]


@dataclass(frozen=True)
class Bounds:
    """Per source topic and partition, the offsets ``[start, end)`` the replay reads."""

    ranges: dict[str, dict[int, tuple[int, int]]]
    primary: str = ""  # the query's input source topic: the one its progress counts (``progress``)

    def end(self, topic: str, partition: int) -> int:
        return self.ranges[topic][partition][1]

    def start(self, topic: str, partition: int) -> int:
        return self.ranges[topic][partition][0]

    def records(self, partitions: list[int]) -> int:
        return sum(e - s for parts in self.ranges.values() for p, (s, e) in parts.items() if p in partitions)


def bounds(log: Log, topology: Topology, primary: str = "") -> Bounds:
    """Every source partition from its first retained offset to its end offset now."""
    out: dict[str, dict[int, tuple[int, int]]] = {}
    for topic in source_topics(topology):
        n = log.partition_count(topic) or 1
        out[topic] = {p: (log.start_offset(topic, p), log.end_offset(topic, p)) for p in range(n)}
    return Bounds(out, primary)


class ReplayLog:
    """The log the replayed tasks run on: the source topics read from ``real`` within ``bounds`` (the private
    log holds empty topics of their names and partitions, for the tasks' committed positions), everything
    else in ``private``."""

    def __init__(self, real: Log, private: Log, bounds: Bounds, on_read: Any = None) -> None:
        self.real = real
        self.private = private
        self.bounds = bounds
        self.on_read = on_read  # (topic, partition, records) after each fetch of a source

    def fetch(self, topic: str, partition: int, offset: int, max_records: int = 10000) -> RecordBatch:
        if topic not in self.bounds.ranges:
            return self.private.fetch(topic, partition, offset, max_records)
        end = self.bounds.end(topic, partition)
        if offset >= end:
            return RecordBatch(topic, partition, [], [], [], [], [])
        b = self.real.fetch(topic, partition, offset, min(max_records, end - offset))
        if b.offsets and b.offsets[-1] >= end:
            n = sum(1 for o in b.offsets if o < end)
            b = RecordBatch(topic, partition, b.offsets[:n], b.keys[:n], b.values[:n], b.timestamps[:n],
                            b.headers[:n])
        elif not b.offsets:  # a gap up to the end (compaction, transaction markers): nothing more to read
            return RecordBatch(topic, partition, [], [], [], [], [])
        if self.on_read is not None:
            self.on_read(topic, partition, b.offsets[-1] + 1)
        return b

    def end_offset(self, topic: str, partition: int) -> int:
        if topic in self.bounds.ranges:
            return self.bounds.end(topic, partition)
        return self.private.end_offset(topic, partition)

    def start_offset(self, topic: str, partition: int) -> int:
        if topic in self.bounds.ranges:
            return self.bounds.start(topic, partition)
        return self.private.start_offset(topic, partition)

    def prefetch(self, topic: str, partition: int, offset: int) -> None:
        if topic not in self.bounds.ranges:
            self.private.prefetch(topic, partition, offset)

    def transaction(self) -> AbstractContextManager[LogTransaction]:
        return self.private.transaction()

    def __getattr__(self, name: str) -> Any:  # topics, groups, committed positions: the private log's
        return getattr(self.private, name)


class ReplayContext(WorkerEngine):
    """The ``RuntimeContext`` of a replay: the job's properties and serdes, the ``ReplayLog``, a private state
    directory and the partitions this Spark task replays."""

    def __init__(self, job: BackfillJob, plog: Any, log: ReplayLog, data_dir: str, partitions: list[int]) -> None:
        super().__init__(job, plog)
        self.log = log
        self.data_dir = data_dir
        self.partitions = set(partitions)

    def owns(self, partition: int) -> bool:
        return partition in self.partitions


def _drain(tasks: list[Any], after_round: Any) -> None:
    """Poll every task until a round processes nothing (``Engine.drain`` without a clock: the log is bounded);
    ``after_round()`` after each round (the processing log's entries staged as they come)."""
    from ksqlpy.runtime.task import poll_batch, prefetch_all

    while True:
        prefetch_all(tasks)
        done = not sum(poll_batch(t) for t in tasks)
        after_round()
        if done:
            return


def _read_all(log: Log, topic: str, partition: int) -> Iterator[RecordBatch]:
    offset = log.start_offset(topic, partition)
    end = log.end_offset(topic, partition)
    while offset < end:
        b = log.fetch(topic, partition, offset, 10000)
        if not b.offsets:
            return
        yield b
        offset = b.offsets[-1] + 1


def replay(job: BackfillJob, config: dict[str, Any], bounds: Bounds, partitions: list[int], out: Any,
           staging: str | None = None) -> None:
    """Run the query's tasks of ``partitions`` over the history (``bounds``) and stage what they wrote into
    ``out`` (``stages.Out``); how far the primary source is read goes to ``staging``'s progress files."""
    from ksqlpy.backfill.progress import TaskReport
    from ksqlpy.log import open_log
    from ksqlpy.log.embedded import EmbeddedLog
    from ksqlpy.runtime.query_tasks import build_tasks

    topology = job.topology
    part = partitions[0]
    plog = new_plog(job)
    real = open_log(config)
    root = tempfile.mkdtemp(prefix=f"ksqlpy-replay-{job.query_id}-{part}-")
    private = EmbeddedLog(os.path.join(root, "log"))
    built = None
    reports: dict[int, TaskReport] = {}
    primary = bounds.ranges.get(bounds.primary, {})
    if staging is not None:
        reports = {p: TaskReport(staging, p, primary[p][0]) for p in partitions if p in primary}

    def on_read(topic: str, partition: int, position: int) -> None:
        report = reports.get(partition) if topic == bounds.primary else None
        if report is not None:
            report(position - primary[partition][0])

    try:
        for topic, parts in bounds.ranges.items():
            private.create_topic(topic, len(parts))
        private.create_topic(job.sink.topic, job.sink_partitions)
        with private.transaction() as tx:  # the tasks start at the history's first offsets, whatever their reset
            tx.commit_offsets(topology.application_id, {(t, p): s for t, parts in bounds.ranges.items()
                                                         for p, (s, _) in parts.items() if p in partitions})
        ctx = ReplayContext(job, plog, ReplayLog(real, private, bounds, on_read), os.path.join(root, "data"),
                            partitions)
        built = build_tasks(ctx, topology)
        _drain(built.tasks, lambda: out.plog(plog, part))
        late = sum(a.late for a in built.aggregation.aggregators) if built.aggregation is not None else 0
        _stage_sink(private, job.sink.topic, out)
        for i, topic in enumerate(changelog_topics(topology)):
            if private.topic_exists(topic):
                for p in range(private.partition_count(topic) or 0):
                    if p in ctx.partitions:
                        _stage_changelog(private, topic, p, i, out)
        out.add(SUMMARY, part, None, pickle.dumps({"read": bounds.records(partitions), "late": late}))
    finally:
        for report in reports.values():
            report.close()
        if built is not None:
            built.close()
        private.close()
        real.close()
        shutil.rmtree(root, ignore_errors=True)


def _stage_sink(log: Log, topic: str, out: Any) -> None:
    """The sink's records, per partition in offset order, placed where the tasks' writer placed them."""
    for q in range(log.partition_count(topic) or 1):
        for b in _read_all(log, topic, q):
            hdrs = [pickle.dumps(h, pickle.HIGHEST_PROTOCOL) if h else None for h in b.headers]
            out.add_many(SINK, q, b.keys, b.values, b.timestamps, hdrs if any(hdrs) else None)


def _stage_changelog(log: Log, topic: str, partition: int, index: int, out: Any) -> None:
    """A changelog partition's last entry per key (what compaction keeps; a key whose last entry deletes it
    is left out: the streaming store starts empty)."""
    last: dict[bytes, bytes | None] = {}
    for b in _read_all(log, topic, partition):
        for k, v in zip(b.keys, b.values, strict=True):
            last.pop(k, None)
            last[k] = v
    keys = [k for k, v in last.items() if v is not None]
    values = [last[k] for k in keys]
    if keys:
        n = len(keys)
        out.add_batch(pa.RecordBatch.from_arrays([
            pa.array([CHANGELOG] * n, pa.int8()), pa.array([partition] * n, pa.int32()), pa.array(keys, pa.binary()),
            pa.array(values, pa.binary()), pa.nulls(n, pa.int64()), pa.nulls(n, pa.binary()),
            pa.array([index] * n, pa.int32()), pa.nulls(n, pa.int64())], schema=OUT_SCHEMA))


def replay_task(job: BackfillJob, config: dict[str, Any], bounds: Bounds, partitions: list[int],
                staging: str) -> Iterator[pa.RecordBatch]:
    """One Spark task of the replay: its staged file's row (``STAGED``), the file reused on a resumed run."""
    from ksqlpy.backfill.datasource import Stage, _staged_row, settle_worker, task_name
    from ksqlpy.backfill.stages import Out
    from ksqlpy.backfill.staging import StagedFile

    settle_worker()
    part = partitions[0]
    name = task_name(Stage.REPLAY, part, 0)
    final = os.path.join(staging, f"{name}.arrow")
    if not os.path.exists(final):
        staged = StagedFile(staging, name)
        try:
            out = Out(staged, job.sink_layout)  # plain sink records packed as the embedded log stores them
            replay(job, config, bounds, partitions, out, staging)
            out.spill()
            final = staged.commit()
        finally:
            staged.abort()
    yield from _staged_row(final, part, 0)


def run_replay(sc: Any, job: BackfillJob, config: dict[str, Any], bounds: Bounds, stage_dir: str
               ) -> list[tuple[int, bytes, int, int]]:
    """The replay's Spark job: one task per group of partitions (``task_groups``); the staged files' rows."""
    groups = task_groups(job.topology)

    def one(items: Any) -> Any:
        for parts in items:
            for b in replay_task(job, config, bounds, parts, stage_dir):
                d = b.to_pydict()
                yield from zip(d["part"], d["value"], d["src"], d["off"], strict=True)

    return list(sc.parallelize(groups, max(1, len(groups))).mapPartitions(one).collect())


def write_changelogs(tx: Any, topics: list[str], batch: Any) -> int:
    """``CHANGELOG`` rows onto the query's changelog topics; the number written."""
    parts, srcs = batch.column(1).to_pylist(), batch.column(6).to_pylist()
    keys, values = batch.column(2).to_pylist(), batch.column(3).to_pylist()
    by: dict[tuple[int, int], list[int]] = {}
    for i, (p, s) in enumerate(zip(parts, srcs, strict=True)):
        by.setdefault((s, p), []).append(i)
    for (s, p), idx in by.items():
        tx.produce_batch(topics[s], p, [keys[i] for i in idx], [values[i] for i in idx])
    return len(parts)


def hand_over(engine: Any, query: Any, bounds: Bounds) -> None:
    """After the changelogs are written: the query's positions at the run's end offsets, then every task
    restored and initialized again, as a restarted task is (stores from their changelogs, operators from
    their stores, inputs from the committed positions)."""
    group = query.topology.application_id
    with engine.log.transaction() as tx:
        tx.commit_offsets(group, {(t, p): e for t, parts in bounds.ranges.items() for p, (_, e) in parts.items()})
    for task in query.tasks:
        ctx = getattr(task, "ctx", None)
        for kv in (ctx.kvs if ctx is not None else task.stores):
            kv.restore()
        task.initialized = False
        task.init()

