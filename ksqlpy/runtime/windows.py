"""TUMBLING and HOPPING window aggregation, with EMIT CHANGES or EMIT FINAL and retention.

Kafka Streams' rules, which ksqlDB inherits:

* a record belongs to every window ``[start, start + size)`` holding its timestamp, starts being
  multiples of the advance (``windowsFor``), visited in ascending start order;
* a window accepts a record while ``end > stream time - grace``; otherwise the record is late for that
  window: dropped and counted;
* an update's timestamp is the max timestamp of the records in the window;
* EMIT FINAL (KIP-825 ``onWindowClose``): after each record, once stream time - grace (the close time)
  has moved, the windows that just closed go out once, ordered by (start, serialized key) - at most once
  per ``__emit.interval.ms.kstreams.windowed.aggregation__`` of wall-clock time (``Aggregator.emit_slot``). As in
  Kafka Streams, a window is only found while it is retained: its start must be at least the newest
  window start written minus the retention (``store_retention.emit_floor``), where retention defaults to
  size + grace. With a jump in stream time larger than a window, windows that closed "in between" are
  therefore never emitted (ksqlDB behaves the same);
* retention: a pull query sees the windows from the newest window start - retention + 1 on
  (``store_retention.first_retained``, the store's rule); older ones are purged after each batch.
"""

from __future__ import annotations

import time
from typing import Any

from ksqlpy.runtime.accumulate import KEY
from ksqlpy.runtime.aggregator import Aggregator, encode_key
from ksqlpy.runtime.store_retention import emit_floor, first_retained, newest_window_start
from ksqlpy.state.windowed import WindowStore


class TimeWindowAggregator(Aggregator):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.windows = WindowStore(self.kv)
        self._purged_below: int | None = None

    def stream(self, items: list[tuple], out: list[tuple]) -> None:
        spec = self.spec
        size, adv, grace, having, final = spec.size, spec.advance, spec.grace, spec.having, spec.emit_final
        if spec.batch_loop is not None:  # EMIT CHANGES without HAVING: the generated loop (agg_loop)
            spec.batch_loop(self, items, out)
            self.last_input_wall = time.monotonic()
            return
        self.new_batch()
        accs, ws_store = spec.accs, self.windows
        add, new = accs.add, accs.new
        st = self.stream_time
        for key, args, ts, hd in items:
            if ts > st:
                st = ts
                self.stream_time = st
            close = st - grace
            kb = encode_key(key)
            first = max(0, ts - size + adv) // adv * adv
            for ws in range(first, ts + 1, adv):
                we = ws + size
                if we <= close:
                    self.late += 1
                    continue
                rec = ws_store.get(kb, ws)
                created = rec is None
                if created:
                    old_passed = False
                    rec = new(key, ts)
                else:
                    old_passed = having and self.passes(rec, ws, we)
                rec = add(rec, args, ts)
                ws_store.put(kb, ws, rec, new=created)
                if not final:
                    self.emit(out, rec, old_passed, ws, we, hd=hd)
            if final and self.emit_slot():
                self.emit_closed(out, hd=hd)
        self.last_input_wall = time.monotonic()

    def emit_closed(self, out: list[tuple], *, retained_only: bool = True, hd: Any = None) -> None:
        """EMIT FINAL: the windows closed since the last emission (see the module docstring).
        ``retained_only`` False (idle advance) also emits windows a record-driven jump would skip."""
        spec = self.spec
        close = self.stream_time - spec.grace
        if self.last_emit is not None and self.last_emit >= close:
            return
        upper = close - spec.size
        if upper < 0:
            return
        lo = emit_floor(self.stream_time, spec.advance, spec.retention) if retained_only else None
        if self.last_emit is not None:
            lo = max(lo if lo is not None else -(2**62), self.last_emit - spec.size + 1)
        closed = list(self.windows.fetch_all(lo, upper))
        if len(closed) > 1:
            closed.sort(key=lambda c: (c[1], spec.sort_key(c[2][KEY])))
        for _, ws, rec in closed:
            self.emit(out, rec, False, ws, ws + spec.size, hd=hd)
        self.last_emit = close

    def retained_from(self) -> int:
        """The earliest window start the store still returns (``store_retention``)."""
        return first_retained(newest_window_start(self.stream_time, self.spec.advance), self.spec.retention)

    def end_batch(self, out: list[tuple]) -> None:
        # what EMIT FINAL may still emit stays (one window start below what reads return)
        below = emit_floor(self.stream_time, self.spec.advance, self.spec.retention)
        if self._purged_below is None or below > self._purged_below:
            self.windows.purge(below)
            self._purged_below = below
        self.save_meta()

    def close_idle(self, out: list[tuple]) -> None:
        self.emit_closed(out, retained_only=False)

    def scan(self) -> list[tuple[list[Any], int | None, int | None]]:
        size, floor = self.spec.size, self.retained_from()
        return [(rec, ws, ws + size) for _, ws, rec in self.windows.all_keys() if ws >= floor]

    def lookup(self, key: tuple, ws_lo: int | None = None, ws_hi: int | None = None
               ) -> list[tuple[list[Any], int | None, int | None]]:
        size, floor = self.spec.size, self.retained_from()
        lo = floor if ws_lo is None else max(ws_lo, floor)
        return [(rec, ws, ws + size) for ws, rec in self.windows.fetch(encode_key(key), lo, ws_hi)]
