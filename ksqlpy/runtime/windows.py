"""TUMBLING and HOPPING window aggregation, with EMIT CHANGES or EMIT FINAL and retention.

Kafka Streams' rules, which ksqlDB inherits:

* a record belongs to every window ``[start, start + size)`` holding its timestamp, starts being
  multiples of the advance (``windowsFor``), visited in ascending start order;
* a window accepts a record while ``end > stream time - grace``; otherwise the record is late for that
  window: dropped and counted;
* an update's timestamp is the max timestamp of the records in the window;
* EMIT FINAL (KIP-825 ``onWindowClose``): after each record, once stream time - grace (the close time)
  has moved, the windows that just closed go out once, ordered by (start, serialized key). As in
  Kafka Streams, a window is only found while it is retained: its start must be at least the newest
  window start written minus the retention, where retention defaults to size + grace. With a jump in
  stream time larger than a window, windows that closed "in between" are therefore never emitted (ksqlDB
  behaves the same);
* retention: windows whose start is below stream time - retention are purged after each batch.
"""

from __future__ import annotations

import time
from typing import Any

from ksqlpy.runtime.accumulate import KEY
from ksqlpy.runtime.aggregator import Aggregator, encode_key
from ksqlpy.state.windowed import WindowStore, t8


class TimeWindowAggregator(Aggregator):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.windows = WindowStore(self.kv)
        self._purged_below: int | None = None

    def stream(self, items: list[tuple], out: list[tuple]) -> None:
        spec = self.spec
        size, adv, grace, having, final = spec.size, spec.advance, spec.grace, spec.having, spec.emit_final
        fast = getattr(spec.project, "fast", None)
        if not having and not final and fast is not None:
            self._stream_changes(items, out, fast)
            return
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
                try:
                    rec = add(rec, args, ts)
                except Exception as e:  # noqa: BLE001 - a UDAF failing on one record drops it
                    self._error(e, key)
                    continue
                ws_store.put(kb, ws, rec, new=created)
                if not final:
                    self.emit(out, rec, old_passed, ws, we, hd=hd)
            if final:
                self.emit_closed(out, hd=hd)
        self.last_input_wall = time.monotonic()

    def _stream_changes(self, items: list[tuple], out: list[tuple], fast: Any) -> None:
        """``stream`` for EMIT CHANGES without HAVING, the common case, with the per-update work inlined.

        Same results as the generic loop, one output per record and window, but a window's state
        record is read from and put into the store once per batch: accumulators update the record
        list in place, so after the first put of the batch the store's pending write already holds
        it (the store pickles it at flush). Key bytes are computed once per key per batch.
        """
        spec = self.spec
        size, adv, grace = spec.size, spec.advance, spec.grace
        accs, kv = spec.accs, self.kv
        add, new, results, project = accs.add, accs.new, accs.results, spec.project
        get, put = kv.get, kv.put
        touched: dict[tuple, list[Any]] = {}  # (key, window start) -> state record, put in this batch
        kbs: dict[tuple, bytes] = {}
        append = out.append
        st = self.stream_time
        late = 0
        try:
            for key, args, ts, hd in items:
                if ts > st:
                    st = ts
                close = st - grace
                first = max(0, ts - size + adv) // adv * adv
                for ws in range(first, ts + 1, adv):
                    we = ws + size
                    if we <= close:
                        late += 1
                        continue
                    tk = (key, ws)
                    try:
                        rec = touched.get(tk)
                    except TypeError:  # an unhashable key value (STRUCT, ARRAY, MAP): its bytes stand in
                        tk = (encode_key(key), ws)
                        rec = touched.get(tk)
                    if rec is None:
                        if tk[0] is key:
                            kb = kbs.get(key)
                            if kb is None:
                                kb = kbs[key] = encode_key(key)
                        else:
                            kb = tk[0]
                        sk = b"W" + kb + t8(ws)
                        rec = get(sk)
                        created = rec is None
                        if created:
                            rec = new(key, ts)
                        try:
                            rec = add(rec, args, ts)
                        except Exception as e:  # noqa: BLE001 - a UDAF failing on one record drops it
                            self._error(e, key)
                            continue
                        put(sk, rec)
                        if created:
                            put(b"I" + t8(ws) + kb, 1)
                        touched[tk] = rec
                    else:
                        try:
                            add(rec, args, ts)
                        except Exception as e:  # noqa: BLE001
                            self._error(e, key)
                            continue
                    row = rec[1] + results(rec) + (ws, we, rec[0])
                    try:
                        k, v, _ = fast(row)
                    except Exception:  # noqa: BLE001 - the projector's slow path logs and NULLs
                        k, v, _ = project(row)
                    append(((k, ws, we), v, rec[0], hd))
        finally:
            self.stream_time = st
            self.late += late
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
        # the window store's "observed time" is the newest window start written (Kafka Streams measures
        # retention from it, not from the record time)
        newest = self.stream_time // spec.advance * spec.advance
        lo = newest - spec.retention if retained_only else None
        if self.last_emit is not None:
            lo = max(lo if lo is not None else -(2**62), self.last_emit - spec.size + 1)
        closed = list(self.windows.fetch_all(lo, upper))
        if len(closed) > 1:
            closed.sort(key=lambda c: (c[1], spec.sort_key(c[2][KEY])))
        for _, ws, rec in closed:
            self.emit(out, rec, False, ws, ws + spec.size, hd=hd)
        self.last_emit = close

    def end_batch(self, out: list[tuple]) -> None:
        below = self.stream_time - self.spec.retention
        if self._purged_below is None or below > self._purged_below:
            self.windows.purge(below)
            self._purged_below = below
        self.save_meta()

    def close_idle(self, out: list[tuple]) -> None:
        self.emit_closed(out, retained_only=False)

    def scan(self) -> list[tuple[list[Any], int | None, int | None]]:
        size = self.spec.size
        return [(rec, ws, ws + size) for _, ws, rec in self.windows.all_keys()]

    def lookup(self, key: tuple, ws_lo: int | None = None, ws_hi: int | None = None
               ) -> list[tuple[list[Any], int | None, int | None]]:
        size = self.spec.size
        return [(rec, ws, ws + size) for ws, rec in self.windows.fetch(encode_key(key), ws_lo, ws_hi)]
