"""ALTER STREAM/TABLE ... ADD COLUMN: each new column against the source's schema, then against the columns
the statement adds before it (ksqlDB's DdlCommandExec and LogicalSchema builder, from memory); a refused
statement adds nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from statement_errors import statement_error as error

from ksqlpy.engine import Engine


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path))
    e.execute("CREATE STREAM s (k STRING KEY, v INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    yield e
    e.close()


def columns(engine: Engine) -> list[str]:
    source = engine.catalog.source("S")
    assert source is not None
    return [c.name for c in source.columns]


def test_a_refused_alter_adds_none_of_its_columns(engine: Engine) -> None:
    assert error(engine, "ALTER STREAM s ADD COLUMN w STRING, ADD COLUMN v INT;") == (
        "Cannot add column `V` to schema. A column with the same name already exists.")
    assert columns(engine) == ["K", "V"]
    engine.execute("ALTER STREAM s ADD COLUMN w STRING;")  # W was not left behind
    assert columns(engine) == ["K", "V", "W"]


def test_a_name_added_twice_by_one_statement(engine: Engine) -> None:
    assert error(engine, "ALTER STREAM s ADD COLUMN w STRING, ADD COLUMN w INT;") == (
        "Duplicate value columns found in schema: `W` INTEGER")
    # a name the source has is reported as such before the statement's own repeat
    assert error(engine, "ALTER STREAM s ADD COLUMN v STRING, ADD COLUMN v INT;").startswith("Cannot add column `V`")
    assert columns(engine) == ["K", "V"]


def statement(engine: Engine, name: str = "S") -> str:
    [res] = engine.execute(f"DESCRIBE {name};")
    return str(res.data["statement"])


CREATE = "CREATE STREAM s (k STRING KEY, v INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
# as stored: DefaultFormatInjector filled in the key format, so the CREATE is reprinted (analysis.sql_formatter)
STORED = ("CREATE STREAM S (K STRING KEY, V INTEGER) WITH (KAFKA_TOPIC='s', KEY_FORMAT='KAFKA', PARTITIONS=1, "
          "VALUE_FORMAT='JSON');")


def test_each_alter_is_appended_to_the_statement_describe_shows(engine: Engine) -> None:
    engine.execute("ALTER STREAM s ADD COLUMN w STRING;")
    engine.execute("ALTER STREAM s ADD x BIGINT, ADD y ARRAY<INT>;")
    assert statement(engine) == (STORED + "\nALTER STREAM s ADD COLUMN w STRING;"
                                 "\nALTER STREAM s ADD x BIGINT, ADD y ARRAY<INT>;")


def test_a_refused_alter_leaves_the_statement(engine: Engine) -> None:
    error(engine, "ALTER STREAM s ADD COLUMN v STRING;")
    error(engine, "ALTER TABLE s ADD COLUMN w STRING;")
    assert statement(engine) == STORED


def test_an_alter_of_a_table_in_a_script(engine: Engine) -> None:
    engine.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT) WITH (kafka_topic='t', value_format='JSON', "
                   "partitions=1); ALTER TABLE t ADD COLUMN w STRING;")
    assert statement(engine, "T") == ("CREATE TABLE T (ID INTEGER PRIMARY KEY, V INTEGER) WITH (KAFKA_TOPIC='t', "
                                      "KEY_FORMAT='KAFKA', PARTITIONS=1, VALUE_FORMAT='JSON');"
                                      "\nALTER TABLE t ADD COLUMN w STRING;")


def test_the_altered_statement_survives_a_restart(tmp_path: Path) -> None:
    from ksqlpy.engine.command_log import DurableStatements

    data = tmp_path / "restart"
    for restart in (False, True):
        e = Engine(str(data))
        try:
            shell = DurableStatements(e)
            if not restart:
                shell.execute(CREATE)
                shell.execute("ALTER STREAM s ADD COLUMN w STRING;")
            assert statement(e) == STORED + "\nALTER STREAM s ADD COLUMN w STRING;"
            assert columns(e) == ["K", "V", "W"]
        finally:
            e.close()
