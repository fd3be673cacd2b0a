"""A statement's error in the embedded shell reads as a server's shell shows it: what goes to /ksql (DDL, DML,
a CREATE ... AS SELECT, a RUN SCRIPT) fails with the message alone - ksqlDB's KsqlResource answers with the
exception's raw details, no 'Statement: ...' line -, while a query (the query endpoint) keeps the line that
names the statement or expression at fault."""

from __future__ import annotations

from typing import Any

from tests.cli.captured_shell import CapturedShell

SOURCE = "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', value_format='JSON', partitions=1);"


def _error(shell: CapturedShell, text: str) -> list[str]:
    shell.err.seek(0), shell.err.truncate()
    assert not shell.session.run_entry(text)
    return shell.err.getvalue().splitlines()


def test_a_ksql_statement_s_error_has_no_statement_line(embedded: Any) -> None:
    shell = CapturedShell(embedded)
    shell.run(SOURCE)
    where = "Error in WHERE expression: Cannot compare V (STRING) to 1 (INTEGER) with EQUAL."
    assert _error(shell, "CREATE STREAM S2 AS SELECT * FROM S WHERE V = 1;") == [where]
    assert _error(shell, "INSERT INTO S SELECT * FROM S WHERE V = 1;") == [where]
    lines = _error(shell, "SELEC 1;")
    assert lines[:3] == ["line 1:1: Syntax Error", "Unknown statement 'SELEC'", "Did you mean 'SELECT'?"]
    assert not any(x.startswith("Statement: ") for x in lines)
    lines = _error(shell, "CREATE STREAM S3 (A INT) WITH (kafka_topic='q', value_format='JSON') garbage;")
    assert lines[:2] == ["line 1:70: Syntax Error", "Expecting ';'"]
    assert not any(x.startswith("Statement: ") for x in lines)


def test_a_query_s_error_keeps_its_statement_line(embedded: Any) -> None:
    shell = CapturedShell(embedded)
    shell.run(SOURCE)
    assert _error(shell, "SELECT * FROM S WHERE V = 1 EMIT CHANGES;") == [
        "Error in WHERE expression: Cannot compare V (STRING) to 1 (INTEGER) with EQUAL.", "Statement: (V = 1)"]
    lines = _error(shell, "SELECT * FRM S EMIT CHANGES;")
    assert "Statement: SELECT * FRM S EMIT CHANGES;" in lines


def test_run_script_s_error_has_no_statement_line(embedded: Any, tmp_path: Any) -> None:
    shell = CapturedShell(embedded)
    shell.run(SOURCE)
    script = tmp_path / "s.sql"
    script.write_text("CREATE STREAM S2 AS SELECT * FROM S WHERE V = 1;\n")
    assert _error(shell, f"RUN SCRIPT '{script}';") == [
        "Error in WHERE expression: Cannot compare V (STRING) to 1 (INTEGER) with EQUAL."]
