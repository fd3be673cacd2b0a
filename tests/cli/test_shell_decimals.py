"""A DECIMAL prints with its scale (``1.50``, ``-0.05``, ``[1.0, 2.5]``) in the embedded shell and in a shell
on a server alike - in a table and in OUTPUT JSON, at the top and inside an ARRAY, a MAP and a STRUCT -
while a DOUBLE beside it prints as a double (``2.5``, ``1.0E20``): a server's row values are read as the
header's types say (cli/row_values.py), floats of a DECIMAL exactly, as ksqlDB's clients read JSON floats as
BigDecimal."""

from __future__ import annotations

import decimal
import json
from pathlib import Path

import pytest

from ksqlpy.cli.embedded import EmbeddedBackend
from ksqlpy.cli.row_values import TypeShape, parse_shape, read_row
from tests.cli.captured_shell import CapturedShell

D = decimal.Decimal

SETUP = ("CREATE STREAM DEC (ID INT KEY, D DECIMAL(5, 2), DB DOUBLE, A ARRAY<DECIMAL(4, 1)>, "
         "M MAP<STRING, DECIMAL(3, 2)>, S STRUCT<X DOUBLE, Y DECIMAL(4, 2)>) "
         "WITH (kafka_topic='dec', value_format='JSON', partitions=1);"
         "INSERT INTO DEC VALUES (1, 1.50, 2.50, ARRAY[1.0, 2.5], MAP('k' := 0.10), STRUCT(X := 3.0, Y := 4.00));"
         "INSERT INTO DEC (ID, D, DB) VALUES (2, -0.05, 1.0E20);")
ROW1 = ["1", "1.50", "2.5", "[1.0, 2.5]", "{k=0.10}", "{X=3.0, Y=4.00}"]
ROW2 = ["2", "-0.05", "1.0E20", "null", "null", "null"]
JSON_ROW1 = '"columns" : [ 1, 1.50, 2.5, [ 1.0, 2.5 ], {'


@pytest.mark.parametrize("text,shape", [
    ("DECIMAL(5, 2)", TypeShape("DECIMAL")),
    ("ARRAY<DECIMAL(4, 1)>", TypeShape("ARRAY", element=TypeShape("DECIMAL"))),
    ("MAP<STRING, DOUBLE>", TypeShape("MAP", element=TypeShape("DOUBLE"))),
    ("STRUCT<`X` DOUBLE, `a b` ARRAY<DECIMAL(2, 1)>>",
     TypeShape("STRUCT", fields={"X": TypeShape("DOUBLE"), "a b": TypeShape("ARRAY", element=TypeShape("DECIMAL"))})),
    ("ARRAY<", TypeShape("ARRAY<")),  # unreadable: no parts, values read untyped
])
def test_parse_shape(text: str, shape: TypeShape) -> None:
    assert parse_shape(text) == shape


def test_read_row_keeps_decimals_only() -> None:
    shapes = [parse_shape(t) for t in ("DECIMAL(3, 2)", "DOUBLE", "STRUCT<`X` DOUBLE, `Y` DECIMAL(2, 1)>")]
    row = read_row([D("1.50"), D("2.50"), {"X": D("1.0"), "Y": D("1.0")}, D("7.0")], shapes)
    assert row == [D("1.50"), 2.5, {"X": 1.0, "Y": D("1.0")}, 7.0]
    assert isinstance(row[1], float) and isinstance(row[2]["X"], float) and isinstance(row[3], float)


def _cells(out: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in out.splitlines() if line.startswith("|")]


def _check(shell: CapturedShell) -> None:
    shell.run(SETUP)
    shell.run("SET 'auto.offset.reset'='earliest';")
    for query in ("SELECT * FROM DEC;", "SELECT * FROM DEC EMIT CHANGES LIMIT 2;"):
        _, *rows = _cells(shell.run(query))
        assert rows == [ROW1, ROW2], query
    shell.run("OUTPUT JSON")
    out = shell.run("SELECT * FROM DEC;")
    assert JSON_ROW1 in out, out
    assert '"columns" : [ 2, -0.05, 1.0E20, null, null, null ]' in out, out
    assert '"k" : 0.10' in out and '"Y" : 4.00' in out and '"X" : 3.0' in out, out
    # still JSON: the numbers parse back
    assert json.loads(out.split("}\n}\n", 1)[1].split("\n}\n", 1)[0] + "\n}")["row"]["columns"][:3] == [1, 1.5, 2.5]


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "240")


def test_embedded_shell_prints_decimals_with_their_scale(embedded: EmbeddedBackend) -> None:
    _check(CapturedShell(embedded))


def test_server_shell_prints_decimals_with_their_scale(tmp_path: Path) -> None:
    pytest.importorskip("hypercorn")
    from ksqlpy.cli.remote import RemoteBackend
    from ksqlpy.testing.server_process import ServerProcess

    with ServerProcess(str(tmp_path / "server")) as proc:
        _check(CapturedShell(RemoteBackend(proc.url)))
