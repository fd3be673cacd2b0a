"""The replay lowering (``ksqlpy.backfill.replay``): joins and TABLE sources backfilled by the streaming runtime's
own tasks on Spark - sink, state and the hand-off equal to streaming, per join kind and over several partitions.

Each case runs the same inputs twice: streaming from the earliest offset, and as a backfill of the first
inputs followed by the rest produced after the hand-off (``LIVE``). The sinks must be equal (a stream's
records per partition and key in order, a table's after collapsing), and so must the query's stores."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ksqlpy.backfill import backfill
from ksqlpy.backfill.replay import exchanges, task_groups
from ksqlpy.engine.engine import Engine
from ksqlpy.log.base import ProducerRecord
from ksqlpy.testing.differential import by_key, collapse, sink_records, stores, task_stores

pytestmark = pytest.mark.slow

# (topic, partition, key, value, timestamp)
In = tuple[str, int, str, dict[str, Any] | None, int]

DDL = """
CREATE STREAM s (id STRING KEY, v INT, fk STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=4);
CREATE STREAM s2 (id STRING KEY, w INT) WITH (KAFKA_TOPIC='s2', VALUE_FORMAT='JSON', PARTITIONS=4);
CREATE TABLE t (id STRING PRIMARY KEY, name STRING, n INT) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON', PARTITIONS=4);
CREATE TABLE u (id STRING PRIMARY KEY, x INT, ref STRING) WITH (KAFKA_TOPIC='u', VALUE_FORMAT='JSON', PARTITIONS=4);
"""


def _part(key: str) -> int:
    """Keys spread over the 4 partitions, each key in one (co-partitioned inputs place a key alike)."""
    return int(key[1:]) % 4


def _inputs() -> list[In]:
    out: list[In] = []
    for i in range(48):
        k = f"k{i % 8}"
        ts = 1_000 + i * 500
        if i % 3 == 0:  # a table update at the time a stream record has: the table side goes first
            out.append(("t", _part(k), k, {"NAME": f"n{i}", "N": i}, ts))
        out.append(("s", _part(k), k, {"V": i, "FK": f"k{(i * 3) % 8}"}, ts))
        if i % 4 == 1:
            out.append(("s2", _part(k), k, {"W": i}, ts + 700 - (3_000 if i % 8 == 5 else 0)))  # some out of order
        if i % 5 == 2:
            out.append(("u", _part(k), k, {"X": i, "REF": f"k{i % 3}"}, ts))
        if i % 11 == 10:
            out.append(("t", _part(k), k, None, ts + 1))  # a table delete
    return out


HISTORY = 120  # inputs produced before the query starts: the backfilled history


def _produce(engine: Engine, records: list[In]) -> None:
    with engine.log.transaction() as tx:
        for topic, p, k, v, ts in records:
            tx.produce(ProducerRecord(topic, k.encode(), None if v is None else json.dumps(v).encode(), ts, None, p))


def _engine(path: str) -> Engine:
    # an outer join's look at its waiting records unthrottled: the wall-clock throttle would make the two
    # runs depend on timing
    engine = Engine(path, {"ksql.streams.__emit.interval.ms.kstreams.outer.join.spurious.results.fix__": 0})
    engine.execute(DDL)
    return engine


def _both(tmp_path: Any, spark: Any, sql: str) -> tuple[Engine, Engine, Any]:
    inputs = _inputs()
    ref = _engine(str(tmp_path / "streaming"))
    _produce(ref, inputs[:HISTORY])
    ref.execute(sql, {"auto.offset.reset": "earliest"})
    ref.drain()
    _produce(ref, inputs[HISTORY:])
    ref.drain()
    eng = _engine(str(tmp_path / "backfill"))
    _produce(eng, inputs[:HISTORY])
    result = backfill(eng, sql, spark=spark)
    _produce(eng, inputs[HISTORY:])  # after the hand-off: the streaming query continues
    eng.drain()
    return ref, eng, result


def _check(ref: Engine, eng: Engine, sql: str, table: bool) -> None:
    name = sql.split()[2].upper()
    want, got = sink_records(ref, name), sink_records(eng, name)
    assert want, "the case must produce output"
    if table:
        assert collapse(got) == collapse(want)
    else:
        assert by_key(got) == by_key(want)
    assert stores(eng, name) == stores(ref, name)
    assert task_stores(eng, name) == task_stores(ref, name)
    assert any(task_stores(ref, name).values()), "the query keeps state the hand-off must carry"
    assert eng.plog.count == ref.plog.count


@pytest.mark.parametrize("sql, table", [
    ("CREATE STREAM o AS SELECT s.id, v, name, n FROM s JOIN t ON s.id = t.id EMIT CHANGES;", False),
    ("CREATE STREAM o AS SELECT s.id, v, name FROM s LEFT JOIN t ON s.id = t.id EMIT CHANGES;", False),
    ("CREATE STREAM o AS SELECT s.id, v, w FROM s JOIN s2 WITHIN 2 SECONDS GRACE PERIOD 1 SECOND "
     "ON s.id = s2.id EMIT CHANGES;", False),
    ("CREATE STREAM o AS SELECT ROWKEY AS rk, v, w FROM s FULL OUTER JOIN s2 WITHIN 1 SECOND GRACE PERIOD 500 "
     "MILLISECONDS ON s.id = s2.id EMIT CHANGES;", False),
    ("CREATE TABLE o AS SELECT t.id, name, x FROM t LEFT JOIN u ON t.id = u.id EMIT CHANGES;", True),
    ("CREATE TABLE o AS SELECT u.id, x, name FROM u JOIN t ON u.ref = t.id EMIT CHANGES;", True),  # foreign key
    ("CREATE TABLE o AS SELECT t.id, name, n * 2 AS n2 FROM t WHERE n % 2 = 0 EMIT CHANGES;", True),
    ("CREATE TABLE o AS SELECT name, COUNT(*) AS c, SUM(n) AS sn FROM t GROUP BY name EMIT CHANGES;", True),
    ("CREATE TABLE o AS SELECT s.fk, COUNT(*) AS c, MAX(n) AS mx FROM s JOIN t ON s.id = t.id GROUP BY s.fk "
     "EMIT CHANGES;", True),
], ids=["stream-table", "stream-table-left", "stream-stream-grace", "stream-stream-outer", "table-table-left",
        "foreign-key", "table-filter", "table-aggregation-undo", "join-then-repartitioned-aggregation"])
def test_replay_equals_streaming(tmp_path: Any, spark: Any, sql: str, table: bool) -> None:
    ref, eng, result = _both(tmp_path, spark, sql)
    assert result.details["tasks"] == len(task_groups(eng.queries[result.query_id].topology))
    _check(ref, eng, sql, table)
    if table and "JOIN" not in sql:  # a pull query reads the handed-over table as it reads streaming's
        pull = "SELECT * FROM o;"
        want = ref.execute(pull)[0].data["rows"]
        assert want and sorted(map(repr, eng.execute(pull)[0].data["rows"])) == sorted(map(repr, want))


def test_replay_parallelism_follows_the_exchanges(tmp_path: Any) -> None:
    """Co-partitioned joins and table queries run a Spark task per partition; a repartition or a foreign-key
    join's subscription topics put every partition into one task (records cross partitions in-process)."""
    eng = _engine(str(tmp_path / "e"))
    eng.execute("CREATE STREAM a AS SELECT s.id, v, name FROM s JOIN t ON s.id = t.id EMIT CHANGES;")
    eng.execute("CREATE TABLE b AS SELECT u.id, x, name FROM u JOIN t ON u.ref = t.id EMIT CHANGES;")
    a, b = (eng.queries[q].topology for q in sorted(eng.queries))
    assert not exchanges(a) and task_groups(a) == [[0], [1], [2], [3]]
    assert exchanges(b) and task_groups(b) == [[0, 1, 2, 3]]
    eng.close()
