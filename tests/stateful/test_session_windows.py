"""SESSION windows: merging, tombstones for merged sessions, timestamps, late drops, EMIT FINAL."""

from __future__ import annotations

from tests.stateful.conftest import Harness

STREAM = "CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"


def _rows(h: Harness) -> list:
    return [(k[1], k[2], v, ts) for k, v, ts in h.read("T")]


def test_sessions_merge_with_tombstones(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C, COLLECT_LIST(V) AS L FROM S WINDOW SESSION "
          "(20 MILLISECONDS) GROUP BY K;")
    h.send("s", "a", {"V": 1}, 0)
    h.send("s", "a", {"V": 2}, 30)  # 30 > 0 + 20: a new session
    h.send("s", "a", {"V": 3}, 15)  # within 20 of both: bridges them
    h.run()
    assert _rows(h) == [
        (0, 0, (1, [1]), 0),
        (30, 30, (1, [2]), 30),
        (0, 0, None, 0), (30, 30, None, 30),  # merged away
        (0, 30, (3, [1, 2, 3]), 30),  # merged in end-time order, then the new record
    ]


def test_record_with_same_timestamp_updates_in_place(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (10 MILLISECONDS) GROUP BY K;")
    h.send("s", "a", {"V": 1}, 5)
    h.send("s", "a", {"V": 1}, 5)
    h.run()
    assert _rows(h) == [(5, 5, (1,), 5), (5, 5, (2,), 5)]


def test_late_session_record_is_dropped(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (5 MILLISECONDS, GRACE PERIOD "
          "10 MILLISECONDS) GROUP BY K;")
    h.send("s", "a", {"V": 1}, 100)
    h.send("s", "a", {"V": 1}, 80)  # its session would end at 80 < 100 - 10
    h.send("s", "a", {"V": 1}, 91)  # ends at 91 >= 90: accepted
    h.run()
    assert _rows(h) == [(100, 100, (1,), 100), (91, 91, (1,), 91)]


def test_emit_final_sessions(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (5 MILLISECONDS, GRACE PERIOD "
          "6 MILLISECONDS) GROUP BY K EMIT FINAL;")
    for ts in (0, 4, 8, 12, 14, 30, 29, 17, 42):
        h.send("s", "k1", {"V": 1}, ts)
    h.run()
    assert _rows(h) == [(0, 14, (5,), 14), (29, 30, (2,), 30)]


def test_idle_advance_closes_a_quiet_session(h: Harness) -> None:
    import time

    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (20 MILLISECONDS) GROUP BY K EMIT FINAL;",
          {"ksqlpy.emit.final.idle.advance.ms": 50})
    h.send("s", "a", {"V": 1}, 100)
    h.send("s", "a", {"V": 1}, 110)
    h.run()
    assert h.read("T") == []
    deadline = time.monotonic() + 5
    while not h.read("T") and time.monotonic() < deadline:
        time.sleep(0.05)
        h.run()
    assert _rows(h) == [(100, 110, (2,), 110)]


def test_merged_session_delete_uses_its_value_before_the_merge(h: Harness) -> None:
    """A UDAF may reuse either accumulator in ``merge``: HAVING on a merged-away session must be decided
    on its value from before the merge."""
    from ksqlpy.functions.aggregates import ResolvedUdaf, Udaf
    from ksqlpy.types import Array

    def add(acc: list, v: object) -> list:
        acc.append(v)
        return acc

    def merge(a: list, b: list) -> list:
        b[:0] = a  # reuses (mutates) the second accumulator, as the UDAF contract allows
        return b

    def resolve(name: str, types: list, literals: list, config: dict) -> ResolvedUdaf:
        return ResolvedUdaf(Array(types[0]), list, add, list, None, merge, Array(types[0]))

    h.engine.functions.register(Udaf("TEST_REUSING_LIST", resolve))
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, TEST_REUSING_LIST(V) AS L FROM S WINDOW SESSION (20 MILLISECONDS) "
          "GROUP BY K HAVING ARRAY_LENGTH(TEST_REUSING_LIST(V)) = 1;")
    h.send("s", "a", {"V": 1}, 0)
    h.send("s", "a", {"V": 2}, 30)
    h.send("s", "a", {"V": 3}, 15)
    h.run()
    assert _rows(h) == [(0, 0, ([1],), 0), (30, 30, ([2],), 30), (0, 0, None, 0), (30, 30, None, 30)]
