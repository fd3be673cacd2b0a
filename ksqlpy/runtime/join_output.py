"""From join results to the rest of the query.

A join's results are changes ``(key, new row, previous row, ts, headers)``. They become rows of the
join's virtual source (key columns, every source's block, window bounds) and go through the query's
usual stateless stage (WHERE, PARTITION BY, projection) - or, for an aggregation, to its grouping, in the
same task.

Table results with a WHERE follow Kafka Streams' filter with old values (ksqlDB's filter step computes the
WHERE of the new row, then of the previous row, at the change's ROWTIME, a failure logged each time): a
change whose new row passes is emitted; one whose new row fails (or is a delete) becomes a delete only if
the previous row passed; otherwise nothing is emitted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.plan.codegen import StageSpec, build_stateless
from ksqlpy.plan.topology import JoinResult
from ksqlpy.runtime.join_task import ResultRows
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.processor import Processor, Wrapping
from ksqlpy.runtime.reader import DecodedBatch


def where_predicate(result: JoinResult, functions: FunctionRegistry, plog: ProcessingLog | None = None,
                    query_id: str = "") -> Callable[[tuple, int, int], bool] | None:
    """``fn(row, ts, partition) -> passes`` for the query's WHERE over the join's virtual rows; a WHERE
    failing on a row is logged to ``plog`` (as the stateless stage logs it) and does not pass."""
    if result.where is None:
        return None
    spec = StageSpec(input_schema=result.input_schema, where=result.where, rekey_exprs=None,
                     projection_schema=result.input_schema, table_functions=[], outputs=[[]], functions=functions)
    fn = build_stateless(spec)

    def passes(row: tuple, ts: int, partition: int) -> bool:
        out: list[Any] = []

        def err(_i: int, what: Any, exc: BaseException) -> None:
            if plog is not None:
                plog.expression_error(query_id, what, exc, row)

        fn([row], [ts], [partition], [0], [None], [False], out, err)
        return bool(out)

    return passes


class JoinOutput(Wrapping):
    """The final stage of the task that completes the join: virtual rows -> downstream processor."""

    def __init__(self, result: JoinResult, where: Callable[[tuple, int, int], bool] | None, downstream: Processor,
                 partition: int, result_rows: ResultRows | None = None) -> None:
        """``result_rows``: the task's results already as rows (``takes_rows``), else None: changes."""
        super().__init__(downstream)
        self.result_rows = result_rows
        self.downstream = downstream
        self.partition = partition
        self.table = result.table
        self.nkeys = result.key_columns
        self.windowed = result.windowed
        self.window_keys = result.window_keys
        self.nulls = (None,) * result.width
        self.where = where if self.table else None

    @staticmethod
    def takes_rows(result: JoinResult) -> bool:
        """Whether the join's results may come as rows (``join_task.ResultRows``): a stream's, without
        window bounds - where ``rows`` only builds each change's row (no WHERE, no delete)."""
        return not result.table and not result.windowed and not result.window_keys

    def rows(self, events: list[tuple]) -> DecodedBatch:
        if not self.table and not self.windowed:
            return self._stream_rows(events)
        d = DecodedBatch([], [], [], [], [], [])
        nk, p, where = self.nkeys, self.partition, self.where
        olds: list[tuple | None] | None = [] if self.table else None
        if olds is not None:
            d.olds = olds
        for key, new, old, ts, hdrs in events:
            if key is None:  # an outer join's record with a null key: its key columns read NULL
                d.null_keys.append(len(d.rows))
                head, tail = (None,) * nk, ((None, None) if self.windowed else ())
            else:
                head = key[:nk]
                tail = (key[-2], key[-1]) if self.windowed else ()
            if where is not None:  # the new row's WHERE, then the previous row's, each whenever there is one
                new_passed = new is not None and where(head + new + tail, ts, p)
                old_passed = old is not None and where(head + old + tail, ts, p)
                if not new_passed:
                    if not old_passed:
                        continue
                    new = None
                if not old_passed:
                    old = None
            if new is None:
                if not self.table:
                    continue
                d.rows.append(head + self.nulls + tail)
                d.tombstones.append(True)
            else:
                d.rows.append(head + new + tail)
                d.tombstones.append(False)
            if olds is not None:
                olds.append(head + old + tail if old is not None else None)
            d.timestamps.append(ts)
            d.partitions.append(p)
            d.offsets.append(0)
            d.headers.append(hdrs)
        return d

    def _stream_rows(self, events: list[tuple]) -> DecodedBatch:
        """``rows`` for a stream's results without window bounds (no WHERE here, no deletes: a change
        without a new row is dropped) - the same rows by a tighter loop."""
        nk = self.nkeys
        null_head = (None,) * nk
        rows: list[tuple] = []
        timestamps: list[int] = []
        headers: list[Any] = []
        null_keys: list[int] = []
        add_row, add_ts, add_headers = rows.append, timestamps.append, headers.append
        for key, new, _, ts, hdrs in events:
            if new is None:
                continue
            if key is None:  # an outer join's record with a null key: its key columns read NULL
                null_keys.append(len(rows))
                add_row(null_head + new)
            else:
                add_row(key[:nk] + new)
            add_ts(ts)
            add_headers(hdrs)
        n = len(rows)
        return DecodedBatch(rows, timestamps, [self.partition] * n, [0] * n, headers, [False] * n, null_keys)

    def process(self, events: list[tuple], tx: Any) -> list[tuple]:
        rr = self.result_rows
        if rr is not None:
            assert not events, "a join task collecting result rows got result changes"
            n = len(rr.rows)
            if not n:
                return []
            p = self.partition
            return self.downstream.process(DecodedBatch(rr.rows, rr.timestamps, [p] * n, [0] * n, rr.headers,
                                                        [False] * n, rr.null_keys), tx)
        if not events:
            return []
        d = self.rows(events)
        if not self.window_keys:
            return self.downstream.process(d, tx)
        # windowed results: the sink's key is (key, window start, window end) of each result's input row
        out: list[tuple] = []
        null_keys = set(d.null_keys)
        for i, row in enumerate(d.rows):
            one = DecodedBatch([row], [d.timestamps[i]], [d.partitions[i]], [d.offsets[i]], [d.headers[i]],
                               [d.tombstones[i]], [0] if i in null_keys else [])
            for r in self.downstream.process(one, tx):
                out.append(((r[0], row[-2], row[-1]) if r[0] is not None else None, *r[1:]))
        return out
