"""From join results to the rest of the query.

A join's results are changes ``(key, new row, previous row, ts, headers)``. They become rows of the
join's virtual source (key columns, every source's block, window bounds) and go through the query's
usual stateless stage (WHERE, PARTITION BY, projection) - or, for an aggregation, to an internal topic
the aggregation reads like a source.

Table results with a WHERE follow Kafka Streams' filter with old values: a change whose new row passes is
emitted; one whose new row fails (or is a delete) becomes a delete only if the previous row passed;
otherwise nothing is emitted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy.plan.codegen import StageSpec, build_stateless
from ksqlpy.plan.logical import QueryPlan
from ksqlpy.runtime.reader import DecodedBatch


def where_predicate(plan: QueryPlan) -> Callable[[tuple, int, int], bool] | None:
    """``fn(row, ts, partition) -> passes`` for the query's WHERE over the join's virtual rows."""
    if plan.where is None:
        return None
    spec = StageSpec(input_schema=plan.input_schema, where=plan.where, rekey_exprs=None,
                     projection_schema=plan.input_schema, table_functions=[], outputs=[[]], functions=plan.functions)
    fn = build_stateless(spec)

    def passes(row: tuple, ts: int, partition: int) -> bool:
        out: list[Any] = []
        fn([row], [ts], [partition], [0], [None], [False], out, lambda *a: None)
        return bool(out)

    return passes


class JoinOutput:
    """The final stage of the task that completes the join: virtual rows -> downstream processor."""

    def __init__(self, plan: QueryPlan, downstream: Any, partition: int, *, window_keys: bool = True) -> None:
        """``window_keys``: a windowed result's rows carry ``(key, window start, window end)`` keys for a
        windowed sink (a push query's rows are its values alone)."""
        join = plan.join
        assert join is not None
        self.downstream = downstream
        self.partition = partition
        self.table = plan.source.kind == "TABLE"
        self.nkeys = len(join.key_columns)
        self.windowed = plan.source.windowed is not None
        self.window_keys = window_keys
        self.nulls = (None,) * join.width
        self.where = where_predicate(plan) if self.table else None

    def rows(self, events: list[tuple]) -> DecodedBatch:
        d = DecodedBatch([], [], [], [], [], [])
        nk, p, where = self.nkeys, self.partition, self.where
        for key, new, old, ts, hdrs in events:
            if key is None:  # an outer join's record with a null key: its key columns read NULL
                d.null_keys.append(len(d.rows))
                head, tail = (None,) * nk, ((None, None) if self.windowed else ())
            else:
                head = key[:nk]
                tail = (key[-2], key[-1]) if self.windowed else ()
            if where is not None:
                if new is None or not where(head + new + tail, ts, p):
                    if old is None or not where(head + old + tail, ts, p):
                        continue
                    new = None
            if new is None:
                if not self.table:
                    continue
                d.rows.append(head + self.nulls + tail)
                d.tombstones.append(True)
            else:
                d.rows.append(head + new + tail)
                d.tombstones.append(False)
            d.timestamps.append(ts)
            d.partitions.append(p)
            d.offsets.append(0)
            d.headers.append(hdrs)
        return d

    def __call__(self, events: list[tuple], tx: Any) -> list[tuple]:
        if not events:
            return []
        d = self.rows(events)
        if not (self.windowed and self.window_keys):
            return self.downstream(d, tx)
        # windowed results: the sink's key is (key, window start, window end) of each result's input row
        out: list[tuple] = []
        null_keys = set(d.null_keys)
        for i, row in enumerate(d.rows):
            one = DecodedBatch([row], [d.timestamps[i]], [d.partitions[i]], [d.offsets[i]], [d.headers[i]],
                               [d.tombstones[i]], [0] if i in null_keys else [])
            for r in self.downstream(one, tx):
                out.append(((r[0], row[-2], row[-1]) if r[0] is not None else None, *r[1:]))
        return out

    def after_commit(self) -> None:
        after = getattr(self.downstream, "after_commit", None)
        if after is not None:
            after()

    def abort(self) -> None:
        abort = getattr(self.downstream, "abort", None)
        if abort is not None:
            abort()


class JoinToTopic:
    """Join results as records of an internal topic (an aggregation reads them as its source)."""

    def __init__(self, plan: QueryPlan, partition: int) -> None:
        self.inner = JoinOutput(plan, None, partition)
        self.nkeys = self.inner.nkeys

    def __call__(self, events: list[tuple], tx: Any) -> list[tuple]:
        d = self.inner.rows(events)
        nk = self.nkeys
        out = []
        for row, ts, tomb, hdrs in zip(d.rows, d.timestamps, d.tombstones, d.headers, strict=True):
            out.append((row[:nk], None if tomb else row[nk:], ts, hdrs))
        return out
