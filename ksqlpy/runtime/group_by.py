"""The stateless half of an aggregation: from source records to grouped items.

A generated function (``plan.codegen``) applies WHERE and computes the group key and the aggregate
arguments of each record. Records whose group key has a NULL column are dropped, as ksqlDB's group-by
mapper drops them ("Group-by column ... resolved to null"); stream records with a null value never get here
(the reader skips them for stream aggregations). A GROUP BY of the input stream's own key columns, in order,
runs no mapper (ksqlDB's ``StreamGroupByKey``: ``groupByKey``): its group is the record's key as read, NULL
columns included, and only a record without a Kafka key is skipped, without a processing-log entry.

Over a TABLE source, each source key's last contribution (group key, arguments) is remembered in the
store, so an update or a delete can retract it: the items then carry ``(key, new, old, ts)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from ksqlpy.expr.failures import GroupBySite
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.plan.codegen import StageSpec, build_stateless
from ksqlpy.plan.logical import ColumnRole
from ksqlpy.plan.topology import GroupStage
from ksqlpy.runtime.aggregator import encode_key
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.reader import DecodedBatch
from ksqlpy.state.store import KeyValueStore

SOURCE_PREFIX = b"\x01"


def compile_grouping(stage: GroupStage, functions: FunctionRegistry) -> Callable[..., None]:
    """WHERE, the group key and the aggregate arguments as one generated function."""
    return build_stateless(StageSpec(
        input_schema=stage.input_schema, where=stage.where, rekey_exprs=None,
        projection_schema=stage.input_schema, table_functions=[], outputs=[list(stage.keys), list(stage.args)],
        functions=functions, with_headers=True, grouping=True))


class Grouper:
    """``(batch) -> items``: ``(key, args, ts, headers)`` from a stream, ``(key, new, old, ts, headers)`` from
    a table."""

    def __init__(self, stage: GroupStage, pipeline: Callable[..., None], plog: ProcessingLog, query_id: str,
                 kv: KeyValueStore | None) -> None:
        """``pipeline``: the stage compiled (``compile_grouping``), shared by the query's tasks."""
        self.pre = pipeline
        self.plog = plog
        self.query_id = query_id
        self.table = stage.table
        self.n_source_keys = stage.source_keys
        self.by_key = getattr(stage, "by_key", False)  # (a plan pickled before it existed: grouped by mapper)
        # where a stored source row from before the source gained value columns reads them as NULL
        self.values_end = sum(1 for c in stage.input_schema.columns if c.role in (ColumnRole.KEY, ColumnRole.VALUE))
        self.kv = kv
        # a table join's changes bring their previous rows (``DecodedBatch.olds``): no store
        self.olds = getattr(stage, "olds", False)
        if self.table and kv is None and not self.olds:
            raise ValueError("a table-source aggregation needs a store for the previous rows")
        # a stream's grouping without a per-record loop reads only its key and argument columns: the reader
        # may hand it the batch as columns (``SourceReader.columnar``), no row tuple built per record
        # (or it loops over only the columns it reads: ``codegen._column_loop``)
        self.columnar = not self.table and (getattr(pipeline, "columnar", False)
                                            or getattr(pipeline, "column_loop", False))

    def __call__(self, d: DecodedBatch) -> list[tuple]:
        if not self.table:
            return self._stream(d)
        return self._changes(d) if self.olds else self._table(d)

    def _err(self, d: DecodedBatch, failed: Counter[int] | None = None) -> Any:
        def err(i: int, what: object, e: BaseException) -> None:
            self.plog.expression_error(self.query_id, what, e, d.rows[i], step="GroupBy")
            if failed is not None and isinstance(what, GroupBySite):
                failed[what.index] += 1
        return err

    def _row_err(self, row: tuple, failed: Counter[int]) -> Any:
        def err(_i: int, what: object, e: BaseException) -> None:
            self.plog.expression_error(self.query_id, what, e, row, step="GroupBy")
            if isinstance(what, GroupBySite):
                failed[what.index] += 1
        return err

    def _excluded(self, key: tuple, failed: Counter[int], row: Any = None) -> bool:
        """Whether a group key has a NULL column (the row is not aggregated); a NULL that did not come from
        a failure (already logged) is logged as ksqlDB logs it."""
        if None not in key:
            return False
        for index, v in enumerate(key):
            if v is None:
                if failed[index]:
                    failed[index] -= 1
                else:
                    self.plog.record_error(self.query_id, GroupBySite(index, null=True).message(), row,
                                           step="GroupBy")
        return True

    def _stream(self, d: DecodedBatch) -> list[tuple]:
        out: list[tuple] = []
        failed: Counter[int] = Counter()
        if self.by_key and d.null_keys:
            d = _keyed(d)
        self.pre(d.rows, d.timestamps, d.partitions, d.offsets, d.headers, d.tombstones, out,
                 self._err(d, failed))
        if self.by_key:
            return out
        keep = [item for item in out if None not in item[0]]
        if len(keep) != len(out):  # rare: log the rows a NULL key excludes
            for item in out:
                self._excluded(item[0], failed)
        return keep

    def _evaluate(self, row: tuple, ts: int, partition: int, offset: int, headers: Any, err: Any,
                  failed: Counter[int]) -> tuple | None:
        """One table row through WHERE, the group key and the arguments: its item, or None when it does not
        pass the WHERE, an expression failed it out, or its group key has a NULL column (logged)."""
        got: list[tuple] = []
        self.pre([row], [ts], [partition], [offset], [headers], [False], got, err)
        if got and not self._excluded(got[0][0], failed, row):
            return got[0]
        return None

    def _fit(self, before: tuple, width: int) -> tuple:
        """A previous row stored before the source gained value columns (a replaced query) reads them as
        NULL (``materialize.InputRowStore``'s rule)."""
        short = width - len(before)
        if short <= 0:
            return before
        at = self.values_end - short
        return (*before[:at], *(None,) * short, *before[at:])

    def _changes(self, d: DecodedBatch) -> list[tuple]:
        """A table join's changes: each record's new row and the previous joined row of its key that came
        with it (Kafka Streams' KTable-KTable join forwarding ``Change(new, old)`` to ``KTable.groupBy``'s
        KTableRepartitionMap) each go through WHERE, the group key and the arguments, the previous one at the
        ROWTIME of the change; then the contributions as ``_table``'s."""
        olds = d.olds
        assert olds is not None, "a table join's aggregation got rows without their previous rows"
        items: list[tuple] = []
        failed: Counter[int] = Counter()
        for i, row in enumerate(d.rows):
            ts, part, hd = d.timestamps[i], d.partitions[i], d.headers[i]
            new = None
            if not d.tombstones[i]:
                new = self._evaluate(row, ts, part, d.offsets[i], hd, self._row_err(row, failed), failed)
            old = olds[i]
            previous = None
            if old is not None:
                previous = self._evaluate(old, ts, part, d.offsets[i], hd, self._row_err(old, failed), failed)
            _contributions(items, new, previous, ts, hd)
        return items

    def _table(self, d: DecodedBatch) -> list[tuple]:
        """ksqlDB's table aggregation (Kafka Streams' KTableFilter and KTableRepartitionMap over a
        materialized source sending old values): each record's new row and its key's previous source row
        both go through WHERE, the group key and the arguments - the new row first, the previous one at the
        ROWTIME of the record being processed, with its own ROWOFFSET (``stateless.filter_with_previous``'s
        rule) - and the previous row's contribution is taken back only if it passes now, the new row's added
        only if it passes. So a previous row that passed when it came but fails at the new record's ROWTIME
        is never taken back.

        The store keeps per source key its row and offset as read (whether or not it passed), with the
        group key and arguments it contributed (None: none) - which placing the store's entries reads. An
        entry written before the rows were kept (``(group key, arguments)``) is taken back as stored."""
        kv = self.kv
        assert kv is not None
        items: list[tuple] = []
        failed: Counter[int] = Counter()
        nk = self.n_source_keys
        for i, row in enumerate(d.rows):
            ts, part, hd = d.timestamps[i], d.partitions[i], d.headers[i]
            skb = SOURCE_PREFIX + encode_key(row[:nk])
            stored = kv.get(skb)
            new = None
            if not d.tombstones[i]:
                new = self._evaluate(row, ts, part, d.offsets[i], hd, self._row_err(row, failed), failed)
            previous = None
            if stored is not None:
                if len(stored) == 2:
                    previous = stored
                else:
                    before = self._fit(stored[2], len(row))
                    previous = self._evaluate(before, ts, part, stored[3], hd, self._row_err(before, failed),
                                              failed)
            if not d.tombstones[i]:
                kv.put(skb, (*(new[:2] if new is not None else (None, None)), row, d.offsets[i]))
            elif stored is not None:
                kv.delete(skb)
            _contributions(items, new, previous, ts, hd)
        return items


def _contributions(items: list[tuple], new: tuple | None, previous: tuple | None, ts: int, hd: Any) -> None:
    """A table record's items: one change of its group when the new row and the previous one fall in the same
    group, else the previous contribution taken back, then the new one added."""
    if previous is not None and new is not None and previous[0] == new[0]:
        items.append((new[0], new[1], previous[1], ts, hd))
        return
    if previous is not None:
        items.append((previous[0], None, previous[1], ts, hd))
    if new is not None:
        items.append((new[0], new[1], None, ts, hd))


def _keyed(d: DecodedBatch) -> DecodedBatch:
    """``d`` without its records that have no Kafka key: Kafka Streams' stream aggregation skips them
    (``KStreamAggregate``: "Skipping record due to null key", a dropped-records metric, no processing-log
    entry)."""
    gone = set(d.null_keys)
    keep = [i for i in range(len(d.rows)) if i not in gone]
    return DecodedBatch([d.rows[i] for i in keep], [d.timestamps[i] for i in keep], [d.partitions[i] for i in keep],
                        [d.offsets[i] for i in keep], [d.headers[i] for i in keep], [d.tombstones[i] for i in keep])
