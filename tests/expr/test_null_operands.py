"""Arithmetic on a NULL operand in every query kind: ksqlDB's generated Java unboxes numeric operands, so a
NULL one fails the whole expression - the column is NULL and the processing log has an entry; STRING ``+``
is Java's concatenation, a NULL side written ``null`` and nothing logged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ksqlpy.engine import Engine

TABLE = ("CREATE TABLE T (ID INT PRIMARY KEY, I INT, M DECIMAL(4, 2), S STRING) "
         "WITH (kafka_topic='t', value_format='JSON', partitions=1);")


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute(TABLE)
    e.execute("INSERT INTO T (ID, I, M, S) VALUES (1, NULL, NULL, NULL);")
    e.execute("INSERT INTO T (ID, I, M, S) VALUES (2, 4, 1.50, 's');")
    yield e
    e.close()


def _errors(engine: Engine) -> list[str]:
    return [e["message"]["recordProcessingError"]["errorMessage"] for e in engine.plog.entries]


def test_persistent_query_logs_the_failing_column_and_writes_null(engine: Engine) -> None:
    engine.execute("CREATE TABLE O AS SELECT ID, COALESCE(I + 1, 0) AS A, S + '!' AS B, -M AS C FROM T;")
    engine.drain()
    assert _errors(engine) == [
        "Error processing COALESCE",  # the call fails as a whole (ksql.nested.error.set.null)
        "Error computing expression -M for column C with index 2",
    ]
    [res] = engine.execute("SELECT * FROM O WHERE ID = 1;")
    assert res.data["rows"] == [(1, None, "null!", None)]


def test_pull_query_on_a_table_answers_as_the_persistent_query(engine: Engine) -> None:
    engine.execute("CREATE TABLE MAT AS SELECT * FROM T;")
    engine.drain()
    [res] = engine.execute("SELECT ID, (I * 2) IS NULL AS N, S + S AS SS FROM MAT;")
    assert sorted(res.data["rows"]) == [(1, None, "nullnull"), (2, False, "ss")]


def test_pull_query_where_drops_rows_whose_predicate_fails(engine: Engine) -> None:
    engine.execute("CREATE TABLE MAT AS SELECT * FROM T;")
    engine.drain()
    [res] = engine.execute("SELECT ID FROM MAT WHERE (I + 1) IS NULL OR ID = 2;")
    assert res.data["rows"] == [(2,)]


def test_push_query_columns_fail_alone(engine: Engine) -> None:
    [res] = engine.execute("SELECT ID, I % 3 AS R, 'x' + S AS XS FROM T EMIT CHANGES LIMIT 2;")
    engine.drain()
    assert sorted(res.data) == [(1, None, "xnull"), (2, 1, "xs")]
    assert "Error computing expression (I % 3) for column R with index 1" in _errors(engine)


def test_push_query_on_a_table_shows_a_delete_without_evaluating_value_expressions(engine: Engine) -> None:
    from ksqlpy.log.base import ProducerRecord
    src = engine.catalog.source("T")
    engine.log.produce(ProducerRecord("t", engine.key_serde(src).serialize((2,)), None, 0))
    tq = engine.push_query("SELECT ID, I % 3 AS R, ID * 2 AS D FROM T EMIT CHANGES;", {"auto.offset.reset": "earliest"})
    engine.drain(5)
    got = []
    while not tq.rows.empty():
        got.append(tq.rows.get_nowait())
    tq.close()
    # the NULL row fails R alone (logged); the delete of key 2 is not evaluated, so nothing is logged for it
    assert [r[:3] for r in got] == [(1, None, 2), (2, 1, 4), (2, None, None)]
    assert _errors(engine) == ["Error computing expression (I % 3) for column R with index 1"]
