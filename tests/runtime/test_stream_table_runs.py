"""A stream-table join's run of stream records remembers, per key, the table row it joins until the table
changes that key or the batch ends (``StreamTableJoin._joins``): the results equal those of one lookup per
record (``on_left``) over random runs interleaved with table updates and deletes, INNER (with and without a
prefilter on the table row) and LEFT, across commits and aborts."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.runtime.join_store import TableStore
from ksqlpy.runtime.join_stream_table import StreamTableJoin, exact_key_types
from ksqlpy.state.store import KeyValueStore


def _join(tmp: Path, name: str, kind: str, keep: Any, out: list, exact: bool = False) -> StreamTableJoin:
    kv = KeyValueStore(str(tmp / name), None, None, 0)
    kv.restore()

    def emit(key: Any, new: Any, old: Any, ts: int, hdrs: Any) -> None:
        out.append((key, new, old, ts, hdrs))

    return StreamTableJoin(kind, TableStore(kv), emit, 2, lambda key: repr(key).encode(), keep_right=keep,
                           exact_keys=exact)


@pytest.mark.parametrize("exact", [False, True])  # remembered by key bytes, or by key (exact_key_types)
@pytest.mark.parametrize(("kind", "prefilter"), [("INNER", False), ("INNER", True), ("LEFT", False)])
def test_remembered_rows_give_one_lookup_per_record(tmp_path: Path, kind: str, prefilter: bool,
                                                    exact: bool) -> None:
    keep = (lambda r: r[0] % 3 != 0) if prefilter else None
    rnd = random.Random(f"{kind}{prefilter}")
    by_run: list = []
    by_record: list = []
    a = _join(tmp_path, "run", kind, keep, by_run, exact)
    b = _join(tmp_path, "record", kind, keep, by_record)
    ts = 0
    for step in range(400):
        ts += 1
        r = rnd.random()
        if r < 0.3:  # a table update or delete
            key = (rnd.randrange(8),)
            row = None if rnd.random() < 0.25 else (rnd.randrange(30), "t")
            for j in (a, b):
                j.on_right(key, row, None, ts, None)
        elif r < 0.33:  # the batch ends: committed, or aborted (the table's changes dropped)
            for j in (a, b):
                if step % 2:
                    j.table.kv.commit_local()
                    j.after_commit()
                else:
                    j.table.kv.abort()
                    j.abort()
        else:
            events = [(ts, 0, (None if rnd.random() < 0.05 else (rnd.randrange(8),),
                               None if rnd.random() < 0.05 else (rnd.randrange(100), "s"), None))
                      for _ in range(rnd.randrange(1, 15))]
            a.on_left_run(events, 0, len(events))
            for t, _, (key, row, hdrs) in events:
                b.on_left(key, row, None, t, hdrs)
        assert by_run == by_record
    assert any(new is not None and new[2] is not None for _, new, _, _, _ in by_run)


def test_keys_remembered_by_value_only_where_equal_values_have_equal_bytes() -> None:
    from ksqlpy.types import PRIMITIVES_BY_NAME as T

    assert exact_key_types([T["INTEGER"], T["STRING"]]) and exact_key_types([T["BIGINT"], T["BOOLEAN"]])
    assert not exact_key_types([T["DOUBLE"]])  # 0.0 == -0.0, two encodings
    assert not exact_key_types([T["INTEGER"], T["DOUBLE"]]) and not exact_key_types([])
