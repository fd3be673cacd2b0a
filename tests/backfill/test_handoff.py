"""The hand-off: after a backfill the streaming query continues at the next offset with the backfill's
state - nothing lost, nothing counted twice - in the same process and after a restart."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.backfill import collapse as collapsed
from bench.backfill import sink as sink_records
from ksqlpy.backfill import backfill
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.engine.engine import Engine
from tests.backfill.conftest import Record, make_engine, produce, streamed

pytestmark = pytest.mark.slow

DDL = ("CREATE STREAM s (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);")
WINDOWED = ("CREATE TABLE o AS SELECT k, COUNT(*) AS c, SUM(v) AS sv FROM s "
            "WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD 3 SECONDS) GROUP BY k EMIT CHANGES;")


def _rec(p: int, k: str, v: int, ts: int) -> Record:
    return (p, k.encode(), json.dumps({"V": v}).encode(), ts)


FIRST = [_rec(i % 2, f"k{i % 2}{i % 3}", i, 1_000 + i * 900) for i in range(40)]  # stream time ~36 s
SECOND = [
    _rec(0, "k00", 100, 31_000),  # window [30 s, 40 s): still open, counts on top of the backfilled state
    _rec(1, "k11", 101, 21_000),  # window [20 s, 30 s) closed at 33 s: late only by the backfill's stream time
    _rec(0, "k01", 102, 45_000),
    _rec(1, "k10", 103, 36_500),
]


def test_streaming_continues_where_the_backfill_stopped(tmp_path: Any, spark: Any) -> None:
    ref = streamed(str(tmp_path / "ref"), DDL, FIRST + SECOND, "s", WINDOWED)
    eng = make_engine(str(tmp_path / "bf"), DDL, FIRST, "s")
    result = backfill(eng, WINDOWED, spark=spark)
    assert result.positions == {0: (0, 20), 1: (0, 20)}
    # a pull query sees the backfilled table (the windows still retained) before the streaming query
    # has read anything, as it sees the table of a streaming query that read the same records
    first = streamed(str(tmp_path / "first"), DDL, FIRST, "s", WINDOWED)
    pull = "SELECT * FROM o WHERE k IN ('k00', 'k11');"
    rows = eng.execute(pull)[0].data["rows"]
    assert rows and sorted(rows) == sorted(first.execute(pull)[0].data["rows"])
    produce(eng, "s", SECOND)
    eng.drain()
    assert collapsed(sink_records(eng, "O")) == collapsed(sink_records(ref, "O"))
    q, ref_q = eng.queries[result.query_id], ref.queries[result.query_id]
    assert sum(a.late for a in q.aggregation.aggregators) == sum(a.late for a in ref_q.aggregation.aggregators) == 1
    assert [a.stream_time for a in q.aggregation.aggregators] == [a.stream_time for a in ref_q.aggregation.aggregators]


def test_restart_after_backfill_restores_state_and_positions(tmp_path: Any, spark: Any) -> None:
    sql = "CREATE TABLE o AS SELECT k, COUNT(*) AS c, SUM(v) AS sv FROM s GROUP BY k EMIT CHANGES;"
    ref = streamed(str(tmp_path / "ref"), DDL, FIRST + SECOND, "s", sql)
    path = str(tmp_path / "bf")
    eng = Engine(path)
    statements = DurableStatements(eng)  # the command log: the source and the backfilled query survive
    statements.execute(DDL)
    produce(eng, "s", FIRST)
    backfill(eng, sql, statements=statements, spark=spark)
    eng.close()
    again = Engine(path)
    DurableStatements(again)  # replays the command log: the query is rebuilt from its changelog and positions
    produce(again, "s", SECOND)
    again.drain()
    assert collapsed(sink_records(again, "O")) == collapsed(sink_records(ref, "O"))
    rows = again.execute("SELECT * FROM o;")[0].data["rows"]
    assert sorted(map(tuple, rows)) == sorted(map(tuple, ref.execute("SELECT * FROM o;")[0].data["rows"]))
    again.close()


def test_stateless_backfill_then_streaming_writes_each_record_once(tmp_path: Any, spark: Any) -> None:
    sql = "CREATE STREAM o AS SELECT k, v + 1 AS w FROM s WHERE v % 2 = 0 EMIT CHANGES;"
    ref = streamed(str(tmp_path / "ref"), DDL, FIRST + SECOND, "s", sql)
    eng = make_engine(str(tmp_path / "bf"), DDL, FIRST, "s")
    backfill(eng, sql, spark=spark)
    produce(eng, "s", SECOND)
    eng.drain()
    got, want = sink_records(eng, "O"), sink_records(ref, "O")
    for p in range(2):
        assert [r for r in got if r[0] == p] == [r for r in want if r[0] == p]
