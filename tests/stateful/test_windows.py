"""TUMBLING/HOPPING windows: membership, order, grace, late counts, EMIT FINAL, retention, idle advance."""

from __future__ import annotations

import time

import pytest

from ksqlpy.errors import KsqlStatementError
from tests.stateful.conftest import Harness

STREAM = "CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"


def _windows(rows: list) -> list:
    return [(k[1], k[2], v, ts) for k, v, ts in rows]


def test_hopping_windows_in_ascending_start_order(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW HOPPING (SIZE 30 MILLISECONDS, ADVANCE BY 10 "
          "MILLISECONDS) GROUP BY K;")
    h.send("s", "a", {"V": 1}, 25)
    h.run()
    assert _windows(h.read("T")) == [(0, 30, (1,), 25), (10, 40, (1,), 25), (20, 50, (1,), 25)]


def test_late_records_are_dropped_and_counted(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS, GRACE PERIOD "
          "5 MILLISECONDS) GROUP BY K;")
    h.send("s", "a", {"V": 1}, 1)
    h.send("s", "a", {"V": 1}, 14)  # stream time 14: window [0,10) open until 15
    h.send("s", "a", {"V": 1}, 2)  # accepted
    h.send("s", "a", {"V": 1}, 15)  # stream time 15 closes [0,10)
    h.send("s", "a", {"V": 1}, 3)  # late
    h.run()
    assert _windows(h.read("T")) == [(0, 10, (1,), 1), (10, 20, (1,), 14), (0, 10, (2,), 2), (10, 20, (2,), 15)]
    (q,) = h.engine.queries.values()
    assert sum(a.late for a in q.aggregation.aggregators) == 1


def test_default_grace_is_a_day_minus_the_window_size(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY K;")
    day = 24 * 3600 * 1000
    h.send("s", "a", {"V": 1}, day - 1)
    h.send("s", "a", {"V": 1}, 600)  # window [0, 1000) closes at 1000 + (24h - 1000) > stream time
    h.send("s", "a", {"V": 1}, day)
    h.send("s", "a", {"V": 1}, 700)  # now late: a day after the window's end minus its size
    h.run()
    assert [w[:3] for w in _windows(h.read("T"))] == [(day - 1000, day, (1,)), (0, 1000, (1,)),
                                                      (day, day + 1000, (1,))]


def test_windows_longer_than_a_day_have_no_default_grace(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 2 DAYS) GROUP BY K;")
    day = 24 * 3600 * 1000
    h.send("s", "a", {"V": 1}, 2 * day)
    h.send("s", "a", {"V": 1}, 1)  # window [0, 2d) closed at its end
    h.run()
    assert [w[:3] for w in _windows(h.read("T"))] == [(2 * day, 4 * day, (1,))]


def test_emit_final_tumbling(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS, GRACE PERIOD "
          "2 MILLISECONDS) GROUP BY K EMIT FINAL;")
    for ts in (1, 5, 11, 3, 12):
        h.send("s", "a", {"V": 1}, ts)
    h.send("s", "b", {"V": 1}, 4)
    h.run()
    # stream time 12 = end + grace of [0,10): it closes (b@4 came after: late)
    assert _windows(h.read("T")) == [(0, 10, (3,), 5)]
    h.send("s", "a", {"V": 1}, 22)
    h.run()
    assert _windows(h.read("T")) == [(0, 10, (3,), 5), (10, 20, (2,), 12)]


def test_emit_final_skips_windows_past_retention_like_ksqldb(h: Harness) -> None:
    """A jump in stream time over several windows: only the last closed one is still retained."""
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS, GRACE PERIOD "
          "2 MILLISECONDS) GROUP BY K EMIT FINAL;")
    for ts in (1, 11, 50):
        h.send("s", "a", {"V": 1}, ts)
    h.run()
    assert h.read("T") == []


def test_emit_final_closes_window_at_its_end_without_grace(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS) GROUP BY K "
          "EMIT FINAL;")
    for ts in (1, 2, 10):
        h.send("s", "a", {"V": 1}, ts)
    h.run()
    assert _windows(h.read("T")) == [(0, 10, (2,), 2)]


def test_emit_final_orders_closed_windows_by_serialized_key(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS, GRACE PERIOD "
          "0 MILLISECONDS) GROUP BY K EMIT FINAL;")
    for k in ("b", "c", "a"):
        h.send("s", k, {"V": 1}, 1)
    h.send("s", "z", {"V": 1}, 10)
    h.run()
    assert [k[0] for k, _, _ in h.read("T")] == [("a",), ("b",), ("c",)]


def test_retention_purges_old_windows(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS, RETENTION "
          "30 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS) GROUP BY K;")
    for ts in (1, 11, 21, 31, 41):
        h.send("s", "a", {"V": 1}, ts)
    h.run()
    starts = [r[h_idx("WINDOWSTART", h)] for r in h.pull("SELECT * FROM T WHERE K='a';")]
    assert starts == [20, 30, 40]  # stream time 41 - retention 30: windows from 11 on are kept


def h_idx(name: str, h: Harness) -> int:
    (res,) = h.engine.execute("SELECT * FROM T WHERE K='a';")
    return [c[0] for c in res.data["columns"]].index(name)


def test_retention_smaller_than_size_plus_grace_is_rejected(h: Harness) -> None:
    h.sql(STREAM)
    with pytest.raises(KsqlStatementError, match="no smaller than its window size plus the grace period"):
        h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS, RETENTION "
              "5 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS) GROUP BY K;")


def test_idle_advance_fires_emit_final_on_a_quiet_stream(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 50 MILLISECONDS, GRACE PERIOD "
          "0 MILLISECONDS) GROUP BY K EMIT FINAL;", {"ksqlpy.emit.final.idle.advance.ms": 100})
    h.send("s", "a", {"V": 1}, 10)
    h.run()
    assert h.read("T") == []
    deadline = time.monotonic() + 5
    while not h.read("T") and time.monotonic() < deadline:
        time.sleep(0.05)
        h.run()
    assert _windows(h.read("T")) == [(0, 50, (1,), 10)]


def test_describe_extended_shows_late_records(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS, GRACE PERIOD "
          "0 MILLISECONDS) GROUP BY K;")
    h.send("s", "a", {"V": 1}, 50)
    h.send("s", "a", {"V": 1}, 5)
    h.run()
    (res,) = h.sql("DESCRIBE T EXTENDED;")
    assert "dropped-late-records: 1" in res.data["statistics"]


def test_windowed_source_keeps_its_windows(h: Harness) -> None:
    """A stream over a windowed topic: a CSAS without aggregation writes windowed keys; a windowed table feeds
    no persistent query (ksqlDB's rule)."""
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS) GROUP BY K;")
    for i in range(5):
        h.send("s", "a", {"V": i}, i * 3)
    h.run()
    h.sql("CREATE STREAM W (K STRING KEY, C BIGINT) WITH (kafka_topic='T', value_format='JSON', "
          "WINDOW_TYPE='TUMBLING', WINDOW_SIZE='10 MILLISECONDS');")
    h.sql("CREATE STREAM W2 AS SELECT K, C * 2 AS C2 FROM W WHERE C > 1;")
    h.run()
    assert [(k, v) for k, v, _ in h.read("W2")] == [
        ((("a",), 0, 10), (4,)), ((("a",), 0, 10), (6,)), ((("a",), 0, 10), (8,))]
    h.sql("CREATE TABLE WT (K STRING PRIMARY KEY, C BIGINT) WITH (kafka_topic='T', value_format='JSON', "
          "WINDOW_TYPE='TUMBLING', WINDOW_SIZE='10 MILLISECONDS');")
    with pytest.raises(KsqlStatementError, match="KSQL does not support persistent queries on windowed tables."):
        h.sql("CREATE TABLE WT2 AS SELECT K, C * 2 AS C2 FROM WT WHERE C > 1;")


def test_windowed_source_needs_a_key(h: Harness) -> None:
    with pytest.raises(KsqlStatementError, match="Windowed sources require a key column"):
        h.sql("CREATE STREAM W (V INT) WITH (kafka_topic='w', value_format='JSON', partitions=1, "
              "WINDOW_TYPE='SESSION');")


def test_emit_final_emits_every_window_of_a_steady_stream(h: Harness) -> None:
    """Retention is measured from the newest window start: each window is still found when it closes."""
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 5 MILLISECONDS, GRACE PERIOD "
          "0 MILLISECONDS) GROUP BY K EMIT FINAL;")
    for i in range(7):
        h.send("s", "a", {"V": 1}, i * 3)
    h.run()
    assert _windows(h.read("T")) == [(0, 5, (2,), 3), (5, 10, (2,), 9), (10, 15, (1,), 12)]


def test_window_bounds_selected_in_a_windowed_push_query(h: Harness) -> None:
    h.sql(STREAM)
    h.send("s", "a", {"V": 1}, 1)
    h.send("s", "a", {"V": 1}, 20)
    q = h.engine.push_query("SELECT K, WINDOWSTART, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 5 MILLISECONDS) "
                            "GROUP BY K EMIT CHANGES LIMIT 2;", {"auto.offset.reset": "earliest"})
    h.run()
    assert list(q) == [("a", 0, 1), ("a", 20, 1)]


@pytest.mark.parametrize("window", ["TUMBLING (SIZE 10 MILLISECONDS, GRACE PERIOD 3 MILLISECONDS)",
                                    "HOPPING (SIZE 10 MILLISECONDS, ADVANCE BY 5 MILLISECONDS, "
                                    "GRACE PERIOD 2 MILLISECONDS)"])
def test_emit_final_generated_loop_matches_the_generic_one(h: Harness, monkeypatch: pytest.MonkeyPatch,
                                                           window: str) -> None:
    """EMIT FINAL runs the generated batch loop (runtime.agg_loop); its outputs, late drops and stream
    time equal the record-at-a-time loop's over batches with late records and out-of-order time."""
    import random

    from ksqlpy.runtime import aggregate

    h.sql("CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    query = ("CREATE TABLE {t} AS SELECT K, COUNT(*) AS C, SUM(V) AS SV, MAX(V) AS MV FROM S "
             f"WINDOW {window} GROUP BY K EMIT FINAL;")
    with monkeypatch.context() as m:
        m.setattr(aggregate, "build_batch_loop", lambda spec, parts: None)
        h.sql(query.format(t="GENERIC"))
    h.sql(query.format(t="GENERATED"))
    rng = random.Random(7)
    ts = 0
    for _batch in range(4):
        for _ in range(60):
            ts += rng.choice([0, 1, 1, 2, 3])
            jitter = rng.choice([0, 0, 0, -2, -6, -15])  # some out of order, some late for every window
            h.send("s", rng.choice("abcd"), {"V": rng.randint(-5, 50)}, max(0, ts + jitter))
        h.run()
    generic, generated = h.read("GENERIC"), h.read("GENERATED")
    assert len(generic) > 20
    assert generated == generic
    aggs = {q.sink_name: q.tasks[0].processor.aggregator for q in h.engine.queries.values()}
    assert aggs["GENERATED"].spec.batch_loop is not None and aggs["GENERIC"].spec.batch_loop is None
    assert aggs["GENERATED"].late == aggs["GENERIC"].late > 0
    assert aggs["GENERATED"].stream_time == aggs["GENERIC"].stream_time
    assert aggs["GENERATED"].last_emit == aggs["GENERIC"].last_emit
