"""OUTPUT JSON prints a query's header StreamedRow; the embedded shell and a shell on a server print the same
one (pull_header.py is both modes' rule): a table's pull query marks its key columns `` KEY`` - a windowed
table's WINDOWSTART/WINDOWEND too - wherever they stand in the projection; a stream's pull query and any
push query mark none. The id is ``query_<ms>`` for a table's pull query, ``transient_<ALIAS>_<n>`` for a
stream's and for a push query."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.cli.console import Console
from ksqlpy.cli.embedded import EmbeddedBackend
from ksqlpy.cli.session import Session

SETUP = ("CREATE STREAM S (ID STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
         "CREATE TABLE T (ID STRING PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);"
         "CREATE TABLE M AS SELECT * FROM T;"
         "CREATE TABLE W AS SELECT ID, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY ID;"
         "INSERT INTO S (ID, V) VALUES ('a', 1);"
         "INSERT INTO T (ID, V) VALUES ('a', 1);")

# (query, header schema, query id pattern)
EXPECTED = [
    ("SELECT * FROM M;", "`ID` STRING KEY, `V` INTEGER", r"query_\d+"),
    ("SELECT V, ID FROM M WHERE ID = 'a';", "`V` INTEGER, `ID` STRING KEY", r"query_\d+"),
    ("SELECT * FROM W;", "`ID` STRING KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `C` BIGINT",
     r"query_\d+"),
    ("SELECT * FROM S;", "`ID` STRING, `V` INTEGER", r"transient_S_\d+"),
    ("SELECT * FROM S X;", "`ID` STRING, `V` INTEGER", r"transient_X_\d+"),
    ("SELECT * FROM S EMIT CHANGES LIMIT 1;", "`ID` STRING, `V` INTEGER", r"transient_S_\d+"),
    ("SELECT * FROM M EMIT CHANGES LIMIT 1;", "`ID` STRING, `V` INTEGER", r"transient_M_\d+"),
]


class Shell:
    def __init__(self, backend: Any) -> None:
        self.out, self.err = io.StringIO(), io.StringIO()
        self.session = Session(backend, Console(self.out, self.err, color=False))

    def run(self, text: str) -> str:
        assert self.session.run_entry(text), self.err.getvalue()
        out = self.out.getvalue()
        self.out.seek(0), self.out.truncate()
        return out


def _header(out: str) -> dict[str, Any]:
    """The first document the shell printed: the header StreamedRow."""
    document, _ = out.split("}\n}\n", 1)
    return json.loads(document + "}\n}")["header"]


def _check_headers(shell: Shell) -> None:
    shell.run(SETUP)
    shell.run("SET 'auto.offset.reset'='earliest';")
    shell.run("OUTPUT JSON")
    for query, schema, query_id in EXPECTED:
        header = _header(shell.run(query))
        assert header["schema"] == schema, query
        assert re.fullmatch(query_id, header["queryId"]), (query, header["queryId"])


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[EmbeddedBackend]:
    backend = EmbeddedBackend(str(tmp_path / "data"))
    try:
        yield backend
    finally:
        backend.close()


def test_embedded_shell_headers(embedded: EmbeddedBackend) -> None:
    _check_headers(Shell(embedded))


def test_server_shell_headers(tmp_path: Path) -> None:
    pytest.importorskip("hypercorn")
    from ksqlpy.cli.remote import RemoteBackend
    from ksqlpy.testing.server_process import ServerProcess

    proc = ServerProcess(str(tmp_path / "server"))
    proc.start()
    try:
        _check_headers(Shell(RemoteBackend(proc.url)))
    finally:
        proc.stop()
