"""An untyped NULL in the projection of push queries and pull queries (persistent statements:
tests/cases/analysis/null-typing.json). ksqlDB plans a push query - and a pull query over a stream, which it
runs as a transient push query - with the persistent queries' logical planner, whose FinalProjectNode
refuses a projected expression without a type (``SelectionUtil``); a pull query over a table has its own
QueryProjectNode, which fails at the column's missing type (from memory of ksqlDB's Column: requireNonNull):
refused too, in the same words."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError
from ksqlpy.types import BOOLEAN, INTEGER, STRING

CANT_INFER = "Can't infer a type of null. Please explicitly cast it to a required type, e.g. CAST(null AS VARCHAR)."

SETUP = """
CREATE STREAM S (K STRING KEY, I INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);
CREATE TABLE T (K STRING PRIMARY KEY, I INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);
CREATE TABLE AGG AS SELECT K, COUNT(*) AS C FROM S GROUP BY K;
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    e = Engine(str(tmp_path_factory.mktemp("nulls")), {"auto.offset.reset": "earliest"})
    e.execute(SETUP)
    yield e
    e.close()


@pytest.mark.parametrize("sql", [
    "SELECT NULL FROM S EMIT CHANGES;",
    "SELECT K, NULL AS X FROM S EMIT CHANGES;",
    "SELECT K, NULL AS X FROM T EMIT CHANGES;",
    "SELECT K, -NULL AS X FROM S EMIT CHANGES;",
    "SELECT K, (I > 0) AND NULL AS X FROM S EMIT CHANGES;",
    "SELECT K, NULL AS X, COUNT(*) FROM S GROUP BY K EMIT CHANGES;",
    "SELECT COUNT(*), NULL AS X FROM S EMIT CHANGES;",  # one implicit group
    "SELECT S.K, NULL AS X FROM S JOIN T ON S.K = T.K EMIT CHANGES;",
    "SELECT K, NULL AS X FROM S;",  # a pull query over a stream runs as a push query
])
def test_push_queries_refuse_untyped_null(engine: Engine, sql: str) -> None:
    with pytest.raises(KsqlError) as e:
        engine.execute(sql) if "EMIT" not in sql else engine.push_query(sql)
    assert str(e.value).startswith(CANT_INFER)


@pytest.mark.parametrize(("expr", "expected"), [
    ("CAST(NULL AS INT)", INTEGER),
    ("COALESCE(NULL, I)", INTEGER),
    ("UCASE(NULL)", STRING),
    ("NULL IS NULL", BOOLEAN),
])
def test_push_queries_take_null_types_from_context(engine: Engine, expr: str, expected: object) -> None:
    tq = engine.push_query(f"SELECT K, {expr} AS X FROM S EMIT CHANGES;")
    try:
        assert tq.columns[-1] == ("X", expected)
    finally:
        tq.close()


@pytest.mark.parametrize("sql", [
    "SELECT K, NULL AS X FROM AGG WHERE K = 'a';",  # key lookup
    "SELECT NULL FROM AGG;",  # table scan
    "SELECT K, -NULL AS X FROM AGG WHERE C > 0;",
    "SELECT K, NULL AS X FROM AGG WHERE K = 'a' LIMIT 1;",
])
def test_table_pull_queries_refuse_untyped_null(engine: Engine, sql: str) -> None:
    with pytest.raises(KsqlError) as e:
        engine.execute(sql)
    assert str(e.value).startswith(CANT_INFER)


def test_table_pull_query_takes_null_type_from_a_cast(engine: Engine) -> None:
    [result] = engine.execute("SELECT K, CAST(NULL AS BIGINT) AS X FROM AGG WHERE K = 'a';")
    assert result.data["columns"][-1][0] == "X"
