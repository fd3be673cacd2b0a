"""WINDOWSTART/WINDOWEND in push and pull queries (persistent statements:
tests/cases/analysis/window-bounds-scope.json). They are columns of the schema a query's column references
are validated against only over a windowed source or with a WINDOW clause (ksqlDB's
``Analysis.getFromSourceSchemas`` / ``ColumnReferenceValidator``); elsewhere they cannot be resolved, in any
clause, over streams and tables alike."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from statement_errors import error as _error

from ksqlpy.engine import Engine

SETUP = """
CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);
CREATE TABLE T (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);
CREATE TABLE AGG AS SELECT K, COUNT(*) AS C FROM S GROUP BY K;
CREATE TABLE WAGG AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY K;
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    e = Engine(str(tmp_path_factory.mktemp("bounds")), {"auto.offset.reset": "earliest"})
    e.execute(SETUP)
    yield e
    e.close()


@pytest.mark.parametrize("bound", ["WINDOWSTART", "WINDOWEND"])
@pytest.mark.parametrize(("sql", "clause"), [
    ("SELECT {b} FROM S EMIT CHANGES;", "SELECT"),
    ("SELECT K, {b} AS B FROM T EMIT CHANGES;", "SELECT"),
    ("SELECT * FROM S WHERE {b} > 0 EMIT CHANGES;", "WHERE"),
    ("SELECT * FROM T WHERE {b} > 0 EMIT CHANGES;", "WHERE"),
    ("SELECT * FROM S PARTITION BY {b} EMIT CHANGES;", "PARTITION BY"),
    ("SELECT V, COUNT(*) FROM S GROUP BY V, {b} EMIT CHANGES;", "GROUP BY"),
    ("SELECT K, COUNT(*) FROM S GROUP BY K HAVING {b} > 0 EMIT CHANGES;", "HAVING"),
    ("SELECT K, MAX({b}) FROM S GROUP BY K EMIT CHANGES;", "SELECT"),
    ("SELECT K, {b} AS B FROM S WHERE {b} > 0 EMIT CHANGES;", "WHERE"),  # WHERE is validated first
    ("SELECT {b} FROM AGG WHERE K = 'a';", "SELECT"),  # pull, non-windowed table
    ("SELECT * FROM AGG WHERE K = 'a' AND {b} = 10;", "WHERE"),
    ("SELECT * FROM S WHERE {b} > 0;", "WHERE"),  # pull over a stream
])
def test_unresolved_without_window(engine: Engine, sql: str, clause: str, bound: str) -> None:
    assert f"{clause} column '{bound}' cannot be resolved." in _error(engine, sql.format(b=bound))


@pytest.mark.parametrize("bound", ["WINDOWSTART", "WINDOWEND"])
def test_window_clause_makes_them_resolvable(engine: Engine, bound: str) -> None:
    window = "WINDOW TUMBLING (SIZE 1 SECOND)"
    assert f"Error in WHERE expression: Unknown column {bound}." in _error(
        engine, f"SELECT K, COUNT(*) FROM S {window} WHERE {bound} > 0 GROUP BY K EMIT CHANGES;")
    assert f"Window bounds column {bound} can only be used in the SELECT clause" in _error(
        engine, f"SELECT K, COUNT(*) FROM S {window} GROUP BY K HAVING {bound} > 0 EMIT CHANGES;")


@pytest.mark.parametrize("sql", [
    "SELECT WINDOWSTART, WINDOWEND, K FROM WAGG WHERE K = 'a';",
    "SELECT * FROM WAGG WHERE K = 'a' AND WINDOWSTART >= 0;",
])
def test_windowed_table_has_them(engine: Engine, sql: str) -> None:
    engine.execute(sql)
