"""Stream-stream join (``WITHIN``), with Kafka Streams' KStreamKStreamJoin semantics as ksqlDB uses them.

- Each side's records go to its window store (retention before + after + grace); a record joins the
  other side's records with ``ts - before <= other <= ts + after`` (right records: the window mirrored)
  that are still visible in that store. Output timestamp: max(left, right).
- Without GRACE PERIOD (ksqlDB's ``JoinWindows.of``): grace is 24h minus twice the window, and an
  unmatched LEFT/RIGHT/FULL record is emitted null-padded at once (a later match adds a joined row).
- With GRACE PERIOD (the spurious-results fix): the unmatched record waits in the outer store and is
  emitted null-padded only once its window has closed (stream time > ts + window + grace), unless a
  match arrives first; a record whose window already ended when it arrived is emitted at once.
  The look for closed windows runs after a record at stream time, at most once per
  ``__emit.interval.ms.kstreams.outer.join.spurious.results.fix__`` (default 1000) ms of wall-clock time,
  from the first look on: Kafka Streams' TimeTracker (``nextTimeToEmit``), shared by both sides, in memory.
  A held-back record goes out at a later look; in ksqlDB's tests (a clock that never moves) only the first
  look happens unless the interval is 0.
- Stream time is shared by both sides; records with a NULL value are skipped, and so are records with a
  NULL key (a null Kafka key, or a NULL join expression) - except on an outer side (the left of LEFT,
  either of FULL), where Kafka Streams (KIP-962) emits them at once, null-padded and with a null key.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from ksqlpy.runtime.join_native import NATIVE
from ksqlpy.runtime.join_rows import kept
from ksqlpy.runtime.join_store import OuterStore, WindowStore
from ksqlpy.runtime.join_task import ResultRows, TaskContext
from ksqlpy.runtime.processor import BaseOperator

_MAX = 1 << 62
_TS = itemgetter(0)
_META = b"\x00ss-time"
_ADD_FINAL = TaskContext.add_final
_ADD_ROW = ResultRows.add

Emit = Callable[[Any, Any, Any, int, Any], None]


def wall_ms() -> float:
    """The wall clock the outer store's look is throttled on (ms; a module function so tests can set it)."""
    return time.monotonic() * 1000.0


class StreamStreamJoin(BaseOperator):
    def __init__(self, kind: str, within: tuple[int, int, int, bool], this: WindowStore, other: WindowStore,
                 outer: OuterStore | None, emit: Emit, left_width: int, right_width: int,
                 key_bytes: Callable[[tuple], bytes], keep_pair: Callable[[tuple], bool] | None = None,
                 exact_keys: bool = False, emit_interval_ms: int = 1000) -> None:
        """``within``: (before, after, grace, spurious-results fix), as ksqlDB builds its JoinWindows
        (``plan.lower_join.join_windows``). ``keep_pair`` (INNER joins): a matched pair's joined blocks
        failing it are not emitted - the WHERE after the join would drop the row
        (``plan.join_prefilter.pair_prefilter``); the records are stored and move time as ever.
        ``exact_keys``: two keys are equal exactly when their bytes are (``join_stream_table.exact_key_types``),
        so the C loop encodes a key repeated in a batch once. ``emit_interval_ms``: the outer store's look
        throttle (``_may_look``)."""
        self.before, self.after, self.grace, fix = within
        self.left_outer = kind in ("LEFT", "FULL")
        self.right_outer = kind in ("RIGHT", "FULL")
        self.this = this  # left side's records
        self.other = other  # right side's records
        self.outer = outer if fix and (self.left_outer or self.right_outer) else None
        self.emit = emit
        self.lnull = (None,) * left_width
        self.rnull = (None,) * right_width
        self.key_bytes = key_bytes
        assert keep_pair is None or kind == "INNER"
        self.keep_pair = keep_pair
        self.exact_keys = exact_keys
        self.native = NATIVE  # the batch loop in C (``join_native``), or None: the Python loop
        self.emit_interval_ms = emit_interval_ms
        self._next_look: float | None = None  # wall-clock ms before which the outer store is not looked at
        self.stream_time, self.min_time = -_MAX, _MAX
        # what a run of each side reads, looked up once (q8's runs are ~6 records: per-run set-up counts)
        self._sides = {
            True: (self.before, self.after, self.left_outer, other.fetch, self.rnull),
            False: (self.after, self.before, self.right_outer, this.fetch, self.lnull),
        }

    def init(self) -> None:
        """Stream time and the oldest pending outer record, and each window store's meta, from the stores."""
        self.this.load()
        self.other.load()
        meta = self.this.kv.get(_META)
        self.stream_time, self.min_time = meta if meta is not None else (-_MAX, _MAX)

    # -------------------------------------------------------------------- inputs
    def on_left(self, key: Any, row: Any, old: Any, ts: int, hdrs: Any) -> None:
        self._process(key, row, ts, hdrs, left=True)

    def on_right(self, key: Any, row: Any, old: Any, ts: int, hdrs: Any) -> None:
        self._process(key, row, ts, hdrs, left=False)

    def on_left_run(self, events: list[tuple], i: int, j: int) -> None:
        self._one_run(events, i, j, True)

    def on_right_run(self, events: list[tuple], i: int, j: int) -> None:
        self._one_run(events, i, j, False)

    def _one_run(self, events: list[tuple], i: int, j: int, left: bool) -> None:
        """A run of one side's records: without a waiting outer store, ``_runs`` (each record stored as
        soon as it has probed - by ``WindowStore.adder`` when the store takes the run's times, else by
        ``put``); with one, record by record."""
        if self.outer is None:
            mine = self.this if left else self.other
            inline = mine.takes_batch(list(map(_TS, events[i:j])))
            self._runs([(left, events, i, j)], {left: mine.adder() if inline else mine.put}, inline)
            return
        process = self._process
        for ts, _, (key, row, hdrs) in events[i:j]:
            process(key, row, ts, hdrs, left)

    def on_runs(self, schedule: list[tuple[bool, list[tuple], int, int]]) -> None:
        """A batch's runs of both sides in processing order - ``(left, events, i, j)``: ``events[i:j]`` of the
        left or right input - in one loop, each record stored at once (``WindowStore.adder``): the same results,
        order and store writes as ``on_left_run``/``on_right_run`` per run, without their per-run set-up (q8's
        runs average ~6 records). With an outer store, or records the window stores would not take in bulk
        (``WindowStore.takes_batch``), run by run."""
        if self.outer is None:
            times: dict[bool, list[int]] = {True: [], False: []}
            for left, events, i, j in schedule:
                times[left] += map(_TS, events[i:j])
            if self.this.takes_batch(times[True]) and self.other.takes_batch(times[False]):
                self._runs(schedule, {True: self.this.adder(), False: self.other.adder()}, True)
                return
        for left, events, i, j in schedule:
            self._one_run(events, i, j, left)

    def _runs(self, schedule: list[tuple[bool, list[tuple], int, int]],
              adders: dict[bool, Callable[[bytes, int, Any], None]], inline: bool = False) -> None:
        """``_process`` over runs when no record waits in an outer store: each record probes the other side's
        store and emits as ``_process`` does, then goes into its own side's store by that side's adder - a
        probe reads only the other side's store, so storing right after the probe is what storing first does
        to the results. ``inline``: the adders are the stores' own (``WindowStore.adder``), so the C loop
        (``join_native``) may do their work."""
        emit, key_bytes, keep = self.emit, self.key_bytes, self.keep_pair
        if inline and self.native is not None:
            # the join's result straight into the task's list when that is where ``emit`` puts it
            func = getattr(emit, "__func__", None)
            final = emit.__self__.final if func is _ADD_FINAL else None  # type: ignore[attr-defined]
            if func is _ADD_ROW and keep is None and getattr(self.native, "RESULT_ROWS", 0):
                final = emit.__self__.sink()  # type: ignore[attr-defined]
            st = self.native.runs(schedule, self.this, self.other, self.before, self.after, self.left_outer,
                                  self.right_outer, self.lnull, self.rnull, emit, final, key_bytes, keep,
                                  {} if self.exact_keys else None, self.stream_time)
            if st is not NotImplemented:
                self.stream_time = st
                return
        sides = self._sides
        stream_time = self.stream_time
        for left, events, i, j in schedule:
            before, after, outer, fetch, pad = sides[left]
            add = adders[left]
            for ts, _, (key, row, hdrs) in events[i:j]:
                if ts > stream_time:
                    stream_time = ts
                if key is None or row is None:
                    if key is None and row is not None and outer:
                        emit(None, row + pad if left else pad + row, None, ts, hdrs)
                    continue
                kb = key_bytes(key)
                lo = ts - before
                hi = ts + after
                matched = False
                for other_ts, _, other_row in fetch(kb, lo if lo > 0 else 0, hi if hi > 0 else 0):
                    matched = True
                    joined = row + other_row if left else other_row + row
                    if keep is None or kept(keep, joined):
                        emit(key, joined, None, ts if ts > other_ts else other_ts, hdrs)
                if outer and not matched:
                    emit(key, row + pad if left else pad + row, None, ts, hdrs)
                add(kb, ts, row)
        self.stream_time = stream_time

    def _process(self, key: Any, row: Any, ts: int, hdrs: Any, left: bool) -> None:
        before, after = (self.before, self.after) if left else (self.after, self.before)
        time_from = max(0, ts - before)
        time_to = max(0, ts + after)
        if ts > self.stream_time:
            self.stream_time = ts
        if key is None or row is None:
            if key is None and row is not None and (self.left_outer if left else self.right_outer):
                self.emit(None, row + self.rnull if left else self.lnull + row, None, ts, hdrs)
            return
        kb = self.key_bytes(key)
        mine, theirs = (self.this, self.other) if left else (self.other, self.this)
        mine.put(kb, ts, row)
        if self.outer is not None and ts == self.stream_time:
            self._emit_non_joined(left, hdrs)
        matched = False
        emit = self.emit
        for other_ts, _, other_row in theirs.fetch(kb, time_from, time_to):
            matched = True
            if self.outer is not None:
                self.outer.remove(other_ts, not left, kb)
            joined = row + other_row if left else other_row + row
            if self.keep_pair is None or kept(self.keep_pair, joined):
                emit(key, joined, None, ts if ts > other_ts else other_ts, hdrs)
        if matched or not (self.left_outer if left else self.right_outer):
            return
        if self.outer is None or time_to < self.stream_time:
            emit(key, row + self.rnull if left else self.lnull + row, None, ts, hdrs)
        else:
            self.outer.add(ts, left, kb, key, row)
            if ts < self.min_time:
                self.min_time = ts

    def _emit_non_joined(self, left: bool, hdrs: Any) -> None:
        """Emit the waiting unmatched records whose window has closed (Kafka Streams' order and checks)."""
        assert self.outer is not None
        this_after = self.after if left else self.before
        if self.min_time + this_after + self.grace >= self.stream_time or not self._may_look():
            return
        # the minimum becomes the time of the last record looked at; none looked at (a match emptied the
        # store) leaves it where it was, lower than a record added later - Kafka Streams' TimeTracker
        left_open = right_open = False
        done = []
        for k, ts, is_left, entries in self.outer.entries():
            if left_open and right_open:
                break
            self.min_time = ts
            lookback = self.after if is_left else self.before
            if ts + lookback + self.grace >= self.stream_time:
                if is_left:
                    left_open = True
                else:
                    right_open = True
                continue
            for key, row in entries:
                self.emit(key, row + self.rnull if is_left else self.lnull + row, None, ts, hdrs)
            done.append(k)
        for k in done:
            self.outer.delete_key(k)

    def _may_look(self) -> bool:
        """Whether this look at the outer store may run: Kafka Streams throttles it on wall-clock time once a
        record might have closed its window - the first look sets the schedule, each look moves it one
        interval on (from the schedule, not from now: after a pause looks catch up)."""
        now = wall_ms()
        nxt = self._next_look
        if nxt is not None and now < nxt:
            return False
        self._next_look = (now if nxt is None else nxt) + self.emit_interval_ms
        return True

    # -------------------------------------------------------------------- batch boundaries
    def flush(self, tx: Any) -> None:
        self.this.write_puts()  # the batch's records before the meta entries, in the order they came
        self.other.write_puts()
        self.this.kv.put(_META, (self.stream_time, self.min_time))
        self.this.before_flush()
        self.other.before_flush()

    def after_commit(self) -> None:
        self.this.after_commit()
        self.other.after_commit()

    def abort(self) -> None:
        self.this.abort()
        self.other.abort()
        meta = self.this.kv.get(_META)
        self.stream_time, self.min_time = meta if meta is not None else (-_MAX, _MAX)
