"""ALTER STREAM/TABLE ... ADD COLUMN: each new column against the source's schema, then against the columns
the statement adds before it (ksqlDB's DdlCommandExec and LogicalSchema builder, from memory); a refused
statement adds nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlStatementError


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path))
    e.execute("CREATE STREAM s (k STRING KEY, v INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    yield e
    e.close()


def error(engine: Engine, sql: str) -> str:
    with pytest.raises(KsqlStatementError) as info:
        engine.execute(sql)
    return info.value.message


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
