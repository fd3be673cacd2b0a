"""SHOW TYPES in the embedded shell writes each custom type as ksqlDB's shell does - the TypeList entity holds
SchemaInfos and the Console writes their toTypeString() (VARCHAR(STRING), STRUCT<NAME TYPE, ...>) - the same
text a server's shell prints, for every kind of type a custom type may name."""

from __future__ import annotations

from typing import Any

import pytest

from tests.cli.captured_shell import CapturedShell

TYPES = [
    ("STRUCT<street STRING, n INT>", "STRUCT<STREET VARCHAR(STRING), N INTEGER>"),
    ("STRUCT<nested STRUCT<a BIGINT, b ARRAY<STRING>>>", "STRUCT<NESTED STRUCT<A BIGINT, B ARRAY<VARCHAR(STRING)>>>"),
    ("ARRAY<DECIMAL(4, 2)>", "ARRAY<DECIMAL(4, 2)>"),
    ("MAP<STRING, DOUBLE>", "MAP<STRING, DOUBLE>"),
    ("STRING", "VARCHAR(STRING)"),
    ("BYTES", "BYTES"),
    ("TIMESTAMP", "TIMESTAMP"),
]


@pytest.mark.parametrize("sql,text", TYPES)
def test_a_custom_type_is_written_as_the_server_s_shell_writes_it(embedded: Any, sql: str, text: str) -> None:
    shell = CapturedShell(embedded)
    shell.run(f"CREATE TYPE T1 AS {sql};")
    rows = [[c.strip() for c in line.split("|")] for line in shell.run("SHOW TYPES;").splitlines() if "|" in line]
    assert rows == [["Type Name", "Schema"], ["T1", text]]


def test_types_are_listed_by_name(embedded: Any) -> None:
    shell = CapturedShell(embedded)
    shell.run("CREATE TYPE ZED AS INT; CREATE TYPE ALPHA AS STRING;")
    rows = [line.split("|")[0].strip() for line in shell.run("SHOW TYPES;").splitlines() if "|" in line]
    assert rows == ["Type Name", "ALPHA", "ZED"]
