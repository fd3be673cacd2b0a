"""The replay lowering's Spark task, run in this process without Spark (``replay.replay``): what it stages,
that it reads the sources only up to the run's bounds, and its progress reports."""

from __future__ import annotations

import json
import os
from typing import Any

from ksqlpy.backfill.job import CHANGELOG, SINK, SUMMARY, BackfillJob
from ksqlpy.backfill.progress import task_file
from ksqlpy.backfill.replay import bounds, changelog_topics, replay
from ksqlpy.backfill.run import log_config
from ksqlpy.backfill.stages import Out
from ksqlpy.engine.engine import Engine
from ksqlpy.log.base import ProducerRecord

DDL = """
CREATE STREAM s (id STRING KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);
CREATE TABLE t (id STRING PRIMARY KEY, name STRING) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON', PARTITIONS=2);
"""
SQL = "CREATE STREAM o AS SELECT s.id, v, name FROM s JOIN t ON s.id = t.id EMIT CHANGES;"


def _produce(engine: Engine, records: list[tuple[str, int, str, dict[str, Any], int]]) -> None:
    with engine.log.transaction() as tx:
        for topic, p, k, v, ts in records:
            tx.produce(ProducerRecord(topic, k.encode(), json.dumps(v).encode(), ts, None, p))


def test_a_replay_task_stages_its_partition_within_the_bounds(tmp_path: Any) -> None:
    engine = Engine(str(tmp_path / "e"))
    engine.execute(DDL)
    # the table row and the stream record share a timestamp: the table side goes first, so they join
    _produce(engine, [("t", 1, "a", {"NAME": "x"}, 10), ("s", 1, "a", {"V": 1}, 10), ("s", 1, "a", {"V": 2}, 20),
                      ("s", 0, "b", {"V": 3}, 5)])
    query_id = next(r.query_id for r in engine.execute(SQL, {"auto.offset.reset": "latest"}) if r.query_id)
    query = engine.queries[query_id]
    run_bounds = bounds(engine.log, query.topology, "s")
    assert run_bounds.ranges == {"s": {0: (0, 1), 1: (0, 2)}, "t": {0: (0, 0), 1: (0, 1)}}
    _produce(engine, [("s", 1, "a", {"V": 9}, 30)])  # after the bounds: the streaming query's, not the replay's
    job = BackfillJob(topology=query.topology, sink=query.sink, query_id=query_id,
                      properties=dict(engine.effective_properties()), partitions=2,
                      sink_partitions=engine.log.partition_count(query.sink.topic) or 1)
    staging = str(tmp_path / "staging")
    os.makedirs(os.path.join(staging, "progress"))
    out = Out()
    replay(job, log_config(engine), run_bounds, [1], out, staging)
    out.spill()
    rows = [r for b in out.take() for r in zip(*b.to_pydict().values(), strict=True)]
    sink = [(json.loads(r[3]), r[4]) for r in rows if r[0] == SINK]
    assert sink == [({"V": 1, "NAME": "x"}, 10), ({"V": 2, "NAME": "x"}, 20)]
    logs = changelog_topics(query.topology)
    staged = {(logs[r[6]], r[1]) for r in rows if r[0] == CHANGELOG}
    assert staged and all(p == 1 for _, p in staged)  # the table's row, in partition 1's changelog
    summary = [r for r in rows if r[0] == SUMMARY]
    assert len(summary) == 1 and summary[0][1] == 1
    with open(task_file(staging, 1, 0), "rb") as f:
        assert int(f.read()) == 2  # the primary source's partition 1, read to its bound
    engine.close()


def test_a_replay_writes_a_sink_timestamp_column_as_the_streaming_query_does(tmp_path: Any) -> None:
    """The replay's sink writer takes each record's timestamp where the streaming query's does (the topology's
    WriteSink): a CREATE ... AS SELECT with TIMESTAMP='col' writes the column's value."""
    engine = Engine(str(tmp_path / "e"))
    engine.execute("CREATE STREAM s (id STRING KEY, ts BIGINT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', "
                   "PARTITIONS=1);")
    _produce(engine, [("s", 0, "a", {"TS": 7000}, 10), ("s", 0, "b", {"TS": 8000}, 20)])
    sql = "CREATE STREAM o WITH (TIMESTAMP='TS') AS SELECT id, ts FROM s EMIT CHANGES;"
    query_id = next(r.query_id for r in engine.execute(sql, {"auto.offset.reset": "latest"}) if r.query_id)
    query = engine.queries[query_id]
    job = BackfillJob(topology=query.topology, sink=query.sink, query_id=query_id,
                      properties=dict(engine.effective_properties()), partitions=1, sink_partitions=1)
    staging = str(tmp_path / "staging")
    os.makedirs(os.path.join(staging, "progress"))
    out = Out()
    replay(job, log_config(engine), bounds(engine.log, query.topology, "s"), [0], out, staging)
    out.spill()
    rows = [r for b in out.take() for r in zip(*b.to_pydict().values(), strict=True)]
    assert [(json.loads(r[3]), r[4]) for r in rows if r[0] == SINK] == [({"TS": 7000}, 7000), ({"TS": 8000}, 8000)]
    engine.close()
