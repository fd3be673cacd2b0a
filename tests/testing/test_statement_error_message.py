"""The text an expectedException's message is matched against for a statement's error: ksqlDB's
KsqlStatementException.getMessage(), the error's text then ``\\nStatement: <the statement>``, unless the
error names its statement already (``executor.java_message``)."""

from __future__ import annotations

from ksqlpy.errors import KsqlParseError, KsqlStatementError
from ksqlpy.testing.executor import java_message


def test_a_statement_error_is_followed_by_its_statement_as_written() -> None:
    e = KsqlStatementError("Line: 1, Col: 34: MISSING does not exist.")
    sql = "  CREATE STREAM O AS\nSELECT * FROM MISSING;\n"
    assert java_message(e, sql) == ("Line: 1, Col: 34: MISSING does not exist.\n"
                                    "Statement: CREATE STREAM O AS\nSELECT * FROM MISSING;")


def test_an_error_naming_its_statement_keeps_its_text() -> None:
    e = KsqlParseError("line 1:5: Syntax Error\nStatement: CREAT STREAM S;")
    assert java_message(e, "CREAT STREAM S;") == str(e)


def test_errors_that_are_not_ksql_errors_or_have_no_statement_are_left_alone() -> None:
    assert java_message(ValueError("boom"), "SELECT 1;") == "boom"
    assert java_message(KsqlStatementError("x"), None) == "x"
