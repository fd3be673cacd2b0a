"""The fused stages a backfill runs in Spark's Python workers: read an offset range from the log, run the
streaming runtime's own objects over it, stage what comes out.

One Python function per Spark task (``fused``): it opens the log itself and reads its range in offset order
(no raw record goes through the JVM), then the ``SourceReader`` decodes (a bad record goes to the processing
log), the generated pipeline evaluates WHERE / PARTITION BY / the projection, the ``Grouper`` and the
runtime's ``AggregateProcessor`` (on a private, changelog-less store, with the record cache on) fold records
into windows with the same stream time and late drops, and the ``SinkWriter`` serializes - into a staging
transaction that appends to the task's staged file (``staging``) instead of the log. What the stages produce
are rows of ``job.STAGE_SCHEMA``:

* ``SINK``: a sink record (key, value, timestamp, headers; ``part`` the partition the sink writer chose,
  -1 for the log's default partitioner) - for a table, the last update per key and window, which is what
  the streaming query's output collapses to;
* ``STATE``: an entry of the task's state store after the last record (store key, pickled value), with
  ``part`` the task partition: the driver copies it into the streaming query's store (``handoff``);
* ``PLOG``: a processing-log entry (pickled); ``SUMMARY``: per partition counts (pickled dict);
* ``ITEM``: a grouped record on its way to the task that owns its group (repartitioned aggregations: the
  only rows that cross into Spark in bulk, because Spark shuffles them).
"""

from __future__ import annotations

import gc
import pickle
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pyarrow as pa

from ksqlpy.backfill.job import (
    ITEM,
    PLOG,
    SINK,
    SINK_CHUNK,
    STAGED,
    STATE,
    SUMMARY,
    BackfillJob,
    CollectingLog,
    SinkLayout,
    WorkerEngine,
    new_plog,
)
from ksqlpy.backfill.staging import OUT_SCHEMA, StagedFile
from ksqlpy.log.base import Headers, LogTransaction, ProducerRecord, RecordBatch
from ksqlpy.log.embedded_prepare import plain, prepare
from ksqlpy.log.partitioner import partition_for_key
from ksqlpy.plan.topology import (
    AggregateStage,
    GroupStage,
    ReadSource,
    StatelessStage,
    WriteRepartition,
    WriteSink,
)
from ksqlpy.runtime.aggregate import AggregateProcessor, aggregate_spec, aggregator_class, key_bytes
from ksqlpy.runtime.group_by import Grouper, compile_grouping
from ksqlpy.runtime.query_tasks import sink_timestamp
from ksqlpy.runtime.reader import DecodedBatch, SourceReader
from ksqlpy.runtime.record_cache import cache_key
from ksqlpy.runtime.stateless import stateless_processor
from ksqlpy.runtime.task import tune_gc
from ksqlpy.runtime.writer import SinkWriter
from ksqlpy.state.store import KeyValueStore
from ksqlpy.state.windowed import TIME_INDEX

_HIGHEST = pickle.HIGHEST_PROTOCOL
_SPILL = 20_000  # rows buffered before they go to the staged file (or to Spark) as one Arrow batch


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic GC paused for one batch, as a streaming task pauses it (``runtime.task.poll_batch``):
    a batch's short-lived rows die together when it ends; a collection in between would scan them all."""
    tune_gc()
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Out:
    """Rows of OUT_SCHEMA, accumulated column-wise and cut into Arrow batches: written to the task's staged
    file when one is given, else kept for the caller to yield (``take``)."""

    def __init__(self, staged: StagedFile | None = None, layout: SinkLayout | None = None) -> None:
        self.staged = staged
        self.layout = layout  # sink records packed into the embedded log's chunks (``job.SinkLayout``)
        self.cols: list[list[Any]] = [[] for _ in OUT_SCHEMA]
        self.ready: list[pa.RecordBatch] = []

    def add(self, kind: int, part: int, key: bytes | None, value: bytes | None, ts: int | None = None,
            headers: bytes | None = None, src: int | None = None, off: int | None = None) -> None:
        for col, v in zip(self.cols, (kind, part, key, value, ts, headers, src, off), strict=True):
            col.append(v)
        if len(self.cols[0]) >= _SPILL:
            self.spill()

    def add_many(self, kind: int, part: int, keys: Sequence[bytes | None], values: Sequence[bytes | None],
                 timestamps: Sequence[int | None] | None = None, headers: Sequence[bytes | None] | None = None) -> None:
        """A columnar run of rows of one kind and partition (sink records, state entries): one Arrow batch
        built from the columns as they are (constant columns filled by Arrow, not row by row)."""
        n = len(values)
        if not n:
            return
        self.spill()  # what is pending first: rows keep their order
        if kind == SINK and self.layout is not None and headers is None and plain(keys, values, timestamps, None):
            self._add_chunks(part, keys, values, timestamps)  # type: ignore[arg-type]
            return
        b = pa.RecordBatch.from_arrays([
            pa.array(np.full(n, kind, np.int8)), pa.array(np.full(n, part, np.int32)),
            pa.array(keys, pa.binary()), pa.array(values, pa.binary()),
            pa.array(timestamps, pa.int64()) if timestamps is not None else pa.nulls(n, pa.int64()),
            pa.array(headers, pa.binary()) if headers is not None else pa.nulls(n, pa.binary()),
            pa.nulls(n, pa.int32()), pa.nulls(n, pa.int64())], schema=OUT_SCHEMA)
        if self.staged is not None:
            self.staged.write(b)
        else:
            self.ready.append(b)

    def _add_chunks(self, part: int, keys: Sequence[bytes], values: Sequence[bytes], timestamps: Sequence[int]) -> None:
        """Plain sink records packed as the embedded log packs a ``produce_batch`` (the same partitioning by
        key hash for ``part`` -1): one ``SINK_CHUNK`` row per chunk, in the order the log would store them."""
        layout = self.layout
        assert layout is not None
        prepared = prepare(layout.topic, layout.topic_id, layout.partitions, None if part < 0 else part, keys, values,
                           timestamps)
        parts = [pp.partition for pp in prepared.parts for _ in pp.chunks]
        chunks = [c for pp in prepared.parts for _, c in pp.chunks]
        n = len(chunks)
        b = pa.RecordBatch.from_arrays([
            pa.array(np.full(n, SINK_CHUNK, np.int8)), pa.array(parts, pa.int32()), pa.nulls(n, pa.binary()),
            pa.array(chunks, pa.binary()), pa.nulls(n, pa.int64()), pa.nulls(n, pa.binary()),
            pa.nulls(n, pa.int32()), pa.nulls(n, pa.int64())], schema=OUT_SCHEMA)
        if self.staged is not None:
            self.staged.write(b)
        else:
            self.ready.append(b)

    def __len__(self) -> int:
        return len(self.cols[0])

    def add_batch(self, b: pa.RecordBatch) -> None:
        """Rows already built as one Arrow batch of OUT_SCHEMA, after what is pending."""
        self.spill()
        if self.staged is not None:
            self.staged.write(b)
        else:
            self.ready.append(b)

    def spill(self) -> None:
        if not self.cols[0]:
            return
        b = pa.RecordBatch.from_arrays([pa.array(c, f.type) for c, f in zip(self.cols, OUT_SCHEMA, strict=True)],
                                       schema=OUT_SCHEMA)
        self.cols = [[] for _ in OUT_SCHEMA]
        if self.staged is not None:
            self.staged.write(b)
        else:
            self.ready.append(b)

    def take(self) -> list[pa.RecordBatch]:
        out, self.ready = self.ready, []
        return out

    def plog(self, plog: CollectingLog, part: int) -> None:
        for entry in plog.drain():
            self.add(PLOG, part, None, entry)


def _dump_headers(h: Headers | None) -> bytes | None:
    return pickle.dumps(h, _HIGHEST) if h else None


class StagingTransaction(LogTransaction):
    """What the sink writer produces into on a worker: the records are appended to the task's output as
    ``SINK`` rows, with the partition the writer chose (-1: the log's default partitioner decides)."""

    def __init__(self, out: Out) -> None:
        self.out = out

    def produce(self, record: ProducerRecord) -> None:
        self.out.add(SINK, -1 if record.partition is None else record.partition, record.key, record.value,
                     record.timestamp, _dump_headers(record.headers))

    def produce_batch(self, topic: str, partition: int | None, keys: Sequence[bytes | None],
                      values: Sequence[bytes | None], timestamps: Sequence[int | None] | None = None,
                      headers: Sequence[Headers | None] | None = None) -> None:
        self.out.add_many(SINK, -1 if partition is None else partition, keys, values, timestamps,
                          None if headers is None else [_dump_headers(h) for h in headers])

    def commit_offsets(self, group: str, offsets: dict[tuple[str, int], int]) -> None:
        raise NotImplementedError("a backfill stage commits no offsets")


def sink_writer(job: BackfillJob, engine: WorkerEngine) -> SinkWriter:
    sink = job.sink
    write = next((op for sub in job.topology.sub_topologies for op in sub.operators if isinstance(op, WriteSink)),
                 None)
    from_column = write is None or write.timestamp_from_column
    return SinkWriter(sink.topic, engine.key_serde(sink), engine.value_serde(sink), engine.plog, job.query_id,
                      windowed=sink.windowed is not None, keyless=not sink.key_columns,
                      partitions=job.sink_partitions, **sink_timestamp(sink, from_column=from_column))


def operator(job: BackfillJob, kind: type) -> Any:
    """The streaming query's operator of ``kind`` (in whichever sub-topology it runs)."""
    return next(op for sub in job.topology.sub_topologies for op in sub.operators if isinstance(op, kind))


def _source_reader(job: BackfillJob, engine: WorkerEngine) -> SourceReader:
    read = operator(job, ReadSource)
    source = read.source
    return SourceReader(source, engine.key_serde(source), engine.value_serde(source), engine.plog, job.query_id,
                        keep_tombstones=read.keep_tombstones)


# ------------------------------------------------------------------------------------------------ stateless
def run_stateless(job: BackfillJob, batches: Iterable[RecordBatch], part: int, out: Out) -> None:
    """A stateless query (CREATE STREAM AS SELECT without GROUP BY) over one offset range."""
    plog = new_plog(job)
    engine = WorkerEngine(job, plog)
    proc = stateless_processor(operator(job, StatelessStage), job.topology.functions, plog, job.query_id)
    reader = _source_reader(job, engine)
    writer = sink_writer(job, engine)
    tx = StagingTransaction(out)
    read = 0
    for batch in batches:
        read += len(batch)
        with gc_paused():
            rows = proc.process(reader.decode(batch), None)
            if rows:
                writer.write(tx, rows)
            del rows
        out.plog(plog, part)
    out.add(SUMMARY, part, None, pickle.dumps({"read": read, "late": 0}))


# ------------------------------------------------------------------------------------------------ aggregation
class TaskAggregation:
    """The runtime's aggregation of one task partition, on a private store without changelog, with the
    record cache the streaming query has: the sink gets each key's (and window's) last update."""

    def __init__(self, job: BackfillJob, engine: WorkerEngine, part: int, grouper: Grouper | None) -> None:
        self.part = part
        self.dir = tempfile.mkdtemp(prefix=f"ksqlpy-backfill-{job.query_id}-{part}-")
        stage = operator(job, AggregateStage)
        # a window or session store's time index is derived: kept off the staged entries as off the changelog
        self.kv = KeyValueStore(self.dir, None, None, part, TIME_INDEX if stage.window is not None else None)
        topology = job.topology
        spec = aggregate_spec(stage, topology.functions, topology.function_config, engine.plog, job.query_id)
        self.aggregator = aggregator_class(stage.window)(spec, self.kv, engine.plog, job.query_id)
        self.processor = AggregateProcessor(grouper, self.aggregator, table=False)
        self.last: dict[Any, tuple] = {}  # output key -> its last update: the collapsed table
        self.read = 0

    def feed(self, batch: DecodedBatch) -> None:
        """A decoded batch (with the grouper) or grouped items (``DecodedBatch``-like with ``rows``)."""
        rows = self.processor.process(batch, None)
        self.kv.flush(None)  # type: ignore[arg-type]  # no changelog: encodes for commit_local
        self.kv.commit_local()
        last = self.last
        for row in rows:
            okey = cache_key(row[0])
            last.pop(okey, None)  # re-inserted: the order of last updates, as a compacted topic has it
            last[okey] = row

    def finish(self, out: Out, writer: SinkWriter) -> None:
        rows = list(self.last.values())
        self.last = {}
        if rows:
            writer.write(StagingTransaction(out), rows)
        for keys, values in self.kv.committed_payloads():  # as the changelog holds them: no re-encoding
            out.add_many(STATE, self.part, keys, values)
        out.add(SUMMARY, self.part, None, pickle.dumps({"read": self.read, "late": self.aggregator.late}))
        self.close()

    def close(self) -> None:
        """Drop the private store (idempotent: also run when the stage fails)."""
        if self.dir:
            self.kv.close()
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = ""


class _Items:
    """Grouped items where the aggregate processor expects a decoded batch (no grouper: ``rows`` are items)."""

    __slots__ = ("rows",)

    def __init__(self, rows: list[tuple]) -> None:
        self.rows = rows


def _grouper(job: BackfillJob, engine: WorkerEngine) -> Grouper:
    stage = operator(job, GroupStage)
    return Grouper(stage, compile_grouping(stage, job.topology.functions), engine.plog, job.query_id, None)


def run_aggregate(job: BackfillJob, batches: Iterable[RecordBatch], part: int, out: Out) -> None:
    """An aggregation whose groups stay in their source partition over one whole partition: decode, group
    and aggregate in offset order, as its streaming task does."""
    plog = new_plog(job)
    engine = WorkerEngine(job, plog)
    reader = _source_reader(job, engine)
    task = TaskAggregation(job, engine, part, _grouper(job, engine))
    try:
        for batch in batches:
            task.read += len(batch)
            with gc_paused():
                task.feed(reader.decode(batch))
            out.plog(plog, part)
        task.finish(out, sink_writer(job, engine))
        out.plog(plog, part)
    finally:
        task.close()


def run_group(job: BackfillJob, batches: Iterable[RecordBatch], part: int, start: int) -> Iterator[pa.RecordBatch]:
    """First stage of a repartitioned aggregation: decode and group; each item goes to the task partition
    that owns its group key (where the streaming query's repartition topic would place it). ``src`` and
    ``off`` are the source partition and the record's position in it (what the next stage sorts by after
    the timestamp)."""
    plog = new_plog(job)
    engine = WorkerEngine(job, plog)
    reader = _source_reader(job, engine)
    grouper = _grouper(job, engine)
    write = operator(job, WriteRepartition)
    to_bytes = key_bytes(write.key_columns, write.key_format, write.key_delimiter)
    n = job.partitions
    out = Out()
    read = 0
    pos = start
    dumps = pickle.dumps
    for batch in batches:
        read += len(batch)
        with gc_paused():
            for item in grouper(reader.decode(batch)):
                out.add(ITEM, partition_for_key(to_bytes(item[0]), n), None, dumps(item, _HIGHEST), item[2], None,
                        part, pos)
                pos += 1
        out.plog(plog, part)
        yield from out.take()
    out.add(SUMMARY, -1, None, pickle.dumps({"read": read, "late": 0}), None, None, part)
    out.spill()
    yield from out.take()


def run_merge(job: BackfillJob, batches: Iterator[pa.RecordBatch], stage_dir: str) -> Iterator[pa.RecordBatch]:
    """Second stage of a repartitioned aggregation (``mapInArrow``): rows sorted by (task partition,
    timestamp, source partition, position) feed one runtime aggregator per task partition; other rows pass
    through. Each task partition's results go to a staged file of their own; only the files' rows are
    yielded."""
    plog = new_plog(job)
    engine = WorkerEngine(job, plog)
    writer = sink_writer(job, engine)
    tasks: dict[int, TaskAggregation] = {}
    outs: dict[int, Out] = {}
    loads = pickle.loads

    def out_of(q: int) -> Out:
        o = outs.get(q)
        if o is None:
            o = outs[q] = Out(StagedFile(stage_dir, f"merge-{q}"), job.sink_layout)
        return o

    try:
        for b in batches:
            d = b.to_pydict()
            pending: dict[int, list[tuple]] = {}
            for i, kind in enumerate(d["kind"]):
                q = d["part"][i]
                if kind != ITEM:
                    out_of(q).add(kind, q, d["key"][i], d["value"][i], d["ts"][i], d["headers"][i], d["src"][i],
                                  d["off"][i])
                    continue
                pending.setdefault(q, []).append(loads(d["value"][i]))
            for q, items in pending.items():
                task = tasks.get(q) or tasks.setdefault(q, TaskAggregation(job, engine, q, None))
                with gc_paused():
                    task.feed(_Items(items))  # type: ignore[arg-type]  # (records read are counted by the first stage)
                out_of(q).plog(plog, q)
        for q, task in tasks.items():
            task.finish(out_of(q), writer)
            out_of(q).plog(plog, q)
        rows = Out()
        for q, o in sorted(outs.items()):
            o.spill()
            assert o.staged is not None
            rows.add(STAGED, q, None, o.staged.commit().encode(), None, None, q, 0)
        rows.spill()
        yield from rows.take()
    except BaseException:
        for o in outs.values():
            if o.staged is not None:
                o.staged.abort()
        raise
    finally:
        for task in tasks.values():
            task.close()
