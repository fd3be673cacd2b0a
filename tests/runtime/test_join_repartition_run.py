"""A run of records into a repartition topic (``JoinWiring.repartition_run``, q8's auctions re-keyed by
seller) writes what ``repartition_emit`` writes record by record: the same key bytes, payloads, timestamps
and headers in the same order - re-keyed or keeping the key, with a tombstone, a NULL new key or a key
function failing on one record in the run (those runs go record by record: the failure logged once, the
record written under a null key, as ksqlDB's re-keying gives a failed key expression NULL)."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.plan.topology import ToRepartition
from ksqlpy.runtime.join_build import JoinWiring
from ksqlpy.runtime.join_task import TaskContext
from ksqlpy.runtime.processing_log import ProcessingLog


def _key(row: tuple) -> tuple | None:
    """The new key: the row's second column (NULL -> no key), failing on a negative one."""
    if row[1] is not None and row[1] < 0:
        raise ValueError("a negative seller")
    return None if row[1] is None else (row[1],)


def _wiring() -> JoinWiring:
    w = JoinWiring.__new__(JoinWiring)
    w.key_fn = lambda key: _key  # type: ignore[method-assign]
    w.codec = lambda codec: lambda key: repr(key).encode()  # type: ignore[method-assign]
    w.codec_many = lambda codec: lambda keys: [repr(k).encode() for k in keys]  # type: ignore[method-assign]
    return w


def _written(rekey: bool, events: list[tuple], runs: list[tuple[int, int]], by_run: bool) -> tuple[Any, list]:
    logged: list = []
    ctx = TaskContext(0, ProcessingLog(sink=logged.append), "Q", lambda n, c: None)  # type: ignore[arg-type,return-value]
    w = _wiring()
    target = ToRepartition("rp", object() if rekey else None, object())  # type: ignore[arg-type]
    emit = w.repartition_emit(ctx, target)
    run = w.repartition_run(ctx, target, emit)
    for i, j in runs:
        if by_run:
            run(events, i, j)
        else:
            for ts, _, (key, row, hdrs) in events[i:j]:
                emit(key, row, None, ts, hdrs)
    buf = ctx.internal_topic("rp")
    return (list(buf.keys), list(buf.payloads), list(buf.timestamps), list(buf.headers)), logged


def _events(rows: list[tuple | None]) -> list[tuple]:
    return [(100 + i, i, ((i,), row, [("h", b"x")] if i % 3 == 0 else None)) for i, row in enumerate(rows)]


PLAIN = [("a", 7), ("b", 8), ("c", 7), ("d", 9)]


@pytest.mark.parametrize("rekey", [True, False])
@pytest.mark.parametrize("rows", [
    PLAIN,
    [("a", 7), None, ("c", 7)],  # a tombstone keeps its key
    [("a", 7), ("b", None), ("c", 8)],  # a NULL new key: a null record key
    [("a", 7), ("b", -1), ("c", 8), ("d", -2)],  # the key function fails on two records
], ids=["plain", "tombstone", "null-key", "failing-key"])
def test_a_run_writes_what_record_by_record_writes(rekey: bool, rows: list) -> None:
    events = _events(rows)
    runs = [(0, 1), (1, len(events))]
    got, logged = _written(rekey, events, runs, by_run=True)
    want, want_logged = _written(rekey, events, runs, by_run=False)
    assert got == want and got[0]
    assert [e["message"]["recordProcessingError"]["errorMessage"] for e in logged] == \
        [e["message"]["recordProcessingError"]["errorMessage"] for e in want_logged]
    if rekey and rows is PLAIN:
        assert got[0] == [repr((7,)).encode(), repr((8,)).encode(), repr((7,)).encode(), repr((9,)).encode()]
    if rekey and any(r is not None and r[1] is not None and r[1] < 0 for r in rows):
        assert len(logged) == 2 and len(got[1]) == len(rows)
        assert [k for k, (_, row) in zip(got[0], got[1], strict=True) if row[1] < 0] == [None, None]
