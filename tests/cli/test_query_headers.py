"""OUTPUT JSON prints a query's header StreamedRow; the embedded shell and a shell on a server print the same
one (pull_header.py is both modes' rule): a table's pull query marks its key columns `` KEY`` - a windowed
table's WINDOWSTART/WINDOWEND too - wherever they stand in the projection; a stream's pull query and any
push query mark none. The id is ``query_<ms>`` for a table's pull query, ``transient_<ALIAS>_<n>`` for a
stream's and for a push query."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.cli.embedded import EmbeddedBackend
from tests.cli.captured_shell import CapturedShell

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


def _header(out: str) -> dict[str, Any]:
    """The first document the shell printed: the header StreamedRow."""
    document, _ = out.split("}\n}\n", 1)
    return json.loads(document + "}\n}")["header"]


def _check_headers(shell: CapturedShell) -> None:
    shell.run(SETUP)
    shell.run("SET 'auto.offset.reset'='earliest';")
    shell.run("OUTPUT JSON")
    for query, schema, query_id in EXPECTED:
        header = _header(shell.run(query))
        assert header["schema"] == schema, query
        assert re.fullmatch(query_id, header["queryId"]), (query, header["queryId"])


def test_embedded_shell_headers(embedded: EmbeddedBackend) -> None:
    _check_headers(CapturedShell(embedded))


def test_server_shell_headers(tmp_path: Path) -> None:
    pytest.importorskip("hypercorn")
    from ksqlpy.cli.remote import RemoteBackend
    from ksqlpy.testing.server_process import ServerProcess

    with ServerProcess(str(tmp_path / "server")) as proc:
        _check_headers(CapturedShell(RemoteBackend(proc.url)))
