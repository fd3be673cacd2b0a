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
