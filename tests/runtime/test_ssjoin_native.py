"""The stream-stream join's batch loop in C (``runtime.join_native``, ``_ssjoin.c``) against the Python loop it
replaces: the same results in the same order, the same window-store state (index, buckets, heap, counters,
kept-back records) and the same store writes at each flush - over every join kind without a waiting outer
store, random keys and timestamps (out of order, tied, expiring on arrival), NULL keys and rows, a store
whose index no longer holds the oldest records (probes below it), a pair prefilter that drops, keeps and
fails, the key-bytes memo, and results put straight into the task's list or built as the task's result rows
(``join_task.ResultRows``). Also: the LMDB keys ``window_keys``
builds are ``write_puts``'s Python bytes, and what the loop refuses it leaves untouched."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.runtime import join_store
from ksqlpy.runtime.join_native import NATIVE
from ksqlpy.runtime.join_store import WindowStore
from ksqlpy.runtime.join_stream_stream import StreamStreamJoin
from ksqlpy.runtime.join_task import ResultRows, TaskContext
from ksqlpy.state.store import KeyValueStore

pytestmark = pytest.mark.skipif(NATIVE is None, reason="the _ssjoin extension is not built")


class _Boom(Exception):
    pass


def _keep(row: tuple) -> bool:
    """A pair prefilter over (left value, "l", right value, "r"): drops some pairs and fails on others (a
    failure keeps the row, as ``join_rows.kept`` does)."""
    if row[0] is not None and row[2] is not None and (row[0] + row[2]) % 7 == 0:
        raise ZeroDivisionError("from the prefilter")
    return row[0] is None or row[2] is None or (row[0] + row[2]) % 3 != 0


def _join(tmp: Path, name: str, kind: str, retention_ms: int, max_cached: int, native: bool, out: list,
          keep: bool, exact: bool, to_final: bool | str) -> tuple[StreamStreamJoin, TaskContext | None]:
    """``to_final``: False (results to an emit function), True (the task's list of changes) or "rows" (the
    task's result rows)."""
    def store(side: str) -> WindowStore:
        kv = KeyValueStore(str(tmp / f"{name}-{side}"), None, None, 0)
        kv.restore()
        return WindowStore(kv, retention_ms, max_cached=max_cached)

    ctx = None
    if to_final == "rows":
        ctx = TaskContext(0, None, "q", lambda n, c: None)  # type: ignore[arg-type,return-value]
        ctx.result_rows = ResultRows(1)
        emit: Any = ctx.result_rows.add
    elif to_final:
        ctx = TaskContext(0, None, "q", lambda n, c: None)  # type: ignore[arg-type,return-value]
        emit = ctx.add_final
    else:
        def emit(key: Any, new: Any, old: Any, ts: int, hdrs: Any) -> None:
            out.append((key, new, old, ts, hdrs))

    j = StreamStreamJoin(kind, (50, 30, retention_ms - 80, False), store("this"), store("other"), None, emit,
                         2, 2, lambda key: repr(key).encode(), keep_pair=_keep if keep else None, exact_keys=exact)
    if not native:
        j.native = None
    j.init()
    return j, ctx


def _events(rnd: random.Random, n: int) -> list[tuple[bool, list[tuple]]]:
    runs = []
    ts = 1000
    for _ in range(n):
        left = rnd.random() < 0.5
        events = []
        for _ in range(rnd.randrange(1, 12)):
            ts += rnd.choice((0, 0, 3, 10, 40))
            t = ts - rnd.choice((0, 0, 0, 25, 400)) if rnd.random() < 0.2 else ts
            key = None if rnd.random() < 0.05 else (rnd.randrange(6),)
            row = None if rnd.random() < 0.05 else (rnd.randrange(100), "l" if left else "r")
            events.append((t, 0, (key, row, [("h", b"1")] if rnd.random() < 0.1 else None)))
        runs.append((left, events))
    return runs


def _state(j: StreamStreamJoin) -> Any:
    def one(w: WindowStore) -> Any:
        return (w.observed, w.seq, w.cached, w.cached_from, {k: list(v) for k, v in w.index.items()},
                {k: set(v) for k, v in w._buckets.items()}, list(w._heap), {k: list(v) for k, v in w.pending.items()},
                [list(c) for c in w._puts])
    return j.stream_time, one(j.this), one(j.other)


def _written(j: StreamStreamJoin) -> Any:
    return [(list(w.kv.dirty.items()), list(w.kv.changed.items())) for w in (j.this, j.other)]


def _results(out: list, ctx: TaskContext | None) -> Any:
    if ctx is not None and ctx.result_rows is not None:
        r = ctx.result_rows
        return list(r.rows), list(r.timestamps), list(r.headers), list(r.null_keys)
    return list(ctx.final) if ctx is not None else list(out)


@pytest.mark.parametrize("kind", ["INNER", "LEFT", "RIGHT", "FULL"])
@pytest.mark.parametrize(("retention_ms", "max_cached"), [(100_000, 100_000), (300, 100_000), (100_000, 20)])
@pytest.mark.parametrize(("keep", "exact", "to_final"), [(False, False, False), (True, True, True),
                                                          (True, False, False), (False, True, True),
                                                          (False, True, "rows"), (False, False, "rows")])
def test_the_c_loop_gives_what_the_python_loop_gives(tmp_path: Path, kind: str, retention_ms: int, max_cached: int,
                                                     keep: bool, exact: bool, to_final: bool | str) -> None:
    if keep and kind != "INNER":
        pytest.skip("a pair prefilter is for INNER joins")
    rnd = random.Random(f"native{kind}{retention_ms}{max_cached}{keep}{exact}")
    runs = _events(rnd, 200)
    out_c: list = []
    out_py: list = []
    c, ctx_c = _join(tmp_path, "c", kind, retention_ms, max_cached, True, out_c, keep, exact, to_final)
    py, ctx_py = _join(tmp_path, "py", kind, retention_ms, max_cached, False, out_py, keep, exact, to_final)
    calls = []
    sinks: list[type] = []
    real = NATIVE.runs  # type: ignore[union-attr]

    class Spy:
        RESULT_ROWS = NATIVE.RESULT_ROWS  # type: ignore[union-attr]

        @staticmethod
        def runs(*args: Any) -> Any:
            r = real(*args)
            calls.append(r is not NotImplemented)
            sinks.append(type(args[10]))  # what the results went to: None, the list, or the rows' sink
            return r

    c.native = Spy  # type: ignore[assignment]
    k = 0
    while k < len(runs):
        n = rnd.randrange(1, 15)
        schedule = []
        for left, events in runs[k:k + n]:
            i = rnd.randrange(2) if len(events) > 1 else 0
            schedule.append((left, events, i, len(events)))
        if rnd.random() < 0.3:  # a run on its own (``on_left_run``/``on_right_run``)
            for left, events, i, j in schedule:
                for x in (c, py):
                    (x.on_left_run if left else x.on_right_run)(events, i, j)
        else:
            c.on_runs(schedule)
            py.on_runs(schedule)
        k += n
        assert _results(out_c, ctx_c) == _results(out_py, ctx_py)
        assert _state(c) == _state(py)
        for x in (c, py):
            x.flush(None)
        assert _written(c) == _written(py)
        for x in (c, py):
            for w in (x.this, x.other):
                w.kv.flush(None)  # type: ignore[arg-type]
                w.kv.commit_local()
            x.after_commit()
        assert _state(c) == _state(py)
    assert _results(out_c, ctx_c) and any(calls)
    if to_final == "rows":  # the C loop built the rows (a NULL key's among them, for the outer kinds)
        assert ctx_c is not None and ctx_c.result_rows is not None and ctx_c.result_rows.rows
        assert kind == "INNER" or ctx_c.result_rows.null_keys
    assert set(sinks) == {tuple if to_final == "rows" else list if to_final else type(None)}


def test_an_emit_that_fails_leaves_the_stores_as_the_python_loop_does(tmp_path: Path) -> None:
    """The exception goes up as it is; what was indexed before it is counted in both loops alike."""
    def make(native: bool) -> tuple[StreamStreamJoin, list]:
        seen: list = []

        def emit(key: Any, new: Any, old: Any, ts: int, hdrs: Any) -> None:
            seen.append((key, new, ts))
            if len(seen) == 3:
                raise _Boom("emit")

        j, _ = _join(tmp_path, f"boom{native}", "INNER", 100_000, 100_000, native, [], False, False, False)
        j.emit = emit
        return j, seen

    events = [(1000 + i, 0, ((1,), (i, "l" if i % 2 else "r"), None)) for i in range(8)]
    schedule = [(i % 2 == 1, events, i, i + 1) for i in range(8)]
    c, seen_c = make(True)
    py, seen_py = make(False)
    with pytest.raises(_Boom):
        c.on_runs(schedule)
    with pytest.raises(_Boom):
        py.on_runs(schedule)
    assert seen_c == seen_py
    assert _state(c) == _state(py)


def test_a_batch_the_loop_refuses_is_left_untouched(tmp_path: Path) -> None:
    """A timestamp beyond +-2**61, or an event not shaped as the channels build them: NotImplemented before
    anything is stored, and the Python loop takes the batch."""
    j, _ = _join(tmp_path, "refused", "INNER", 1 << 63, 100_000, True, [], False, False, False)
    before = _state(j)
    big = [(1 << 62, 0, ((1,), (1, "l"), None))]
    args = (j.this, j.other, j.before, j.after, False, False, j.lnull, j.rnull, j.emit, None, j.key_bytes, None, None,
            j.stream_time)
    assert NATIVE.runs([(True, big, 0, 1)], *args) is NotImplemented  # type: ignore[union-attr]
    assert NATIVE.runs([(True, [(1000, 0, ((1,), (1, "l")))], 0, 1)], *args) is NotImplemented  # type: ignore[union-attr]
    # a window beyond what the loop's arithmetic holds (retention 2**63 ms): refused too, not an error
    assert NATIVE.runs([(True, [(1000, 0, ((1,), (1, "l"), None))], 0, 1)], *args) is NotImplemented  # type: ignore[union-attr]
    assert _state(j) == before


def test_a_window_beyond_the_loops_arithmetic_runs_in_python(tmp_path: Path) -> None:
    out_c: list = []
    out_py: list = []
    c, _ = _join(tmp_path, "wide-c", "LEFT", 1 << 63, 100_000, True, out_c, False, False, False)
    py, _ = _join(tmp_path, "wide-py", "LEFT", 1 << 63, 100_000, False, out_py, False, False, False)
    events = [(1000 + i, 0, ((i % 2,), (i, "l" if i % 3 else "r"), None)) for i in range(9)]
    schedule = [(i % 3 != 0, events, i, i + 1) for i in range(9)]
    c.on_runs(schedule)
    py.on_runs(schedule)
    assert out_c == out_py and out_c
    assert _state(c) == _state(py)


@pytest.mark.parametrize("seed", range(5))
def test_window_keys_are_the_python_keys(seed: int) -> None:
    rnd = random.Random(seed)
    n = 200
    kbs = [bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 20))) for _ in range(n)]
    tss = [rnd.choice((0, 1, -1, 59_999, 60_000, -60_001, 1 << 40, -(1 << 40), (1 << 61), -(1 << 61)))
           + rnd.randrange(-5, 5) * rnd.randrange(2) for _ in range(n)]
    tss = [max(-(1 << 61), min(1 << 61, t)) for t in tss]
    seqs = [rnd.choice((0, 1, 0xFFFFFFFF, rnd.randrange(1 << 32))) for _ in range(n)]
    for segment in (60_000, 1, 86_400_000):
        expected = [join_store._HEAD.pack(join_store._WINDOW, ts // segment + join_store._OFF, len(kb)) + kb
                    + join_store._QI.pack(ts + join_store._OFF, q) for kb, ts, q in zip(kbs, tss, seqs, strict=True)]
        assert NATIVE.window_keys(kbs, tss, seqs, segment) == expected  # type: ignore[union-attr]


def test_window_keys_refuse_what_the_layout_cannot_hold() -> None:
    for kbs, tss, seqs in (([b"k"], [1 << 62], [1]), ([b"k"], [1], [1 << 32]), (["k"], [1], [1]), ([b"k"], [1], [-1])):
        with pytest.raises((OverflowError, TypeError, ValueError)):
            NATIVE.window_keys(kbs, tss, seqs, 60_000)  # type: ignore[union-attr]


def test_records_of_atomic_values_enter_the_index_untracked_by_the_cyclic_gc(tmp_path: Path) -> None:
    """A record whose block holds only atomic values (and its index entry) is untracked from the cyclic GC as
    it is indexed - what CPython's collector does at its first scan; a block holding a list stays tracked."""
    import gc

    j, _ = _join(tmp_path, "gc", "INNER", 100_000, 100_000, True, [], False, True, False)
    plain = (1, "a", 2.5, b"x", None, True)
    nested = (1, ["a"], None)
    events = [(1000, 0, ((1,), tuple(list(plain)), None)), (1001, 0, ((2,), nested, None))]
    assert gc.is_tracked(events[0][2][1])
    j.on_runs([(True, events, 0, 2)])
    (e1,), (e2,) = j.this.index[repr((1,)).encode()], j.this.index[repr((2,)).encode()]
    assert e1[2] == plain and not gc.is_tracked(e1[2]) and not gc.is_tracked(e1)
    assert e2[2] is nested and gc.is_tracked(e2[2]) and gc.is_tracked(e2)
    # each key's list of entries is untracked (record data only: no cycle can pass through it), whatever its
    # entries hold, and stays a working list: later records append to it, in (ts, seq) order
    lists = j.this.index[repr((1,)).encode()], j.this.index[repr((2,)).encode()]
    assert not any(gc.is_tracked(x) for x in lists)
    j.on_runs([(True, [(1003, 0, ((1,), (3,), None)), (1002, 0, ((1,), (2,), None))], 0, 2)])
    assert [e[0] for e in j.this.index[repr((1,)).encode()]] == [1000, 1002, 1003]
    assert not gc.is_tracked(j.this.index[repr((1,)).encode()])
