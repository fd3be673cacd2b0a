"""The query-upgrade scenario typed into the interactive shell (a pseudo-terminal), embedded and against a
server (``target``): CREATE OR REPLACE keeps the query id, the counts from before stay, the new filter
counts new records only; a refused change says ksqlDB's words; a shell started again sees the same query
and counts. (The server restarted in between: tests/server/test_upgrade_restart.py.)"""

from __future__ import annotations

import re
import time
import uuid

import pytest

pexpect = pytest.importorskip("pexpect")

STRIP = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _plain(text: str) -> str:
    return STRIP.sub("", text).replace("\r", "")


def _counts(sh, table: str, expected: dict[int, int], timeout_s: float = 30.0) -> dict[int, int]:  # type: ignore[no-untyped-def]
    """The table's rows by a pull query, asked until they are ``expected`` (the query catches up)."""
    end = time.monotonic() + timeout_s
    got: dict[int, int] = {}
    while time.monotonic() < end:
        shown = _plain(sh.run(f"SELECT * FROM {table};"))
        got = {int(a): int(b) for a, b in re.findall(r"^\|(\d+)\s*\|(\d+)\s*\|$", shown, re.MULTILINE)}
        if got == expected:
            break
        time.sleep(0.2)
    return got


def _insert(sh, stream: str, *rows: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    sh.run(" ".join(f"INSERT INTO {stream} (id, v) VALUES ({i}, {v});" for i, v in rows))


def test_an_upgrade_typed_into_the_shell(spawn_shell) -> None:  # type: ignore[no-untyped-def]
    tag = uuid.uuid4().hex[:6].upper()
    stream, table = f"S_{tag}", f"COUNTS_{tag}"
    sh = spawn_shell()
    sh.run(f"CREATE STREAM {stream} (id INT KEY, v INT) WITH (kafka_topic='{stream.lower()}', value_format='JSON', "
           "partitions=1);", "Stream created")
    sh.run("SET 'auto.offset.reset'='earliest';", "Successfully changed local property")
    created = _plain(sh.run(f"CREATE TABLE {table} AS SELECT id, COUNT(*) AS n FROM {stream} GROUP BY id;",
                            r"Created query with ID \w+"))
    [qid] = re.findall(r"Created query with ID (\w+)", created)
    _insert(sh, stream, (1, 1), (1, -1), (2, 5))
    assert _counts(sh, table, {1: 2, 2: 1}) == {1: 2, 2: 1}

    upgraded = _plain(sh.run(f"CREATE OR REPLACE TABLE {table} AS SELECT id, COUNT(*) AS n FROM {stream} "
                             "WHERE v > 0 GROUP BY id;", r"Created query with ID \w+"))
    assert re.findall(r"Created query with ID (\w+)", upgraded) == [qid]
    _insert(sh, stream, (1, 1), (1, -1), (2, -7))
    assert _counts(sh, table, {1: 3, 2: 1}) == {1: 3, 2: 1}  # old counts kept, the filter on new records
    queries = _plain(sh.run("SHOW QUERIES;", "Query ID"))
    assert re.findall(r"\b(CTAS_\w+)", queries) == [qid]

    refused = _plain(sh.run(f"CREATE OR REPLACE TABLE {table} AS SELECT id, SUM(v) AS n FROM {stream} GROUP BY id;",
                            "Cannot upgrade data source"))
    assert f"DataSource '`{table}`' has schema" in refused.replace("\n", "")
    sh.close()

    again = spawn_shell()  # a new shell process on the same data directory or server
    assert re.findall(r"\b(CTAS_\w+)", _plain(again.run("SHOW QUERIES;", "Query ID"))) == [qid]
    _insert(again, stream, (2, 3))
    assert _counts(again, table, {1: 3, 2: 2}) == {1: 3, 2: 2}
