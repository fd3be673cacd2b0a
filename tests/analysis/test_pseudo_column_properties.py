"""ksql.rowpartition.rowoffset.enabled and ksql.headers.columns.enabled: what a statement may name when the
features are off (ksqlpy.analysis.pseudo_columns, ddl.check_headers_enabled)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from statement_errors import error as _error

from ksqlpy.engine import Engine

OFF = {"ksql.rowpartition.rowoffset.enabled": "false"}
STREAM = "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', format='JSON', partitions=1);"
TABLE = "CREATE TABLE T (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='t', format='JSON', partitions=1);"
OWN = "CREATE STREAM S2 (ID INT KEY, ROWPARTITION INT, ROWOFFSET BIGINT) WITH (kafka_topic='s2', format='JSON', " \
      "partitions=1);"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute(STREAM)
    e.execute(TABLE)
    yield e
    e.close()


def _set(engine: Engine, props: dict[str, str]) -> None:
    for k, v in props.items():
        engine.execute(f"SET '{k}'='{v}';")


@pytest.mark.parametrize("sql", [
    "CREATE STREAM O AS SELECT ID, ROWPARTITION AS P FROM S;",
    "CREATE STREAM O AS SELECT ID FROM S WHERE ROWOFFSET > 0;",
    "SELECT ROWOFFSET FROM S EMIT CHANGES;",
    "CREATE STREAM O AS SELECT S.ID, S.ROWPARTITION AS P FROM S JOIN T ON S.ID = T.ID;",
])
def test_off_the_offsets_are_unknown_columns(engine: Engine, sql: str) -> None:
    _set(engine, OFF)
    assert "cannot be resolved" in _error(engine, sql)


def test_off_the_names_are_ordinary(engine: Engine) -> None:
    _set(engine, OFF)
    engine.execute("CREATE STREAM O AS SELECT ID, V AS ROWOFFSET FROM S;")
    engine.execute(OWN)
    engine.execute("INSERT INTO S2 (ID, ROWPARTITION, ROWOFFSET) VALUES (1, 3, 4);")
    assert "Column name `ROWPARTITION` does not exist." in _error(
        engine, "INSERT INTO S (ID, V, ROWPARTITION) VALUES (1, 2, 3);")
    engine.execute("CREATE STREAM O2 AS SELECT ID, ROWPARTITION, ROWTIME AS T FROM S2;")
    # ROWTIME stays a pseudo column
    assert "'ROWTIME' is a reserved column name" in _error(
        engine, "CREATE STREAM X (ID INT KEY, ROWTIME BIGINT) WITH (kafka_topic='x', format='JSON', partitions=1);")


def test_on_they_are_reserved_and_a_source_using_them_cannot_be_queried(engine: Engine) -> None:
    assert "'ROWOFFSET' is a reserved column name" in _error(engine, OWN.replace("ROWPARTITION INT, ", ""))
    assert "`ROWOFFSET` is a reserved column name. You cannot use it as an alias" in _error(
        engine, "CREATE STREAM O AS SELECT ID, V AS ROWOFFSET FROM S;")
    assert "Inserting into column `ROWPARTITION` is not allowed." in _error(
        engine, "INSERT INTO S (ID, V, ROWPARTITION) VALUES (1, 2, 3);")
    _set(engine, OFF)
    engine.execute(OWN)
    _set(engine, {"ksql.rowpartition.rowoffset.enabled": "true"})
    message = ("Your stream/table has columns with the same name as newly introduced pseudocolumns in ksqlDB, and "
               "cannot be queried as a result. The conflicting names are: ROWPARTITION, ROWOFFSET.")
    assert message in _error(engine, "CREATE STREAM O AS SELECT * FROM S2;")
    assert message in _error(engine, "CREATE STREAM O AS SELECT S2.ID FROM S2 JOIN T ON S2.ID = T.ID;")


def test_header_columns_need_the_feature(engine: Engine, tmp_path: Path) -> None:
    """The switch is the server's (fixed at start, as ksqlDB's ImmutableProperties has it): a SET of it is
    refused, an engine started with it off refuses header columns."""
    ddl = ("CREATE STREAM H (ID INT KEY, HS ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS, A BYTES HEADER('a')) "
           "WITH (kafka_topic='h', format='JSON', partitions=1);")
    assert "Cannot override property 'ksql.headers.columns.enabled'" in _error(
        engine, "SET 'ksql.headers.columns.enabled'='false';")
    off = Engine(str(tmp_path / "off"), {"ksql.headers.columns.enabled": "false"})
    try:
        assert "Cannot declare header columns (HS, A)" in _error(off, ddl)
    finally:
        off.close()
    engine.execute(ddl)


CLASH = ("Your stream/table has columns with the same name as newly introduced pseudocolumns in ksqlDB, and "
         "cannot be queried as a result. The conflicting names are: ROWPARTITION")
PULL_HINT = " See https://cnfl.io/queries for more info.\nAdd EMIT CHANGES if you intended to issue a push query."


@pytest.fixture
def clashing(engine: Engine) -> Engine:
    """Sources declared with a ROWPARTITION column while the feature was off, queried with it on."""
    _set(engine, OFF)
    engine.execute(OWN)
    engine.execute("CREATE SOURCE TABLE T2 (ID INT PRIMARY KEY, ROWPARTITION INT) WITH (kafka_topic='t2', "
                   "format='JSON', partitions=1);")
    engine.execute("CREATE TABLE WT (ID INT PRIMARY KEY, ROWPARTITION INT) WITH (kafka_topic='wt', format='JSON', "
                   "partitions=1, WINDOW_TYPE='TUMBLING', WINDOW_SIZE='1 SECOND');")
    engine.execute("CREATE STREAM K3 (ID INT KEY, ROWPARTITION INT) WITH (kafka_topic='k3', key_format='KAFKA', "
                   "value_format='KAFKA', partitions=1);")
    _set(engine, {"ksql.rowpartition.rowoffset.enabled": "true"})
    return engine


@pytest.mark.parametrize(("sql", "expected"), [
    # the Analyzer's rules first: SELECT items, then every clause's columns
    ("CREATE STREAM O AS SELECT ID, V AS ROWTIME FROM S2;",
     "`ROWTIME` is a reserved column name. You cannot use it as an alias for a column."),
    ("CREATE STREAM O AS SELECT ID, NOPE FROM S2;", "SELECT column 'NOPE' cannot be resolved."),
    ("CREATE STREAM O AS SELECT * FROM S2 WHERE NOPE = 1;", "WHERE column 'NOPE' cannot be resolved."),
    ("INSERT INTO S2 SELECT * FROM S2 PARTITION BY NOPE;", "PARTITION BY column 'NOPE' cannot be resolved."),
    ("SELECT NOPE FROM S2 EMIT CHANGES;", "SELECT column 'NOPE' cannot be resolved."),
    ("SELECT ID, V AS WINDOWEND FROM S2 EMIT CHANGES;",
     "`WINDOWEND` is a reserved column name. You cannot use it as an alias for a column."),
    ("CREATE STREAM O AS SELECT S2.ID, NOPE FROM S2 JOIN T ON S2.ID = T.ID;",
     "SELECT column 'NOPE' cannot be resolved."),
    # the KAFKA value format's refusal, then PushQueryValidator's windowed-table refusal, before the clash
    ("CREATE TABLE O AS SELECT ID, COUNT(*) AS N FROM K3 GROUP BY ID;",
     "Source(s) K3 are using the 'KAFKA' value format. This format does not yet support GROUP BY."),
    ("CREATE TABLE O AS SELECT * FROM WT;", "KSQL does not support persistent queries on windowed tables."),
    # a pull query: the analysis, then PullQueryValidator's own rules, then the clash
    ("SELECT NOPE FROM T2 WHERE ID = 1;", "SELECT column 'NOPE' cannot be resolved."),
    ("SELECT ID, COUNT(*) FROM S2 GROUP BY ID;", "Pull queries don't support GROUP BY clauses." + PULL_HINT),
    ("SELECT * FROM T2 WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID;",
     "Pull queries don't support WINDOW clauses." + PULL_HINT),
    ("SELECT * FROM T2 JOIN T ON T2.ID = T.ID WHERE T2.ID = 1;",
     "Pull queries don't support JOIN clauses." + PULL_HINT),
    ("SELECT * FROM S2 PARTITION BY ROWOFFSET;", "Pull queries don't support PARTITION BY clauses." + PULL_HINT),
])
def test_a_pseudo_column_clash_comes_after_the_analysis_and_the_validators_rules(
        clashing: Engine, sql: str, expected: str) -> None:
    """ksqlDB's QueryValidatorUtil.validateNoUserColumnsWithSameNameAsPseudoColumns runs last in Push- and
    PullQueryValidator (from memory), so the Analyzer's errors and the validator's own rules come first."""
    message = _error(clashing, sql)
    assert expected in message, message


@pytest.mark.parametrize("sql", [
    "CREATE STREAM O AS SELECT * FROM S2;",
    "INSERT INTO S2 SELECT * FROM S2;",
    "CREATE TABLE O AS SELECT ID, COUNT(*) AS N FROM S2 GROUP BY ID;",
    "SELECT * FROM S2 EMIT CHANGES;",
    "SELECT * FROM T2 EMIT CHANGES;",
    "SELECT * FROM T2 WHERE ID = 1;",
    "SELECT * FROM S2;",
    "SELECT * FROM WT EMIT CHANGES;",
    "CREATE STREAM O AS SELECT S2.ID FROM S2 JOIN T ON S2.ID = T.ID;",
    "CREATE STREAM O AS SELECT S.ID FROM S JOIN T2 ON S.ID = T2.ID;",
])
def test_a_pseudo_column_clash_alone_refuses_every_query_kind(clashing: Engine, sql: str) -> None:
    message = _error(clashing, sql)
    assert CLASH in message, message
