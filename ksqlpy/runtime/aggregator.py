"""The state-holding half of an aggregation: group updates folded into a store, updates emitted.

An ``Aggregator`` receives already-grouped items, one per input record, in record order:

* from a stream: ``(group key, aggregate arguments, timestamp, headers)``;
* from a table: ``(group key, new arguments | None, old arguments | None, timestamp, headers)`` - the old row's
  contribution is retracted (``undo``) before the new one is added, so an update that keeps its group
  gives ONE output, as Kafka Streams does since KIP-904.

It keeps the task's stream time (the max timestamp of the records it received; grace periods are
measured against it) and writes everything - accumulators, stream time, the EMIT FINAL position, the late
counter - through one ``KeyValueStore``, so a batch's state commits atomically with its outputs.

Output rows are ``(key, value | None, timestamp, headers)`` with ``key`` = ``(key tuple, window start, window
end)`` for windowed aggregations; ``value`` None is a tombstone (a HAVING that stopped passing). ``headers``
are those of the input record that caused the update, as Kafka Streams forwards them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ksqlpy.runtime.accumulate import KEY, TS, Accumulators, untrack
from ksqlpy.runtime.emit import Projector
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.record_cache import cache_key
from ksqlpy.state.store import KeyValueStore

META_STREAM_TIME = b"\x00stream_time"
META_LAST_EMIT = b"\x00last_emit"
META_LATE = b"\x00late"


def encode_key(key: tuple) -> bytes:
    """Store-private bytes of a group key: equal keys give equal bytes (``repr`` of plain values)."""
    return repr(key).encode()


def wall_ms() -> float:
    """The wall clock EMIT FINAL's throttle reads (ms; a module function so tests can set the time)."""
    return time.monotonic() * 1000.0


@dataclass
class AggregateSpec:
    """What every task of one aggregation shares, built once per query."""

    accs: Accumulators
    project: Projector
    having: bool
    window_type: str | None = None  # TUMBLING | HOPPING | SESSION
    size: int = 0  # window size, or the session inactivity gap
    advance: int = 0
    grace: int = 0
    retention: int = 0
    emit_final: bool = False
    sort_key: Callable[[tuple], bytes] = encode_key  # ksqlDB's key bytes: the order closed windows go out
    idle_advance_ms: int | None = None  # EMIT FINAL on quiet streams (see docs/time-and-emit.md)
    cache_entries: int = 0  # record cache size (runtime.record_cache); 0: every update goes out
    # EMIT FINAL's throttle (Kafka Streams' __emit.interval.ms.kstreams.windowed.aggregation__): at most one
    # emission check per this many wall-clock ms (``Aggregator.emit_slot``); 0: after every record
    emit_interval_ms: int = 1000
    batch_loop: Callable[[Any, list[tuple], list[tuple]], None] | None = None  # runtime.agg_loop


class Aggregator:
    """Non-windowed GROUP BY; the base of the windowed aggregators."""

    def __init__(self, spec: AggregateSpec, kv: KeyValueStore, plog: ProcessingLog, query_id: str) -> None:
        self.spec = spec
        self.kv = kv
        kv.loaded = untrack  # state records read back leave the cyclic GC as new ones do (accumulate.untrack)
        self.plog = plog
        self.query_id = query_id
        self.last_input_wall = time.monotonic()  # wall-clock time of the last input (idle advance)
        self.cached = False  # the last batch's outputs already went through the record cache
        # with the record cache, output keys with no visible value before the batch (record_cache.collapse)
        self.unseen: set[Any] = set()
        self._first: set[Any] = set()
        # the meta state of an empty store; ``load_meta()`` reads the stored one once the store is restored
        self.stream_time = -1
        self.last_emit: int | None = None
        self.late = 0
        self._saved: tuple[int, int | None, int] = (-1, None, 0)
        self._next_emit_ms = -math.inf  # EMIT FINAL's throttle (``emit_slot``): in memory, as Kafka Streams'

    def emit_slot(self) -> bool:
        """EMIT FINAL after a record: whether this record may look for closed windows. Kafka Streams
        (KIP-825 ``onWindowClose``) throttles that look on wall-clock time: a record arriving less than
        ``emit_interval_ms`` after the previous look does not look at all, and a look uses up the interval
        whether or not a window closed. What is not emitted stays for the next look (the range runs from the
        last emission): a throttle delays results, and loses only windows the store no longer retains by then."""
        interval = self.spec.emit_interval_ms
        if interval <= 0:
            return True
        now = wall_ms()
        if now < self._next_emit_ms:
            return False
        self._next_emit_ms = now + interval
        return True

    # ------------------------------------------------------------------ meta state
    def load_meta(self) -> None:
        """Read the stream time, the EMIT FINAL position and the late count from the (restored) store."""
        st = self.kv.get(META_STREAM_TIME)
        self.stream_time: int = -1 if st is None else st
        self.last_emit: int | None = self.kv.get(META_LAST_EMIT)
        late = self.kv.get(META_LATE)
        self.late: int = 0 if late is None else late
        self._saved = (self.stream_time, self.last_emit, self.late)

    def save_meta(self) -> None:
        now = (self.stream_time, self.last_emit, self.late)
        if now != self._saved:
            self.kv.put(META_STREAM_TIME, self.stream_time)
            if self.last_emit is not None:
                self.kv.put(META_LAST_EMIT, self.last_emit)
            self.kv.put(META_LATE, self.late)
            self._saved = now

    # ------------------------------------------------------------------ emission
    def row(self, rec: list[Any], ws: int | None = None, we: int | None = None) -> tuple:
        """The post-aggregation row: key columns, aggregate results, [WINDOWSTART, WINDOWEND], ROWTIME."""
        base = rec[KEY] + self.spec.accs.results(rec)
        if self.spec.window_type is not None:
            base += (ws, we)
        return base + (rec[TS],)

    def passes(self, rec: list[Any], ws: int | None = None, we: int | None = None) -> bool:
        return bool(self.spec.project(self.row(rec, ws, we))[-1])

    def emit(self, out: list[tuple], rec: list[Any], old_passed: bool, ws: int | None = None,
             we: int | None = None, ts: int | None = None, hd: Any = None) -> None:
        """The update of one group (and window): its row if HAVING passes, else a tombstone if the
        previous value passed (KTableFilter with old values)."""
        k, v, passed = self.spec.project(self.row(rec, ws, we))
        okey = (k, ws, we) if self.spec.window_type is not None else k
        if self.spec.cache_entries and self.spec.having:  # visible before the batch: its first old_passed
            ck = cache_key(okey)
            if ck not in self._first:
                self._first.add(ck)
                if not old_passed:
                    self.unseen.add(ck)
        if passed:
            out.append((okey, v, rec[TS] if ts is None else ts, hd))
        elif old_passed:
            out.append((okey, None, rec[TS] if ts is None else ts, hd))

    def tombstone(self, out: list[tuple], rec: list[Any], ws: int, we: int, ts: int, hd: Any = None) -> None:
        """A group/window that ceased to exist (a merged session): a delete if it was visible."""
        k, _, passed = self.spec.project(self.row(rec, ws, we))
        if passed or not self.spec.having:
            out.append(((k, ws, we), None, ts, hd))

    def new_batch(self) -> None:
        """A generic loop starts a batch: its updates go through ``record_cache.collapse`` afterwards."""
        self.cached = False
        self.unseen.clear()
        self._first.clear()

    # ------------------------------------------------------------------ processing
    def stream(self, items: list[tuple], out: list[tuple]) -> None:
        kv, accs, having = self.kv, self.spec.accs, self.spec.having
        if self.spec.batch_loop is not None:  # EMIT CHANGES without HAVING: the generated loop (agg_loop)
            self.spec.batch_loop(self, items, out)
            return
        self.new_batch()
        add, new, st = accs.add, accs.new, self.stream_time
        for key, args, ts, hd in items:
            if ts > st:
                st = ts
            kb = b"K" + encode_key(key)
            rec = kv.get(kb)
            if rec is None:
                old_passed = False
                rec = new(key, ts)
            else:
                old_passed = having and self.passes(rec)
            rec = add(rec, args, ts)  # a failing aggregate function stops the task (errors.StreamsError)
            kv.put(kb, rec)
            self.emit(out, rec, old_passed, hd=hd)
        self.stream_time = st

    def merge_partials(self, items: list[tuple], out: list[tuple]) -> None:
        """Items of a repartition topic combined per key and batch (``runtime.combine``): a partial
        ``(key, None, state, ts, headers)`` is merged into the stored state, a plain item added as
        ``stream`` does (a topic written before combining was on holds those)."""
        kv, accs, having = self.kv, self.spec.accs, self.spec.having
        self.new_batch()
        st = self.stream_time
        for item in items:
            if len(item) == 4:
                key, args, ts, hd = item
                partial = None
            else:
                key, _, partial, ts, hd = item
            if ts > st:
                st = ts
            kb = b"K" + encode_key(key)
            rec = kv.get(kb)
            old_passed = having and rec is not None and self.passes(rec)
            if partial is not None:
                rec = untrack(partial) if rec is None else accs.merge(rec, partial)
            else:
                rec = accs.add(rec if rec is not None else accs.new(key, ts), args, ts)
            kv.put(kb, rec)
            self.emit(out, rec, old_passed, hd=hd)
        self.stream_time = st

    def table(self, items: list[tuple], out: list[tuple]) -> None:
        kv, accs, having = self.kv, self.spec.accs, self.spec.having
        self.new_batch()
        st = self.stream_time
        for key, new_args, old_args, ts, hd in items:
            if ts > st:
                st = ts
            kb = b"K" + encode_key(key)
            rec = kv.get(kb)
            old_passed = having and rec is not None and self.passes(rec)
            if old_args is not None and rec is not None:
                rec = accs.undo(rec, old_args)
                if ts > rec[TS]:
                    rec[TS] = ts
            if new_args is not None:
                rec = accs.add(rec if rec is not None else accs.new(key, ts), new_args, ts)
            if rec is None:
                continue
            kv.put(kb, rec)
            self.emit(out, rec, old_passed, hd=hd)
        self.stream_time = st

    def end_batch(self, out: list[tuple]) -> None:
        """After a batch: retention purge (windowed) and persisting the meta state."""
        self.save_meta()

    def idle(self, idle_ms: int, out: list[tuple]) -> bool:
        """EMIT FINAL on a quiet stream: after ``idle_ms`` of wall-clock time without input, stream time
        advances by the time it has been quiet and the windows that close go out. True if it advanced."""
        if not self.spec.emit_final or self.stream_time < 0:
            return False
        quiet_ms = int((time.monotonic() - self.last_input_wall) * 1000)
        if quiet_ms < idle_ms:
            return False
        self.stream_time += quiet_ms
        self.last_input_wall = time.monotonic()
        self.close_idle(out)
        return True

    def close_idle(self, out: list[tuple]) -> None:
        """Emit what the idle advance closed (windowed aggregators)."""

    # ------------------------------------------------------------------ pull queries
    def scan(self) -> list[tuple[list[Any], int | None, int | None]]:
        """Every current state record with its window bounds, for table scans."""
        return [(rec, None, None) for _, rec in self.kv.items(b"K")]

    def lookup(self, key: tuple, ws_lo: int | None = None, ws_hi: int | None = None
               ) -> list[tuple[list[Any], int | None, int | None]]:
        rec = self.kv.get(b"K" + encode_key(key))
        return [] if rec is None else [(rec, None, None)]

