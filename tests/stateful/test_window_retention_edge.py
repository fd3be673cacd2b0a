"""The retention edge of window and session stores, one rule for every read.

Kafka Streams' segmented stores return a window (by start) or a session (by end) only from
``observed time - retention + 1`` on, the observed time being the newest window start (session end)
written. Pull queries - key lookup, table scan, WINDOWSTART bounds - see exactly that, whether the purge has
run or not; EMIT FINAL's look for closed windows keeps its own bound (one lower, pinned by ksqlDB's hopping
EMIT FINAL results). A session table is read key by key (its scan fails, as ksqlDB's
KsMaterializedSessionTable's does): its whole state is a lookup of every key written."""

from __future__ import annotations

import pytest

from ksqlpy.engine.pull import PullExecutionError
from tests.stateful.conftest import Harness

STREAM = "CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"


def _starts(h: Harness, where: str = "") -> list[tuple[str, int, int]]:
    (res,) = h.engine.execute(f"SELECT K, WINDOWSTART, WINDOWEND FROM T{where};")
    return sorted(tuple(r) for r in res.data["rows"])


def _table(h: Harness, window: str) -> None:
    h.sql(STREAM)
    h.sql(f"CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW {window} GROUP BY K;")


def test_tumbling_window_at_the_edge_is_gone_for_every_pull_path(h: Harness) -> None:
    _table(h, "TUMBLING (SIZE 10 MILLISECONDS, RETENTION 20 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS)")
    h.send("s", "a", {"V": 1}, 1)
    h.send("s", "b", {"V": 1}, 20)  # newest window start 20: windows from 20 - 20 + 1 = 1 on are retained
    h.run()
    assert _starts(h) == [("b", 20, 30)]
    assert _starts(h, " WHERE K='a'") == []
    assert _starts(h, " WHERE K='a' AND WINDOWSTART >= 0") == []
    assert _starts(h, " WHERE WINDOWSTART >= 0 AND WINDOWSTART < 100") == [("b", 20, 30)]
    assert _starts(h, " WHERE K='b' AND WINDOWEND = 30") == [("b", 20, 30)]


def test_tumbling_window_one_past_the_edge_stays(h: Harness) -> None:
    _table(h, "TUMBLING (SIZE 10 MILLISECONDS, RETENTION 21 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS)")
    h.send("s", "a", {"V": 1}, 1)
    h.send("s", "b", {"V": 1}, 20)
    h.run()
    assert _starts(h) == [("a", 0, 10), ("b", 20, 30)]
    assert _starts(h, " WHERE K='a'") == [("a", 0, 10)]


def test_retention_is_measured_from_the_newest_window_start(h: Harness) -> None:
    """Stream time 49, newest start 40: retention 25 keeps windows from 16 on, so [20, 30) stays."""
    _table(h, "TUMBLING (SIZE 10 MILLISECONDS, RETENTION 25 MILLISECONDS, GRACE PERIOD 15 MILLISECONDS)")
    h.send("s", "a", {"V": 1}, 21)
    h.send("s", "a", {"V": 1}, 49)
    h.run()
    assert _starts(h) == [("a", 20, 30), ("a", 40, 50)]
    assert _starts(h, " WHERE K='a'") == [("a", 20, 30), ("a", 40, 50)]


def test_hopping_window_at_the_edge_is_gone(h: Harness) -> None:
    _table(h, "HOPPING (SIZE 10 MILLISECONDS, ADVANCE BY 5 MILLISECONDS, RETENTION 20 MILLISECONDS, "
              "GRACE PERIOD 0 MILLISECONDS)")
    h.send("s", "a", {"V": 1}, 1)  # window [0, 10)
    h.send("s", "a", {"V": 1}, 20)  # windows [15, 25), [20, 30): retained from 1 on
    h.run()
    assert _starts(h) == [("a", 15, 25), ("a", 20, 30)]
    assert _starts(h, " WHERE K='a' AND WINDOWSTART <= 15") == [("a", 15, 25)]


def test_session_at_the_edge_is_gone(h: Harness) -> None:
    _table(h, "SESSION (5 MILLISECONDS, RETENTION 10 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS)")
    h.send("s", "a", {"V": 1}, 0)
    h.send("s", "b", {"V": 1}, 10)  # newest session end 10: sessions ending from 1 on are retained
    h.run()
    assert _starts(h, " WHERE K IN ('a', 'b')") == [("b", 10, 10)]
    assert _starts(h, " WHERE K='a'") == []
    assert _starts(h, " WHERE K='a' AND WINDOWSTART >= 0") == []


def test_session_one_past_the_edge_stays(h: Harness) -> None:
    _table(h, "SESSION (5 MILLISECONDS, RETENTION 10 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS)")
    h.send("s", "a", {"V": 1}, 1)
    h.send("s", "b", {"V": 1}, 10)
    h.run()
    assert _starts(h, " WHERE K IN ('a', 'b')") == [("a", 1, 1), ("b", 10, 10)]
    assert _starts(h, " WHERE K='a' AND WINDOWEND >= 1") == [("a", 1, 1)]
    with pytest.raises(PullExecutionError, match="Table scan unsupported on session tables"):
        _starts(h)


def test_emit_final_still_finds_the_window_at_the_edge(h: Harness) -> None:
    """Hopping SIZE 10 ADVANCE 5 GRACE 0 (retention 10): at stream time 10 the newest start is 10 and the
    window [0, 10) - start 10 - 10 - closes and goes out."""
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW HOPPING (SIZE 10 MILLISECONDS, ADVANCE BY "
          "5 MILLISECONDS) GROUP BY K EMIT FINAL;")
    h.send("s", "a", {"V": 1}, 1)
    h.send("s", "a", {"V": 1}, 10)
    h.run()
    assert [(k[1], k[2], v) for k, v, _ in h.read("T")] == [(0, 10, (1,))]
