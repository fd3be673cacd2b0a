"""The aggregation record cache (``cache.max.bytes.buffering``): per batch, each key's last update goes out."""

from __future__ import annotations

from typing import Any

from ksqlpy.engine import Engine
from ksqlpy.runtime.record_cache import ENTRY_BYTES, cache_entries, collapse
from tests.stateful.conftest import Harness

STREAM = "CREATE STREAM S (K STRING KEY, G STRING, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
CACHED = {"cache.max.bytes.buffering": 10_000_000}


def _send(h: Harness, keys: str, start: int = 1) -> None:
    for i, k in enumerate(keys):
        h.send("s", k, {"G": k.upper(), "V": i}, start + i)


def test_the_engine_default_is_ksqldbs_cache(tmp_path: Any) -> None:
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        h = Harness(engine)
        h.sql(STREAM)
        h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C, SUM(V) AS SV FROM S GROUP BY K;")
        _send(h, "abaacb")
        h.run()  # one batch: one update per key, in the order of the last updates, with their timestamps
        assert h.read("T") == [(("a",), (3, 5), 4), (("c",), (1, 4), 5), (("b",), (2, 6), 6)]
    finally:
        engine.close()


def test_cache_off_emits_every_update(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S GROUP BY K;")
    _send(h, "aba")
    h.run()
    assert [(k, v) for k, v, _ in h.read("T")] == [(("a",), (1,)), (("b",), (1,)), (("a",), (2,))]


def test_hopping_windows_fold_per_window(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("SET 'cache.max.bytes.buffering'='10000000';")
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C, MAX(V) AS M FROM S "
          "WINDOW HOPPING (SIZE 20 MILLISECONDS, ADVANCE BY 10 MILLISECONDS) GROUP BY K;")
    for k, v, ts in [("a", 1, 5), ("b", 7, 12), ("a", 3, 15), ("a", 2, 25)]:
        h.send("s", k, {"V": v}, ts)
    h.run()
    got = [(k[0], k[1], k[2], v, ts) for k, v, ts in h.read("T")]
    # last updates: a@5 -> [0,20); b@12 -> [0,20),[10,30); a@15 -> [0,20) (last), [10,30); a@25 -> [10,30), [20,40)
    assert got == [(("b",), 0, 20, (1, 7), 12), (("b",), 10, 30, (1, 7), 12), (("a",), 0, 20, (2, 3), 15),
                   (("a",), 10, 30, (2, 3), 25), (("a",), 20, 40, (1, 2), 25)]


def test_a_full_cache_goes_out_whole(h: Harness) -> None:
    h.sql(STREAM)
    h.sql(f"SET 'cache.max.bytes.buffering'='{2 * ENTRY_BYTES}';")  # two entries
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S GROUP BY K;")
    _send(h, "abacab")
    h.run()
    # a b a -> cache [b, a]; c overflows it: b, a, c go out; a b fit again and go out at the end of the batch
    assert [(k[0], v[0]) for k, v, _ in h.read("T")] == [("b", 1), ("a", 2), ("c", 1), ("a", 3), ("b", 2)]


def test_having_is_folded_too(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("SET 'cache.max.bytes.buffering'='10000000';")
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S GROUP BY K HAVING COUNT(*) > 1;")
    _send(h, "aabab")
    h.run()
    assert [(k, v) for k, v, _ in h.read("T")] == [(("a",), (3,)), (("b",), (2,))]


def test_unhashable_group_keys(h: Harness) -> None:
    h.sql("CREATE STREAM A (K STRING KEY, L ARRAY<INT>) WITH (kafka_topic='arr', value_format='JSON', partitions=1);")
    h.sql("SET 'cache.max.bytes.buffering'='10000000';")
    h.sql("CREATE TABLE T WITH (key_format='JSON') AS SELECT L, COUNT(*) AS C FROM A GROUP BY L;")
    for i, lst in enumerate([[1], [2], [1]]):
        h.send("arr", "k", {"L": lst}, i + 1)
    h.run()
    assert [(k, v) for k, v, _ in h.read("T")] == [(([2],), (1,)), (([1],), (2,))]


def test_emit_final_is_not_cached(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("SET 'cache.max.bytes.buffering'='10000000';")
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS, "
          "GRACE PERIOD 0 MILLISECONDS) GROUP BY K EMIT FINAL;")
    for k, ts in [("a", 1), ("a", 2), ("b", 3), ("a", 11), ("b", 25)]:
        h.send("s", k, {"V": 1}, ts)
    h.run()
    assert [(k[0], k[1], v) for k, v, _ in h.read("T")] == [(("a",), 0, (2,)), (("b",), 0, (1,)), (("a",), 10, (1,))]


def test_push_query_request_properties_choose_the_cache(h: Harness) -> None:
    h.sql(STREAM)
    _send(h, "aab")
    off = h.engine.push_query("SELECT K, COUNT(*) AS C FROM S GROUP BY K EMIT CHANGES LIMIT 3;",
                              {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": 0})
    on = h.engine.push_query("SELECT K, COUNT(*) AS C FROM S GROUP BY K EMIT CHANGES LIMIT 2;",
                             {"auto.offset.reset": "earliest", **CACHED})
    h.run()
    assert list(off) == [("a", 1), ("a", 2), ("b", 1)]
    assert list(on) == [("a", 2), ("b", 1)]


def test_cache_entries_from_properties() -> None:
    assert cache_entries({}) == 10_000_000 // ENTRY_BYTES
    assert cache_entries({"ksql.streams.cache.max.bytes.buffering": "0"}) == 0
    assert cache_entries({"cache.max.bytes.buffering": 3 * ENTRY_BYTES}) == 3
    assert cache_entries({"cache.max.bytes.buffering": 1}) == 0  # smaller than one entry: every update


def test_collapse_keeps_last_updates_in_update_order() -> None:
    rows = [(("a",), (1,), 1, None), (("b",), (1,), 2, None), (("a",), (2,), 3, None)]
    assert collapse(rows, 10) == [rows[1], rows[2]]
    assert collapse(rows, 1) == [rows[0], rows[1], rows[2]]  # every second entry overflows a one-entry cache
    assert collapse(rows, 0) == rows


def _run(tmp: Any, cache: int, sql: str, records: list[tuple[str, int, int]]) -> list[tuple]:
    engine = Engine(str(tmp), {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": cache})
    try:
        h = Harness(engine)
        h.sql(STREAM)
        h.sql(sql)
        for k, v, ts in records:
            h.send("s", k, {"G": k, "V": v}, ts)
        h.run()
        return h.read("T")
    finally:
        engine.close()


def test_cached_output_is_the_last_of_every_update(tmp_path: Any) -> None:
    """Whatever loop folds them (per window, or per slice of a hopping window, or the generic one with
    HAVING), the cached outputs of one batch are the uncached ones with only each key's last update kept."""
    import random

    rnd = random.Random(7)
    records = [(rnd.choice("abcde"), rnd.choice([None, *range(-5, 50)]), rnd.randrange(0, 400)) for _ in range(300)]
    records += [("a", 1, 0), ("b", 2, 3)]  # late for nothing (grace below), out of order
    for i, sql in enumerate([
        "CREATE TABLE T AS SELECT K, COUNT(*) AS C, COUNT(V) AS CV, SUM(V) AS S, MIN(V) AS LO, MAX(V) AS HI "
        "FROM S WINDOW HOPPING (SIZE 50 MILLISECONDS, ADVANCE BY 10 MILLISECONDS) GROUP BY K;",
        "CREATE TABLE T AS SELECT K, COUNT(*) AS C, AVG(V) AS A FROM S "
        "WINDOW HOPPING (SIZE 50 MILLISECONDS, ADVANCE BY 20 MILLISECONDS) GROUP BY K;",
        "CREATE TABLE T AS SELECT K, COUNT(*) AS C, SUM(V) AS S FROM S "
        "WINDOW HOPPING (SIZE 50 MILLISECONDS, ADVANCE BY 10 MILLISECONDS, GRACE PERIOD 100 MILLISECONDS) GROUP BY K;",
        "CREATE TABLE T AS SELECT K, MAX(V) AS M FROM S WINDOW TUMBLING (SIZE 30 MILLISECONDS) GROUP BY K;",
        "CREATE TABLE T AS SELECT K, SUM(V) AS S, COUNT(*) AS C FROM S GROUP BY K;",
        "CREATE TABLE T AS SELECT K, SUM(V) AS S FROM S GROUP BY K HAVING COUNT(*) % 3 = 0;",
    ]):
        every = _run(tmp_path / f"off{i}", 0, sql, records)
        cached = _run(tmp_path / f"on{i}", 10_000_000, sql, records)
        rows = [(k, v, ts, None) for k, v, ts in every]
        folded = [(k, v, ts) for k, v, ts, _ in collapse(rows, 10**9)]
        dropped = [r for r in folded if r not in cached] if "HAVING" in sql else []
        assert all(r[1] is None for r in dropped)  # only deletes of rows downstream never saw
        assert cached == [r for r in folded if r not in dropped], sql
        assert len(cached) < len(every)


def test_a_delete_of_a_row_never_sent_does_not_go_out(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("SET 'cache.max.bytes.buffering'='10000000';")
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S GROUP BY K HAVING COUNT(*) = 2;")
    _send(h, "aaab")  # a: 1 (hidden), 2 (shown), 3 (hidden again) - downstream never saw it: nothing
    h.run()
    _send(h, "b", start=10)  # b: 2 goes out
    h.run()
    _send(h, "bb", start=20)  # b: 3 deletes the row downstream has, 4 stays hidden: the delete goes out
    h.run()
    assert [(k, v) for k, v, _ in h.read("T")] == [(("b",), (2,)), (("b",), None)]


def test_collapse_lets_out_the_delete_of_a_row_an_earlier_flush_sent() -> None:
    """A key downstream had no row of before the batch (``unseen``) gets one when a full cache goes out;
    its delete later in the batch must follow it, and a second delete after that has nothing to delete."""
    a1, b1, c1 = (("a",), (1,), 1, None), (("b",), (1,), 2, None), (("c",), (1,), 3, None)
    a_del, d1, e1, a_del2 = (("a",), None, 4, None), (("d",), (1,), 5, None), (("e",), (1,), 6, None), (("a",), None, 7, None)
    assert collapse([a1, b1, c1, a_del], 2, {("a",)}) == [a1, b1, c1, a_del]
    assert collapse([a1, b1, c1, a_del, d1, e1, a_del2], 2, {("a",)}) == [a1, b1, c1, a_del, d1, e1]
    assert collapse([a1, a_del, b1], 2, {("a",)}) == [b1]  # made and deleted within one flush: nothing


def test_having_delete_after_a_flush_of_a_full_cache_goes_out(h: Harness) -> None:
    h.sql(STREAM)
    h.sql(f"SET 'cache.max.bytes.buffering'='{2 * ENTRY_BYTES}';")  # two entries
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S GROUP BY K HAVING COUNT(*) < 3;")
    _send(h, "aabca")  # c overflows the cache: a's row (2) goes out; then a's third record hides it again
    h.run()
    assert [(k, v) for k, v, _ in h.read("T")] == [(("a",), (2,)), (("b",), (1,)), (("c",), (1,)), (("a",), None)]


def test_sessions_merged_in_the_batch_that_made_them_leave_no_delete(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("SET 'cache.max.bytes.buffering'='10000000';")
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (10 MILLISECONDS) GROUP BY K;")
    for ts in (1, 5):
        h.send("s", "a", {"V": 1}, ts)
    h.run()  # [1,1] made and merged into [1,5] in one batch: only [1,5] goes out
    h.send("s", "a", {"V": 1}, 8)
    h.run()  # [1,5] went out before: its delete does, then [1,8]
    assert [(k[1], k[2], v) for k, v, _ in h.read("T")] == [(1, 5, (2,)), (1, 5, None), (1, 8, (3,))]


def test_fast_loops_match_the_generic_ones(tmp_path: Any) -> None:
    """The generated batch loop and the in-memory session loop give what the generic loops give (an
    always-true HAVING sends a query through the generic ones), record cache off and on."""
    import random

    rnd = random.Random(11)
    records = [(rnd.choice("abcdef"), rnd.choice([None, *range(0, 9)]), rnd.randrange(0, 300)) for _ in range(250)]
    records += [("a", 1, 0), ("f", 2, 1000), ("b", 3, 5)]  # a jump in stream time, then late records
    shapes = [
        "WINDOW SESSION (7 MILLISECONDS)",
        "WINDOW SESSION (7 MILLISECONDS, GRACE PERIOD 20 MILLISECONDS)",
        "WINDOW HOPPING (SIZE 40 MILLISECONDS, ADVANCE BY 10 MILLISECONDS)",
        "WINDOW HOPPING (SIZE 35 MILLISECONDS, ADVANCE BY 10 MILLISECONDS)",  # slices cut by window ends
        "WINDOW HOPPING (SIZE 40 MILLISECONDS, ADVANCE BY 10 MILLISECONDS, GRACE PERIOD 30 MILLISECONDS)",
        "WINDOW TUMBLING (SIZE 25 MILLISECONDS, GRACE PERIOD 50 MILLISECONDS)",
        "",
    ]
    selects = ["COUNT(*) AS C, SUM(V) AS S, MAX(V) AS M, MIN(V) AS N",
               "COLLECT_LIST(V) AS L, AVG(V) AS A, COUNT(V) AS CV"]  # called, not inlined; not order-free
    for i, window in enumerate(shapes):
        for j, select in enumerate(selects):
            sql = f"CREATE TABLE T AS SELECT K, {select} FROM S {window} GROUP BY K"
            for cache in (0, 10_000_000):
                fast = _run(tmp_path / f"f{i}_{j}_{cache}", cache, sql + ";", records)
                generic = _run(tmp_path / f"g{i}_{j}_{cache}", cache, sql + " HAVING COUNT(*) > 0;", records)
                assert fast == generic, (window, select, cache)
