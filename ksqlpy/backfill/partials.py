"""Partial aggregates per chunk: an aggregation's partition cut into offset ranges that aggregate in
parallel, merged afterwards in (partition, offset) order - with the same late drops as one task in offset
order.

Stream time is the running maximum of the timestamps a partition's aggregator has seen, and a record is late
for a window once ``window end + grace <= stream time``. For a record of chunk ``k`` that stream time is
``max(S_k, r)``: ``S_k`` the largest timestamp of the chunks before it, ``r`` the running maximum within the
chunk up to the record. So a record is late exactly when ``end <= r - grace`` - which the chunk decides on
its own, starting from stream time -1 - or ``end <= S_k - grace``, which depends on the window alone: the
merge drops the chunk's whole partial of such a window, and counts its records as late. One pass, no
preliminary scan: each chunk reports its largest timestamp, and the merge reads the chunks in offset order,
so ``S_k`` is known before chunk ``k``'s partials are merged.

Only where merging partials is exact: a stream source (no retractions), no window or a TUMBLING/HOPPING one,
EMIT CHANGES without HAVING (the sink gets each group's and window's final value, which is what the
streaming query's output collapses to), every aggregate ``order_free`` with a ``merge`` (COUNT, integer
SUM/AVG, MIN/MAX of non-floating types - as for the combining before a repartition topic,
``runtime.combine``), and an output projection of plain columns (nothing that could fail and log once per
update). Anything else runs one task per partition (``stages.run_aggregate``).

A chunk's partials are rows ``PARTIAL`` of its staged file: ``key`` the group key's store bytes, ``off`` the
window start (null without a window), ``value`` the pickled ``(state record, records added, last headers)``,
in the order of each partial's last update; its ``SUMMARY`` has the records read, the late records it
dropped itself and its largest timestamp (``stream_time``).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from typing import Any

from ksqlpy.backfill.job import PARTIAL, PLOG, STATE, SUMMARY, BackfillJob, WorkerEngine, new_plog
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
from ksqlpy.expr import bound as B
from ksqlpy.log.base import RecordBatch
from ksqlpy.plan.topology import AggregateStage, GroupStage, WindowType
from ksqlpy.runtime.accumulate import TS, Accumulators
from ksqlpy.runtime.aggregate import aggregate_spec
from ksqlpy.runtime.aggregator import AggregateSpec, encode_key
from ksqlpy.runtime.combine import _plain

_HIGHEST = pickle.HIGHEST_PROTOCOL
_FLUSH = 20_000  # state entries put into the private store between two commits of it


def chunkable(job: BackfillJob) -> bool:
    """Whether ``job``'s aggregation may run as partial aggregates per chunk (see the module)."""
    if job.repartition:
        return False
    agg, group = operator(job, AggregateStage), operator(job, GroupStage)
    if agg.table or group.table or agg.emit_final or agg.having is not None:
        return False
    if agg.window is not None and agg.window.type is WindowType.SESSION:
        return False
    if not all(isinstance(c.expr, B.ColumnRef) for cols in agg.outputs for c in cols):
        return False
    spec = _spec(job, WorkerEngine(job, new_plog(job)))
    return all(getattr(r, "order_free", False) and r.merge is not None for r in spec.accs.resolved)


def _spec(job: BackfillJob, engine: WorkerEngine) -> AggregateSpec:
    topology = job.topology
    return aggregate_spec(operator(job, AggregateStage), topology.functions, topology.function_config,
                          engine.plog, job.query_id)


class Fold:
    """``fold(items)``: a chunk's grouped items into partial state records per (group, window), as one
    generated loop (the aggregates' ``add`` written out where they have an inline form), with the chunk's
    own running stream time and the late drops it decides."""

    def __init__(self, spec: AggregateSpec, key_columns: list[tuple[str, Any]]) -> None:
        accs: Accumulators = spec.accs
        self.windowed = spec.window_type is not None
        # keys that may be equal in Python but distinct groups in the store are told apart by their bytes
        self.by_bytes = not all(_plain(t) for _, t in key_columns)
        ns: dict[str, Any] = {"q_new": accs.new, "q_encode": encode_key}
        key = "q_encode(q_key)" if self.by_bytes else "q_key"
        lines = ["def q_fold(q_items, q_parts, q_counts, q_last, q_st, q_i):",
                 "    q_late = 0",
                 "    for q_key, q_a, q_ts, q_hd in q_items:",
                 "        q_i += 1",
                 "        if q_ts > q_st:",
                 "            q_st = q_ts"]
        ind = "        "
        if self.windowed:
            size, adv, grace = spec.size, spec.advance or spec.size, spec.grace
            lines += [f"{ind}q_close = q_st - {grace}",
                      f"{ind}q_first = q_ts - {size - adv}",
                      f"{ind}q_first = q_first // {adv} * {adv} if q_first > 0 else 0",
                      f"{ind}for q_ws in range(q_first, q_ts + 1, {adv}):",
                      f"{ind}    if q_ws + {size} <= q_close:",
                      f"{ind}        q_late += 1",
                      f"{ind}        continue",
                      f"{ind}    q_tk = ({key}, q_ws)"]
            ind += "    "
        else:
            lines.append(f"{ind}q_tk = {key}")
        lines += [f"{ind}q_rec = q_parts.get(q_tk)",
                  f"{ind}if q_rec is None:",
                  f"{ind}    q_rec = q_parts[q_tk] = q_new(q_key, q_ts)",
                  f"{ind}    q_counts[q_tk] = 1",
                  f"{ind}else:",
                  f"{ind}    q_counts[q_tk] += 1",
                  # a failing aggregate function is not caught: it stops the task, as in streaming
                  *accs.inline_add("q_rec", "q_a", ns, ind),
                  f"{ind}if q_ts > q_rec[0]:",
                  f"{ind}    q_rec[0] = q_ts",
                  f"{ind}q_last[q_tk] = (q_i, q_hd)",
                  "    return q_st, q_late, q_i"]
        exec(compile("\n".join(lines), "<ksqlpy-backfill-partial>", "exec"), ns)  # noqa: S102 - from the plan
        self._fold = ns["q_fold"]
        self.parts: dict[Any, list[Any]] = {}
        self.counts: dict[Any, int] = {}
        self.last: dict[Any, tuple[int, Any]] = {}
        self.stream_time = -1
        self.late = 0
        self._i = -1

    def __call__(self, items: list[tuple]) -> None:
        self.stream_time, late, self._i = self._fold(items, self.parts, self.counts, self.last, self.stream_time,
                                                     self._i)
        self.late += late

    def write(self, out: Out, part: int) -> None:
        """The partials as ``PARTIAL`` rows, in the order of their last updates."""
        dumps, last, counts, parts = pickle.dumps, self.last, self.counts, self.parts
        for tk in sorted(parts, key=lambda k: last[k][0]):
            rec = parts[tk]
            if self.windowed:
                gk, ws = tk
            else:
                gk, ws = tk, None
            kb = gk if self.by_bytes else encode_key(gk)
            out.add(PARTIAL, part, kb, dumps((rec, counts[tk], last[tk][1]), _HIGHEST), rec[TS], None, None, ws)
        self.parts, self.counts, self.last = {}, {}, {}


def run_partial(job: BackfillJob, batches: Iterable[RecordBatch], part: int, out: Out) -> None:
    """One chunk of an aggregation's partition: decode, group and fold into partials (see the module)."""
    plog = new_plog(job)
    engine = WorkerEngine(job, plog)
    reader = _source_reader(job, engine)
    grouper = _grouper(job, engine)
    fold = Fold(_spec(job, engine), operator(job, AggregateStage).key_columns)
    read = 0
    for batch in batches:
        read += len(batch)
        with gc_paused():
            fold(grouper(reader.decode(batch)))
        out.plog(plog, part)
    fold.write(out, part)
    out.add(SUMMARY, part, None, pickle.dumps({"read": read, "late": fold.late, "stream_time": fold.stream_time}))


def merge_partials(job: BackfillJob, part: int, paths: list[str], out: Out) -> None:
    """A partition's chunks (staged files, in offset order) merged into what one task over the whole
    partition stages: sink records (each group's and window's final value), the store's entries, the
    processing-log entries of the chunks, and the counts."""
    from ksqlpy.backfill.staging import read
    from ksqlpy.runtime.store_retention import emit_floor

    plog = new_plog(job)
    engine = WorkerEngine(job, plog)
    task = TaskAggregation(job, engine, part, None)
    try:
        agg = task.aggregator
        spec = agg.spec
        merge = spec.accs.merge
        windowed = spec.window_type is not None
        size, grace = spec.size or 0, spec.grace or 0
        retention = spec.retention if spec.retention is not None else size + grace
        advance = spec.advance or size
        writer = sink_writer(job, engine)
        merged: dict[tuple[bytes, int | None], list[Any]] = {}  # (key bytes, start) -> [state, last headers]
        st, late, records = -1, 0, 0
        loads = pickle.loads

        def emit(keys: list[tuple[bytes, int | None]]) -> None:
            rows: list[tuple] = []
            for tk in keys:
                rec, hd = merged[tk]
                if windowed:
                    agg.emit(rows, rec, False, tk[1], tk[1] + size, hd=hd)
                else:
                    agg.emit(rows, rec, False, hd=hd)
            if rows:
                writer.write(StagingTransaction(out), rows)
            out.plog(plog, part)

        for path in paths:
            close = st - grace  # S_k - grace: a window ended by then is closed for the whole chunk
            chunk_max = -1
            for batch in read(path):
                d = batch.to_pydict()
                for kind, kb, value, ws in zip(d["kind"], d["key"], d["value"], d["off"], strict=True):
                    if kind == PARTIAL:
                        rec, n, hd = loads(value)
                        if windowed and ws + size <= close:
                            late += n
                            continue
                        tk = (kb, ws)
                        cur = merged.pop(tk, None)  # re-inserted: the dict keeps the order of last updates
                        merged[tk] = [rec, hd] if cur is None else [merge(cur[0], rec), hd]
                    elif kind == PLOG:
                        out.add(PLOG, part, None, value)
                    elif kind == SUMMARY:
                        s = loads(value)
                        records += s["read"]
                        late += s["late"]
                        chunk_max = s["stream_time"]
            st = max(st, chunk_max)
            if windowed:  # closed and past retention: no later chunk changes them, nor are they state
                floor = emit_floor(st, advance, retention)  # (below it the streaming store has purged)
                done = [tk for tk in merged if tk[1] + size <= st - grace and tk[1] < floor]  # type: ignore[operator]
                emit(done)
                for tk in done:
                    del merged[tk]
        emit(list(merged))
        kv = task.kv
        puts = 0
        floor = emit_floor(st, advance, retention) if windowed else 0
        for (kb, ws), (rec, _) in merged.items():
            if windowed:
                if ws < floor:  # type: ignore[operator]  # purged by the streaming query too (``end_batch``)
                    continue
                agg.windows.put(kb, ws, rec, new=True)
            else:
                kv.put(b"K" + kb, rec)
            puts += 1
            if puts % _FLUSH == 0:
                kv.flush(None)  # type: ignore[arg-type]  # no changelog: encodes for commit_local
                kv.commit_local()
        agg.stream_time, agg.late = st, late
        agg.save_meta()
        kv.flush(None)  # type: ignore[arg-type]
        kv.commit_local()
        for keys, values in kv.committed_payloads():
            out.add_many(STATE, part, keys, values)
        out.add(SUMMARY, part, None, pickle.dumps({"read": records, "late": late}))
    finally:
        task.close()

