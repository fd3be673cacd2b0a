"""The user entry point and what the backfill refuses, and the DataSource's reading of offset ranges -
all without starting Spark."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from ksqlpy.backfill import BackfillUnsupported, backfill
from ksqlpy.backfill.datasource import log_batches
from ksqlpy.backfill.run import split_ranges
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.engine.engine import Engine
from ksqlpy.errors import KsqlStatementError
from ksqlpy.log.base import ProducerRecord

DDL = "CREATE STREAM s (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);"


def _engine(tmp_path: Any, props: dict[str, Any] | None = None) -> Engine:
    engine = Engine(str(tmp_path), props or {})
    engine.execute(DDL)
    engine.execute("CREATE STREAM s2 (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s2', VALUE_FORMAT='JSON', PARTITIONS=2);")
    engine.execute("CREATE TABLE t (k STRING PRIMARY KEY, v INT) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON', "
                   "PARTITIONS=2);")
    engine.execute("CREATE TABLE t2 (k STRING PRIMARY KEY, v INT) WITH (KAFKA_TOPIC='t2', VALUE_FORMAT='JSON', "
                   "PARTITIONS=2);")
    engine.execute("CREATE TABLE t3 (id INT PRIMARY KEY, w STRING) WITH (KAFKA_TOPIC='t3', VALUE_FORMAT='JSON', "
                   "PARTITIONS=2);")
    return engine


REPLAYED = [  # the replay lowering: the runtime's own tasks decide how the inputs interleave
    "CREATE TABLE o AS SELECT v, COUNT(*) AS c FROM s WINDOW SESSION (5 SECONDS) GROUP BY v EMIT CHANGES;",
    "CREATE TABLE o AS SELECT v, COUNT(*) AS c FROM s WINDOW TUMBLING (SIZE 5 SECONDS) GROUP BY v EMIT CHANGES;",
    "CREATE TABLE o AS SELECT k, COUNT(*) AS c FROM t GROUP BY k EMIT CHANGES;",
    "CREATE TABLE o AS SELECT k, v FROM t WHERE v > 1 EMIT CHANGES;",
    "CREATE STREAM o AS SELECT s.k, s.v FROM s JOIN s2 WITHIN 1 SECOND ON s.k = s2.k EMIT CHANGES;",
    "CREATE STREAM o AS SELECT s.k, s.v, t.v AS tv FROM s JOIN t ON s.k = t.k EMIT CHANGES;",
    "CREATE STREAM o AS SELECT s.k, s.v, t.v AS tv FROM s LEFT JOIN t ON s.k = t.k EMIT CHANGES;",
    "CREATE TABLE o AS SELECT t.k, t.v, t2.v AS v2 FROM t JOIN t2 ON t.k = t2.k EMIT CHANGES;",
    "CREATE TABLE o AS SELECT t.k, t.v, t3.w FROM t JOIN t3 ON t.v = t3.id EMIT CHANGES;",
]
FUSED = [  # the fused stages (one input read in offset order, or grouped and shuffled by Spark)
    "CREATE STREAM o AS SELECT k, v FROM s WHERE v > 1 EMIT CHANGES;",
    "CREATE TABLE o AS SELECT k, COUNT(*) AS c FROM s WINDOW TUMBLING (SIZE 5 SECONDS) GROUP BY k EMIT CHANGES;",
    "CREATE TABLE o AS SELECT v, COUNT(*) AS c FROM s GROUP BY v EMIT CHANGES;",
]


@pytest.mark.parametrize("sql", REPLAYED + FUSED)
def test_which_queries_the_replay_lowering_runs(tmp_path: Any, sql: str) -> None:
    from ksqlpy.analysis.query import analyze_query
    from ksqlpy.backfill.support import check, replayed, statement

    engine = _engine(tmp_path)
    stmt = statement(engine, sql)
    plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=stmt.name, persistent=True,
                         sql=stmt.text)
    check(engine, plan)  # nothing refused
    assert replayed(engine, plan) is (sql in REPLAYED)


@pytest.mark.parametrize("sql", [REPLAYED[5], FUSED[0]])
def test_worker_processes_are_refused_before_anything_is_created(tmp_path: Any, sql: str) -> None:
    engine = _engine(tmp_path, {"ksqlpy.workers": "process"})
    with pytest.raises(BackfillUnsupported, match="worker processes"):
        backfill(engine, sql)
    assert engine.catalog.source("O") is None and not engine.queries


def test_only_one_new_create_as_select(tmp_path: Any) -> None:
    engine = Engine(str(tmp_path))
    engine.execute(DDL)
    with pytest.raises(KsqlStatementError, match="exactly one CREATE"):
        backfill(engine, "INSERT INTO s SELECT * FROM s;")
    with pytest.raises(KsqlStatementError, match="exists already"):
        backfill(engine, "CREATE STREAM s AS SELECT * FROM s;")


def test_cli_reports_a_refusal(tmp_path: Any) -> None:
    # the CLI opens the durable engine of the directory: the source is in its command log
    engine = Engine(str(tmp_path / "d"))
    DurableStatements(engine).execute(DDL)
    engine.close()
    proc = subprocess.run([sys.executable, "-m", "ksqlpy", "backfill", "--data-dir", str(tmp_path / "d"),
                           "--property", "ksqlpy.workers=process",
                           "CREATE TABLE o AS SELECT v, COUNT(*) AS c FROM s WINDOW SESSION (5 SECONDS) "
                           "GROUP BY v EMIT CHANGES;"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "does not support queries run by worker processes" in proc.stderr


def test_log_batches_read_exactly_the_offsets_asked(tmp_path: Any) -> None:
    engine = Engine(str(tmp_path))
    engine.log.create_topic("t", 2)
    with engine.log.transaction() as tx:
        for i in range(25):
            tx.produce(ProducerRecord("t", f"k{i}".encode(), None if i == 7 else f"v{i}".encode(), 100 + i,
                                      [("h", b"x")] if i == 3 else None, 1))
    config = {"log.dir": engine.log.path}
    batches = list(log_batches(config, "t", 1, 5, 23, batch=4))
    assert [len(b) for b in batches] == [4, 4, 4, 4, 2]
    assert {b.partition for b in batches} == {1}
    offsets = [o for b in batches for o in b.offsets]
    values = [v for b in batches for v in b.values]
    assert offsets == list(range(5, 23))
    assert values[2] is None and values[0] == b"v5" and batches[0].timestamps[0] == 105
    head = list(log_batches(config, "t", 1, 0, 5))[0]
    assert head.headers[3] == [("h", b"x")] and head.headers[0] is None
    assert list(log_batches(config, "t", 0, 0, 0)) == []
    # a range ending inside a fetched batch stops at its end
    assert [o for b in log_batches(config, "t", 1, 20, 22, batch=100) for o in b.offsets] == [20, 21]


@pytest.mark.parametrize(("ranges", "parallelism", "most", "want"), [
    ({0: (0, 100_000)}, 4, 1_000_000, [(0, 0, 25_000), (0, 25_000, 50_000), (0, 50_000, 75_000),
                                       (0, 75_000, 100_000)]),
    ({0: (0, 15_000), 1: (5, 5)}, 8, 1_000_000, [(0, 0, 15_000), (1, 5, 5)]),  # small: never under 10,000
    ({0: (0, 30_000), 1: (0, 30_000)}, 1, 10_000, [(0, 0, 10_000), (0, 10_000, 20_000), (0, 20_000, 30_000),
                                                   (1, 0, 10_000), (1, 10_000, 20_000), (1, 20_000, 30_000)]),
])
def test_split_ranges_makes_more_tasks_than_partitions(ranges: dict[int, tuple[int, int]], parallelism: int,
                                                       most: int, want: list[tuple[int, int, int]]) -> None:
    got = split_ranges(ranges, parallelism, most)
    assert got == want
    for p, (s, e) in ranges.items():  # every offset exactly once, in order
        covered = [o for q, a, b in got if q == p for o in range(a, b)]
        assert covered == list(range(s, e))


def test_a_refusal_after_the_create_drops_the_query_again(tmp_path: Any) -> None:
    # the tier is decided once the statement has created the query (it needs the query's topology): the
    # backfill then undoes the CREATE, before Spark is touched (no session is given here)
    engine = Engine(str(tmp_path), {"ksqlpy.backfill.tier": "native"})
    engine.execute(DDL)
    with pytest.raises(BackfillUnsupported, match="native tier a query without GROUP BY"):
        backfill(engine, "CREATE STREAM o WITH (VALUE_FORMAT='AVRO') AS SELECT k, v FROM s EMIT CHANGES;",
                 spark=object())
    assert engine.catalog.source("O") is None and not engine.queries
    assert not engine.log.topic_exists("O")
