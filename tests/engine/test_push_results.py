"""What a push query hands its consumer: deletes of table results as tombstone rows (key columns filled,
the rest NULL), one implicit group for aggregates without GROUP BY, each side's window bounds for
``SELECT *`` over windowed joins. The REST rendering is in tests/cases/rest/push-query-results.json."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.results import TombstoneRow
from ksqlpy.errors import KsqlStatementError
from ksqlpy.log.base import ProducerRecord


@pytest.fixture
def engine(tmp_path: Path) -> Any:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": 0})
    e.execute("CREATE TABLE T (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='t', format='JSON', partitions=1);")
    e.execute("CREATE STREAM S (ID INT KEY, V STRING, N INT) WITH (kafka_topic='s', format='JSON', partitions=2);")
    yield e
    e.close()


def send(e: Engine, topic: str, key: int, value: dict | None, ts: int, partition: int = 0) -> None:
    e.log.produce(ProducerRecord(topic, orjson.dumps(key), None if value is None else orjson.dumps(value), ts, None,
                                 partition))


def push(e: Engine, sql: str) -> list[tuple]:
    [res] = e.execute(sql)
    e.drain()
    return [("DELETE", *r) if isinstance(r, TombstoneRow) else r for r in res.data]


def test_table_deletes_are_tombstone_rows_with_the_key(engine: Engine) -> None:
    send(engine, "t", 1, {"V": "a"}, 1)
    send(engine, "t", 2, {"V": "b"}, 2)
    send(engine, "t", 1, None, 3)
    assert push(engine, "SELECT * FROM T EMIT CHANGES LIMIT 3;") == [(1, "a"), (2, "b"), ("DELETE", 1, None)]
    # the key keeps its place (and alias) in the projection; computed columns are NULL
    assert push(engine, "SELECT UCASE(V) AS U, ID AS X FROM T EMIT CHANGES LIMIT 3;") == [
        ("A", 1), ("B", 2), ("DELETE", None, 1)]
    # no key column projected: nothing to fill
    assert push(engine, "SELECT V FROM T EMIT CHANGES LIMIT 3;") == [("a",), ("b",), ("DELETE", None)]


def test_table_rows_that_stop_matching_where_are_deletes(engine: Engine) -> None:
    # ksqlDB filters a materialized table with the previous row at hand: a row failing WHERE (or a delete)
    # deletes its key only if the previous row passed; otherwise nothing goes out
    send(engine, "t", 1, {"V": "a"}, 1)
    send(engine, "t", 2, {"V": "b"}, 2)
    send(engine, "t", 1, None, 3)
    send(engine, "t", 2, {"V": "c"}, 4)
    send(engine, "t", 2, {"V": "d"}, 5)
    send(engine, "t", 3, {"V": "b"}, 6)
    assert push(engine, "SELECT * FROM T WHERE V = 'b' EMIT CHANGES LIMIT 3;") == [
        (2, "b"), ("DELETE", 2, None), (3, "b")]


def test_aggregation_deletes_are_tombstone_rows(engine: Engine) -> None:
    for i, v in enumerate("aab"):
        send(engine, "s", i, {"V": v, "N": i}, i)
    rows = push(engine, "SELECT V, COUNT(*) AS C FROM S GROUP BY V HAVING COUNT(*) < 2 EMIT CHANGES LIMIT 3;")
    # the groups are repartitioned over S's two partitions: the order holds per key, not across keys
    assert [r for r in rows if "a" in r] == [("a", 1), ("DELETE", "a", None)]
    assert [r for r in rows if "b" in r] == [("b", 1)]


def test_merged_session_deletes_keep_their_window(engine: Engine) -> None:
    send(engine, "s", 1, {"V": "a", "N": 1}, 1)
    send(engine, "s", 2, {"V": "a", "N": 2}, 4)
    rows = push(engine, "SELECT WINDOWEND AS WE, V, WINDOWSTART, COUNT(*) AS C FROM S WINDOW SESSION "
                        "(5 MILLISECONDS) GROUP BY V EMIT CHANGES LIMIT 3;")
    assert rows == [(1, "a", 1, 1), ("DELETE", 1, "a", 1, None), (4, "a", 1, 2)]


def test_aggregates_without_group_by_are_one_group_over_every_partition(engine: Engine) -> None:
    for i in range(4):
        send(engine, "s", i, {"V": "x", "N": i + 1}, i, partition=i % 2)
    rows = push(engine, "SELECT COUNT(*), SUM(N) AS TOTAL, MAX(N) FROM S EMIT CHANGES LIMIT 4;")
    assert sorted(rows)[-1] == (4, 10, 4)
    assert [r[0] for r in rows] == [1, 2, 3, 4]
    [res] = engine.execute("SELECT COUNT(*), SUM(N) AS TOTAL, MAX(N) FROM S EMIT CHANGES LIMIT 1;")
    assert [n for n, _ in res.data.columns] == ["KSQL_COL_0", "TOTAL", "KSQL_COL_1"]
    res.data.close()


def test_aggregates_without_group_by_windowed_and_with_having(engine: Engine) -> None:
    for i in range(4):
        send(engine, "s", i, {"V": "x", "N": 1}, i * 5)
    assert push(engine, "SELECT WINDOWSTART AS WS, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS) "
                        "EMIT CHANGES LIMIT 4;") == [(0, 1), (0, 2), (10, 1), (10, 2)]
    assert push(engine, "SELECT COUNT(*) AS C FROM S HAVING COUNT(*) > 2 EMIT CHANGES LIMIT 2;") == [(3,), (4,)]


def test_aggregates_without_group_by_on_a_table(engine: Engine) -> None:
    send(engine, "t", 1, {"V": "a"}, 1)
    send(engine, "t", 2, {"V": "b"}, 2)
    send(engine, "t", 1, None, 3)
    assert push(engine, "SELECT COUNT(*) AS C FROM T EMIT CHANGES LIMIT 3;") == [(1,), (2,), (1,)]


@pytest.mark.parametrize("sql", [
    "CREATE TABLE O AS SELECT COUNT(*) FROM S;",
    "CREATE STREAM O AS SELECT COUNT(*) FROM S;",
    "INSERT INTO S SELECT COUNT(*) FROM S;",
])
def test_aggregates_without_group_by_in_a_persistent_query_are_an_error(engine: Engine, sql: str) -> None:
    with pytest.raises(KsqlStatementError, match=r"^CREATE TABLE AS SELECT statement does not support aggregate "
                                                 r"function \[COUNT\(ROWTIME\)\] without a GROUP BY clause\.$"):
        engine.execute(sql)


def test_non_aggregate_column_with_an_implicit_group_is_an_error(engine: Engine) -> None:
    with pytest.raises(KsqlStatementError, match="Non-aggregate SELECT expression\\(s\\) not part of GROUP BY: V"):
        engine.execute("SELECT V, COUNT(*) FROM S EMIT CHANGES;")


def test_an_aggregate_only_in_having_groups_the_push_query(engine: Engine) -> None:
    # HAVING's aggregate alone makes the implicit group, as SELECT's does: one row per update, filtered on it
    for i in range(4):
        send(engine, "s", i, {"V": "x", "N": i + 1}, i, partition=i % 2)
    assert push(engine, "SELECT 'all' AS G FROM S HAVING SUM(N) > 2 EMIT CHANGES LIMIT 3;") == [("all",)] * 3


def test_a_star_with_an_aggregate_only_in_having_is_outside_the_implicit_group(engine: Engine) -> None:
    with pytest.raises(KsqlStatementError, match="^Non-aggregate SELECT expression\\(s\\) not part of GROUP BY: ID, V, N\n"):
        engine.execute("SELECT * FROM S HAVING COUNT(*) > 1 EMIT CHANGES;")


def test_a_pull_query_over_a_stream_does_not_aggregate(engine: Engine) -> None:
    # grouped by a constant first (as every aggregate without GROUP BY), then refused by the pull-query rules
    with pytest.raises(KsqlStatementError, match="Pull queries don't support GROUP BY clauses"):
        engine.execute("SELECT COUNT(*) FROM S;")


def test_star_over_windowed_joins_has_each_sides_window(engine: Engine) -> None:
    for name in ("L", "R"):
        engine.execute(f"CREATE STREAM {name} (ID INT KEY, V INT) WITH (kafka_topic='{name.lower()}', format='JSON', "
                       "partitions=1, WINDOW_TYPE='TUMBLING', WINDOW_SIZE='10 MILLISECONDS');")
    for topic, v in (("l", 1), ("r", 2)):
        engine.log.produce(ProducerRecord(topic, orjson.dumps(7) + (10).to_bytes(8, "big"), orjson.dumps({"V": v}), 12,
                                          None, 0))
    [res] = engine.execute("SELECT * FROM L LEFT JOIN R WITHIN 1 SECOND ON L.ID = R.ID EMIT CHANGES LIMIT 2;")
    assert [n for n, _ in res.data.columns] == ["L_ID", "L_WINDOWSTART", "L_WINDOWEND", "L_V",
                                                "R_ID", "R_WINDOWSTART", "R_WINDOWEND", "R_V"]
    engine.drain()
    assert list(res.data) == [(7, 10, 20, 1, None, None, None, None), (7, 10, 20, 1, 7, 10, 20, 2)]


@pytest.mark.parametrize("sql", [
    "SELECT * FROM T EMIT FINAL;",
    "SELECT ID, COUNT(*) FROM S GROUP BY ID EMIT FINAL;",
    "SELECT T.ID, T2.W FROM T JOIN T2 ON T.ID = T2.ID EMIT FINAL;",
])
def test_emit_final_push_queries_need_a_windowed_aggregation(engine: Engine, sql: str) -> None:
    engine.execute("CREATE TABLE T2 (ID INT PRIMARY KEY, W STRING) WITH (kafka_topic='t2', format='JSON', "
                   "partitions=1);")
    with pytest.raises(KsqlStatementError, match="EMIT FINAL is only supported for windowed aggregations."):
        engine.execute(sql)


def test_emit_final_push_query_needs_suppression_enabled(tmp_path: Path) -> None:
    with Engine(str(tmp_path), {"ksql.suppress.enabled": "false"}) as e:
        e.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', format='JSON', partitions=1);")
        with pytest.raises(KsqlStatementError, match="Suppression is currently disabled"):
            e.execute("SELECT ID, COUNT(*) FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID EMIT FINAL;")
