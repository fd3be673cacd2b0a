"""Combining a batch's items per group key before the repartition topic (``runtime.combine``): with the
record cache on, a repartitioned aggregation of order-free aggregates writes one record per key and
batch, and its results - final rows, their timestamps, HAVING - are those of the records one by one."""

from __future__ import annotations

from typing import Any

from ksqlpy.engine import Engine
from ksqlpy.runtime.accumulate import TS
from tests.stateful.conftest import Harness

REPARTITION = "_confluent-ksql-test_query_CTAS_T_0-Aggregate-GroupBy-repartition"
STREAM = ("CREATE STREAM M (K STRING KEY, G STRING, V INT, D DOUBLE) WITH (kafka_topic='m', value_format='JSON', "
          "partitions=3);")
ORDER_FREE = "CREATE TABLE T AS SELECT G, COUNT(*) AS C, SUM(V) AS SV, MIN(V) AS MN, MAX(V) AS MX, AVG(V) AS AV " \
             "FROM M GROUP BY G;"
RECORDS = [(f"k{i}", f"g{i % 3}", (i * 7) % 11 - 3, 100 + i) for i in range(60)]


def _engine(tmp_path: Any, name: str, cache: int) -> Harness:
    return Harness(Engine(str(tmp_path / name), {"auto.offset.reset": "earliest", "ksql.service.id": "test_",
                                                  "cache.max.bytes.buffering": cache}))


def _run(h: Harness, query: str, records: list[tuple[str, str, int, int]] = RECORDS) -> None:
    h.sql(STREAM)
    h.sql(query)
    for k, g, v, ts in records:
        h.send("m", k, {"G": g, "V": v, "D": v / 2}, ts)
    h.run()


def _repartitioned(h: Harness) -> int:
    info = h.engine.log.describe_topic(REPARTITION)
    assert info is not None
    return sum(h.engine.log.end_offset(REPARTITION, p) for p in range(info.partitions))


def _last(h: Harness) -> dict[Any, tuple[Any, int]]:
    """The last row (value, timestamp) per key of the sink, read in order."""
    out: dict[Any, tuple[Any, int]] = {}
    for k, v, ts in h.read("T"):
        out[k] = (v, ts)
    return out


def test_one_record_per_key_and_batch_and_the_same_final_rows(tmp_path: Any) -> None:
    on, off = _engine(tmp_path, "on", 10_000_000), _engine(tmp_path, "off", 0)
    try:
        _run(on, ORDER_FREE)
        _run(off, ORDER_FREE)
        assert _repartitioned(off) == len(RECORDS)
        # one batch per source partition, three groups: at most one record per (partition, group)
        assert _repartitioned(on) <= 9
        assert _last(on) == _last(off)  # values and timestamps (the latest contributing record's)
        expected = {}
        for g in ("g0", "g1", "g2"):
            vs = [v for _, gg, v, _ in RECORDS if gg == g]
            expected[(g,)] = (len(vs), sum(vs), min(vs), max(vs), sum(vs) / len(vs))
        assert {k: v for k, (v, _) in _last(on).items()} == expected
        assert sorted(on.pull("SELECT G, C FROM T;")) == sorted(off.pull("SELECT G, C FROM T;"))
    finally:
        on.engine.close()
        off.engine.close()


def test_having_sees_the_merged_state(tmp_path: Any) -> None:
    on, off = _engine(tmp_path, "on", 10_000_000), _engine(tmp_path, "off", 0)
    query = "CREATE TABLE T AS SELECT G, COUNT(*) AS C FROM M GROUP BY G HAVING SUM(V) > 20;"
    try:
        # a batch, then another that takes g1 over the threshold and g0 back under it (a tombstone)
        first = [("a", "g0", 30, 1), ("b", "g1", 5, 2), ("c", "g0", 1, 3)]
        second = [("d", "g1", 30, 4), ("e", "g0", -25, 5), ("f", "g0", 1, 6)]
        for h in (on, off):
            _run(h, query, first)
            for k, g, v, ts in second:
                h.send("m", k, {"G": g, "V": v, "D": 0.0}, ts)
            h.run()
        assert _repartitioned(on) < len(first) + len(second)
        assert _last(on) == _last(off) == {("g0",): (None, 6), ("g1",): ((2,), 4)}
    finally:
        on.engine.close()
        off.engine.close()


def test_what_is_not_combined(tmp_path: Any) -> None:
    cases = {
        "cache-off": (0, ORDER_FREE),
        "windowed": (10_000_000, "CREATE TABLE T AS SELECT G, COUNT(*) AS C FROM M "
                                 "WINDOW TUMBLING (SIZE 1 HOUR) GROUP BY G;"),
        "double-sum": (10_000_000, "CREATE TABLE T AS SELECT G, SUM(D) AS S FROM M GROUP BY G;"),
        "order-dependent": (10_000_000, "CREATE TABLE T AS SELECT G, LATEST_BY_OFFSET(V) AS L FROM M GROUP BY G;"),
    }
    for name, (cache, query) in cases.items():
        h = _engine(tmp_path, name, cache)
        try:
            _run(h, query)
            assert _repartitioned(h) == len(RECORDS), name
        finally:
            h.engine.close()


def test_a_topic_written_before_combining_still_adds_up(h: Harness) -> None:
    """Plain items (a repartition topic written without combining) and partials in one batch."""
    h.sql(STREAM)
    h.sql("SET 'cache.max.bytes.buffering'='10000000';")
    h.sql(ORDER_FREE)
    for k, g, v, ts in RECORDS:
        h.send("m", k, {"G": g, "V": v, "D": 0.0}, ts, partition=0)
    (q,) = h.engine.queries.values()
    tasks = {t.task_id: t for t in q.tasks}
    group, agg = tasks["0_0"].processor, tasks["1_0"].processor
    items = group.grouper(tasks["0_0"].reader.decode(h.engine.log.fetch("m", 0, 0)))
    assert len(items) == len(RECORDS)
    partials = group.combiner(items[10:])
    assert len(partials) == 3 and all(len(p) == 5 and p[1] is None for p in partials)
    assert [p[3] for p in partials] == [p[2][TS] for p in partials]
    out = agg.process(_Batch(items[:10] + partials), None)
    got = {k: v for k, v, _, _ in out}
    for g in ("g0", "g1", "g2"):
        vs = [v for _, gg, v, _ in RECORDS if gg == g]
        assert got[(g,)][:4] == (len(vs), sum(vs), min(vs), max(vs)), g


class _Batch:
    """What the aggregating side reads from the repartition topic: the items as rows."""

    def __init__(self, rows: list[tuple]) -> None:
        self.rows = rows
