"""When a record is late, per window type, exactly at the boundaries (Kafka Streams' rules ksqlDB inherits).

* TUMBLING / HOPPING: a window ``[start, start + size)`` accepts a record while ``end > stream time - grace``;
  hopping windows are judged one by one.
* SESSION: the close time is ``stream time - grace - gap``; a record is late when the session it merges
  into ends before the close time (ends are inclusive: ending exactly at it is on time). EMIT FINAL emits
  sessions ending before the close time.

Each session rule runs through the three session code paths: EMIT CHANGES (the in-memory batch loop),
EMIT CHANGES with HAVING (the generic loop), and EMIT FINAL.
"""

from __future__ import annotations

import pytest

from tests.stateful.conftest import Harness

STREAM = "CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"


def _windows(h: Harness) -> list[tuple[int, int, tuple | None]]:
    return [(k[1], k[2], v) for k, v, _ in h.read("T")]


def _send_all(h: Harness, stamps: list[int], *, one_batch: bool) -> None:
    for ts in stamps:
        h.send("s", "a", {"V": 1}, ts)
        if not one_batch:
            h.run()
    h.run()


@pytest.mark.parametrize("one_batch", [True, False])
def test_tumbling_window_ending_at_close_time_is_late(h: Harness, one_batch: bool) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS, "
          "GRACE PERIOD 10 MILLISECONDS) GROUP BY K;")
    # stream time 100, close time 90: [80, 90) ends at 90 (not after it): late; [90, 100) is on time
    _send_all(h, [100, 89, 90, 80], one_batch=one_batch)
    assert _windows(h) == [(100, 110, (1,)), (90, 100, (1,))]


@pytest.mark.parametrize("one_batch", [True, False])
def test_hopping_windows_of_one_record_are_judged_one_by_one(h: Harness, one_batch: bool) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW HOPPING (SIZE 10 MILLISECONDS, "
          "ADVANCE BY 5 MILLISECONDS, GRACE PERIOD 5 MILLISECONDS) GROUP BY K;")
    # stream time 100, close time 95: a record at 88 falls in [80, 90) (late) and [85, 95) (ends at
    # the close time: late); one at 92 in [85, 95) (late) and [90, 100) (on time)
    _send_all(h, [100, 88, 92], one_batch=one_batch)
    assert _windows(h) == [(95, 105, (1,)), (100, 110, (1,)), (90, 100, (1,))]


SESSION_QUERIES = {
    "changes": "CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (5 MILLISECONDS, "
               "GRACE PERIOD 10 MILLISECONDS) GROUP BY K;",
    "having": "CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (5 MILLISECONDS, "
              "GRACE PERIOD 10 MILLISECONDS) GROUP BY K HAVING COUNT(*) > 0;",
}


@pytest.mark.parametrize("one_batch", [True, False])
@pytest.mark.parametrize("query", sorted(SESSION_QUERIES))
def test_session_close_time_subtracts_the_gap(h: Harness, query: str, one_batch: bool) -> None:
    h.sql(STREAM)
    h.sql(SESSION_QUERIES[query])
    # stream time 100, gap 5, grace 10: close time 85. A record at 84 (its own session ends at 84) is
    # late; one at 85 is exactly at the close time and on time; 86 would have been late under
    # "stream time - grace" alone (90), and is on time
    _send_all(h, [100, 84, 85, 86], one_batch=one_batch)
    rows = _windows(h)
    assert (84, 84, (1,)) not in rows
    assert rows[0] == (100, 100, (1,))
    assert (85, 85, (1,)) in rows
    # 86 is within a gap of [85, 85], but that session ended at stream time - retention (100 - 15): past
    # retention, the store no longer finds it (runtime.session_retention) and 86 starts its own session
    assert rows[-1] == (86, 86, (1,))


@pytest.mark.parametrize("one_batch", [True, False])
@pytest.mark.parametrize("query", sorted(SESSION_QUERIES))
def test_a_longer_retention_lets_a_record_reach_a_session_at_the_close_time(h: Harness, query: str,
                                                                           one_batch: bool) -> None:
    h.sql(STREAM)
    h.sql(SESSION_QUERIES[query].replace("(5 MILLISECONDS,", "(5 MILLISECONDS, RETENTION 16 MILLISECONDS,"))
    _send_all(h, [100, 85, 86], one_batch=one_batch)
    assert _windows(h)[-1] == (85, 86, (2,))  # [85, 85] ends one after stream time - retention: reached


@pytest.mark.parametrize("one_batch", [True, False])
@pytest.mark.parametrize("query", sorted(SESSION_QUERIES))
def test_session_lateness_is_judged_on_the_merged_session(h: Harness, query: str, one_batch: bool) -> None:
    h.sql(STREAM)
    h.sql(SESSION_QUERIES[query])
    # close time 85 once stream time is 100. A record at 84 is before it, but within the gap of the
    # session [88, 88]: the merged session [84, 88] ends after the close time, so it is on time. A record
    # at 78 is more than a gap before 84: alone, it ends at 78 and is late
    _send_all(h, [88, 100, 84, 78], one_batch=one_batch)
    assert _windows(h) == [(88, 88, (1,)), (100, 100, (1,)), (88, 88, None), (84, 88, (2,))]


def test_emit_final_session_closes_gap_after_its_end_plus_grace(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (5 MILLISECONDS, "
          "GRACE PERIOD 10 MILLISECONDS) GROUP BY K EMIT FINAL;")
    h.send("s", "a", {"V": 1}, 10)
    h.send("s", "b", {"V": 1}, 25)  # close time 25 - 15 = 10: [10, 10] ends at it, not before
    h.run()
    assert _windows(h) == []
    h.send("s", "b", {"V": 1}, 26)  # close time 11: [10, 10] is closed
    h.run()
    assert _windows(h) == [(10, 10, (1,))]


TIME_WINDOWS = {
    "tumbling": "TUMBLING (SIZE 10 MILLISECONDS, RETENTION 15 MILLISECONDS, GRACE PERIOD 5 MILLISECONDS)",
    "hopping": "HOPPING (SIZE 10 MILLISECONDS, ADVANCE BY 5 MILLISECONDS, RETENTION 15 MILLISECONDS, "
               "GRACE PERIOD 5 MILLISECONDS)",
}


@pytest.mark.parametrize("one_batch", [True, False])
@pytest.mark.parametrize("having", ["", " HAVING COUNT(*) > 0"])
@pytest.mark.parametrize("window", sorted(TIME_WINDOWS))
def test_a_time_window_on_time_is_always_retained(h: Harness, window: str, having: str, one_batch: bool) -> None:
    """Retention is at least size + grace, so a window that still accepts a record (end > stream time -
    grace) starts after stream time - retention: the store still finds it, in one batch or across batches
    (the generated loop, the generic loop with HAVING). At stream time 24 a record at 10 adds to [10, 20)
    (ends after 19) and to hopping [5, 15) neither (ends at 15: late)."""
    h.sql(STREAM)
    h.sql(f"CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW {TIME_WINDOWS[window]} GROUP BY K{having};")
    _send_all(h, [12, 24, 10], one_batch=one_batch)
    last = {(s, e): v for s, e, v in _windows(h)}
    assert last[(10, 20)] == (2,)
    if window == "hopping":
        assert last[(5, 15)] == (1,)  # only the record at 12
        assert last[(20, 30)] == (1,)
