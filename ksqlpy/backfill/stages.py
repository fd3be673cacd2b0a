"""The per-partition stages a backfill runs on Spark's Python workers (``mapInArrow`` functions).

Each stage takes the Arrow batches of one log partition in offset order and runs the streaming
runtime's own objects over them (see ``job.py``): the ``SourceReader`` decodes (a bad record goes to the
processing log), the generated pipeline evaluates WHERE / PARTITION BY / the projection, the
``Grouper`` and the runtime ``Aggregator`` (on a private, changelog-less store) fold records into
windows with the same stream time and late-record drops, and the ``SinkWriter`` serializes. The stages
yield rows of ``job.STAGE_SCHEMA``:

* ``SINK``: a sink record (key, value, timestamp, headers; ``part`` the partition the sink writer chose,
  -1 for the log's default partitioner) - for a table, the last update per key and window, which is what
  the streaming query's output collapses to;
* ``STATE``: an entry of the task's state store after the last record (store key, pickled value), with
  ``part`` the task partition: the driver copies it into the streaming query's store (``handoff``);
* ``PLOG``: a processing-log entry (pickled); ``SUMMARY``: per partition counts (pickled dict);
* ``ITEM``: a grouped record on its way to the task that owns its group (repartitioned aggregations).
"""

from __future__ import annotations

import pickle
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow as pa

from ksqlpy.backfill.job import (
    ITEM,
    PLOG,
    SINK,
    STATE,
    SUMMARY,
    BackfillJob,
    CollectingLog,
    WorkerEngine,
    new_plog,
)
from ksqlpy.log.base import RecordBatch
from ksqlpy.runtime.reader import DecodedBatch
from ksqlpy.runtime.record_cache import cache_key

_HIGHEST = pickle.HIGHEST_PROTOCOL

OUT_SCHEMA = pa.schema([
    pa.field("kind", pa.int8()), pa.field("part", pa.int32()), pa.field("key", pa.binary()),
    pa.field("value", pa.binary()), pa.field("ts", pa.int64()), pa.field("headers", pa.binary()),
    pa.field("src", pa.int32()), pa.field("off", pa.int64()),
])


class _Out:
    """Rows of OUT_SCHEMA, accumulated column-wise and cut into Arrow batches."""

    def __init__(self) -> None:
        self.cols: list[list[Any]] = [[] for _ in OUT_SCHEMA]

    def add(self, kind: int, part: int, key: bytes | None, value: bytes | None, ts: int | None = None,
            headers: bytes | None = None, src: int | None = None, off: int | None = None) -> None:
        for col, v in zip(self.cols, (kind, part, key, value, ts, headers, src, off), strict=True):
            col.append(v)

    def __len__(self) -> int:
        return len(self.cols[0])

    def batch(self) -> pa.RecordBatch:
        b = pa.RecordBatch.from_arrays([pa.array(c, f.type) for c, f in zip(self.cols, OUT_SCHEMA, strict=True)],
                                       schema=OUT_SCHEMA)
        self.cols = [[] for _ in OUT_SCHEMA]
        return b

    def plog(self, plog: CollectingLog, part: int) -> None:
        for entry in plog.drain():
            self.add(PLOG, part, None, entry)


def _record_batches(batches: Iterable[pa.RecordBatch], topic: str) -> Iterator[RecordBatch]:
    """Arrow batches of the data source -> the runtime's RecordBatch, one partition per batch."""
    loads = pickle.loads
    for b in batches:
        if b.num_rows == 0:
            continue
        d = b.to_pydict()
        parts = d["partition"]
        i = 0
        while i < len(parts):  # one Spark partition is one log partition; split defensively anyway
            j = i
            while j < len(parts) and parts[j] == parts[i]:
                j += 1
            yield RecordBatch(topic, parts[i], d["offset"][i:j], d["key"][i:j], d["value"][i:j],
                              d["timestamp"][i:j], [loads(h) if h is not None else None for h in d["headers"][i:j]])
            i = j


def _headers(h: Any) -> bytes | None:
    return pickle.dumps(h, _HIGHEST) if h else None


def _sink_writer(job: BackfillJob, engine: WorkerEngine) -> Any:
    from ksqlpy.engine.queries import _sink_timestamp
    from ksqlpy.runtime.writer import SinkWriter

    sink = job.sink
    return SinkWriter(sink.topic, engine.key_serde(sink), engine.value_serde(sink), engine.plog, job.query_id,
                      windowed=sink.windowed is not None, keyless=not sink.key_columns,
                      partitions=job.sink_partitions, **_sink_timestamp(sink))


def _emit_sink(out: _Out, writer: Any, rows: list[tuple]) -> None:
    """Sink records with the partition the writer chose (-1: the log's default partitioner decides)."""
    for r in writer.encode(rows):
        out.add(SINK, -1 if r.partition is None else r.partition, r.key, r.value, r.timestamp, _headers(r.headers))


# ------------------------------------------------------------------------------------------------ stateless
def stateless_stage(job: BackfillJob) -> Any:
    """``mapInArrow`` function of a stateless query (CREATE STREAM AS SELECT without GROUP BY)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from ksqlpy.engine.queries import _processor_for
        from ksqlpy.runtime.reader import SourceReader

        plan = job.plan
        plog = new_plog(job)
        engine = WorkerEngine(job, plog)
        groups = [plan.key, plan.value]
        windowed_keys = job.sink.windowed is not None and plan.source.windowed is not None and plan.rekey is None
        if windowed_keys:
            from ksqlpy.runtime.windowed_source import window_key_groups, windowed_rows

            groups = window_key_groups(groups)
        factory, keep = _processor_for(engine, plan, job.query_id, groups, persistent=True)  # type: ignore[arg-type]
        if windowed_keys:
            factory = windowed_rows(factory)
        source = plan.source
        reader = SourceReader(source, engine.key_serde(source), engine.value_serde(source), plog, job.query_id,
                              keep_tombstones=keep)
        writer = _sink_writer(job, engine)
        procs: dict[int, Any] = {}
        counts: dict[int, int] = {}
        out = _Out()
        for batch in _record_batches(batches, source.topic):
            p = batch.partition
            proc = procs.get(p) or procs.setdefault(p, factory(p))
            counts[p] = counts.get(p, 0) + len(batch)
            rows = proc(reader.decode(batch), None)
            _emit_sink(out, writer, rows)
            out.plog(plog, p)
            if len(out) >= 10000:
                yield out.batch()
        for p, n in counts.items():
            out.add(SUMMARY, p, None, pickle.dumps({"read": n, "late": 0}))
        yield out.batch()

    return run


# ------------------------------------------------------------------------------------------------ aggregation
class _TaskAggregation:
    """The runtime's aggregator for one task partition, on a private store without changelog."""

    def __init__(self, job: BackfillJob, engine: WorkerEngine, part: int) -> None:
        from ksqlpy.runtime.aggregate import _aggregator_class, build_spec
        from ksqlpy.state.store import KeyValueStore

        plan = job.plan
        self.part = part
        self.dir = tempfile.mkdtemp(prefix=f"ksqlpy-backfill-{job.query_id}-{part}-")
        self.kv = KeyValueStore(self.dir, None, None, part)
        spec = build_spec(engine, plan, job.query_id, [plan.key, plan.value], job.sink,  # type: ignore[arg-type]
                          {"cache.max.bytes.buffering": 0})
        self.aggregator = _aggregator_class(plan)(spec, self.kv, engine.plog, job.query_id)
        self.last: dict[Any, tuple] = {}  # output key -> its last update: the collapsed table
        self.read = 0

    def feed(self, items: list[tuple]) -> None:
        out: list[tuple] = []
        self.aggregator.stream(items, out)
        self.aggregator.end_batch(out)
        self.kv.flush(None)  # type: ignore[arg-type]  # no changelog: encodes for commit_local
        self.kv.commit_local()
        last = self.last
        for row in out:
            okey = cache_key(row[0])
            last.pop(okey, None)  # re-inserted: the order of last updates, as a compacted topic has it
            last[okey] = row

    def finish(self, out: _Out, writer: Any) -> None:
        _emit_sink(out, writer, list(self.last.values()))
        for k, v in self.kv.items(b""):
            out.add(STATE, self.part, k, pickle.dumps(v, _HIGHEST))
        out.add(SUMMARY, self.part, None, pickle.dumps({"read": self.read, "late": self.aggregator.late}))
        self.close()

    def close(self) -> None:
        """Drop the private store (idempotent: also run when the stage fails)."""
        if self.dir:
            self.kv.close()
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = ""


def _grouper_and_reader(job: BackfillJob, engine: WorkerEngine) -> tuple[Any, Any]:
    from ksqlpy.runtime.group_by import Grouper
    from ksqlpy.runtime.reader import SourceReader

    source = job.plan.source
    grouper = Grouper(job.plan, engine.plog, job.query_id, None)
    reader = SourceReader(source, engine.key_serde(source), engine.value_serde(source), engine.plog, job.query_id,
                          keep_tombstones=False)
    return grouper, reader


def aggregate_stage(job: BackfillJob) -> Any:
    """``mapInArrow`` function of an aggregation whose groups stay in their source partition: decode,
    group and aggregate each partition as its streaming task does."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        plog = new_plog(job)
        engine = WorkerEngine(job, plog)
        grouper, reader = _grouper_and_reader(job, engine)
        writer = _sink_writer(job, engine)
        tasks: dict[int, _TaskAggregation] = {}
        out = _Out()
        try:
            for batch in _record_batches(batches, job.plan.source.topic):
                p = batch.partition
                task = tasks.get(p) or tasks.setdefault(p, _TaskAggregation(job, engine, p))
                task.read += len(batch)
                task.feed(grouper(reader.decode(batch)))
                out.plog(plog, p)
            for p, task in tasks.items():
                task.finish(out, writer)
                out.plog(plog, p)
        finally:
            for task in tasks.values():
                task.close()
        yield out.batch()

    return run


def group_stage(job: BackfillJob) -> Any:
    """First stage of a repartitioned aggregation: decode and group; each item goes to the task partition
    that owns its group key (where the streaming query's repartition topic would place it)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from ksqlpy.log.partitioner import partition_for_key
        from ksqlpy.runtime.aggregate import key_serializer

        plog = new_plog(job)
        engine = WorkerEngine(job, plog)
        grouper, reader = _grouper_and_reader(job, engine)
        key_bytes = key_serializer(engine, job.plan, job.sink)  # type: ignore[arg-type]
        n = job.partitions
        counts: dict[int, int] = {}
        positions: dict[int, int] = {}
        out = _Out()
        for batch in _record_batches(batches, job.plan.source.topic):
            p = batch.partition
            counts[p] = counts.get(p, 0) + len(batch)
            d: DecodedBatch = reader.decode(batch)
            items = grouper(d)
            # (items keep no offsets, but they are in record order: their position in the partition is
            # what the next stage sorts by after the timestamp)
            pos = positions.get(p, 0)
            for item in items:
                q = partition_for_key(key_bytes(item[0]), n)
                out.add(ITEM, q, None, pickle.dumps(item, _HIGHEST), item[2], None, p, pos)
                pos += 1
            positions[p] = pos
            out.plog(plog, p)
            if len(out) >= 10000:
                yield out.batch()
        for p, c in counts.items():
            out.add(SUMMARY, -1, None, pickle.dumps({"read": c, "late": 0}), None, None, p)
        yield out.batch()

    return run


def merge_stage(job: BackfillJob) -> Any:
    """Second stage of a repartitioned aggregation: rows sorted by (task partition, timestamp, source
    partition, position) feed one runtime aggregator per task partition; other rows pass through."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        plog = new_plog(job)
        engine = WorkerEngine(job, plog)
        writer = _sink_writer(job, engine)
        tasks: dict[int, _TaskAggregation] = {}
        out = _Out()
        loads = pickle.loads
        try:
            for b in batches:
                d = b.to_pydict()
                pending: dict[int, list[tuple]] = {}
                for i, kind in enumerate(d["kind"]):
                    if kind != ITEM:
                        out.add(kind, d["part"][i], d["key"][i], d["value"][i], d["ts"][i], d["headers"][i],
                                d["src"][i], d["off"][i])
                        continue
                    pending.setdefault(d["part"][i], []).append(loads(d["value"][i]))
                for q, items in pending.items():
                    task = tasks.get(q) or tasks.setdefault(q, _TaskAggregation(job, engine, q))
                    task.feed(items)  # (records read are counted by the first stage)
                    out.plog(plog, q)
            for q, task in tasks.items():
                task.finish(out, writer)
                out.plog(plog, q)
        finally:
            for task in tasks.values():
                task.close()
        yield out.batch()

    return run
