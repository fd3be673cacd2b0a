"""SESSION window aggregation: sessions of one key grow and merge as records arrive.

Kafka Streams' ``KStreamSessionWindowAggregate`` rules:

* a record at ``ts`` joins every session of its key with ``end >= ts - gap`` and ``start <= ts + gap``;
  they merge into one session ``[min start, max end]``, the accumulators combined with ``merge`` (from a
  fresh accumulator, in end-time order) before the record is added;
* the close time is stream time - grace - gap (Kafka Streams' ``windowCloseTime``: a session can still
  grow by a gap after its last record); if the merged session ends before it, the record is late:
  dropped and counted (session ends are inclusive, so a session ending exactly at the close time is on time);
* every merged-away session is deleted downstream (a tombstone, timestamp = its end), then the new
  session goes out with timestamp = its end;
* EMIT FINAL: sessions that ended before the close time go out once, in (end, key) order, when the close
  time moves - at the next look the wall-clock throttle allows (``Aggregator.emit_slot``), so the purge below
  keeps a closed session until a look has written it;
* retention (default gap + grace): a session that ended at or before stream time - retention is past it:
  the session store no longer finds it, so no record merges into it, even one within a gap of it and on
  time (Kafka Streams' segmented store reads from ``max(earliest end, observed time - retention + 1)``,
  its observed time being the newest session end written: the stream time before the record). A pull
  query sees the sessions ending from stream time - retention + 1 on (``store_retention``); sessions
  ending before stream time - retention are purged after each batch.
"""

from __future__ import annotations

import time
from typing import Any

from ksqlpy.runtime.accumulate import KEY
from ksqlpy.runtime.aggregator import Aggregator, encode_key
from ksqlpy.runtime.session_batch import stream_sessions
from ksqlpy.runtime.session_fold import build_run, fold_sessions
from ksqlpy.runtime.session_retention import expired_up_to
from ksqlpy.runtime.store_retention import first_retained
from ksqlpy.state.windowed import SessionStore


class SessionAggregator(Aggregator):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sessions = SessionStore(self.kv)
        self._purged_below: int | None = None
        self._run = build_run(self.spec.accs, self.spec.size)  # session_fold's in-place step

    def stream(self, items: list[tuple], out: list[tuple]) -> None:
        spec = self.spec
        gap, grace, final, retention = spec.size, spec.grace, spec.emit_final, spec.retention
        accs, store = spec.accs, self.sessions
        if not final and not spec.having:  # EMIT CHANGES: key by key (session_fold) or record by record
            if not fold_sessions(self, items, out, self._run):  # (session_batch), the batch's sessions in memory
                stream_sessions(self, items, out)
            self.last_input_wall = time.monotonic()
            return
        self.new_batch()
        cap = 0 if final else spec.cache_entries
        self.cached = cap > 0
        # the record cache (Kafka Streams' CachingSessionStore): session -> [accumulators, exists, headers]
        # in the order of the last updates; ``visible``: whether downstream has a row of a session (known
        # for the sessions this batch has met, from what the store held before it)
        cache: dict[tuple[bytes, int, int], list[Any]] = {}
        visible: dict[tuple[bytes, int, int], bool] = {}
        try:
            for key, args, ts, hd in items:
                # the store finds no session past retention (``expired_up_to``), measured before this record
                earliest = max(ts - gap, expired_up_to(self.stream_time, retention) + 1)
                if ts > self.stream_time:
                    self.stream_time = ts
                close = self.stream_time - grace - gap
                kb = encode_key(key)
                found = store.find(kb, earliest, ts + gap)
                start, end = ts, ts
                for s, e, _ in found:
                    if s < start:
                        start = s
                    if e > end:
                        end = e
                if end < close:
                    self.late += 1
                    if final and self.emit_slot():
                        self.emit_closed(out, hd)
                    continue
                if cap:
                    for s, e, old in found:
                        if (kb, s, e) not in visible:  # first met: as stored before the batch
                            visible[(kb, s, e)] = self.passes(old, s, e)
                merging = (start, end) != (ts, ts)
                # the deletes of merged-away sessions are decided before ``merge`` may reuse their accumulators
                deletes: list[tuple] = []
                if merging and not final and not cap:
                    for s, e, old in found:
                        self.tombstone(deletes, old, s, e, e, hd)
                elif merging and cap:
                    for s, e, old in found:
                        self._cache(cache, (kb, s, e), [old, False, hd], visible, out)
                rec = accs.new(key, ts)
                for _, _, old in found:
                    rec = accs.merge(rec, old)
                rec = accs.add(rec, args, ts)
                if merging:
                    for s, e, _ in found:
                        store.remove(kb, s, e)
                    out.extend(deletes)
                store.put(kb, start, end, rec)
                if cap:
                    self._cache(cache, (kb, start, end), [rec, True, hd], visible, out)
                elif not final:
                    # the new session's previous value is unknown downstream (Change(new, null))
                    self.emit(out, rec, False, start, end, end, hd)
                elif self.emit_slot():  # EMIT FINAL, throttled on wall-clock time as Kafka Streams does
                    self.emit_closed(out, hd)
        finally:
            if cache:
                self._flush(cache, visible, out)
        self.last_input_wall = time.monotonic()

    def _cache(self, cache: dict[tuple[bytes, int, int], list[Any]], sk: tuple[bytes, int, int], entry: list[Any],
               visible: dict[tuple[bytes, int, int], bool], out: list[tuple]) -> None:
        """A session's update into the record cache: it goes last; a full cache goes out whole."""
        visible.setdefault(sk, False)  # a session this batch made: downstream has no row of it
        cache.pop(sk, None)
        cache[sk] = entry
        if len(cache) > self.spec.cache_entries:
            self._flush(cache, visible, out)

    def _flush(self, cache: dict[tuple[bytes, int, int], list[Any]], visible: dict[tuple[bytes, int, int], bool],
               out: list[tuple]) -> None:
        """The cache goes out as Kafka Streams flushes it: each session's ``Change(last value, value
        downstream has)`` through HAVING's filter - its row if the last value exists and passes, else a
        delete if downstream has a row, else nothing."""
        for sk, (rec, exists, hd) in cache.items():
            s, e = sk[1], sk[2]
            if exists:
                self.emit(out, rec, visible[sk], s, e, e, hd)
                visible[sk] = self.passes(rec, s, e)
            elif visible[sk]:
                k = self.spec.project(self.row(rec, s, e))[0]
                out.append(((k, s, e), None, e, hd))
                visible[sk] = False
        cache.clear()

    def emit_closed(self, out: list[tuple], hd: Any = None) -> None:
        close = self.close_time()
        if self.last_emit is not None and self.last_emit >= close:
            return
        ended = list(self.sessions.ended(self.last_emit, close - 1))
        if len(ended) > 1:
            sk = self.spec.sort_key
            ended.sort(key=lambda s: (s[2], sk(s[3][KEY]), s[1]))
        for _, s, e, rec in ended:
            self.emit(out, rec, False, s, e, e, hd)
        self.last_emit = close

    def close_time(self) -> int:
        """Sessions ending before this are closed: stream time - grace - gap."""
        return self.stream_time - self.spec.grace - self.spec.size

    def end_batch(self, out: list[tuple]) -> None:
        below = self.stream_time - self.spec.retention
        if self.spec.emit_final:  # a closed session the throttle held back stays until a look writes it
            below = min(below, self.last_emit if self.last_emit is not None else -(2**62))
        if self._purged_below is None or below > self._purged_below:
            self.sessions.purge(below)
            self._purged_below = below
        self.save_meta()

    def close_idle(self, out: list[tuple]) -> None:
        self.emit_closed(out)

    def retained_from(self) -> int:
        """The earliest session end the store still returns (``store_retention``)."""
        return first_retained(self.stream_time, self.spec.retention)

    def scan(self) -> list[tuple[list[Any], int | None, int | None]]:
        floor = self.retained_from()
        return [(rec, s, e) for _, s, e, rec in self.sessions.all_sessions() if e >= floor]

    def lookup(self, key: tuple, ws_lo: int | None = None, ws_hi: int | None = None
               ) -> list[tuple[list[Any], int | None, int | None]]:
        floor = self.retained_from()
        return [(rec, s, e) for s, e, rec in self.sessions.fetch(encode_key(key))
                if e >= floor and (ws_lo is None or s >= ws_lo) and (ws_hi is None or s <= ws_hi)]

