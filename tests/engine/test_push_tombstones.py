"""Push queries over tables show deletes: a tombstone row with the key columns filled and every other
column NULL (ksqlDB's TombstoneFactory) - for a delete read from the table's topic, for a row its WHERE no
longer keeps, and for a group an aggregation's HAVING drops (windowed too). Streams have no deletes."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.results import TombstoneRow
from ksqlpy.log.base import ProducerRecord

EARLIEST = {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": "0"}


@pytest.fixture
def engine(tmp_path: Any) -> Any:
    e = Engine(str(tmp_path))
    e.execute("CREATE TABLE T (ID INT PRIMARY KEY, V STRING, N INT) WITH (kafka_topic='t', partitions=1, "
              "value_format='JSON');"
              "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', partitions=1, value_format='JSON');")
    yield e
    e.close()


def _rows(engine: Any, sql: str, n: int) -> list[tuple]:
    tq = engine.push_query(sql, EARLIEST)
    engine.drain(5)
    got = []
    while len(got) < n and not tq.rows.empty():
        row = tq.rows.get_nowait()
        if row is None:
            break
        got.append(row)
    tq.close()
    return got


def _delete(engine: Any, topic: str, key: int) -> None:
    src = engine.catalog.source(topic.upper())
    engine.log.produce(ProducerRecord(topic, engine.key_serde(src).serialize((key,)), None, 0))


def test_a_delete_in_the_tables_topic(engine: Any) -> None:
    engine.execute("INSERT INTO T (ID, V, N) VALUES (1, 'a', 10); INSERT INTO T (ID, V, N) VALUES (2, 'b', 20);")
    _delete(engine, "t", 1)
    rows = _rows(engine, "SELECT * FROM T EMIT CHANGES;", 3)
    assert rows == [(1, "a", 10), (2, "b", 20), (1, None, None)]
    assert [isinstance(r, TombstoneRow) for r in rows] == [False, False, True]
    # the key lands where the projection has it, and nowhere when it is not projected
    rows = _rows(engine, "SELECT N, ID, UCASE(V) AS U FROM T EMIT CHANGES;", 3)
    assert rows[2] == (None, 1, None) and isinstance(rows[2], TombstoneRow)
    rows = _rows(engine, "SELECT V FROM T EMIT CHANGES;", 3)
    assert rows[2] == (None,) and isinstance(rows[2], TombstoneRow)


def test_a_row_the_where_no_longer_keeps(engine: Any) -> None:
    engine.execute("INSERT INTO T (ID, V, N) VALUES (1, 'a', 10); INSERT INTO T (ID, V, N) VALUES (1, 'b', 11);")
    rows = _rows(engine, "SELECT ID, V FROM T WHERE V = 'a' EMIT CHANGES;", 2)
    assert rows == [(1, "a"), (1, None)] and isinstance(rows[1], TombstoneRow)


def test_a_group_having_drops(engine: Any) -> None:
    engine.execute("INSERT INTO S (ID, V) VALUES (1, 'a'); INSERT INTO S (ID, V) VALUES (1, 'b');")
    rows = _rows(engine, "SELECT ID, COUNT(*) AS C FROM S GROUP BY ID HAVING COUNT(*) < 2 EMIT CHANGES;", 2)
    assert rows == [(1, 1), (1, None)] and isinstance(rows[1], TombstoneRow)
    rows = _rows(engine, "SELECT COUNT(*) AS C, ID FROM S WINDOW TUMBLING (SIZE 1 HOUR) GROUP BY ID "
                         "HAVING COUNT(*) < 2 EMIT CHANGES;", 2)
    assert rows == [(1, 1), (None, 1)] and isinstance(rows[1], TombstoneRow)
    rows = _rows(engine, "SELECT ID, WINDOWSTART AS WS, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 1 HOUR) "
                         "GROUP BY ID HAVING COUNT(*) < 2 EMIT CHANGES;", 2)
    assert rows[1][0] == 1 and rows[1][2] is None and isinstance(rows[1], TombstoneRow)


def test_streams_have_no_deletes(engine: Any) -> None:
    engine.execute("INSERT INTO S (ID, V) VALUES (1, 'a');")
    _delete(engine, "s", 1)
    engine.execute("INSERT INTO S (ID, V) VALUES (2, 'b');")
    rows = _rows(engine, "SELECT * FROM S EMIT CHANGES;", 3)
    assert rows == [(1, "a"), (2, "b")] and not any(isinstance(r, TombstoneRow) for r in rows)
