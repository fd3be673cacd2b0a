"""Driver side of a backfill: the stage rows become sink records, the streaming query's state, and
processing-log entries, so that the streaming query continues at the next offset.

The streaming query was created before the backfill read anything, with its input positions pinned at
the partitions' end offsets (``auto.offset.reset=latest``); the backfill read exactly up to them. Here the
final store content of each task partition is written into the query's own ``KeyValueStore`` through the
same API its tasks use: ``put``, then ``flush`` onto the changelog inside a log transaction, then
``commit_local``. The aggregators reload their meta state (stream time, EMIT FINAL position, late count)
from the store. So the next poll of a task sees the state as if it had processed every record itself:
nothing lost (records after the pinned positions are the task's), nothing counted twice.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ksqlpy.backfill.job import PLOG, SINK, STATE, SUMMARY

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine
    from ksqlpy.engine.queries import PersistentQuery

_SINK_CHUNK = 5000
_STATE_CHUNK = 50_000
AGGREGATE_STORE = "Aggregate-Materialize-"


@dataclass
class BackfillResult:
    query_id: str
    positions: dict[int, tuple[int, int]]  # source partition -> (first offset read, next offset: the handed-off position)
    records_read: int = 0
    sink_records: int = 0
    state_entries: int = 0
    processing_errors: int = 0
    late_records: int = 0
    details: dict[str, Any] = field(default_factory=dict)


class HandOff:
    """Consumes stage rows (``kind, part, key, value, ts, headers``) in the order Spark returns them."""

    def __init__(self, engine: Engine, query: PersistentQuery, result: BackfillResult) -> None:
        self.engine = engine
        self.log = engine.log
        self.topic = query.sink.topic
        self.result = result
        self.stores: dict[int, Any] = {}
        self.aggregators: dict[int, Any] = {}
        built = query.aggregation
        if built is not None:
            for kv in built.stores:
                if os.path.basename(kv.directory).startswith(AGGREGATE_STORE):
                    self.stores[kv.partition] = kv
            for a in built.aggregators:
                self.aggregators[a.kv.partition] = a
        self._sink: list[tuple[int, bytes | None, bytes | None, int, Any]] = []
        self._pending_state = 0

    def consume(self, rows: Iterable[tuple]) -> None:
        loads = pickle.loads
        for kind, part, key, value, ts, headers in rows:
            if kind == SINK:
                self._sink.append((part, key, value, ts, loads(headers) if headers is not None else None))
                if len(self._sink) >= _SINK_CHUNK:
                    self._write_sink()
            elif kind == STATE:
                kv = self.stores.get(part)
                if kv is None:
                    raise RuntimeError(f"backfill: no state store for task partition {part}")
                kv.put(key, loads(value))
                self.result.state_entries += 1
                self._pending_state += 1
                if self._pending_state >= _STATE_CHUNK:
                    self._flush_state()
            elif kind == PLOG:
                entry = loads(value)
                self.engine.plog._emit(entry["logger"], entry["message"])  # as if a streaming task had logged it
                self.result.processing_errors += 1
            elif kind == SUMMARY:
                summary = loads(value)
                self.result.records_read += summary.get("read", 0)
                self.result.late_records += summary.get("late", 0)

    def finish(self) -> None:
        self._write_sink()
        self._flush_state()
        for a in self.aggregators.values():
            a.load_meta()  # stream time, late count, EMIT FINAL position: now those of the backfill

    def _write_sink(self) -> None:
        rows = self._sink
        if not rows:
            return
        # (part -1: the default partitioner; else the partition the sink writer chose, as for windowed keys)
        buckets: dict[int, list[tuple]] = {}
        for r in rows:
            buckets.setdefault(r[0], []).append(r)
        with self.log.transaction() as tx:
            for part, recs in buckets.items():
                hdrs = [r[4] for r in recs]
                tx.produce_batch(self.topic, None if part < 0 else part, [r[1] for r in recs], [r[2] for r in recs],
                                 [r[3] for r in recs], hdrs if any(hdrs) else None)
        self.result.sink_records += len(rows)
        self._sink = []

    def _flush_state(self) -> None:
        if not self._pending_state:
            return
        with self.log.transaction() as tx:
            for kv in self.stores.values():
                kv.flush(tx)
        for kv in self.stores.values():
            kv.commit_local()
        self._pending_state = 0
