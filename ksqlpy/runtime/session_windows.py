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
  time moves;
* retention (default gap + grace): sessions ending before stream time - retention are purged.
"""

from __future__ import annotations

import time
from typing import Any

from ksqlpy.runtime.accumulate import KEY
from ksqlpy.runtime.aggregator import Aggregator, encode_key
from ksqlpy.runtime.record_cache import cache_key
from ksqlpy.runtime.session_batch import stream_sessions
from ksqlpy.runtime.session_fold import build_run, fold_sessions
from ksqlpy.state.windowed import SessionStore


class SessionAggregator(Aggregator):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sessions = SessionStore(self.kv)
        self._purged_below: int | None = None
        self._run = build_run(self.spec.accs, self.spec.size)  # session_fold's in-place step

    def stream(self, items: list[tuple], out: list[tuple]) -> None:
        spec = self.spec
        gap, grace, final = spec.size, spec.grace, spec.emit_final
        accs, store = spec.accs, self.sessions
        if not final and not spec.having:  # EMIT CHANGES: key by key (session_fold) or record by record
            if not fold_sessions(self, items, out, self._run):  # (session_batch), the batch's sessions in memory
                stream_sessions(self, items, out)
            self.last_input_wall = time.monotonic()
            return
        self.new_batch()
        cached = spec.cache_entries > 0
        born: set[tuple] = set()  # sessions created in this batch (the record cache drops their deletes)
        for key, args, ts, hd in items:
            if ts > self.stream_time:
                self.stream_time = ts
            close = self.stream_time - grace - gap
            kb = encode_key(key)
            found = store.find(kb, ts - gap, ts + gap)
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
            merging = (start, end) != (ts, ts)
            # the deletes of merged-away sessions are decided before ``merge`` may reuse their accumulators
            deletes: list[tuple] = []
            if merging and not final:
                for s, e, old in found:
                    n = len(deletes)
                    self.tombstone(deletes, old, s, e, e, hd)
                    if len(deletes) > n and (kb, s, e) in born:  # never went out before this batch
                        self.unseen.add(cache_key(deletes[-1][0]))
            rec = accs.new(key, ts)
            for _, _, old in found:
                rec = accs.merge(rec, old)
            rec = accs.add(rec, args, ts)
            if merging:
                for s, e, _ in found:
                    store.remove(kb, s, e)
                out.extend(deletes)
            if cached and not any(s == start and e == end for s, e, _ in found):
                born.add((kb, start, end))
            store.put(kb, start, end, rec)
            if not final:
                # the new session's previous value is unknown downstream (Change(new, null))
                self.emit(out, rec, False, start, end, end, hd)
            elif self.emit_slot():  # EMIT FINAL, throttled on wall-clock time as Kafka Streams does
                self.emit_closed(out, hd)
        self.last_input_wall = time.monotonic()

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
        if self._purged_below is None or below > self._purged_below:
            self.sessions.purge(below)
            self._purged_below = below
        self.save_meta()

    def close_idle(self, out: list[tuple]) -> None:
        self.emit_closed(out)

    def scan(self) -> list[tuple[list[Any], int | None, int | None]]:
        return [(rec, s, e) for _, s, e, rec in self.sessions.all_sessions()]

    def lookup(self, key: tuple, ws_lo: int | None = None, ws_hi: int | None = None
               ) -> list[tuple[list[Any], int | None, int | None]]:
        return [(rec, s, e) for s, e, rec in self.sessions.fetch(encode_key(key))
                if (ws_lo is None or s >= ws_lo) and (ws_hi is None or s <= ws_hi)]

