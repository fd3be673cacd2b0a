"""Partial aggregates per chunk (``ksqlpy.backfill.partials``): an aggregation cut into more tasks than its
source has partitions gives the streaming runtime's sink, state, late drops and processing log - also when
records arrive out of order across chunk boundaries (a chunk's window closed by an earlier chunk's time)."""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest

from bench.backfill import _plog, differences
from ksqlpy.backfill import backfill
from ksqlpy.backfill.datasource import Stage, merge_task, run_task
from ksqlpy.backfill.handoff import BackfillResult, HandOff
from ksqlpy.backfill.job import BackfillJob
from ksqlpy.backfill.partials import chunkable
from ksqlpy.backfill.run import chunk_aggregation, log_config, pinned_ranges, split_ranges
from ksqlpy.engine.engine import Engine
from tests.backfill.conftest import Record, make_engine, produce

DDL = ("CREATE STREAM s (k STRING KEY, v BIGINT, n INT, d DOUBLE) "
       "WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=3);")
PARTITIONS = 3

TUMBLING_GRACE = ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c, SUM(v) AS sv, MIN(n) AS lo, MAX(n) AS hi FROM s "
                  "WINDOW TUMBLING (SIZE 2 SECONDS, GRACE PERIOD 1 SECOND) GROUP BY k EMIT CHANGES;")
HOPPING_GRACE = ("CREATE TABLE bf_out AS SELECT k, COUNT(v) AS c, SUM(n) AS sn FROM s "
                 "WINDOW HOPPING (SIZE 3 SECONDS, ADVANCE BY 1 SECOND, GRACE PERIOD 500 MILLISECONDS) "
                 "GROUP BY k EMIT CHANGES;")
TUMBLING = ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c, SUM(v) AS sv FROM s WINDOW TUMBLING (SIZE 5 SECONDS) "
            "GROUP BY k EMIT CHANGES;")
NO_WINDOW = "CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c, SUM(v) AS sv, MAX(n) AS hi FROM s GROUP BY k EMIT CHANGES;"
CHUNKED = [TUMBLING_GRACE, HOPPING_GRACE, TUMBLING, NO_WINDOW]
# not mergeable exactly: HAVING (tombstones depend on every update), a DOUBLE sum (order of addition), a
# computed output column (it may fail once per update), EMIT FINAL (emission follows stream time)
WHOLE = [
    "CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c FROM s WINDOW TUMBLING (SIZE 2 SECONDS) GROUP BY k "
    "HAVING COUNT(*) > 2 EMIT CHANGES;",
    "CREATE TABLE bf_out AS SELECT k, SUM(d) AS sd FROM s GROUP BY k EMIT CHANGES;",
    "CREATE TABLE bf_out AS SELECT k, SUM(v) / COUNT(*) AS m FROM s GROUP BY k EMIT CHANGES;",
    "CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c FROM s WINDOW TUMBLING (SIZE 2 SECONDS, GRACE PERIOD 0 SECONDS) "
    "GROUP BY k EMIT FINAL;",
]


def _records(n: int = 900, seed: int = 7) -> list[Record]:
    """Keys pinned to partitions, every 5th record up to 3.5 s late (some within the grace, some not),
    plus an unreadable record, a null value and a null key."""
    rnd = random.Random(seed)
    recs: list[Record] = []
    for i in range(n):
        p = i % PARTITIONS
        ts = 50_000 + i * 40 - (rnd.randrange(3_500) if i % 5 == 2 else 0)
        value = {"V": i if i % 13 else None, "N": rnd.randrange(-50, 50), "D": i / 8}
        recs.append((p, f"k{p}{rnd.randrange(4)}".encode(), json.dumps(value).encode(), ts))
    recs += [(0, b"k00", b"{not json", 60_000), (1, b"k10", None, 60_100),
             (2, None, json.dumps({"V": 1, "N": 1, "D": 1.0}).encode(), 60_200)]
    return recs


def _engines(tmp_path: Any, sql: str, records: list[Record], props: dict[str, Any] | None = None
             ) -> tuple[Engine, Engine, list[Any], list[Any]]:
    ref = make_engine(str(tmp_path / "streaming"), DDL, records, "s")
    plog_ref = _plog(ref)
    ref.execute(sql, {"auto.offset.reset": "earliest"})
    ref.drain()
    eng = Engine(str(tmp_path / "backfill"), props or {})
    eng.execute(DDL)
    produce(eng, "s", records)
    return ref, eng, plog_ref, _plog(eng)


@pytest.mark.parametrize("sql", CHUNKED, ids=["tumbling-grace", "hopping-grace", "tumbling", "no-window"])
@pytest.mark.parametrize("chunk", [37, 120])
def test_chunks_merged_in_process_equal_streaming(tmp_path: Any, sql: str, chunk: int) -> None:
    """The chunk and merge functions as Spark runs them, here in one process (no JVM needed): many chunk
    boundaries, so windows closed by an earlier chunk's time are met often."""
    records = _records()
    ref, eng, plog_ref, plog_bf = _engines(tmp_path, sql, records)
    res = eng.execute(sql, {"auto.offset.reset": "latest"})
    qid = next(r.query_id for r in res if r.query_id)
    query = eng.queries[qid]
    job = BackfillJob(topology=query.topology, sink=query.sink, query_id=qid,
                      properties=dict(eng.effective_properties()), partitions=PARTITIONS,
                      sink_partitions=eng.log.partition_count(query.sink.topic) or 1)
    assert chunkable(job)
    ranges = pinned_ranges(eng, query, PARTITIONS)
    stage_dir = str(tmp_path / "staging")
    os.makedirs(os.path.join(stage_dir, "progress"))
    tasks = split_ranges(ranges, 2, chunk, 1)
    assert len(tasks) >= 3 * PARTITIONS
    chunks: dict[int, list[tuple[int, str]]] = {}
    for p, s, e in tasks:
        for b in run_task(job, Stage.PARTIAL, log_config(eng), "s", p, s, e, stage_dir):
            chunks.setdefault(p, []).append((s, b.column("value")[0].as_py().decode()))
    handoff = HandOff(eng, query, BackfillResult(qid, ranges))
    for p, (s, _) in sorted(ranges.items()):
        for b in merge_task(job, p, s, [path for _, path in sorted(chunks[p])], stage_dir):
            handoff.commit_file(b.column("value")[0].as_py().decode())
    handoff.finish()
    assert handoff.result.records_read == len(records)
    assert differences(ref, eng, qid, True, plog_ref, plog_bf) == []
    if "GRACE" in sql:
        assert handoff.result.late_records > 0
        assert handoff.result.late_records == sum(a.late for a in ref.queries[qid].aggregation.aggregators)


@pytest.mark.parametrize("sql", WHOLE, ids=["having", "double-sum", "computed-column", "emit-final"])
def test_not_chunkable(tmp_path: Any, sql: str) -> None:
    eng = make_engine(str(tmp_path / "e"), DDL, [], "s")
    res = eng.execute(sql, {"auto.offset.reset": "latest"})
    query = eng.queries[next(r.query_id for r in res if r.query_id)]
    job = BackfillJob(topology=query.topology, sink=query.sink, query_id=query.query_id,
                      properties=dict(eng.effective_properties()), partitions=PARTITIONS)
    assert not chunkable(job)


@pytest.mark.slow
@pytest.mark.parametrize("sql", [TUMBLING_GRACE, HOPPING_GRACE, NO_WINDOW], ids=["tumbling-grace", "hopping", "no-window"])
def test_spark_runs_more_tasks_than_partitions(tmp_path: Any, spark: Any, sql: str) -> None:
    records = _records()
    ref, eng, plog_ref, plog_bf = _engines(tmp_path, sql, records, {"ksqlpy.backfill.task.records": "100"})
    result = backfill(eng, sql, spark=spark)
    assert result.details["tasks"] > PARTITIONS
    assert result.records_read == len(records)
    assert differences(ref, eng, result.query_id, True, plog_ref, plog_bf) == []


@pytest.mark.slow
@pytest.mark.parametrize("sql", WHOLE[:2], ids=["having", "double-sum"])
def test_spark_keeps_one_task_per_partition_otherwise(tmp_path: Any, spark: Any, sql: str) -> None:
    records = _records(300)
    ref, eng, plog_ref, plog_bf = _engines(tmp_path, sql, records, {"ksqlpy.backfill.task.records": "100"})
    result = backfill(eng, sql, spark=spark)
    assert result.details["tasks"] == PARTITIONS
    assert differences(ref, eng, result.query_id, True, plog_ref, plog_bf) == []



def test_chunks_only_when_they_buy_parallelism() -> None:
    """Chunks cost a merge: used when Spark has more cores than the source has partitions, or a partition
    holds more records than one task reads - not merely because the split came out uneven."""
    ranges = {0: (0, 160_000), 1: (0, 140_000)}
    uneven = split_ranges(ranges, 2, 1_000_000)
    assert len(uneven) == 3  # the split alone would cut partition 0 in two
    assert not chunk_aggregation(ranges, uneven, 2, 1_000_000)
    assert chunk_aggregation(ranges, split_ranges(ranges, 4, 1_000_000), 4, 1_000_000)
    assert chunk_aggregation(ranges, split_ranges(ranges, 2, 100_000), 2, 100_000)
    assert not chunk_aggregation({0: (0, 50_000)}, [(0, 0, 50_000)], 4, 1_000_000)  # nothing to cut
