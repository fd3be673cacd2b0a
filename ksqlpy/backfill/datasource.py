"""The Spark Python DataSource of a backfill's grouping stage (``spark.read.format("ksqlpy-backfill")``), and
the fused task every stage runs (``run_task``; stages without a shuffle run it from an RDD, ``run.run_tasks``).

Each input partition is one task of the backfill: a log partition's offset range ``[start, end)``. Its
``read`` is the whole fused stage (``stages``): it opens the log itself (EmbeddedLog by its directory, a
KafkaLog by its bootstrap servers: whatever ``ksqlpy.log.open_log`` opens from the job's log config), reads
the range in offset order and runs the query's stages on it. Raw records never enter the JVM: a task stages
its sink records, state and processing-log entries in a file (``staging``) and returns one row naming it;
only the first stage of a repartitioned aggregation returns rows in bulk (its grouped items, which Spark
shuffles to the task partitions).

Options: ``job`` (the pickled ``BackfillJob``, base64), ``stage`` (a ``Stage`` value), ``log`` (JSON: the log
config), ``topic``, ``tasks`` (JSON ``[[partition, start, end], ...]``), ``staging`` (the run's staging
directory), ``batch`` (records per fetch, default 10000).
"""

from __future__ import annotations

import base64
import json
import pickle
from collections.abc import Iterator
from enum import Enum
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from ksqlpy.backfill.job import STAGE_SCHEMA, STAGED, BackfillJob
from ksqlpy.backfill.staging import StagedFile
from ksqlpy.log.base import RecordBatch

NAME = "ksqlpy-backfill"


class Stage(Enum):
    STATELESS = "stateless"  # CREATE STREAM AS SELECT: any offset range on its own
    AGGREGATE = "aggregate"  # an aggregation whose groups stay in their partition: whole partitions
    GROUP = "group"  # the first stage of a repartitioned aggregation: grouped items out, into Spark
    PARTIAL = "partial"  # a chunk of an aggregation's partition: partial aggregates (``partials``)
    NATIVE = "native"  # a whole partition's grouped items as Arrow columns for Spark's aggregates (``native``)
    REPLAY = "replay"  # the streaming runtime's tasks of a partition (or of all) over the history (``replay``)


def task_name(stage: Stage, partition: int, start: int) -> str:
    """The staged file of a task (a chunk's partials apart from the partition's merged output)."""
    name = f"{partition:06d}-{start:020d}"
    return f"partial-{name}" if stage is Stage.PARTIAL else name


def encode_job(job: BackfillJob) -> str:
    return base64.b64encode(pickle.dumps(job, pickle.HIGHEST_PROTOCOL)).decode("ascii")


class OffsetRange(InputPartition):
    def __init__(self, partition: int, start: int, end: int) -> None:
        super().__init__((partition, start, end))
        self.partition = partition
        self.start = start
        self.end = end


class BackfillDataSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> str:
        return str(self.options.get("schema", STAGE_SCHEMA))  # (the native tier's items have their own)

    def reader(self, schema: Any) -> DataSourceReader:
        return BackfillReader(dict(self.options))


class BackfillReader(DataSourceReader):
    def __init__(self, options: dict[str, str]) -> None:
        self.job: BackfillJob = pickle.loads(base64.b64decode(options["job"]))
        self.stage = Stage(options["stage"])
        self.config: dict[str, Any] = json.loads(options["log"])
        self.topic = options["topic"]
        self.tasks = [(int(p), int(s), int(e)) for p, s, e in json.loads(options["tasks"])]
        self.staging = options["staging"]
        self.batch = int(options.get("batch", 10000))

    def partitions(self) -> list[InputPartition]:
        return [OffsetRange(p, s, e) for p, s, e in self.tasks]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, OffsetRange)
        yield from run_task(self.job, self.stage, self.config, self.topic, partition.partition, partition.start,
                            partition.end, self.staging, self.batch)


_settled = False


def settle_worker() -> None:
    """Once per Spark Python worker process: collect, then freeze what is alive - the imported modules
    (PySpark, pyarrow, ksqlpy) - out of the cyclic GC (``gc.freeze``). PySpark's daemon runs a full
    ``gc.collect()`` after every task of a reused worker, which walked all of them each time: measured
    0.12-0.15 CPU-seconds per run of the filter's 3 tasks (0.4-0.5 µs per record at 300k). What the first
    task had alive stays frozen (its cycles never collected: a few kilobytes, once per worker). Nothing
    outside a Spark task: the driver's heap is its engine's business (``runtime/heap_freeze``)."""
    global _settled
    if _settled:
        return
    from pyspark import TaskContext

    if TaskContext.get() is None:
        return
    import gc

    gc.collect()
    gc.freeze()
    _settled = True


def run_task(job: BackfillJob, stage: Stage, config: dict[str, Any], topic: str, partition: int, start: int,
             end: int, staging: str, batch: int = 10000) -> Iterator[pa.RecordBatch]:
    """One backfill task: its range read from the log and run through the fused stage."""
    import os

    from ksqlpy.backfill import progress, stages

    settle_worker()  # (after the imports the task needs)

    def counted(batches: Iterator[RecordBatch]) -> Iterator[RecordBatch]:
        report = progress.TaskReport(staging, partition, start)
        done = 0
        try:
            for b in batches:
                yield b
                done += len(b)
                report(done)
        finally:
            report.close()

    name = task_name(stage, partition, start)
    records = counted(log_batches(config, topic, partition, start, end, batch, raw=stage is Stage.NATIVE))
    if stage is Stage.GROUP:
        yield from stages.run_group(job, records, partition, start)
        return
    if stage is Stage.NATIVE:
        from ksqlpy.backfill.native import NativePlan, lower, run_items

        plan = lower(job)
        assert isinstance(plan, NativePlan), plan
        yield from run_items(job, plan, records, partition, staging)
        return
    final = os.path.join(staging, f"{name}.arrow")
    if os.path.exists(final):  # a resumed run: this range's output is complete from an earlier attempt
        report = progress.TaskReport(staging, partition, start)
        report(end - start)
        report.close()
        yield from _staged_row(final, partition, start)
        return
    staged = StagedFile(staging, name)
    try:
        out = stages.Out(staged, job.sink_layout)
        if stage is Stage.STATELESS:
            stages.run_stateless(job, records, partition, out)
        elif stage is Stage.PARTIAL:
            from ksqlpy.backfill.partials import run_partial

            run_partial(job, records, partition, out)
        else:
            stages.run_aggregate(job, records, partition, out)
        out.spill()
        path = staged.commit()
    finally:
        staged.abort()
    yield from _staged_row(path, partition, start)


def merge_task(job: BackfillJob, partition: int, start: int, paths: list[str], staging: str
               ) -> Iterator[pa.RecordBatch]:
    """The merge of a partition's chunks (``partials.merge_partials``) into the partition's staged file."""
    import os

    from ksqlpy.backfill import stages
    from ksqlpy.backfill.partials import merge_partials

    settle_worker()

    final = os.path.join(staging, f"{task_name(Stage.AGGREGATE, partition, start)}.arrow")
    if not os.path.exists(final):  # (else a resumed run: merged by an earlier attempt)
        staged = StagedFile(staging, task_name(Stage.AGGREGATE, partition, start))
        try:
            out = stages.Out(staged, job.sink_layout)
            merge_partials(job, partition, paths, out)
            out.spill()
            final = staged.commit()
        finally:
            staged.abort()
    yield from _staged_row(final, partition, start)


def _staged_row(path: str, partition: int, start: int) -> Iterator[pa.RecordBatch]:
    from ksqlpy.backfill import stages

    done = stages.Out()
    done.add(STAGED, partition, None, path.encode(), None, None, partition, start)
    done.spill()
    yield from done.take()


def log_batches(config: dict[str, Any], topic: str, partition: int, start: int, end: int,
                batch: int = 10000, raw: bool = False) -> Iterator[Any]:
    """Records ``[start, end)`` of one partition as the runtime's batches, in offset order. ``raw``: as the
    embedded log stores them where it can (``EmbeddedLog.fetch_raw``: the native tier decodes those whole)."""
    from ksqlpy.log import open_log

    log = open_log(config)
    try:
        fetch_raw = getattr(log, "fetch_raw", None) if raw else None
        if fetch_raw is not None:
            offset = start
            while offset < end:
                rb = fetch_raw(topic, partition, offset, min(batch, end - offset))
                if not len(rb):
                    break
                yield rb
                offset = rb.offset + len(rb)
            return
        offset = start
        while offset < end:
            b = log.fetch(topic, partition, offset, min(batch, end - offset))
            if not b.offsets:  # a gap (compaction, transaction markers on Kafka) up to the end: done
                break
            n = len(b.offsets)
            if b.offsets[-1] >= end:
                n = sum(1 for o in b.offsets if o < end)
                if not n:
                    break
                b = RecordBatch(topic, partition, b.offsets[:n], b.keys[:n], b.values[:n], b.timestamps[:n],
                                b.headers[:n])
            yield b
            offset = b.offsets[-1] + 1
    finally:
        log.close()


def register(spark: Any) -> None:
    """Make ``format("ksqlpy-backfill")`` known to ``spark`` (idempotent)."""
    spark.dataSource.register(BackfillDataSource)
