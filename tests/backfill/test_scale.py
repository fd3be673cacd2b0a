"""The backfill at scale, on a small data set: more tasks than partitions for a stateless query, the
driver's memory flat as the output grows, and the benchmark's equality check over every workload."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import pytest

from bench.backfill import sink as sink_records
from ksqlpy.backfill import backfill
from tests.backfill.conftest import Record, make_engine, streamed

pytestmark = pytest.mark.slow

DDL = "CREATE STREAM s (k STRING KEY, v INT, txt STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);"
PASS_THROUGH = "CREATE STREAM o AS SELECT k, v, txt FROM s EMIT CHANGES;"


def _records(n: int) -> list[Record]:
    return [(i % 2, f"k{i % 2}{i % 7}".encode(), json.dumps({"V": i, "TXT": "x" * 40}).encode(), 1_000 + i)
            for i in range(n)]


def test_a_stateless_backfill_runs_more_tasks_than_partitions(tmp_path: Any, spark: Any) -> None:
    records = _records(3_000) + [(1, b"k13", b"{broken", 9_000)]
    sql = "CREATE STREAM o AS SELECT k, v * 3 AS w FROM s WHERE v % 4 <> 1 EMIT CHANGES;"
    ref = streamed(str(tmp_path / "ref"), DDL, records, "s", sql)
    eng = make_engine(str(tmp_path / "bf"), DDL, records, "s")
    eng.session_properties["ksqlpy.backfill.task.records"] = "400"  # (as SET sets it)
    result = backfill(eng, sql, spark=spark)
    assert result.details["tasks"] >= 8 > 2  # sub-ranges of the two partitions
    assert result.records_read == len(records)
    want, got = sink_records(ref, "O"), sink_records(eng, "O")
    assert len(want) > 2_000
    for p in range(2):  # each sink partition in the order streaming writes it
        assert [r for r in got if r[0] == p] == [r for r in want if r[0] == p]
    assert result.processing_errors == eng.plog.count == ref.plog.count == 1


def _driver_peak(tmp_path: Any, spark: Any, n: int) -> tuple[int, int]:
    eng = make_engine(str(tmp_path / f"bf{n}"), DDL, _records(n), "s")
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = backfill(eng, PASS_THROUGH, spark=spark)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert result.sink_records == n
    eng.close()
    return peak, result.sink_records


def test_driver_memory_does_not_grow_with_the_output(tmp_path: Any, spark: Any) -> None:
    # the driver receives one row per task (where its staged file is) and commits the files batch by batch:
    # four times the output must not need four times the driver's memory (collecting it would)
    small, _ = _driver_peak(tmp_path, spark, 50_000)
    large, _ = _driver_peak(tmp_path, spark, 200_000)
    assert large < small * 1.5 + (2 << 20), (small, large)


def test_benchmark_workloads_are_equal_to_streaming(spark: Any) -> None:
    from bench import backfill as bench

    report = bench.run(4_000, "local[2]", log=lambda *_: None)
    assert {(r["workload"], r["tier"]) for r in report["results"]} == {
        (w.name, t) for w in bench.WORKLOADS for t in bench.tiers_of(w)}
    assert {r["tier"] for r in report["results"] if r["workload"] == "tumbling_count_sum"} == {"python", "native"}
    for r in report["results"]:
        assert r["equal"], r
        assert r["records"] == 4_000 and r["backfill_cpu_us_per_record"] > 0
    late = next(r for r in report["results"] if r["workload"] == "out_of_order_grace")
    assert late["late_records"] > 0
