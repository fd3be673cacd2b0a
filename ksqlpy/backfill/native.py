"""The native tier: an aggregation's accumulation lowered to Spark's own aggregate operators.

What runs where:

1. **Python workers, one task per source partition** (offset order): our ``SourceReader`` decodes, the
   ``Grouper`` evaluates WHERE, the group key and the aggregate arguments (a NULL key, a failed expression:
   the processing log, exactly as streaming), and numpy assigns each item its windows and decides its late
   drops - stream time is the running maximum of the items' timestamps in offset order, an item late for a
   window once ``window end + grace <= stream time`` (``np.maximum.accumulate``, the comparison the
   streaming loop makes). What crosses into Spark are Arrow columns: task partition, group key bytes,
   window start, timestamp, sequence, last headers and one column per aggregate argument. The task's
   processing-log entries and counts go to a staged file of its own (``native-<partition>``).
2. **Spark** (the JVM): ``groupBy(part, key, window)`` with ``count``, ``sum``, ``min``, ``max``, ``max(ts)``
   (the state record's timestamp) and ``max_by(headers, seq)`` (the last update's headers), under fixed
   session settings (``spark.sql.ansi.enabled=false``, ``spark.sql.session.timeZone=UTC``).
3. **Python workers, one task per task partition** (``mapInArrow`` after a shuffle by partition): each
   aggregate row becomes the streaming runtime's state record (``[max ts, key, acc...]``), emitted through
   the aggregator's own projection and the sink writer in the order of the groups' last updates, and put
   into a private store whose changelog payloads are staged - as ``partials.merge_partials`` does for the
   fused tier.

Exactness, aggregate by aggregate (``tests/backfill/test_native.py`` proves each against streaming, edge
cases included):

* ``COUNT(*)``: ``count(1)``; ``COUNT(x)``: ``count(x)`` over a non-null flag (any type of ``x``).
* ``SUM`` of INT/BIGINT: the streaming accumulator is the exact (unbounded) integer sum, wrapped to Java's
  overflow only in the result. Spark sums longs modulo 2^64, so a BIGINT is summed as two exact halves,
  ``sum(x >> 32)`` and ``sum(x & 0xFFFFFFFF)``, recombined in Python (exact below 2^31 records per
  group); an INT as a long (exact below 2^32 records). SUM of nothing (every value NULL) is NULL in Spark
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
from ksqlpy.plan.topology import AggregateStage, GroupStage, WindowType
from ksqlpy.runtime.aggregator import encode_key
from ksqlpy.types import BIGINT, BOOLEAN, INTEGER, STRING

TIER_PROPERTY = "ksqlpy.backfill.tier"
# the session settings under which the lowered operators mean what the streaming runtime computes
SESSION_SETTINGS = {"spark.sql.ansi.enabled": "false", "spark.sql.session.timeZone": "UTC"}
_PLAIN_KEYS = (INTEGER, BIGINT, STRING, BOOLEAN)  # repr/literal_eval round-trips them (``encode_key``)
_ITEM, _MARKER = 0, 1  # rows into Spark: an item, or one per task partition (so every partition is finished)
_HIGHEST = pickle.HIGHEST_PROTOCOL


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


@dataclass(frozen=True)
class NativePlan:
    """The lowered aggregation: one ``Agg`` per aggregate call with the index of its argument (-1: none)."""

    aggs: tuple[tuple[Agg, int], ...]
    windowed: bool
    size: int
    advance: int
    grace: int
    retention: int

    def schema(self) -> pa.Schema:
        """The Arrow columns a grouping task hands to Spark."""
        fields = [pa.field("kind", pa.int8()), pa.field("part", pa.int32()), pa.field("kb", pa.binary()),
                  pa.field("ws", pa.int64()), pa.field("ts", pa.int64()), pa.field("seq", pa.int64()),
                  pa.field("hd", pa.binary())]
        return pa.schema(fields + [pa.field(f"a{i}", pa.int64()) for i in self.arg_columns()])

    def ddl(self) -> str:
        """The same columns as Spark's schema string (what stage 1's ``mapInArrow`` yields)."""
        return "kind byte, part int, kb binary, ws long, ts long, seq long, hd binary" + "".join(
            f", a{i} long" for i in self.arg_columns())

    def arg_columns(self) -> list[int]:
        return sorted({i for _, i in self.aggs if i >= 0})


@dataclass(frozen=True)
class Refused:
    """Why the native tier does not run a query (it runs on the fused Python tier)."""

    reason: str


def lower(job: BackfillJob) -> NativePlan | Refused:
    """The planner: the native plan of ``job``, or the reason it stays in the Python tier."""
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
    if w is None:
        return NativePlan(tuple(aggs), False, 0, 0, 0, 0)
    return NativePlan(tuple(aggs), True, w.size, w.advance or w.size, w.grace, w.retention)


def group_file(partition: int) -> str:
    return f"native-{partition:06d}"


# ------------------------------------------------------------------------------------------------ stage 1
class _Items:
    """A task partition's items as Arrow columns, with the running stream time and the late drops."""

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
        n = len(items)
        if not n:
            return []
        plan, kbs = self.plan, self.kbs
        keys, args, tss, hds = zip(*items, strict=True)
        kb = np.empty(n, dtype=object)
        for i, k in enumerate(keys):
            b = kbs.get(k)
            if b is None:
                b = kbs[k] = encode_key(k)
            kb[i] = b
        ts = np.fromiter(tss, np.int64, n)
        seq = np.arange(self.seq, self.seq + n, dtype=np.int64) * self.per
        self.seq += n
        hd = np.array([None if h is None else pickle.dumps(h, _HIGHEST) for h in hds], dtype=object)
        cols = {}
        for (a, i) in plan.aggs:
            if i >= 0 and i not in cols:
                vals = [r[i] for r in args]
                if a is Agg.COUNT:
                    vals = [None if v is None else 1 for v in vals]
                cols[i] = pa.array(vals, pa.int64())
        if not plan.windowed:
            self.stream_time = max(self.stream_time, int(ts.max()))
            return [self._rows(kb, np.full(n, -1, np.int64), ts, seq, hd, cols, None, null_ws=True)]
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
            if keep.any():
                out.append(self._rows(kb, ws, ts, seq + k, hd, cols, keep))
        return out

    def _rows(self, kb: np.ndarray, ws: np.ndarray, ts: np.ndarray, seq: np.ndarray, hd: np.ndarray,
              cols: dict[int, pa.Array], keep: np.ndarray | None, null_ws: bool = False) -> pa.RecordBatch:
        if keep is not None:
            idx = pa.array(np.flatnonzero(keep))
            kb, ws, ts, seq, hd = kb[keep], ws[keep], ts[keep], seq[keep], hd[keep]
            cols = {i: c.take(idx) for i, c in cols.items()}
        m = len(ts)
        arrays = [pa.array(np.zeros(m, np.int8)), pa.array(np.full(m, self.part, np.int32)),
                  pa.array(kb, pa.binary()), pa.nulls(m, pa.int64()) if null_ws else pa.array(ws),
                  pa.array(ts), pa.array(seq), pa.array(hd, pa.binary())]
        arrays += [cols[i] for i in self.plan.arg_columns()]
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def marker(self) -> pa.RecordBatch:
        arrays = [pa.array([_MARKER], pa.int8()), pa.array([self.part], pa.int32())]
        arrays += [pa.nulls(1, f.type) for f in list(self.schema)[2:]]
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)


def run_items(job: BackfillJob, plan: NativePlan, batches: Iterable[RecordBatch], part: int,
              staging: str) -> Iterator[pa.RecordBatch]:
    """Stage 1 over one whole source partition in offset order: items out as Arrow columns; processing-log
    entries and counts into the partition's own staged file (read by stage 3)."""
    plog = new_plog(job)
    engine = WorkerEngine(job, plog)
    reader = _source_reader(job, engine)
    grouper = _grouper(job, engine)
    items = _Items(plan, part)
    staged = StagedFile(staging, group_file(part))
    try:
        out = Out(staged)
        read_n = 0
        for batch in batches:
            read_n += len(batch)
            with gc_paused():
                done = items.batches(grouper(reader.decode(batch)))
            out.plog(plog, part)
            yield from done
        out.add(SUMMARY, part, None, pickle.dumps({"read": read_n, "late": items.late,
                                                   "stream_time": items.stream_time}))
        out.spill()
        staged.commit()
    finally:
        staged.abort()
    yield items.marker()


# ------------------------------------------------------------------------------------------------ stage 2
def aggregate(df: Any, plan: NativePlan, partitions: int) -> Any:
    """The Spark plan: the accumulators as Spark aggregates per (partition, key, window), then one Spark
    partition per task partition (``repartition`` by it) for stage 3."""
    from pyspark.sql import functions as F

    exprs = [F.max("ts").alias("ts"), F.max("seq").alias("seq"), F.max_by("hd", "seq").alias("hd")]
    for j, (a, i) in enumerate(plan.aggs):
        col = F.col(f"a{i}") if i >= 0 else None
        if a is Agg.COUNT_STAR:
            exprs.append(F.count(F.lit(1)).alias(f"r{j}"))
        elif a is Agg.COUNT:
            exprs.append(F.count(col).alias(f"r{j}"))
        elif a is Agg.SUM_INT:
            exprs.append(F.sum(col).alias(f"r{j}"))
        elif a is Agg.SUM_BIGINT:  # two exact halves: Spark's long sum wraps, the accumulator does not
            exprs.append(F.sum(F.shiftright(col, 32)).alias(f"r{j}"))
            exprs.append(F.sum(col.bitwiseAND(F.lit(0xFFFFFFFF))).alias(f"r{j}lo"))
        elif a is Agg.MIN:
            exprs.append(F.min(col).alias(f"r{j}"))
        else:
            exprs.append(F.max(col).alias(f"r{j}"))
    return df.groupBy("part", "kind", "kb", "ws").agg(*exprs).repartition(partitions, "part")


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
        size, retention = plan.size, plan.retention
        st = summary["stream_time"]
        groups: list[tuple[int, list[Any], int, bytes, bytes | None]] = []  # (seq, record, start, key, headers)
        literal = ast.literal_eval
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
            for n, (kind, kb, ws, ts, seq, hd) in enumerate(zip(d["kind"], d["kb"], d["ws"], d["ts"], d["seq"],
                                                                d["hd"], strict=True)):
                if kind != _ITEM:
                    continue
                key = literal(kb.decode())
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
                if ws >= st - retention:  # (else purged by the streaming query too)
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
        out.add(SUMMARY, part, None, pickle.dumps({"read": summary["read"], "late": summary["late"]}))
    finally:
        task.close()
