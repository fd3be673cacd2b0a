"""A stream-stream join's run of one side's records (``StreamStreamJoin._one_run``, the window store's
``adder``, its writes kept back until the flush) gives what the record-by-record path gives: the same
results in the same order, the same window-store index and stream time, and at each flush the same store
writes in the same order - over every join kind without a waiting
outer store, random keys and timestamps (out of order, tied, expiring on arrival), NULL keys and rows, and
a store whose index no longer holds the oldest records."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.runtime.join_store import WindowStore
from ksqlpy.runtime.join_stream_stream import StreamStreamJoin
from ksqlpy.state.store import KeyValueStore


def _join(tmp: Path, name: str, kind: str, retention_ms: int, max_cached: int, out: list) -> StreamStreamJoin:
    def store(side: str) -> WindowStore:
        kv = KeyValueStore(str(tmp / f"{name}-{side}"), None, None, 0)
        kv.restore()
        return WindowStore(kv, retention_ms, max_cached=max_cached)

    def emit(key: Any, new: Any, old: Any, ts: int, hdrs: Any) -> None:
        out.append((key, new, old, ts, hdrs))

    j = StreamStreamJoin(kind, (50, 30, retention_ms - 80, False), store("this"), store("other"), None, emit,
                         2, 2, lambda key: repr(key).encode())
    j.init()
    return j


def _events(rnd: random.Random, n: int) -> list[tuple[bool, list[tuple]]]:
    """Runs of (left?, events) with timestamps mostly ascending, some out of order, tied or far behind."""
    runs = []
    ts = 1000
    for _ in range(n):
        left = rnd.random() < 0.5
        events = []
        for _ in range(rnd.randrange(1, 12)):
            ts += rnd.choice((0, 0, 3, 10, 40))
            t = ts - rnd.choice((0, 0, 0, 25, 400)) if rnd.random() < 0.2 else ts
            key = None if rnd.random() < 0.05 else (rnd.randrange(6),)
            row = None if rnd.random() < 0.05 else (rnd.randrange(100), "r")
            events.append((t, 0, (key, row, [("h", b"1")] if rnd.random() < 0.1 else None)))
        runs.append((left, events))
    return runs


def _state(j: StreamStreamJoin) -> Any:
    def one(w: WindowStore) -> Any:
        return (w.observed, w.seq, w.cached, w.cached_from, {k: list(v) for k, v in w.index.items()},
                {k: set(v) for k, v in w._buckets.items()}, sorted(w._heap), {k: list(v) for k, v in w.pending.items()})
    return j.stream_time, one(j.this), one(j.other)


def _written(j: StreamStreamJoin) -> Any:
    """What each window store's batch wrote (the changelog's order)."""
    return [(list(w.kv.dirty.items()), list(w.kv.changed.items())) for w in (j.this, j.other)]


@pytest.mark.parametrize("kind", ["INNER", "LEFT", "RIGHT", "FULL"])
@pytest.mark.parametrize(("retention_ms", "max_cached"), [(100_000, 100_000), (300, 100_000), (100_000, 20)])
def test_a_run_gives_what_record_by_record_gives(tmp_path: Path, kind: str, retention_ms: int, max_cached: int) -> None:
    rnd = random.Random(f"{kind}{retention_ms}{max_cached}")
    runs = _events(rnd, 120)
    by_run: list = []
    by_record: list = []
    a = _join(tmp_path, "run", kind, retention_ms, max_cached, by_run)
    b = _join(tmp_path, "record", kind, retention_ms, max_cached, by_record)
    for n, (left, events) in enumerate(runs):
        (a.on_left_run if left else a.on_right_run)(events, 0, len(events))
        for ts, _, (key, row, hdrs) in events:
            b._process(key, row, ts, hdrs, left)
        assert by_run == by_record
        assert _state(a) == _state(b)
        if n % 10 == 9 or n == len(runs) - 1:  # a commit: the stores written, then eviction and expiry
            for j in (a, b):
                j.flush(None)
            assert _written(a) == _written(b)
            for j in (a, b):
                for w in (j.this, j.other):
                    w.kv.flush(None)  # type: ignore[arg-type]
                    w.kv.commit_local()
                j.after_commit()
            assert _state(a) == _state(b)
    assert by_run


@pytest.mark.parametrize("kind", ["INNER", "LEFT", "RIGHT", "FULL"])
@pytest.mark.parametrize(("retention_ms", "max_cached"), [(100_000, 100_000), (300, 100_000), (100_000, 20)])
def test_a_batch_of_runs_gives_what_record_by_record_gives(tmp_path: Path, kind: str, retention_ms: int,
                                                           max_cached: int) -> None:
    """``on_runs`` over a batch of both sides' runs (in one loop when the stores take the batch, else run by
    run): the same results in the same order, state and store writes as the record-by-record path."""
    rnd = random.Random(f"batch{kind}{retention_ms}{max_cached}")
    runs = _events(rnd, 200)
    by_batch: list = []
    by_record: list = []
    a = _join(tmp_path, "batch", kind, retention_ms, max_cached, by_batch)
    b = _join(tmp_path, "record", kind, retention_ms, max_cached, by_record)
    k = 0
    while k < len(runs):
        n = rnd.randrange(1, 15)
        schedule = []
        for left, events in runs[k:k + n]:
            i = rnd.randrange(2) if len(events) > 1 else 0  # a run is a slice of its input's events
            schedule.append((left, events, i, len(events)))
            for ts, _, (key, row, hdrs) in events[i:]:
                b._process(key, row, ts, hdrs, left)
        a.on_runs(schedule)
        k += n
        assert by_batch == by_record
        assert _state(a) == _state(b)
        for j in (a, b):
            j.flush(None)
        assert _written(a) == _written(b)
        for j in (a, b):
            for w in (j.this, j.other):
                w.kv.flush(None)  # type: ignore[arg-type]
                w.kv.commit_local()
            j.after_commit()
        assert _state(a) == _state(b)
    assert by_batch


def test_a_batch_of_ordered_runs_takes_the_one_loop(tmp_path: Path) -> None:
    """Timestamps in order within the retention: the window stores take the batch (``takes_batch``), which
    ``on_runs`` then runs in one loop; a record that would expire on arrival makes them refuse it."""
    out: list = []
    j = _join(tmp_path, "ordered", "INNER", 100_000, 100_000, out)
    assert j.this.takes_batch([1000, 1005, 1003]) and j.other.takes_batch([])
    j.on_runs([(True, [(1000, 0, ((1,), (1, "a"), None))], 0, 1),
               (False, [(1010, 0, ((1,), (2, "b"), None))], 0, 1)])
    assert out == [((1,), (1, "a", 2, "b"), None, 1010, None)]
    assert not j.this.takes_batch([1000 - 100_000]) and j.this.takes_batch([1001 - 100_000])
