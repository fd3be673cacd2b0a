"""ANTLR's single-token insertion over the follow set in context: a closing token that a rule requires alone is
reported missing where the next token can follow it given every enclosing rule (``missing ')' at 'FROM'``),
else a mismatch naming it; and the predictions that decide before such a match (a function's lone-name
argument or lambda, GROUP BY's two forms)."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import parse


def _detail(sql: str) -> str:
    with pytest.raises(KsqlParseError) as err:
        parse(sql, allow_run_script=False)
    head = err.value.message.split("\nStatement: ")[0]
    return head.split(": Syntax Error\n", 1)[1] if ": Syntax Error\n" in head else head


@pytest.mark.parametrize(("sql", "detail"), [
    # the enclosing clause lets the token follow the bracket
    ("SELECT CAST(x AS INT FROM s;", "missing ')' at 'FROM'"),
    ("SELECT (x + 1 FROM s;", "missing ')' at 'FROM'"),
    ("SELECT (x + 1 y FROM s;", "missing ')' at 'y'"),          # a select item's alias
    ("SELECT (x + 1, y FROM s;", "missing ')' at ','"),
    ("SELECT x[1 FROM s;", "missing ']' at 'FROM'"),
    ("SELECT COUNT(* FROM s GROUP BY k;", "missing ')' at 'FROM'"),
    ("SELECT * FROM s WHERE (x = 1 EMIT CHANGES;", "missing ')' at 'EMIT'"),
    ("SELECT * FROM s WHERE (x = 1;", "missing ')' at ';'"),    # the statement's ';' follows WHERE
    ("SELECT * FROM s WHERE CAST(x AS INT = 1;", "missing ')' at '='"),  # a predicate may follow a primary
    ("SELECT * FROM s PARTITION BY k, CAST(x AS INT EMIT CHANGES;", "missing ')' at 'EMIT'"),
    ("SELECT k FROM s GROUP BY k HAVING (COUNT(*) > 1 LIMIT 2;", "missing ')' at 'LIMIT'"),
    ("SELECT * FROM a JOIN b WITHIN 1 SECOND ON (a.x = b.x WHERE a.y = 1;", "missing ')' at 'WHERE'"),
    ("SELECT CASE WHEN (a THEN 1 END FROM s;", "missing ')' at 'THEN'"),
    ("SELECT * FROM s WHERE a LIKE (b ESCAPE '!';", "missing ')' at 'ESCAPE'"),
    ("INSERT INTO s VALUES (1, CAST(2 AS INT, 3);", "missing ')' at ','"),
    # the closing token comes next: the current one is extraneous (a reserved word named as one)
    ("SELECT CAST(x AS INT y) FROM s;", "Expecting ')'"),
    ("SELECT CAST(x AS INT FROM) FROM s;", '"FROM" is a reserved keyword'),
    # the text ends without ';': ksqlDB's missing-bracket detail
    ("SELECT * FROM s WHERE (x = 1", "Syntax error at or near \";\"\n'}', ']', or ')' is missing"),
])
def test_an_unclosed_bracket_in_expressions(sql: str, detail: str) -> None:
    assert _detail(sql).startswith(detail)


@pytest.mark.parametrize(("sql", "detail"), [
    # the enclosing rule needs its own token first: a mismatch, listing what could come at the earliest point
    # the parser could have stopped (ANTLR's nextTokensContext) - after an expression every operator and the
    # bracket, so no detail; after COUNT(* or a number only the bracket
    ("SELECT * FROM s WHERE a IN ((1 FROM s);", ""),
    ("SELECT * FROM s WHERE a BETWEEN (1 AND 2;", ""),       # BETWEEN's AND comes first
    ("SELECT (x + 1 WHERE FROM s;", ""),
    ("SELECT ABS(x[1 FROM s;", ""),
    ("SELECT ABS(COUNT(* FROM s;", "Expecting ')'"),
    ("SELECT CAST(a AS DECIMAL(1, 2 FROM s;", "Expecting ')'"),
    ("SELECT ABS((x + 1 y) FROM s;", "Expecting ')'"),        # extraneous: ')' follows it
])
def test_a_mismatched_bracket(sql: str, detail: str) -> None:
    assert _detail(sql) == detail


@pytest.mark.parametrize(("sql", "detail"), [
    ("CREATE STREAM s (a ARRAY<INT, b INT) WITH (kafka_topic='t', value_format='JSON');", "missing '>' at ','"),
    ("CREATE STREAM s (a ARRAY<INT KEY, b INT) WITH (kafka_topic='t', value_format='JSON');", "missing '>' at 'KEY'"),
    ("CREATE STREAM s (a DECIMAL(1, 2 KEY) WITH (kafka_topic='t', value_format='JSON');", "Expecting ')'"),
    ("CREATE STREAM s (a MAP<STRING INT>) WITH (kafka_topic='t', value_format='JSON');", "missing ',' at 'INT'"),
    ("CREATE STREAM s (a STRUCT<x INT, b INT) WITH (kafka_topic='t', value_format='JSON');", "Expecting {',', '>'}"),
    ("CREATE STREAM s (a VARCHAR(STRING b INT) WITH (kafka_topic='t', value_format='JSON');", "Expecting {',', ')'}"),
    ("CREATE STREAM s (a INT HEADER('k', b INT) WITH (kafka_topic='t', value_format='JSON');", "missing ')' at ','"),
    ("CREATE TYPE t AS ARRAY<INT;", "missing '>' at ';'"),
    ("ALTER STREAM s ADD COLUMN c ARRAY<INT, ADD d INT;", "missing '>' at ','"),
    ("SELECT CAST(a AS ARRAY<INT) FROM s;", "missing '>' at ')'"),
])
def test_an_unclosed_type(sql: str, detail: str) -> None:
    assert _detail(sql).startswith(detail)


@pytest.mark.parametrize(("sql", "detail"), [
    # the window's optional clauses are ANTLR's sync: ',' or ')'; after the last one ')' alone
    ("SELECT * FROM a WINDOW TUMBLING (SIZE 1 SECOND WHERE x = 1;", "Expecting {',', ')'}"),
    ("SELECT * FROM a WINDOW TUMBLING (SIZE 1 SECOND, GRACE PERIOD 1 SECOND WHERE x = 1;", "missing ')' at 'WHERE'"),
    ("SELECT * FROM a WINDOW SESSION (1 SECOND, GRACE PERIOD 1 SECOND FROM x;", "Expecting ')'"),
    ("SELECT * FROM a JOIN b WITHIN (1 SECOND, 2 SECONDS ON a.x = b.x;", "missing ')' at 'ON'"),
    ("SELECT * FROM a JOIN b WITHIN (1 SECOND 2 SECONDS) ON a.x = b.x;", "missing ',' at '2'"),
])
def test_window_brackets(sql: str, detail: str) -> None:
    assert _detail(sql).startswith(detail)


@pytest.mark.parametrize(("sql", "near"), [
    # ``x`` / ``(x)`` may begin an argument or a lambda; neither continues with the token after it
    ("SELECT ABS(x FROM s;", "'FROM' at line 1:14"),
    ("SELECT CONCAT(a, b FROM s;", "'FROM' at line 1:20"),
    ("SELECT CONCAT(a b) FROM s;", "'b' at line 1:17"),
    ("SELECT ABS((x) FROM s;", "'FROM' at line 1:16"),
    ("SELECT ABS((x FROM s;", "'FROM' at line 1:15"),
    # GROUP BY's two forms read '(' e alike and both fail at the token after
    ("SELECT k FROM s GROUP BY (k EMIT CHANGES;", "'EMIT' at line 1:29"),
    ("SELECT k FROM s GROUP BY (k + 1;", "';' at line 1:32"),
    ("SELECT * FROM s PARTITION BY (k HAVING x;", "'HAVING' at line 1:33"),
])
def test_no_viable_alternative_before_the_bracket(sql: str, near: str) -> None:
    assert _detail(sql) == f"Syntax error at or near {near}"


@pytest.mark.parametrize(("sql", "detail"), [
    ("SELECT ABS(x + 1 FROM s;", "Expecting {',', ')'}"),        # '+' ends the lambda's prediction
    ("SELECT ABS(s.x FROM s;", "Expecting {',', ')'}"),
    ("SELECT TRANSFORM(a, (x, y FROM s;", "Expecting {',', ')'}"),  # ',' after '(x': a lambda's parameters
    ("SELECT TRANSFORM(a, (x, y) x + y) FROM s;", "missing '=>' at 'x'"),
    ("SELECT k FROM s GROUP BY (k, x EMIT CHANGES;", "Expecting {',', ')'}"),
    ("SELECT k FROM s GROUP BY (k), (x EMIT CHANGES;", "missing ')' at 'EMIT'"),
    ("SELECT a FROM s GROUP BY b, (c, d);", "missing ')' at ','"),
])
def test_the_alternative_read_further_reports_its_error(sql: str, detail: str) -> None:
    assert _detail(sql).startswith(detail)


def test_well_formed_text_is_refused_by_its_own_rule() -> None:
    # both GROUP BY forms stop at the literal: the AST builder's refusal, not a syntax error
    with pytest.raises(KsqlParseError) as err:
        parse("SELECT k FROM s GROUP BY (99999999999999999999);", allow_run_script=False)
    assert "Invalid numeric literal: 99999999999999999999" in err.value.message


@pytest.mark.parametrize("sql", [
    "SELECT k FROM s GROUP BY (k, x) EMIT CHANGES;",
    "SELECT k FROM s GROUP BY (k) + 1, x EMIT CHANGES;",
    "SELECT TRANSFORM(a, (x, y) => x + y) FROM s;",
    "SELECT TRANSFORM(a, (x) => x + 1), ABS((x)) FROM s;",
    "SELECT CAST(a AS ARRAY<DECIMAL(4, 2)>) FROM s;",
])
def test_well_formed_text_still_parses(sql: str) -> None:
    parse(sql, allow_run_script=False)
