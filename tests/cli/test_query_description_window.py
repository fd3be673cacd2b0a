"""EXPLAIN <query id> and SHOW QUERIES EXTENDED in the embedded shell print a windowed query's key with its
window type, as ksqlDB's Console.printQueryDescription prints the schema with the description's windowType
(QueryDescriptionFactory: the result topic's window type) - every window kind, and none for a query whose
result is not windowed."""

from __future__ import annotations

from typing import Any

import pytest

from tests.cli.captured_shell import CapturedShell

SOURCE = "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', value_format='JSON', partitions=1);"


def _key_line(out: str) -> str:
    return next(line.rstrip() for line in out.splitlines() if line.startswith(" ID "))


@pytest.mark.parametrize("window,kind", [("TUMBLING (SIZE 1 MINUTE)", "TUMBLING"),
                                         ("HOPPING (SIZE 2 MINUTES, ADVANCE BY 1 MINUTE)", "HOPPING"),
                                         ("SESSION (30 SECONDS)", "SESSION")])
def test_a_windowed_query_s_key_shows_its_window_type(embedded: Any, window: str, kind: str) -> None:
    shell = CapturedShell(embedded)
    shell.run(SOURCE)
    shell.run(f"CREATE TABLE T AS SELECT ID, COUNT(*) AS C FROM S WINDOW {window} GROUP BY ID EMIT CHANGES;")
    qid = next(iter(embedded.engine.queries))
    expected = f" ID    | INTEGER          (key) (Window type: {kind})"
    assert _key_line(shell.run(f"EXPLAIN {qid};")) == expected
    assert _key_line(shell.run("SHOW QUERIES EXTENDED;")) == expected


def test_an_unwindowed_query_s_key_is_just_a_key(embedded: Any) -> None:
    shell = CapturedShell(embedded)
    shell.run(SOURCE)
    shell.run("CREATE TABLE T AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID EMIT CHANGES;")
    qid = next(iter(embedded.engine.queries))
    assert _key_line(shell.run(f"EXPLAIN {qid};")) == " ID    | INTEGER          (key)"


def test_describe_extended_names_each_query_s_state(embedded: Any) -> None:
    """ksqlDB's Console.printQueries writes 'ID (STATE) : statement' with RunningQuery.getState() - the
    query's status, as a server's shell shows it - for the queries reading and those writing the source;
    a paused query is PAUSED."""
    shell = CapturedShell(embedded)
    shell.run(SOURCE)
    shell.run("CREATE STREAM S2 AS SELECT * FROM S EMIT CHANGES;")
    qid = next(iter(embedded.engine.queries))
    lines = shell.run("DESCRIBE S EXTENDED;").splitlines()
    assert any(x.startswith(f"{qid} (RUNNING) : CREATE STREAM S2 ") for x in lines), lines
    shell.run(f"PAUSE {qid};")
    lines = shell.run("DESCRIBE S2 EXTENDED;").splitlines()
    assert any(x.startswith(f"{qid} (PAUSED) : CREATE STREAM S2 ") for x in lines), lines
