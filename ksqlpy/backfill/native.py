"""The native tier: an aggregation's accumulation lowered to Spark's own aggregate operators.

What runs where:

1. **Python workers, one task per source partition** (offset order): each log batch is decoded straight into
   Arrow columns where ``arrow_decode.ArrowDecoder`` proves that exact (on the embedded log from the chunks as
   stored, ``fetch_raw``: no Python object per record); any other batch goes through our ``SourceReader`` and
   the ``Grouper`` (WHERE, the group key and the aggregate arguments; a NULL key, a failed expression: the
   processing log, exactly as streaming). numpy assigns each item its windows and decides its late drops -
   stream time is the running maximum of the items' timestamps in offset order, an item late for a window
   once ``window end + grace <= stream time`` (``np.maximum.accumulate``, the comparison the streaming loop
   makes) - and Arrow's hash aggregation combines the batch's kept items into one row per (key, window) of
   partial accumulators. What crosses into Spark are those rows: task partition, group key, window start,
   largest timestamp and sequence number, the last item's headers and the partials. The task's
   processing-log entries and counts go to a staged file of its own (``native-<partition>``).
2. **Spark** (the JVM): ``groupBy(part, key, window)`` merging the partials with ``sum``, ``min``, ``max``,
   ``max(ts)`` (the state record's timestamp) and ``max_by(headers, seq)`` (the last update's headers), under
   fixed session settings (``spark.sql.ansi.enabled=false``, ``spark.sql.session.timeZone=UTC``).
3. **Python workers, one task per task partition** (``mapInArrow`` after a shuffle by partition): each
   aggregate row becomes the streaming runtime's state record (``[max ts, key, acc...]``), emitted through
   the aggregator's own projection and the sink writer in the order of the groups' last updates, and put
   into a private store whose changelog payloads are staged - as ``partials.merge_partials`` does for the
   fused tier.

Exactness, aggregate by aggregate (``tests/backfill/test_native.py`` proves each against streaming, edge
cases included):

* ``COUNT(*)``, ``COUNT(x)`` (any type of ``x``): per batch the count of kept items / non-null values, summed.
* ``SUM`` of INT/BIGINT: the streaming accumulator is the exact (unbounded) integer sum, wrapped to Java's
  overflow only in the result. Spark sums longs modulo 2^64, so a BIGINT is summed as two exact halves,
  ``sum(x >> 32)`` and ``sum(x & 0xFFFFFFFF)`` (per batch, then across batches), recombined in Python
  (exact below 2^31 records per group); an INT as a long (exact below 2^32 records). SUM of nothing (every value NULL) is NULL in Spark
  and 0 here: coalesced.
* ``MIN``/``MAX`` of INT/BIGINT: ``min``/``max`` (NULLs ignored; NULL when there is no value - as here).

Everything else stays in the fused Python tier; ``lower`` says why for each refusal (the planner's reason
is in the result's details and in docs/backfill.md).
"""

from __future__ import annotations

import ast
import pickle
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ksqlpy.backfill.job import PLOG, STATE, SUMMARY, BackfillJob, WorkerEngine, new_plog
from ksqlpy.backfill.stages import (
    Out,
    StagingTransaction,
    TaskAggregation,
    _grouper,
    _source_reader,
    gc_paused,
    operator,
    sink_writer,
)
from ksqlpy.backfill.staging import StagedFile, read
from ksqlpy.expr import bound as B
from ksqlpy.log.base import RecordBatch
from ksqlpy.plan.topology import AggregateStage, GroupStage, JoinStage, ReadSource, WindowType
from ksqlpy.runtime.aggregator import encode_key
from ksqlpy.runtime.store_retention import emit_floor
from ksqlpy.types import BIGINT, BOOLEAN, INTEGER, STRING

TIER_PROPERTY = "ksqlpy.backfill.tier"
# the session settings under which the lowered operators mean what the streaming runtime computes
SESSION_SETTINGS = {"spark.sql.ansi.enabled": "false", "spark.sql.session.timeZone": "UTC"}
_PLAIN_KEYS = (INTEGER, BIGINT, STRING, BOOLEAN)  # repr/literal_eval round-trips them (``encode_key``)
_ITEM, _MARKER = 0, 1  # rows into Spark: an item, or one per task partition (so every partition is finished)
_HIGHEST = pickle.HIGHEST_PROTOCOL
# rows per Arrow batch into Spark: each batch costs the JVM a fixed set-up (a log batch combines to ~1,000 rows)
_CROSSING_ROWS = 65_536


class Tier(Enum):
    PYTHON = "python"  # the fused Python tier for everything (the default: the cheaper one, as measured)
    NATIVE = "native"  # the native tier, or a refusal naming why it cannot run the query


class Agg(Enum):
    COUNT_STAR = "count(*)"
    COUNT = "count"
    SUM_INT = "sum int"
    SUM_BIGINT = "sum bigint"
    MIN = "min"
    MAX = "max"


_KEY_TYPES = {"INTEGER": pa.int32(), "BIGINT": pa.int64(), "STRING": pa.string(), "BOOLEAN": pa.bool_()}
_SPARK_KEY = {"INTEGER": "int", "BIGINT": "long", "STRING": "string", "BOOLEAN": "boolean"}


@dataclass(frozen=True)
class NativePlan:
    """The lowered aggregation: one ``Agg`` per aggregate call with the index of its argument (-1: none).
    ``key_type``: the group key's column type when it is one column (the key crosses as that column, its
    store bytes made in stage 3), else None (the key's ``encode_key`` bytes cross)."""

    aggs: tuple[tuple[Agg, int], ...]
    windowed: bool
    size: int
    advance: int
    grace: int
    retention: int
    key_type: str | None = None

    def partials(self) -> list[str]:
        """The partial accumulator columns that cross into Spark, per aggregate: ``c<j>`` a count, ``s<j>``
        an INT sum, ``h<j>``/``l<j>`` a BIGINT sum's two halves, ``m<j>`` a MIN or MAX."""
        out = []
        for j, (a, _) in enumerate(self.aggs):
            if a in (Agg.COUNT_STAR, Agg.COUNT):
                out.append(f"c{j}")
            elif a is Agg.SUM_INT:
                out.append(f"s{j}")
            elif a is Agg.SUM_BIGINT:
                out += [f"h{j}", f"l{j}"]
            else:
                out.append(f"m{j}")
        return out

    def key_arrow(self) -> pa.DataType:
        return pa.binary() if self.key_type is None else _KEY_TYPES[self.key_type]

    def schema(self) -> pa.Schema:
        """The Arrow columns a grouping task hands to Spark: one row per (key, window) of a log batch."""
        fields = [pa.field("kind", pa.int8()), pa.field("part", pa.int32()), pa.field("kv", self.key_arrow()),
                  pa.field("ws", pa.int64()), pa.field("ts", pa.int64()), pa.field("seq", pa.int64()),
                  pa.field("hd", pa.binary())]
        return pa.schema(fields + [pa.field(c, pa.int64()) for c in self.partials()])

    def ddl(self) -> str:
        """The same columns as Spark's schema string (what stage 1's ``mapInArrow`` yields)."""
        key = "binary" if self.key_type is None else _SPARK_KEY[self.key_type]
        return f"kind byte, part int, kv {key}, ws long, ts long, seq long, hd binary" + "".join(
            f", {c} long" for c in self.partials())


@dataclass(frozen=True)
class Refused:
    """Why the native tier does not run a query (it runs on the fused Python tier)."""

    reason: str


def lower(job: BackfillJob) -> NativePlan | Refused:
    """The planner: the native plan of ``job``, or the reason it stays in the Python tier."""
    if any(isinstance(op, JoinStage) for sub in job.topology.sub_topologies for op in sub.operators):
        return Refused("a join (its inputs interleave as the runtime's tasks decide: the replay lowering runs them)")
    if any(isinstance(op, ReadSource) and op.source.kind != "STREAM" for sub in job.topology.sub_topologies
           for op in sub.operators):
        return Refused("a TABLE source (its updates retract earlier contributions: the replay lowering runs it)")
    if not any(isinstance(op, AggregateStage) for sub in job.topology.sub_topologies for op in sub.operators):
        return Refused("a query without GROUP BY: decoding and serializing are its cost, which run in Python "
                       "either way; a filter in the JVM would add a Python-JVM-Python round trip per record")
    if job.repartition:
        return Refused("GROUP BY on a non-key over several partitions (its items are shuffled by Spark and "
                       "aggregated in offset order by the Python tier)")
    agg, group = operator(job, AggregateStage), operator(job, GroupStage)
    if agg.table or group.table:
        return Refused("a TABLE source (its updates retract earlier contributions)")
    if agg.having is not None:
        return Refused("HAVING (its tombstones depend on every update)")
    if agg.emit_final:
        return Refused("EMIT FINAL (emission follows stream time record by record)")
    w = agg.window
    if w is not None and w.type is WindowType.SESSION:
        return Refused("SESSION windows (sessions merge by gaps in offset order)")
    for name, t in agg.key_columns:
        if t not in _PLAIN_KEYS:
            return Refused(f"a group key column of type {t} ({name}); INT, BIGINT, STRING and BOOLEAN keys only")
    if not all(isinstance(c.expr, B.ColumnRef) for cols in agg.outputs for c in cols):
        return Refused("an output column computed from the aggregates (it may fail once per update)")
    aggs: list[tuple[Agg, int]] = []
    pos = 0
    for call, n in zip(agg.calls, agg.arg_counts, strict=True):
        fn = call.function.upper()
        types = list(call.arg_types)
        if call.literals or n > 1:
            return Refused(f"{fn} with literal arguments")
        if fn == "COUNT":
            aggs.append((Agg.COUNT_STAR, -1) if n == 0 else (Agg.COUNT, pos))
        elif fn == "SUM" and types and types[0] in (INTEGER, BIGINT):
            aggs.append((Agg.SUM_INT if types[0] == INTEGER else Agg.SUM_BIGINT, pos))
        elif fn in ("MIN", "MAX") and types and types[0] in (INTEGER, BIGINT):
            aggs.append((Agg.MIN if fn == "MIN" else Agg.MAX, pos))
        else:
            shown = ", ".join(str(t) for t in types) or "*"
            return Refused(f"{fn}({shown}): only COUNT, and SUM, MIN, MAX of INT/BIGINT are lowered")
        pos += n
    key_type = agg.key_columns[0][1].name if len(agg.key_columns) == 1 else None
    if w is None:
        return NativePlan(tuple(aggs), False, 0, 0, 0, 0, key_type)
    return NativePlan(tuple(aggs), True, w.size, w.advance or w.size, w.grace, w.retention, key_type)


def group_file(partition: int) -> str:
    return f"native-{partition:06d}"


# ------------------------------------------------------------------------------------------------ stage 1
class _Items:
    """A task partition's items, with the running stream time and the late drops, combined per log batch
    into one row per (key, window) of partial accumulators (Arrow's hash aggregation): Spark merges them."""

    def __init__(self, plan: NativePlan, part: int) -> None:
        self.plan = plan
        self.part = part
        self.schema = plan.schema()
        self.kbs: dict[Any, bytes] = {}
        self.stream_time = -1
        self.late = 0
        self.seq = 0
        self.per = -(-plan.size // plan.advance) if plan.windowed else 1

    def batches(self, items: list[tuple]) -> list[pa.RecordBatch]:
        """The grouper's items (``(key, args, ts, headers)`` tuples: the batches the Arrow decoder leaves)."""
        n = len(items)
        if not n:
            return []
        plan = self.plan
        keys, args, tss, hds = zip(*items, strict=True)
        if plan.key_type is not None:
            key = pa.array([k[0] for k in keys], plan.key_arrow())
        else:
            kbs = self.kbs
            kb = []
            for k in keys:
                b = kbs.get(k)
                if b is None:
                    b = kbs[k] = encode_key(k)
                kb.append(b)
            key = pa.array(kb, pa.binary())
        cols: list[pa.Array | None] = []
        for a, i in plan.aggs:
            if a is Agg.COUNT_STAR:
                cols.append(None)
            elif a is Agg.COUNT:  # any type: only whether it is NULL counts
                cols.append(pa.array([None if r[i] is None else 1 for r in args], pa.int64()))
            else:
                cols.append(pa.array([r[i] for r in args], pa.int64()))
        hd = (None if hds.count(None) == n
              else pa.array([None if h is None else pickle.dumps(h, _HIGHEST) for h in hds], pa.binary()))
        return self.columns(key, cols, np.fromiter(tss, np.int64, n), hd)

    def columns(self, key: pa.Array, cols: list[pa.Array | None], ts: np.ndarray,
                hd: pa.Array | None = None) -> list[pa.RecordBatch]:
        """A batch's items as columns (the group key, each aggregate's argument - None for COUNT(*) -, the
        timestamps, the headers: None when none has any), in offset order."""
        n = len(ts)
        if not n:
            return []
        plan = self.plan
        if key.type != plan.key_arrow():
            key = key.cast(plan.key_arrow())
        cols = [c if c is None or a is Agg.COUNT or c.type == pa.int64() else c.cast(pa.int64())
                for (a, _), c in zip(plan.aggs, cols, strict=True)]
        seq = np.arange(self.seq, self.seq + n, dtype=np.int64) * self.per
        self.seq += n
        if not plan.windowed:
            self.stream_time = max(self.stream_time, int(ts.max()))
            return [self._combined(key, pa.nulls(n, pa.int64()), ts, seq, hd, cols, None)]
        st = np.maximum.accumulate(np.maximum(ts, self.stream_time))
        self.stream_time = int(st[-1])
        size, adv, grace = plan.size, plan.advance, plan.grace
        first = ts - (size - adv)
        first = np.where(first > 0, first // adv * adv, 0)
        out = []
        for k in range(self.per):
            ws = first + k * adv
            valid = ws <= ts
            late = valid & (ws + size <= st - grace)
            self.late += int(late.sum())
            keep = valid & ~late
            if keep.all():
                out.append(self._combined(key, pa.array(ws), ts, seq + k, hd, cols, None))
            elif keep.any():
                out.append(self._combined(key, pa.array(ws), ts, seq + k, hd, cols, keep))
        return out

    def _combined(self, key: pa.Array, ws: pa.Array, ts: np.ndarray, seq: np.ndarray, hd: pa.Array | None,
                  cols: list[pa.Array | None], keep: np.ndarray | None) -> pa.RecordBatch:
        """One row per (key, window) of the kept items: the partial accumulators, the largest timestamp and
        sequence number, and the headers of the last item (the one with the largest sequence number)."""
        plan = self.plan
        data: dict[str, Any] = {"kv": key, "ws": ws, "ts": ts, "seq": seq}
        if hd is not None:
            data["hd"] = hd
        aggs: list[tuple[Any, ...]] = [("seq", "max"), ("ts", "max")]
        names = ["seq_max", "ts_max"]
        for j, (a, _) in enumerate(plan.aggs):
            col = cols[j]
            if a is Agg.COUNT_STAR:
                aggs.append(("seq", "count"))
                names.append("seq_count")
                continue
            assert col is not None
            if a is Agg.SUM_BIGINT:  # two exact halves: Spark's long sum wraps, the accumulator does not
                data[f"x{j}"] = pc.shift_right(col, 32)
                data[f"y{j}"] = pc.bit_wise_and(col, pa.scalar(0xFFFFFFFF, pa.int64()))
                aggs += [(f"x{j}", "sum"), (f"y{j}", "sum")]
                names += [f"x{j}_sum", f"y{j}_sum"]
                continue
            data[f"x{j}"] = col
            how = {Agg.COUNT: "count", Agg.SUM_INT: "sum", Agg.MIN: "min", Agg.MAX: "max"}[a]
            aggs.append((f"x{j}", how))
            names.append(f"x{j}_{how}")
        if hd is not None:
            aggs.append(("hd", "last", pc.ScalarAggregateOptions(skip_nulls=False)))
            names.append("hd_last")
        table = pa.table(data)
        if keep is not None:
            table = table.filter(pa.array(keep))
        grouped = table.group_by(["kv", "ws"], use_threads=False).aggregate(aggs)
        m = grouped.num_rows
        arrays = [pa.array(np.zeros(m, np.int8)), pa.array(np.full(m, self.part, np.int32)),
                  grouped.column("kv"), grouped.column("ws"), grouped.column("ts_max"), grouped.column("seq_max"),
                  grouped.column("hd_last") if hd is not None else pa.nulls(m, pa.binary())]
        arrays += [grouped.column(c) for c in names[2:len(names) - (hd is not None)]]
        return pa.RecordBatch.from_arrays([a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a
                                           for a in arrays], schema=self.schema)

    def marker(self) -> pa.RecordBatch:
        arrays = [pa.array([_MARKER], pa.int8()), pa.array([self.part], pa.int32())]
        arrays += [pa.nulls(1, f.type) for f in list(self.schema)[2:]]
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)


def run_items(job: BackfillJob, plan: NativePlan, batches: Iterable[Any], part: int,
              staging: str) -> Iterator[pa.RecordBatch]:
    """Stage 1 over one whole source partition in offset order: each log batch's items as partial
    accumulators per (key, window) in Arrow columns - decoded straight into Arrow where ``ArrowDecoder``
    proves it exact, else through the streaming reader and grouper; processing-log entries and counts into
    the partition's own staged file (read by stage 3)."""
    from ksqlpy.backfill.arrow_decode import ArrowDecoder

    plog = new_plog(job)
    engine = WorkerEngine(job, plog)
    reader = _source_reader(job, engine)
    grouper = _grouper(job, engine)
    decoder = (ArrowDecoder.of(operator(job, GroupStage), reader.source, reader.key_serde, reader.value_serde)
               if plan.key_type is not None else None)  # (a composite key: its ``encode_key`` bytes, per record)
    items = _Items(plan, part)
    staged = StagedFile(staging, group_file(part))
    try:
        out = Out(staged)
        read_n = 0
        pending: list[pa.RecordBatch] = []
        rows = 0
        for batch in batches:
            read_n += len(batch)
            got = None if decoder is None else decoder(batch)
            if got is None and not isinstance(batch, RecordBatch):
                batch = batch.decoded()  # (the embedded log's raw batch: decoded as ``fetch`` does)
            if got is not None:
                done = items.columns(got.keys[0], [None if i < 0 else got.args[i] for _, i in plan.aggs],
                                     got.timestamps)
            else:
                with gc_paused():
                    done = items.batches(grouper(reader.decode(batch)))
                out.plog(plog, part)
            pending += done
            rows += sum(b.num_rows for b in done)
            if rows >= _CROSSING_ROWS:
                yield pa.concat_batches(pending)
                pending, rows = [], 0
        if pending:
            yield pa.concat_batches(pending)
        out.add(SUMMARY, part, None, pickle.dumps({"read": read_n, "late": items.late,
                                                   "stream_time": items.stream_time,
                                                   "arrow_batches": 0 if decoder is None else decoder.batches}))
        out.spill()
        staged.commit()
    finally:
        staged.abort()
    yield items.marker()


# ------------------------------------------------------------------------------------------------ stage 2
def aggregate(df: Any, plan: NativePlan, partitions: int) -> Any:
    """The Spark plan: the partial accumulators merged by Spark's aggregates per (partition, key, window),
    then one Spark partition per task partition (``repartition`` by it) for stage 3."""
    from pyspark.sql import functions as F

    exprs = [F.max("ts").alias("ts"), F.max("seq").alias("seq"), F.max_by("hd", "seq").alias("hd")]
    for j, (a, _) in enumerate(plan.aggs):
        if a in (Agg.COUNT_STAR, Agg.COUNT):
            exprs.append(F.sum(f"c{j}").alias(f"r{j}"))
        elif a is Agg.SUM_INT:
            exprs.append(F.sum(f"s{j}").alias(f"r{j}"))
        elif a is Agg.SUM_BIGINT:  # the halves' sums, recombined in stage 3
            exprs.append(F.sum(f"h{j}").alias(f"r{j}"))
            exprs.append(F.sum(f"l{j}").alias(f"r{j}lo"))
        elif a is Agg.MIN:
            exprs.append(F.min(f"m{j}").alias(f"r{j}"))
        else:
            exprs.append(F.max(f"m{j}").alias(f"r{j}"))
    # one shuffle: hashed by the partition alone, which also clusters every (partition, key, window) group
    return df.repartition(partitions, "part").groupBy("part", "kind", "kv", "ws").agg(*exprs)


# ------------------------------------------------------------------------------------------------ stage 3
def finish(job: BackfillJob, plan: NativePlan, batches: Iterator[pa.RecordBatch], staging: str,
           starts: dict[int, int]) -> Iterator[pa.RecordBatch]:
    """Stage 3 (``mapInArrow``): each task partition's aggregate rows become state records, sink records
    and store entries, staged per partition; only the staged files' rows are yielded."""
    from ksqlpy.backfill.datasource import Stage, _staged_row, task_name

    rows: dict[int, list[dict[str, list[Any]]]] = {}
    for b in batches:
        d = b.to_pydict()
        parts = set(d["part"])
        if len(parts) == 1:
            rows.setdefault(d["part"][0], []).append(d)
        else:  # (two task partitions hashed to one Spark partition)
            for p in parts:
                rows.setdefault(p, []).append(b.filter(pc.equal(b.column("part"), p)).to_pydict())
    for p in sorted(rows):
        staged = StagedFile(staging, task_name(Stage.AGGREGATE, p, starts[p]))
        try:
            out = Out(staged, job.sink_layout)
            _finish_partition(job, plan, p, rows[p], staging, out)
            out.spill()
            path = staged.commit()
        finally:
            staged.abort()
        yield from _staged_row(path, p, starts[p])


def _finish_partition(job: BackfillJob, plan: NativePlan, part: int, chunks: list[dict[str, list[Any]]],
                      staging: str, out: Out) -> None:
    import os

    plog = new_plog(job)
    engine = WorkerEngine(job, plog)
    task = TaskAggregation(job, engine, part, None)
    summary: dict[str, Any] = {"read": 0, "late": 0, "stream_time": -1}
    for batch in read(os.path.join(staging, f"{group_file(part)}.arrow")):
        d = batch.to_pydict()
        for kind, value in zip(d["kind"], d["value"], strict=True):
            if kind == PLOG:
                out.add(PLOG, part, None, value)
            elif kind == SUMMARY:
                summary = pickle.loads(value)
    try:
        agg = task.aggregator
        kv = task.kv
        size = plan.size
        st = summary["stream_time"]
        floor = emit_floor(st, plan.advance, plan.retention) if plan.windowed else 0
        groups: list[tuple[int, list[Any], int, bytes, bytes | None]] = []  # (seq, record, start, key, headers)
        literal = ast.literal_eval
        composite = plan.key_type is None
        for d in chunks:
            accs = []
            for j, (a, _) in enumerate(plan.aggs):
                col = d[f"r{j}"]
                if a is Agg.SUM_BIGINT:
                    accs.append([((hi or 0) << 32) + (lo or 0) for hi, lo in zip(col, d[f"r{j}lo"], strict=True)])
                elif a is Agg.SUM_INT:
                    accs.append([v or 0 for v in col])
                else:
                    accs.append(col)
            for n, (kind, kval, ws, ts, seq, hd) in enumerate(zip(d["kind"], d["kv"], d["ws"], d["ts"], d["seq"],
                                                                  d["hd"], strict=True)):
                if kind != _ITEM:
                    continue
                key = literal(kval.decode()) if composite else (kval,)
                kb = encode_key(key)
                rec = [ts, key, *(c[n] for c in accs)]
                groups.append((seq, rec, ws, kb, hd))
        groups.sort(key=lambda g: g[0])
        writer = sink_writer(job, engine)
        tx = StagingTransaction(out)
        pending: list[tuple] = []
        puts = 0
        loads = pickle.loads
        for _, rec, ws, kb, hdb in groups:
            hd = None if hdb is None else loads(hdb)
            if plan.windowed:
                agg.emit(pending, rec, False, ws, ws + size, hd=hd)
                if ws >= floor:  # (else purged by the streaming query too: ``TimeWindowAggregator.end_batch``)
                    agg.windows.put(kb, ws, rec, new=True)
                    puts += 1
            else:
                agg.emit(pending, rec, False, hd=hd)
                kv.put(b"K" + kb, rec)
                puts += 1
            if len(pending) >= 10_000:
                writer.write(tx, pending)
                pending = []
                out.plog(plog, part)
            if puts and puts % 20_000 == 0:
                kv.flush(None)  # type: ignore[arg-type]  # no changelog: encodes for commit_local
                kv.commit_local()
        if pending:
            writer.write(tx, pending)
        out.plog(plog, part)
        agg.stream_time, agg.late = st, summary["late"]
        agg.save_meta()
        kv.flush(None)  # type: ignore[arg-type]
        kv.commit_local()
        for keys, values in kv.committed_payloads():
            out.add_many(STATE, part, keys, values)
        out.add(SUMMARY, part, None, pickle.dumps({"read": summary["read"], "late": summary["late"],
                                                   "arrow_batches": summary.get("arrow_batches", 0)}))
    finally:
        task.close()
