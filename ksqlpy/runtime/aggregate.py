"""The aggregate operator: GROUP BY with optional TUMBLING / HOPPING / SESSION windows and HAVING.

Per task: a generated pre-aggregation step turns each input row into (group key, aggregate arguments,
timestamp); the operator folds them into accumulators held in a KeyValueStore (through its per-batch
cache), tracks stream time for grace periods, and emits one update per input record (EMIT CHANGES) or
one final result per closed window (EMIT FINAL). Over a TABLE source, the previous row of each source
key is kept so an update first retracts (``undo``) the old contribution.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ksqlpy.analysis.scope import scope_for
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.compiler import ExprCompiler
from ksqlpy.plan.codegen import StageSpec, build_stateless
from ksqlpy.plan.logical import OutputColumn, QueryPlan
from ksqlpy.runtime.reader import DecodedBatch
from ksqlpy.state.store import KeyValueStore

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

DEFAULT_GRACE_MS = 24 * 3600 * 1000


def _dump(v: Any) -> bytes:
    return pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL)


def _project_fn(plan: QueryPlan, groups: list[list[OutputColumn]], having: exp.Expression | None
                ) -> Callable[..., Any]:
    """Compile ``fn(row) -> (group tuples..., passes_having)`` over the post-aggregation schema."""
    assert plan.projection_schema is not None
    schema = plan.projection_schema
    consts: dict[str, Any] = {}
    scope = scope_for(schema, plan.alias, var="c")
    comp = ExprCompiler(scope, consts, custom_types=plan.custom_types)
    names = [f"c{i}" for i in range(len(schema.columns))]
    lines = ["def _project(row):", f"    {', '.join(names)}{',' if len(names) == 1 else ''} = row"]
    outs = []
    for cols in groups:
        parts = [comp.compile(c.expr).code for c in cols]
        outs.append("(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")")
    h = comp.compile_predicate(having).code if having is not None else "True"
    lines.append(f"    return ({', '.join(outs)}, ({h}) is True)")
    ns = dict(consts)
    exec(compile("\n".join(lines), "<ksqlpy-aggregate-project>", "exec"), ns)  # noqa: S102
    return ns["_project"]


class AggregateProcessor:
    def __init__(self, engine: Engine, plan: QueryPlan, query_id: str, groups: list[list[OutputColumn]],
                 partition: int, *, persistent: bool) -> None:
        agg = plan.aggregation
        assert agg is not None
        self.plan = plan
        self.query_id = query_id
        self.plog = engine.plog
        self.aggs = [a.resolved for a in agg.aggregates]
        self.n_aggs = len(self.aggs)
        self.window = agg.window
        self.grace = (agg.window.grace_ms if agg.window and agg.window.grace_ms is not None else DEFAULT_GRACE_MS)
        self.emit_final = plan.emit == "FINAL"
        self.table_source = plan.source.kind == "TABLE"
        if self.table_source:
            missing = [a.function for a in agg.aggregates if a.resolved.undo is None]
            if missing:
                raise KsqlStatementError(f"The aggregation functions {', '.join(missing)} cannot be applied to a "
                                         "table source, only to a stream source.")
        # pre-aggregation: [group key columns, aggregate argument columns]
        arg_cols = [OutputColumn(f"A{i}_{j}", t, e) for i, a in enumerate(agg.aggregates)
                    for j, (e, t) in enumerate(zip(a.args, a.arg_types, strict=True))]
        self.arg_slices = []
        pos = 0
        for a in agg.aggregates:
            self.arg_slices.append((pos, pos + len(a.args)))
            pos += len(a.args)
        key_cols = [OutputColumn(n, t, e) for n, t, e in zip(agg.key_names, agg.key_types, agg.group_by, strict=True)]
        spec = StageSpec(input_schema=plan.input_schema, alias=plan.alias, where=plan.where, rekey_exprs=None,
                         projection_schema=plan.input_schema, table_functions=[], outputs=[key_cols, arg_cols],
                         custom_types=plan.custom_types)
        self.pre = build_stateless(spec)
        self.project = _project_fn(plan, groups, agg.having)
        state_dir = os.path.join(engine.data_dir, "state", query_id if persistent else "transient", query_id,
                                 f"{partition}")
        service = engine.prop("ksql.service.id")
        prefix = engine.prop("ksql.persistent.prefix") if persistent else "transient_"
        changelog = f"_confluent-ksql-{service}{prefix}{query_id}-Aggregate-Aggregate-Materialize-changelog"
        if not engine.log.topic_exists(changelog):
            parts = engine.log.describe_topic(plan.source.topic).partitions  # type: ignore[union-attr]
            engine.log.create_topic(changelog, parts, 1, {"cleanup.policy": "compact"})
        self.store = KeyValueStore(state_dir, engine.log, changelog, partition)
        meta = self.store.get(b"\x00stream_time")
        self.stream_time: int = meta if meta is not None else -1
        self.late_dropped = 0
        self.n_keys = len(agg.key_names)

    # ------------------------------------------------------------------ helpers
    def _new_acc(self) -> list[Any]:
        return [a.init() for a in self.aggs] + [-1]  # last slot: max contributing timestamp

    def _add(self, acc: list[Any], args: tuple, ts: int) -> list[Any]:
        out = list(acc)
        for i, a in enumerate(self.aggs):
            lo, hi = self.arg_slices[i]
            out[i] = a.add(acc[i], *args[lo:hi])
        out[-1] = max(acc[-1], ts)
        return out

    def _undo(self, acc: list[Any], args: tuple) -> list[Any]:
        out = list(acc)
        for i, a in enumerate(self.aggs):
            lo, hi = self.arg_slices[i]
            out[i] = a.undo(acc[i], *args[lo:hi])  # type: ignore[misc]
        return out

    def _row(self, key: tuple, acc: list[Any], ws: int | None, we: int | None) -> tuple:
        results = tuple(a.result(acc[i]) for i, a in enumerate(self.aggs))
        row = tuple(key) + results
        if self.window is not None:
            row += (ws, we)
        return row + (acc[-1],)

    def _emit(self, out: list[tuple], key: tuple, acc: list[Any] | None, old: list[Any] | None,
              ws: int | None = None, we: int | None = None) -> None:
        """Append the update for one group (and window) given its new and previous accumulators."""
        okey = (key, ws, we) if self.window is not None else None
        if acc is None:
            if old is not None:
                k, _, passed = self.project(self._row(key, old, ws, we))
                if passed:
                    out.append((okey or k, None, old[-1]))
            return
        try:
            k, v, passed = self.project(self._row(key, acc, ws, we))
        except Exception as e:  # noqa: BLE001 - an evaluation error drops this update, the query goes on
            self.plog.record_error(self.query_id, f"Error computing aggregate result: {e}", key)
            return
        if passed:
            out.append(((k, ws, we) if self.window is not None else k, v, acc[-1]))
        elif old is not None:
            try:
                _, _, old_passed = self.project(self._row(key, old, ws, we))
            except Exception:  # noqa: BLE001
                old_passed = False
            if old_passed:
                out.append(((k, ws, we) if self.window is not None else k, None, acc[-1]))

    # ------------------------------------------------------------------ processing
    def __call__(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        pre: list[tuple] = []

        def err(i: int, what: str, e: BaseException) -> None:
            self.plog.record_error(self.query_id, f"Error computing expression {what}: {e}", d.rows[i])

        out: list[tuple] = []
        if self.table_source:
            self._table_batch(d, out, err)
        else:
            self.pre(d.rows, d.timestamps, d.partitions, d.offsets, d.headers, d.tombstones, pre, err)
            for key, args, ts in pre:
                if self.n_keys == 1 and key[0] is None:
                    continue
                self.stream_time = max(self.stream_time, ts)
                if self.window is None:
                    self._update(out, key, args, ts)
                elif self.window.type == "SESSION":
                    self._session(out, key, args, ts)
                else:
                    self._windows(out, key, args, ts)
            self.store.put(b"\x00stream_time", self.stream_time)
        if self.emit_final:
            out = self._final(out)
        self.store.flush(tx)
        return out

    def after_commit(self) -> None:
        self.store.commit_local()

    def _update(self, out: list[tuple], key: tuple, args: tuple, ts: int) -> None:
        k = b"\x01" + _dump(key)
        old = self.store.get(k)
        acc = self._add(old if old is not None else self._new_acc(), args, ts)
        self.store.put(k, acc)
        self._emit(out, key, acc, old)

    def _windows(self, out: list[tuple], key: tuple, args: tuple, ts: int) -> None:
        w = self.window
        assert w is not None
        size = w.size_ms
        advance = w.advance_ms or size
        first = ts - (ts % advance) - size + advance
        start = max(first, 0) if first > 0 else first
        kb = _dump(key)
        for ws in range(ts - (ts % advance), start - 1, -advance):
            if ws < 0 or not (ws <= ts < ws + size):
                continue
            we = ws + size
            if we + self.grace <= self.stream_time:
                self.late_dropped += 1
                continue
            k = b"\x02" + ws.to_bytes(8, "big", signed=True) + kb
            old = self.store.get(k)
            acc = self._add(old if old is not None else self._new_acc(), args, ts)
            self.store.put(k, acc)
            self._pending(k, key, ws, we)
            self._emit_window(out, key, acc, old, ws, we)

    def _emit_window(self, out: list[tuple], key: tuple, acc: Any, old: Any, ws: int, we: int) -> None:
        if self.emit_final:
            return
        self._emit(out, key, acc, old, ws, we)

    def _session(self, out: list[tuple], key: tuple, args: tuple, ts: int) -> None:
        w = self.window
        assert w is not None
        gap = w.size_ms
        kb = b"\x03" + _dump(key)
        sessions: list[list[Any]] = list(self.store.get(kb) or [])  # [start, end, acc]
        if ts + self.grace <= self.stream_time and not any(s[0] - gap <= ts <= s[1] + gap for s in sessions):
            self.late_dropped += 1
            return
        merged = [s for s in sessions if s[0] - gap <= ts <= s[1] + gap]
        keep = [s for s in sessions if s not in merged]
        start, end = ts, ts
        acc = None
        for s in sorted(merged, key=lambda s: s[0]):
            start, end = min(start, s[0]), max(end, s[1])
            if acc is None:
                acc = s[2]
            else:
                acc = [a.merge(acc[i], s[2][i]) if a.merge else acc[i] for i, a in enumerate(self.aggs)] + [
                    max(acc[-1], s[2][-1])]
        for s in merged:
            if not self.emit_final:
                self._emit(out, key, None, s[2], s[0], s[1])
        new_acc = self._add(acc if acc is not None else self._new_acc(), args, ts)
        keep.append([start, end, new_acc])
        # expire sessions past retention
        self.store.put(kb, keep)
        if self.emit_final:
            self._pending(kb, key, start, end)
        else:
            self._emit(out, key, new_acc, None, start, end)

    def _pending(self, k: bytes, key: tuple, ws: int, we: int) -> None:
        if self.emit_final:
            pend = self.store.get(b"\x00pending") or {}
            pend[(k, ws)] = (key, ws, we)
            self.store.put(b"\x00pending", pend)

    def _final(self, out: list[tuple]) -> list[tuple]:
        """EMIT FINAL: emit each window once stream time passes its end + grace."""
        pend = self.store.get(b"\x00pending") or {}
        closed = sorted((v for v in pend.items() if v[1][2] + self.grace <= self.stream_time),
                        key=lambda kv: (kv[1][2], kv[1][1]))
        if not closed:
            return out
        result: list[tuple] = []
        for (k, ws), (key, _, we) in closed:
            del pend[(k, ws)]
            if self.window is not None and self.window.type == "SESSION":
                for s in self.store.get(k) or []:
                    if s[0] == ws:
                        self._emit(result, key, s[2], None, s[0], s[1])
            else:
                acc = self.store.get(k)
                if acc is not None:
                    self._emit(result, key, acc, None, ws, we)
        self.store.put(b"\x00pending", pend)
        return result

    def _table_batch(self, d: DecodedBatch, out: list[tuple], err: Callable[..., None]) -> None:
        n_src_keys = len(self.plan.source.key_columns)
        for i in range(len(d.rows)):
            row = d.rows[i]
            src_key = b"\x04" + _dump(row[:n_src_keys])
            previous = self.store.get(src_key)
            new: tuple | None = None
            if not d.tombstones[i]:
                pre: list[tuple] = []
                self.pre([row], [d.timestamps[i]], [d.partitions[i]], [d.offsets[i]], [d.headers[i]], [False], pre,
                         lambda _i, what, e, i=i: err(i, what, e))
                if pre:
                    new = pre[0]
            ts = d.timestamps[i]
            self.stream_time = max(self.stream_time, ts)
            if previous is not None:
                okey, oargs, _ = previous
                k = b"\x01" + _dump(okey)
                old = self.store.get(k)
                if old is not None:
                    acc = self._undo(old, oargs)
                    acc[-1] = max(old[-1], ts)
                    self.store.put(k, acc)
                    if new is None or tuple(new[0]) != tuple(okey):
                        self._emit(out, okey, acc, old)
            if new is not None and not (self.n_keys == 1 and new[0][0] is None):
                self._update(out, new[0], new[1], ts)
                self.store.put(src_key, new)
            else:
                self.store.delete(src_key)


def aggregate_processor_factory(engine: Engine, plan: QueryPlan, query_id: str, groups: list[list[OutputColumn]],
                                *, persistent: bool) -> Callable[[int], AggregateProcessor]:
    def make(partition: int) -> AggregateProcessor:
        return AggregateProcessor(engine, plan, query_id, groups, partition, persistent=persistent)

    return make
