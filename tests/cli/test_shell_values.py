"""Nested values as the ksql CLI prints them (the Java text of the value: ``{C=v1, D=5}``, ``[2, 3]``, nested,
NULL, strings bare) in tables, pull and push output, in the embedded shell and against a server; and
``--query-timeout`` ending a push query that has no rows, in both modes."""

from __future__ import annotations

import decimal
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ksqlpy.cli import render as R
from ksqlpy.cli.embedded import EmbeddedBackend
from tests.cli.captured_shell import CapturedShell

CREATE = ("CREATE STREAM NEST (ID INT KEY, S STRUCT<C STRING, D INT, E STRUCT<F ARRAY<INT>>>, "
          "M MAP<STRING, DOUBLE>, A ARRAY<STRING>, B ARRAY<STRUCT<X BOOLEAN>>) "
          "WITH (kafka_topic='nest', value_format='JSON', partitions=1);")
INSERT = ("INSERT INTO NEST (ID, S, M, A, B) VALUES (1, STRUCT(C := 'v1', D := 5, E := STRUCT(F := ARRAY[2, 3])), "
          "MAP('k' := 1.5, 'n' := CAST(NULL AS DOUBLE)), ARRAY['x y', NULL], ARRAY[STRUCT(X := true)]);"
          "INSERT INTO NEST (ID) VALUES (2);")
ROW1 = ["1", "{C=v1, D=5, E={F=[2, 3]}}", "{k=1.5, n=null}", "[x y, null]", "[{X=true}]"]
ROW2 = ["2", "null", "null", "null", "null"]


@pytest.mark.parametrize("value,text", [
    ({"C": "v1", "D": 5}, "{C=v1, D=5}"),
    ([2, 3], "[2, 3]"),
    ({"A": [1, None], "B": {"C": None}}, "{A=[1, null], B={C=null}}"),
    ([{"K": "a b"}, {}], "[{K=a b}, {}]"),
    ({"x": 1e20, "y": decimal.Decimal("1.50"), "z": False}, "{x=1.0E20, y=1.50, z=false}"),
    ([], "[]"),
    (None, "null"),
    ("plain", "plain"),
])
def test_cell_text(value: Any, text: str) -> None:
    assert R.cell(value) == text


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "240")  # push rows are laid out for the terminal: room for every cell


def _cells(out: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in out.splitlines() if line.startswith("|")]


def _check_nested_output(shell: CapturedShell, table: str) -> None:
    shell.run(f"{CREATE.replace('NEST', table).replace('nest', table.lower())}"
              f"{INSERT.replace('NEST', table)}")
    header, *rows = _cells(shell.run(f"SELECT * FROM {table};"))
    assert header == ["ID", "S", "M", "A", "B"] and rows == [ROW1, ROW2]
    shell.run("SET 'auto.offset.reset'='earliest';")
    header, *rows = _cells(shell.run(f"SELECT * FROM {table} EMIT CHANGES LIMIT 2;"))
    assert rows == [ROW1, ROW2]
    shell.run("UNSET 'auto.offset.reset';")


def _check_timeout(shell: CapturedShell, table: str) -> None:
    start = time.monotonic()
    out = shell.run(f"SELECT * FROM {table} WHERE ID = 99 EMIT CHANGES;")  # no row ever comes
    assert time.monotonic() - start < 10
    assert out.splitlines()[-1] == "Query terminated"


def test_embedded_shell_prints_nested_values(embedded: EmbeddedBackend) -> None:
    _check_nested_output(CapturedShell(embedded), "NEST")


def test_embedded_query_timeout_ends_a_quiet_push_query(embedded: EmbeddedBackend) -> None:
    shell = CapturedShell(embedded, query_timeout_ms=800)
    shell.run(CREATE)
    _check_timeout(shell, "NEST")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    pytest.importorskip("hypercorn")
    from ksqlpy.testing.server_process import ServerProcess

    proc = ServerProcess(str(tmp_path_factory.mktemp("server")))
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def test_server_mode_prints_nested_values(server: Any) -> None:
    from ksqlpy.cli.remote import RemoteBackend

    _check_nested_output(CapturedShell(RemoteBackend(server.url)), "NESTR")


def test_server_mode_query_timeout_ends_a_quiet_push_query(server: Any) -> None:
    from ksqlpy.cli.remote import RemoteBackend

    backend = RemoteBackend(server.url)
    shell = CapturedShell(backend, query_timeout_ms=800)
    shell.run(CREATE.replace("NEST", "QUIET").replace("nest", "quiet"))
    _check_timeout(shell, "QUIET")
    # the shell closed the query: the server runs no push query any more
    end = time.monotonic() + 10
    while time.monotonic() < end:
        queries = backend.execute("SHOW QUERIES;", {})[0]["queries"]
        if not [q for q in queries if q["queryType"] == "PUSH"]:
            break
        time.sleep(0.1)
    assert not [q for q in queries if q["queryType"] == "PUSH"]
