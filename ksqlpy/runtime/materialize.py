"""Materialized tables: the state pull queries read.

Three ways a table gets one, as in ksqlDB:

* a CTAS with GROUP BY - its aggregate stores are the table (``AggregateMaterialization`` applies the
  query's projection and HAVING to the state records on read);
* a CTAS without aggregation over a table source - the source's rows as read are kept in a store
  (``InputRowsProcessor``; ksqlDB's ``KsqlTopic-Reduce``) and the query's WHERE and projection apply when
  they are read (``ProjectedMaterialization``); over a table-table join its result rows are
  (``MaterializingProcessor``);
* CREATE SOURCE TABLE - an internal ``CST_`` query reads the topic into a store (``SourceTableProcessor``).

A materialized row is ``(row, timestamp)`` with ``row`` in the table's input layout: key columns, value
columns, header columns, then WINDOWSTART/WINDOWEND for windowed tables - what the pull query's compiled
filter and projection take.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

from ksqlpy.catalog import Source, WindowInfo
from ksqlpy.runtime.accumulate import KEY, TS
from ksqlpy.runtime.aggregator import encode_key
from ksqlpy.runtime.processor import BaseProcessor, Processor, Wrapping
from ksqlpy.runtime.reader import DecodedBatch
from ksqlpy.runtime.repartition import safe_key_bytes
from ksqlpy.runtime.stateless import filter_with_previous
from ksqlpy.serde import key_serde
from ksqlpy.state.store import CommittedView, KeyValueStore, _prefix_end
from ksqlpy.state.windowed import from_t8, t8

Row = tuple[tuple, int]


class Materialization:
    """Read access to a table's current rows."""

    windowed: WindowInfo | None = None

    def refresh(self) -> None:
        """Drop cached reads before answering (the state is written by worker processes)."""

    def lookup(self, key: tuple, ws_lo: int | None = None, ws_hi: int | None = None) -> list[Row]:
        raise NotImplementedError

    def scan(self) -> Iterator[Row]:
        raise NotImplementedError

    def committed(self) -> Materialization:
        """The same table read from its stores' committed state only (``CommittedView``): what a pull
        query uses when it runs without the engine lock, beside a task processing a batch."""
        return self


def _committed_aggregator(agg: Any) -> Any:
    """A copy of an aggregator whose reads (``lookup``/``scan``) go to committed state only."""
    view = copy.copy(agg)
    view.kv = CommittedView(agg.kv)
    if hasattr(agg, "windows"):
        view.windows = type(agg.windows)(view.kv)
    if hasattr(agg, "sessions"):
        view.sessions = type(agg.sessions)(view.kv)
    return view


class AggregateMaterialization(Materialization):
    """The rows of a GROUP BY table, computed from its aggregate state records."""

    def __init__(self, built: Any, windowed: WindowInfo | None) -> None:
        self.built = built  # runtime.aggregate.Aggregation
        self.windowed = windowed

    def refresh(self) -> None:
        for kv in self.built.stores:
            kv.refresh()
        for agg in self.built.aggregators:
            agg.load_meta()

    def committed(self) -> Materialization:
        built = SimpleNamespace(aggregators=[_committed_aggregator(a) for a in self.built.aggregators],
                                spec=self.built.spec, stores=[])
        return AggregateMaterialization(built, self.windowed)

    def _rows(self, agg: Any, found: list[tuple[list[Any], int | None, int | None]]) -> Iterator[Row]:
        project = agg.spec.project
        for rec, ws, we in found:
            k, v, passed = project(agg.row(rec, ws, we))
            if passed:
                yield (k + v + ((ws, we) if self.windowed is not None else ()), rec[TS])

    def lookup(self, key: tuple, ws_lo: int | None = None, ws_hi: int | None = None) -> list[Row]:
        return [r for agg in self.built.aggregators for r in self._rows(agg, agg.lookup(key, ws_lo, ws_hi))]

    def scan(self) -> Iterator[Row]:
        """Rows in ksqlDB's store order: partition by partition (a table scan visits the partitions' stores
        in turn), within one by serialized key bytes, then window (end for sessions)."""
        sort_key = self.built.spec.sort_key
        session = self.windowed is not None and self.windowed.type == "SESSION"
        for agg in self.built.aggregators:  # one per partition, in partition order
            found = list(agg.scan())
            found.sort(key=lambda f: (sort_key(f[0][KEY]), (f[2] if session else f[1]) or 0, f[1] or 0))
            yield from self._rows(agg, found)


class TableStore:
    """Upserted rows of one task: ``R kb [start end]`` -> (row, timestamp)."""

    def __init__(self, kv: KeyValueStore, n_keys: int, windowed: bool, width: int | None = None) -> None:
        self.kv = kv
        self.n_keys = n_keys
        self.windowed = windowed
        # the row width the sink has now: rows stored before a query upgrade appended columns are shorter
        # and read back with NULLs in the new columns
        self.width = width

    def _fit(self, got: Row) -> Row:
        row, ts = got
        if self.width is None or len(row) >= self.width:
            return got
        pad = (None,) * (self.width - len(row))
        return ((*row[:-2], *pad, *row[-2:]) if self.windowed else (*row, *pad)), ts

    def _key(self, key: tuple, ws: int | None, we: int | None) -> bytes:
        kb = b"R" + encode_key(key)
        return kb + t8(ws or 0) + t8(we or 0) if self.windowed else kb

    def upsert(self, row: tuple, ts: int) -> None:
        ws, we = (row[-2], row[-1]) if self.windowed else (None, None)
        self.kv.put(self._key(row[: self.n_keys], ws, we), (row, ts))

    def delete(self, key: tuple, ws: int | None = None, we: int | None = None) -> None:
        self.kv.delete(self._key(key, ws, we))

    def lookup(self, key: tuple, ws_lo: int | None, ws_hi: int | None) -> list[Row]:
        if not self.windowed:
            got = self.kv.get(self._key(key, None, None))
            return [] if got is None else [self._fit(got)]
        prefix = b"R" + encode_key(key)
        n = len(prefix) + 16
        out = []
        for k, v in self.kv.range(prefix, _prefix_end(prefix)):
            if len(k) != n:
                continue
            ws = from_t8(k, n - 16)
            if (ws_lo is None or ws >= ws_lo) and (ws_hi is None or ws <= ws_hi):
                out.append(self._fit(v))
        return out

    def scan(self) -> Iterator[Row]:
        for _, v in self.kv.items(b"R"):
            yield self._fit(v)


class StoreMaterialization(Materialization):
    def __init__(self, stores: list[TableStore], windowed: WindowInfo | None,
                 sort_key: Callable[[tuple], bytes] = encode_key) -> None:
        self.stores = stores
        self.windowed = windowed
        self.sort_key = sort_key

    def refresh(self) -> None:
        for s in self.stores:
            s.kv.refresh()

    def with_stores(self, stores: list[Any]) -> StoreMaterialization:
        """The same table read from ``stores`` (some partitions' stores, or committed views of them)."""
        return StoreMaterialization(stores, self.windowed, self.sort_key)

    def committed(self) -> Materialization:
        return self.with_stores([TableStore(CommittedView(s.kv), s.n_keys, s.windowed, s.width)  # type: ignore[arg-type]
                                 for s in self.stores])

    def lookup(self, key: tuple, ws_lo: int | None = None, ws_hi: int | None = None) -> list[Row]:
        return [r for s in self.stores for r in s.lookup(key, ws_lo, ws_hi)]

    def scan(self) -> Iterator[Row]:
        """Rows in ksqlDB's store order: partition by partition, within one by serialized key bytes, then
        window."""
        windowed, sk = self.windowed is not None, self.sort_key
        for store in self.stores:  # one per partition, in partition order
            n = store.n_keys
            rows = list(store.scan())
            rows.sort(key=lambda r: (sk(r[0][:n]), r[0][-2] if windowed else 0))
            yield from rows


class InputRowStore(TableStore):
    """The rows a table source's task read: ``R kb [start end]`` -> (row, timestamp, offset), ``row`` in the
    source's input layout. The offset is kept with the row because the query's projection may read
    ROWOFFSET when the row is read back (ksqlDB materializes ROWPARTITION and ROWOFFSET with the source's
    rows for the same reason; the partition is the task's)."""

    def __init__(self, kv: KeyValueStore, source: Source) -> None:
        super().__init__(kv, len(source.key_columns), source.windowed is not None)
        self.partition = int(getattr(kv, "partition", 0))
        self.values_end = len(source.key_columns) + len(source.value_columns)
        self.source_width = self.values_end + len(source.header_columns) + (2 if self.windowed else 0)

    def put(self, row: tuple, ts: int, offset: int) -> None:
        ws, we = (row[-2], row[-1]) if self.windowed else (None, None)
        self.kv.put(self._key(row[: self.n_keys], ws, we), (row, ts, offset))

    def _fit(self, got: Any) -> Any:
        """A row stored before the source gained value columns reads them as NULL."""
        row, ts, offset = got
        short = self.source_width - len(row)
        if short <= 0:
            return got
        at = self.values_end - short
        return (*row[:at], *(None,) * short, *row[at:]), ts, offset


class ProjectedMaterialization(StoreMaterialization):
    """A CTAS over a table: the source's rows (``InputRowStore``s) with the query's WHERE and projection
    applied as they are read (``project``: the query's stateless processor), as ksqlDB's pull queries read
    a ``KsqlTopic-Reduce`` store through KsqlMaterialization's transforms. Keys are the sink's key columns;
    ``key_order`` gives, per source key column, the position of the sink key column holding it (None when
    the sink key is not the source key's columns: lookups then scan)."""

    def __init__(self, stores: list[InputRowStore], windowed: WindowInfo | None, project: Processor,
                 key_order: list[int] | None, source_sort_key: Callable[[tuple], bytes] = encode_key) -> None:
        super().__init__(stores, windowed, self._sink_sort_key)  # type: ignore[arg-type]
        self.project = project
        self.key_order = key_order
        self.source_sort_key = source_sort_key

    def _source_key(self, key: tuple) -> tuple | None:
        order = self.key_order
        if order is None or len(key) != len(order):
            return None
        return tuple(key[i] for i in order)

    def _sink_sort_key(self, key: tuple) -> bytes:
        """The bytes a sink key is placed and ordered by: the source key's, which partition the store."""
        source_key = self._source_key(key)
        return self.source_sort_key(source_key if source_key is not None else key)

    def with_stores(self, stores: list[Any]) -> StoreMaterialization:
        return ProjectedMaterialization(stores, self.windowed, self.project, self.key_order, self.source_sort_key)

    def committed(self) -> Materialization:
        views = []
        for s in self.stores:
            view = copy.copy(s)
            view.kv = CommittedView(s.kv)  # type: ignore[assignment]
            views.append(view)
        return self.with_stores(views)

    def _rows(self, store: InputRowStore, found: list[Any]) -> list[Row]:
        """The sink's rows of stored source rows (those passing WHERE), in the sink's layout."""
        if not found:
            return []
        n = len(found)
        batch = DecodedBatch([f[0] for f in found], [f[1] for f in found], [store.partition] * n,
                             [f[2] for f in found], [None] * n, [False] * n)
        out = []
        for r in self.project.process(batch, None):
            key, value, ts = r[0], r[1], r[2]
            if value is None:
                continue
            if self.windowed is not None:
                key, ws, we = key
                out.append(((*key, *value, ws, we), ts))
            else:
                out.append(((*key, *value), ts))
        return out

    def lookup(self, key: tuple, ws_lo: int | None = None, ws_hi: int | None = None) -> list[Row]:
        source_key = self._source_key(key)
        if source_key is None:
            n = len(key)
            return [r for r in self.scan() if r[0][:n] == tuple(key)
                    and (self.windowed is None or ((ws_lo is None or r[0][-2] >= ws_lo)
                                                   and (ws_hi is None or r[0][-2] <= ws_hi)))]
        return [r for s in self.stores for r in self._rows(s, s.lookup(source_key, ws_lo, ws_hi))]

    def scan(self) -> Iterator[Row]:
        """Rows in ksqlDB's store order: partition by partition, within one by the source key's serialized
        bytes (the store's key), then window."""
        windowed, sk = self.windowed is not None, self.source_sort_key
        for store in self.stores:  # one per partition, in partition order
            n = store.n_keys
            found = list(store.scan())
            found.sort(key=lambda f: (sk(f[0][:n]), f[0][-2] if windowed else 0))
            yield from self._rows(store, found)


class InputRowsProcessor(Wrapping):
    """Wraps a CTAS-over-a-table's stateless processor: the source rows it reads are stored as read
    (tombstones delete), and its output goes on.

    A query with a WHERE filters with the key's previous row, the stored source row
    (``runtime.stateless.filter_with_previous``): ``where`` is the stage's WHERE alone, ``project`` the
    stage without it."""

    def __init__(self, inner: Processor, store: InputRowStore, where: Processor | None = None,
                 project: Processor | None = None) -> None:
        super().__init__(inner)
        self.store = store
        self.where = where
        self.project = project

    def process(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        store, nk = self.store, self.store.n_keys
        if self.where is None or self.project is None:
            rows = self.inner.process(d, tx)
            for i, src in enumerate(d.rows):
                ws, we = (src[-2], src[-1]) if store.windowed else (None, None)
                if d.tombstones[i]:
                    store.delete(src[:nk], ws, we)
                else:
                    store.put(src, d.timestamps[i], d.offsets[i])
            return rows

        def previous(i: int) -> tuple[tuple, int] | None:
            src = d.rows[i]
            ws, we = (src[-2], src[-1]) if store.windowed else (None, None)
            before = store.lookup(src[:nk], ws, ws)
            if d.tombstones[i]:
                store.delete(src[:nk], ws, we)
            else:
                store.put(src, d.timestamps[i], d.offsets[i])
            return (before[0][0], before[0][2]) if before else None

        return filter_with_previous(d, tx, self.where, self.project, previous)


class MaterializingProcessor(Wrapping):
    """Wraps a table query's stateless processor: its output rows are also upserted into a store (which
    the task owns: it restores, flushes and commits it).

    ``filtered``: the query has a WHERE. ksqlDB filters a table with the previous row at hand (Kafka
    Streams' KTableFilter sends old values when its parent is materialized, and ksqlDB materializes table
    sources): a row failing WHERE, or a delete, deletes its key downstream only if the key's previous row
    passed - exactly when the store holds a row for the key; otherwise nothing goes out."""

    def __init__(self, inner: Processor, store: TableStore, filtered: bool = False) -> None:
        super().__init__(inner)
        self.store = store
        self.filtered = filtered

    def process(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        rows = self.inner.process(d, tx)
        store, filtered = self.store, self.filtered
        dropped = False
        for i, row in enumerate(rows):
            key, value, ts = row[0], row[1], row[2]
            if store.windowed:
                key, ws, we = key
            else:
                ws = we = None
            if value is None:
                if filtered and not store.lookup(key, ws, ws):
                    rows[i] = None  # type: ignore[call-overload]
                    dropped = True
                    continue
                store.delete(key, ws, we)
            else:
                store.upsert(key + value + ((ws, we) if store.windowed else ()), ts)
        return [r for r in rows if r is not None] if dropped else rows


class SourceTableProcessor(BaseProcessor):
    """The ``CST_`` query of a SOURCE table: upserts the topic's records, tombstones delete."""

    def __init__(self, store: TableStore) -> None:
        self.store = store

    def process(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        store, nk = self.store, self.store.n_keys
        for row, ts, tomb in zip(d.rows, d.timestamps, d.tombstones, strict=True):
            if tomb:
                ws, we = (row[-2], row[-1]) if store.windowed else (None, None)
                store.delete(row[:nk], ws, we)
            else:
                store.upsert(row, ts)
        return []


def table_sort_key(table: Source) -> Callable[[tuple], bytes]:
    """Key tuple -> the table's serialized key bytes (the order ksqlDB's stores iterate in)."""
    try:
        ks = key_serde(table.key_format, [(c.name, c.type) for c in table.key_columns],
                       delimiter=table.key_delimiter)
    except Exception:  # noqa: BLE001
        return encode_key
    return safe_key_bytes(ks.serialize)
