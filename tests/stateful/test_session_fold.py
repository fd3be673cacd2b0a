"""SESSION windows with the record cache folded key by key (``runtime.session_fold``): the outputs and
the stored sessions are those of the record-by-record loop (``runtime.session_batch``), batch after batch.

(Every session path against a model of Kafka Streams, HAVING and EMIT FINAL included: ``test_session_deletes``.)"""

from __future__ import annotations

import random
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.runtime import session_windows
from tests.stateful.conftest import Harness

STREAM = "CREATE STREAM S (K STRING KEY, G STRING, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
CACHED = 10_000_000


def _engine(tmp: Any, cache: int) -> Engine:
    return Engine(str(tmp), {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": cache})


def _run(tmp: Any, cache: int, sql: str, batches: list[list[tuple[str, int | None, int]]],
         mp: pytest.MonkeyPatch | None = None) -> tuple[list, list]:
    """Each inner list is one batch; returns the sink's records and every row of the table read back by a pull
    query (a key lookup of every key written: a session table allows no scan). With ``mp``
    the batches go record by record (``session_batch``) instead of key by key."""
    if mp is not None:
        mp.setattr(session_windows, "fold_sessions", lambda *a: False)
    engine = _engine(tmp, cache)
    try:
        h = Harness(engine)
        h.sql(STREAM)
        h.sql(sql)
        for batch in batches:
            for k, v, ts in batch:
                h.send("s", k, {"G": k, "V": v}, ts)
            h.run()
        keys = {k for batch in batches for k, _, _ in batch}
        return h.read("T"), sorted(h.pull_keys("T", "K", keys), key=repr)
    finally:
        engine.close()
        if mp is not None:
            mp.undo()


def _batches(seed: int, n: int, keys: str, spread: int, disorder: int) -> list[list[tuple[str, int | None, int]]]:
    """Records mostly in time order (each key's sessions grow, merge, get bridged), cut into batches."""
    rnd = random.Random(seed)
    t = 0
    recs = []
    for _ in range(n):
        t += rnd.randrange(0, spread)
        recs.append((rnd.choice(keys), rnd.choice([None, *range(0, 9)]), max(0, t - rnd.randrange(0, disorder))))
    out, i = [], 0
    while i < len(recs):
        size = rnd.choice([1, 3, 17, 60, 150])
        out.append(recs[i:i + size])
        i += size
    return out


def test_folded_batches_match_the_record_by_record_loop(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Across batches (sessions stored by one batch grow, merge and are bridged in the next), with late
    records, out-of-order records and both kinds of aggregates (in place: order-free; merged: the rest)."""
    shapes = ["WINDOW SESSION (7 MILLISECONDS)",
              "WINDOW SESSION (7 MILLISECONDS, GRACE PERIOD 20 MILLISECONDS)",
              "WINDOW SESSION (30 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS)"]
    selects = ["COUNT(*) AS C, SUM(V) AS S, MAX(V) AS M, MIN(V) AS N, COUNT(V) AS CV",
               "COLLECT_LIST(V) AS L, AVG(V) AS A, COUNT(*) AS C"]
    for seed, (spread, disorder) in enumerate([(4, 1), (6, 25), (2, 60)]):
        batches = _batches(seed, 700, "abcdefg", spread, disorder)
        for i, window in enumerate(shapes):
            for j, select in enumerate(selects):
                sql = f"CREATE TABLE T AS SELECT K, {select} FROM S {window}"
                sql += " GROUP BY K;"
                fast = _run(tmp_path / f"f{seed}_{i}_{j}", CACHED, sql, batches)
                each = _run(tmp_path / f"e{seed}_{i}_{j}", CACHED, sql, batches, monkeypatch)
                assert fast == each, (seed, window, select)
                assert fast[0] and fast[1]


def test_a_cache_that_could_fill_takes_the_record_by_record_loop(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache that could fill during a batch (it then goes out whole, mid-batch) leaves that batch to the
    record-by-record loop: with 50 entries, batches of 1-17 records fold, those of 60 or 150 do not."""
    batches = _batches(5, 900, "abcdefghij", 3, 10)
    assert {len(b) for b in batches} >= {3, 60, 150}
    sql = "CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (5 MILLISECONDS) GROUP BY K;"
    fast = _run(tmp_path / "f", 50 * 128, sql, batches)
    each = _run(tmp_path / "e", 50 * 128, sql, batches, monkeypatch)
    assert fast == each


def _send(h: Harness, recs: list[tuple[str, int]]) -> None:
    for k, ts in recs:
        h.send("s", k, {"G": k, "V": 1}, ts)
    h.run()


def _cached(tmp_path: Any) -> Harness:
    h = Harness(_engine(tmp_path, CACHED))
    h.sql(STREAM)
    return h


def test_a_stored_session_updated_then_grown_in_one_batch_is_deleted_once(tmp_path: Any) -> None:
    h = _cached(tmp_path)
    try:
        h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (10 MILLISECONDS) GROUP BY K;")
        _send(h, [("a", 0), ("a", 5)])
        # 3 falls inside [0, 5] (the same bounds, updated), 12 grows it to [0, 12]: [0, 5] goes away
        _send(h, [("a", 3), ("a", 12)])
        assert [(k[1], k[2], v) for k, v, _ in h.read("T")] == [(0, 5, (2,)), (0, 5, None), (0, 12, (4,))]
    finally:
        h.engine.close()


def test_a_stored_session_updated_in_place_keeps_its_bounds(tmp_path: Any) -> None:
    h = _cached(tmp_path)
    try:
        h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (10 MILLISECONDS) GROUP BY K;")
        _send(h, [("a", 0), ("a", 5)])
        _send(h, [("a", 3), ("b", 4), ("a", 2)])  # [0, 5] changes value, not bounds: no delete
        assert [(k[0][0], k[1], k[2], v) for k, v, _ in h.read("T")] == [
            ("a", 0, 5, (2,)), ("b", 4, 4, (1,)), ("a", 0, 5, (4,))]
    finally:
        h.engine.close()


def test_a_record_is_late_against_the_stream_time_at_its_own_position(tmp_path: Any) -> None:
    """Stream time grows within the batch: a record before the jump is on time, the same one after is late."""
    h = _cached(tmp_path)
    try:
        h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (5 MILLISECONDS, GRACE PERIOD "
              "10 MILLISECONDS) GROUP BY K;")
        _send(h, [("b", 0), ("a", 100), ("b", 1), ("a", 101)])
        assert [(k[0][0], k[1], k[2], v) for k, v, _ in h.read("T")] == [("b", 0, 0, (1,)), ("a", 100, 101, (2,))]
    finally:
        h.engine.close()


def test_a_record_growing_its_session_can_be_late_by_one(tmp_path: Any) -> None:
    h = _cached(tmp_path)
    try:
        h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (5 MILLISECONDS, GRACE PERIOD "
              "0 MILLISECONDS) GROUP BY K;")
        # after b@10 the close time is 10 - 5: a@4 would leave [0, 3] ending at 4 - late by one
        _send(h, [("a", 0), ("a", 3), ("b", 10), ("a", 4), ("b", 11)])
        assert [(k[0][0], k[1], k[2], v) for k, v, _ in h.read("T")] == [("a", 0, 3, (2,)), ("b", 10, 11, (2,))]
    finally:
        h.engine.close()


def test_outputs_in_the_order_of_each_sessions_last_update(tmp_path: Any) -> None:
    h = _cached(tmp_path)
    try:
        h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (10 MILLISECONDS) GROUP BY K;")
        _send(h, [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("b", 40), ("a", 5)])
        assert [(k[0][0], k[1], k[2], v) for k, v, _ in h.read("T")] == [
            ("b", 2, 2, (1,)), ("c", 4, 4, (1,)), ("b", 40, 40, (1,)), ("a", 1, 5, (3,))]
    finally:
        h.engine.close()


def test_unhashable_session_keys(tmp_path: Any) -> None:
    h = Harness(_engine(tmp_path, CACHED))
    try:
        h.sql("CREATE STREAM A (K STRING KEY, L ARRAY<INT>) WITH (kafka_topic='arr', value_format='JSON', partitions=1);")
        h.sql("CREATE TABLE T WITH (key_format='JSON') AS SELECT L, COUNT(*) AS C FROM A "
              "WINDOW SESSION (10 MILLISECONDS) GROUP BY L;")
        for i, lst in enumerate([[1], [2], [1], [1]]):
            h.send("arr", "k", {"L": lst}, i * 4)
        h.run()
        assert [(k[0], k[1], k[2], v) for k, v, _ in h.read("T")] == [(([2],), 4, 4, (1,)), (([1],), 0, 12, (3,))]
    finally:
        h.engine.close()
