"""The native tier (``ksqlpy.backfill.native``): aggregates lowered to Spark's operators give the streaming
runtime's sink, state, late drops and processing log - with NULL keys, NULL values, windows whose values are
all NULL, SUM overflowing INT and BIGINT, a partition without one aggregated record, and late records at the
exact boundary (``window end + grace == stream time``: dropped; one millisecond earlier: kept). And the
planner: which queries lower, and the reason for each that does not."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bench.backfill import _plog, differences
from ksqlpy.backfill import backfill
from ksqlpy.backfill.handoff import BackfillResult
from ksqlpy.backfill.job import BackfillJob
from ksqlpy.backfill.native import TIER_PROPERTY, Agg, NativePlan, Refused, lower
from ksqlpy.backfill.run import choose_tier
from ksqlpy.backfill.support import BackfillUnsupported, moves_records
from ksqlpy.engine.engine import Engine
from ksqlpy.errors import KsqlStatementError
from tests.backfill.conftest import Record, make_engine, produce

DDL = ("CREATE STREAM s (k STRING KEY, v BIGINT, n INT, d DOUBLE, t STRING) "
       "WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=3);")
PARTITIONS = 3
BIG, SMALL = 2**63 - 1, 2**31 - 1

TUMBLING = ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c, COUNT(v) AS cv, SUM(v) AS sv, SUM(n) AS sn, "
            "MIN(v) AS lo, MAX(n) AS hi FROM s WINDOW TUMBLING (SIZE 2 SECONDS, GRACE PERIOD 1 SECOND) "
            "GROUP BY k EMIT CHANGES;")
HOPPING = ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c, SUM(v) AS sv, MIN(n) AS lo FROM s "
           "WINDOW HOPPING (SIZE 3 SECONDS, ADVANCE BY 1 SECOND, GRACE PERIOD 500 MILLISECONDS) "
           "GROUP BY k EMIT CHANGES;")
NO_WINDOW = "CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c, SUM(n) AS sn, MAX(v) AS hi, COUNT(t) AS ct FROM s GROUP BY k EMIT CHANGES;"
FILTERED = ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c, SUM(v) AS sv FROM s WINDOW TUMBLING (SIZE 5 SECONDS) "
            "WHERE n > 0 AND t <> 'x' GROUP BY k EMIT CHANGES;")
LOWERED = [TUMBLING, HOPPING, NO_WINDOW, FILTERED]


def _value(v: Any, n: Any, t: Any = "y") -> bytes:
    return json.dumps({"V": v, "N": n, "D": 1.5, "T": t}).encode()


def records(n: int = 600, seed: int = 11) -> list[Record]:
    """Partition 0: out-of-order records (some late, some within the grace), NULL values and the exact late
    boundary; partition 1: sums that overflow INT and BIGINT, extremes for MIN/MAX, a key whose values are
    all NULL; partition 2: only a NULL key and an unreadable record (nothing reaches the aggregation)."""
    rnd = random.Random(seed)
    recs: list[Record] = []
    for i in range(n):
        p = i % 2
        ts = 50_000 + i * 40 - (rnd.randrange(3_500) if i % 5 == 2 else 0)
        v = None if i % 13 == 0 else rnd.randrange(-1000, 1000)
        recs.append((p, f"k{p}{rnd.randrange(4)}".encode(), _value(v, rnd.randrange(-50, 50),
                                                                  None if i % 7 == 0 else "y"), ts))
    # every value NULL: SUM of nothing is 0, MIN/MAX NULL, COUNT(v) 0
    # the boundary (size 2000, grace 1000): stream time 12,999 keeps a record of window [10000, 12000),
    # stream time 13,000 drops it (end + grace == stream time)
    recs += [(0, b"edge", _value(1, 1), ts) for ts in (100_000, 102_999, 101_000, 103_000, 101_000)]
    # overflow: the results wrap as Java's, the handed-over accumulator is the exact sum
    recs += [(1, b"o", _value(BIG, SMALL), 70_000 + i) for i in range(5)]
    recs += [(1, b"o", _value(-(2**63), -(2**31)), 70_010)]
    recs += [(1, b"z", _value(None, None, None), 71_000 + i) for i in range(3)]
    recs += [(2, None, _value(1, 1), 60_200), (2, b"bad", b"{not json", 60_300), (0, b"k00", b"{oops", 60_400)]
    return recs


def _engines(tmp_path: Any, sql: str, recs: list[Record], props: dict[str, Any]
             ) -> tuple[Engine, Engine, list[Any], list[Any]]:
    ref = make_engine(str(tmp_path / "streaming"), DDL, recs, "s")
    plog_ref = _plog(ref)
    ref.execute(sql, {"auto.offset.reset": "earliest"})
    ref.drain()
    eng = Engine(str(tmp_path / "backfill"), props)
    eng.execute(DDL)
    produce(eng, "s", recs)
    return ref, eng, plog_ref, _plog(eng)


def _job(tmp_path: Any, sql: str, ddl: str = DDL) -> BackfillJob:
    eng = make_engine(str(tmp_path / "plan"), ddl, [], "s")
    res = eng.execute(sql, {"auto.offset.reset": "latest"})
    query = eng.queries[next(r.query_id for r in res if r.query_id)]
    partitions = eng.log.partition_count("s") or 1
    return BackfillJob(topology=query.topology, sink=query.sink, query_id=query.query_id,
                       properties=dict(eng.effective_properties()), partitions=partitions,
                       repartition=moves_records(len(query.topology.sub_topologies), partitions))


# ------------------------------------------------------------------------------------------------ the planner
def test_lowered_aggregates(tmp_path: Any) -> None:
    plan = lower(_job(tmp_path, TUMBLING))
    assert isinstance(plan, NativePlan)
    assert [a for a, _ in plan.aggs] == [Agg.COUNT_STAR, Agg.COUNT, Agg.SUM_BIGINT, Agg.SUM_INT, Agg.MIN, Agg.MAX]
    assert (plan.size, plan.advance, plan.grace) == (2000, 2000, 1000)


REFUSED = {
    "stateless": ("CREATE STREAM bf_out AS SELECT k, v FROM s WHERE v > 1 EMIT CHANGES;", "without GROUP BY"),
    "double-sum": ("CREATE TABLE bf_out AS SELECT k, SUM(d) AS x FROM s GROUP BY k EMIT CHANGES;", "SUM(DOUBLE)"),
    "avg": ("CREATE TABLE bf_out AS SELECT k, AVG(v) AS x FROM s GROUP BY k EMIT CHANGES;", "AVG(BIGINT)"),
    "min-string": ("CREATE TABLE bf_out AS SELECT k, MIN(t) AS x FROM s GROUP BY k EMIT CHANGES;", "MIN(STRING)"),
    "having": ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c FROM s GROUP BY k HAVING COUNT(*) > 1 EMIT CHANGES;",
               "HAVING"),
    "emit-final": ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c FROM s WINDOW TUMBLING (SIZE 1 SECOND) "
                   "GROUP BY k EMIT FINAL;", "EMIT FINAL"),
    "session": ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c FROM s WINDOW SESSION (5 SECONDS) GROUP BY k "
                "EMIT CHANGES;", "SESSION"),
    "computed": ("CREATE TABLE bf_out AS SELECT k, SUM(v) / COUNT(*) AS m FROM s GROUP BY k EMIT CHANGES;",
                 "computed from the aggregates"),
    "double-key": ("CREATE TABLE bf_out AS SELECT d, COUNT(*) AS c FROM s GROUP BY d EMIT CHANGES;",
                   "GROUP BY on a non-key"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals_name_the_reason(tmp_path: Any, name: str) -> None:
    sql, reason = REFUSED[name]
    got = lower(_job(tmp_path, sql))
    assert isinstance(got, Refused)
    assert reason in got.reason


def test_double_key_refused_on_one_partition(tmp_path: Any) -> None:
    ddl = DDL.replace("PARTITIONS=3", "PARTITIONS=1")
    got = lower(_job(tmp_path, "CREATE TABLE bf_out AS SELECT d, COUNT(*) AS c FROM s GROUP BY d EMIT CHANGES;", ddl))
    assert isinstance(got, Refused) and "DOUBLE" in got.reason


# ------------------------------------------------------------------------------------------------ on Spark
@pytest.mark.slow
@pytest.mark.parametrize("sql", LOWERED, ids=["tumbling-grace", "hopping-grace", "no-window", "filtered"])
def test_native_equals_streaming(tmp_path: Any, spark: Any, sql: str) -> None:
    recs = records()
    ref, eng, plog_ref, plog_bf = _engines(tmp_path, sql, recs, {TIER_PROPERTY: "native"})
    result = backfill(eng, sql, spark=spark)
    assert result.details["tier"] == "native"
    assert result.records_read == len(recs)
    assert differences(ref, eng, result.query_id, True, plog_ref, plog_bf) == []
    assert result.processing_errors > 0
    if "GRACE" in sql:
        assert result.late_records > 0
        assert result.late_records == sum(a.late for a in ref.queries[result.query_id].aggregation.aggregators)


@pytest.mark.slow
def test_edge_cases_reach_the_sink(tmp_path: Any, spark: Any) -> None:
    """The edge cases are in the data, not only equal: the wrapped sums, the NULL-only group, the boundary."""
    recs = records(60)
    _, eng, _, _ = _engines(tmp_path, TUMBLING, recs, {TIER_PROPERTY: "native"})
    backfill(eng, TUMBLING, spark=spark)
    rows = {(r[0], r[1]): r[2:] for r in
            eng.execute("SELECT k, WINDOWSTART, c, cv, sv, sn, lo, hi FROM bf_out;")[0].data["rows"]}
    c, cv, sv, sn, lo, hi = rows[("o", 70_000)]
    assert (c, cv) == (6, 6)
    assert sv == (5 * BIG - 2**63 + 2**63) % 2**64 - 2**63  # Java's wrap-around of the exact sum
    assert sn == (5 * SMALL - 2**31 + 2**31) % 2**32 - 2**31
    assert (lo, hi) == (-(2**63), SMALL)
    assert rows[("z", 70_000)] == (3, 0, 0, 0, None, None)
    assert rows[("edge", 100_000)][0] == 2  # 100,000 and the first 101,000; the second is late


@pytest.mark.slow
def test_native_refuses_what_does_not_lower(tmp_path: Any, spark: Any) -> None:
    sql = REFUSED["double-sum"][0]
    _, eng, _, _ = _engines(tmp_path, sql, records(30), {TIER_PROPERTY: "native"})
    with pytest.raises(BackfillUnsupported, match="SUM\\(DOUBLE\\)"):
        backfill(eng, sql, spark=spark)
    assert eng.catalog.source("BF_OUT") is None  # rolled back


def test_tier_property(tmp_path: Any) -> None:
    """``python`` (the default) runs every query on the fused tier; ``native`` the lowered plan or a refusal
    with the planner's reason; anything else is a clear error."""
    job = _job(tmp_path / "a", TUMBLING)

    def chosen(value: str | None, j: BackfillJob = job) -> tuple[Any, dict[str, Any]]:
        eng = Engine(str(tmp_path / f"e-{value}"), {} if value is None else {TIER_PROPERTY: value})
        result = BackfillResult("q", {})
        try:
            return choose_tier(eng, j, result), result.details
        finally:
            eng.close()

    assert chosen(None) == (None, {"tier": "python"})
    plan, details = chosen("NATIVE")
    assert isinstance(plan, NativePlan) and details == {"tier": "native"}
    with pytest.raises(BackfillUnsupported, match=r"native tier SUM\(DOUBLE\)"):
        chosen("native", _job(tmp_path / "c", REFUSED["double-sum"][0]))
    with pytest.raises(BackfillUnsupported, match="Invalid value for ksqlpy.backfill.tier: 'jvm'"):
        chosen("jvm")


def test_tier_value_checked_with_the_statement(tmp_path: Any) -> None:
    eng = make_engine(str(tmp_path), DDL, [], "s")
    with pytest.raises(KsqlStatementError, match="ksqlpy.backfill.tier"):
        eng.execute(TUMBLING, {TIER_PROPERTY: "jvm"})
    assert eng.catalog.source("BF_OUT") is None


# ------------------------------------------------------------------------------------------------ Arrow decoding
ARROW_DDL = ("CREATE STREAM s (k BIGINT KEY, v BIGINT, n INT, t STRING, b BOOLEAN) "
             "WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);")
ARROW_SQL = ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c, COUNT(t) AS ct, SUM(v) AS sv, SUM(n) AS sn, "
             "MIN(v) AS lo, MAX(n) AS hi FROM s WINDOW TUMBLING (SIZE 2 SECONDS, GRACE PERIOD 1 SECOND) "
             "GROUP BY k EMIT CHANGES;")


def arrow_records(per_partition: int = 12_000, seed: int = 5) -> list[Record]:
    """Two log batches per partition (10,000 records each): partition 0's second batch holds a number
    written as a string (the streaming reader coerces it), partition 1's first a null key (skipped unlogged: a
    GROUP BY of the stream's own key is groupByKey, no group-by mapper) - those
    two batches go through the streaming reader, the other two are decoded straight into Arrow. Out-of-order
    timestamps with late records, NULLs, sums past INT and BIGINT; each key in one partition (as Kafka
    partitions by key: the table sink is then one key's updates in order)."""
    import struct

    rnd = random.Random(seed)
    recs: list[Record] = []
    for p in (0, 1):
        for i in range(per_partition):
            ts = 1_000_000 + i * 7 - (rnd.randrange(3_000) if i % 9 == 4 else 0)
            k = struct.pack(">q", rnd.randrange(-3, 20) * 2 + p)  # (a key stays in its partition)
            v = None if i % 17 == 0 else (BIG if i % 101 == 0 else rnd.randrange(-10**6, 10**6))
            d = {"v": v, "n": SMALL if i % 53 == 0 else rnd.randrange(-100, 100),
                 "t": None if i % 5 == 0 else "é", "b": i % 2 == 0}
            recs.append((p, k, json.dumps(d).encode(), ts))
    odd = next(i for i, r in enumerate(recs) if r[0] == 0 and i >= 10_500)
    recs[odd] = (0, recs[odd][1], b'{"v": "12", "n": 1}', recs[odd][3])
    null_key = next(i for i, r in enumerate(recs) if r[0] == 1) + 50
    recs[null_key] = (1, None, recs[null_key][2], recs[null_key][3])
    return recs


@pytest.mark.slow
def test_arrow_decoded_batches_equal_streaming(tmp_path: Any, spark: Any) -> None:
    recs = arrow_records()
    ref = make_engine(str(tmp_path / "streaming"), ARROW_DDL, recs, "s")
    plog_ref = _plog(ref)
    ref.execute(ARROW_SQL, {"auto.offset.reset": "earliest"})
    ref.drain(600)
    eng = Engine(str(tmp_path / "backfill"), {TIER_PROPERTY: "native"})
    eng.execute(ARROW_DDL)
    produce(eng, "s", recs)
    plog_bf = _plog(eng)
    result = backfill(eng, ARROW_SQL, spark=spark)
    assert result.details["arrow_batches"] == 2  # (of the 4: the other two through the streaming reader)
    assert result.records_read == len(recs)
    assert result.late_records > 0 and result.processing_errors == 0
    assert differences(ref, eng, result.query_id, True, plog_ref, plog_bf) == []
