"""Parse errors are KsqlParseErrors with ksqlDB-like messages and the 1-based position of the culprit."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import parse, parse_expression, parse_one


def error_of(sql: str) -> KsqlParseError:
    with pytest.raises(KsqlParseError) as info:
        parse(sql)
    return info.value


def test_misspelled_keyword() -> None:
    e = error_of("SELECT * FORM pageviews;")
    assert (e.line, e.column, e.token) == (1, 10, "FORM")
    # after a select item ANTLR's loop accepts ',' or FROM (as ',' or ')' after a column definition)
    assert str(e) == "line 1:10: Syntax Error\nExpecting {',', 'FROM'}\nStatement: SELECT * FORM pageviews;"


def test_position_on_a_later_line_of_a_later_statement() -> None:
    e = error_of("SHOW STREAMS;\nCREATE STREAM s (id INT KEY)\n  WITH (kafka_topic='t' value_format='JSON');")
    assert (e.line, e.column, e.token) == (3, 25, "value_format")
    assert str(e).startswith("line 3:25: ")


def test_unknown_statement() -> None:
    e = error_of("  FROBNICATE everything;")
    assert (e.line, e.column) == (1, 3)
    assert str(e) == "line 1:3: Syntax Error\nUnknown statement 'FROBNICATE'\nDid you mean 'CREATE'?\nStatement:   FROBNICATE everything;"


def test_syntax_error_wording() -> None:
    # IN '(' expression ...: nothing begins the expression - a mismatch over its long first set, no detail
    assert str(error_of("SELECT * FROM s WHERE a IN ();")) == (
        "line 1:29: Syntax Error\n\nStatement: SELECT * FROM s WHERE a IN ();")
    # text after a complete statement: no detail, as ksqlDB (ANTLR: no viable alternative)
    assert str(error_of("SELECT * FROM s GROUP BY a AND b;")) == (
        "line 1:28: Syntax Error\n\nStatement: SELECT * FROM s GROUP BY a AND b;")


def test_expected_tokens_are_listed_and_the_statement_quoted() -> None:
    e = error_of("SHOW STREAMS;\nCREATE STREAM i (k STRING (KEY)) WITH (kafka_topic='i', value_format='JSON');")
    assert str(e) == ("line 2:28: Syntax Error\nExpecting {'STRING', INTEGER_VALUE}\nStatement: CREATE STREAM i "
                      "(k STRING (KEY)) WITH (kafka_topic='i', value_format='JSON');")


def test_missing_closing_parenthesis_before_a_comma() -> None:
    e = error_of("SELECT a FROM s GROUP BY b, (c, d);")
    assert (e.line, e.column) == (1, 31)
    assert str(e).startswith("line 1:31: Syntax Error\nmissing ')' at ','\n")


def test_assert_with_no_fitting_form_names_the_word_and_its_position() -> None:
    e = error_of("ASSERT  RECORDS t;")
    assert "Syntax error at or near 'RECORDS' at line 1:9" in str(e)


def test_bad_literals_fail_to_prepare_at_the_column_ksqldb_prints() -> None:
    e = error_of("SELECT\n  a, 9223372036854775808 FROM s;")
    # ksqlDB prints one past the literal's 1-based start (its AST builder adds one twice)
    assert str(e) == "Failed to prepare statement: line 2:7: Invalid numeric literal: 9223372036854775808"


def test_key_column_kind_errors_use_the_node_location_form() -> None:
    e = error_of("CREATE TABLE t (id INT KEY, v INT) WITH (kafka_topic='t', value_format='JSON');")
    assert "Line: 1, Col: 17: Column `ID` is a 'KEY' column: please use 'PRIMARY KEY' for tables." in str(e)
    e = error_of("CREATE STREAM s (v INT,\n id INT PRIMARY KEY) WITH (kafka_topic='t', value_format='JSON');")
    assert "Line: 2, Col: 2: Column `ID` is a 'PRIMARY KEY' column: please use 'KEY' for streams." in str(e)


def test_error_at_end_of_input() -> None:
    e = error_of("SELECT * FROM")
    assert e.token == "<EOF>" and (e.line, e.column) == (1, 14)
    e = error_of("SELECT * FROM;")
    assert e.token == ";"
    assert (e.line, e.column) == (1, 14)


def test_unterminated_string_and_identifier() -> None:
    # the quote is a stray token (ksqlDB's UNRECOGNIZED), the text after it read as usual
    e = error_of("SELECT 'abc FROM s;")
    assert (e.line, e.column) == (1, 8) and str(e) == "line 1:8: Syntax Error\n\nStatement: SELECT 'abc FROM s;"
    e = error_of("SELECT\n  `abc FROM s;")
    assert (e.line, e.column) == (2, 3) and str(e).startswith("line 2:3: Syntax Error\n\n")
    # the lexer keeps the longest complete token: 'it' is a string, the quote after it the stray one
    e = error_of("SELECT a FROM s WHERE b = 'it''s;")
    assert (e.line, e.column, e.token) == (1, 31, "'")
    e = error_of("SELECT `a``b FROM s;")
    assert str(e) == "line 1:11: Syntax Error\nExpecting {',', 'FROM'}\nStatement: SELECT `a``b FROM s;"


def test_stray_characters() -> None:
    for sql in (
        "SELECT # FROM s;",
        "SELECT a FROM s WHERE b = ?;",
        "SELECT {a} FROM s;",
        "SELECT a::INT FROM s;",
    ):
        e = error_of(sql)
        assert e.line == 1 and e.column > 1


def test_parse_one_and_expression_errors() -> None:
    with pytest.raises(KsqlParseError, match="exactly one statement"):
        parse_one("SHOW STREAMS; SHOW TABLES;")
    with pytest.raises(KsqlParseError, match="exactly one statement"):
        parse_one("")
    with pytest.raises(KsqlParseError) as info:
        parse_expression("a +")
    assert info.value.column == 4
    with pytest.raises(KsqlParseError):
        parse_expression("a b")


def test_truncated_statements_never_leak_other_exceptions() -> None:
    sql = (
        "CREATE TABLE t WITH (kafka_topic='x') AS SELECT a->b[1], CAST(c AS MAP<STRING, INT>), "
        "CASE WHEN d THEN TRANSFORM(e, (x, y) => x || y) END FROM s JOIN u WITHIN (1 SECOND, 2 SECONDS) "
        "ON s.k = u.k WINDOW HOPPING (SIZE 1 HOUR, ADVANCE BY 1 MINUTE) WHERE f NOT BETWEEN 1 AND 2 "
        "GROUP BY (g, h) HAVING COUNT(*) > 1 EMIT CHANGES;"
    )
    for end in range(len(sql)):
        try:
            parse(sql[:end])
        except KsqlParseError as e:
            assert e.line == 1 and e.column >= 1


def test_reserved_word_used_as_a_name() -> None:
    e = error_of("SELECT size x FROM s;")  # extraneous: an expression begins after it
    assert (e.line, e.column) == (1, 8)
    # the token as written (ANTLR's getText), double-quoted, then single-quoted with ksqlDB's trailing blank
    assert ('"size" is a reserved keyword and it can\'t be used as an identifier. '
            "You can use it as an identifier by escaping it as 'size' \n") in str(e)
    assert str(error_of("SELECT size FROM s;")).startswith("line 1:8: Syntax Error\n\nStatement: ")  # mismatch
    assert parse("SELECT `SIZE` FROM s;")


@pytest.mark.parametrize("escape", ["", "ab", "\\\\"])
def test_a_like_escape_of_more_or_less_than_one_character_fails_to_prepare(escape: str) -> None:
    # ksqlDB's AST builder refuses it (prepare stage), not its parser
    e = error_of(f"SELECT * FROM s WHERE c LIKE 'a%' ESCAPE '{escape}';")
    assert str(e).startswith("Failed to prepare statement: ")
    assert str(e).endswith(f"Expected single character escape but got: {escape}")
