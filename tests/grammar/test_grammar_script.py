"""Variable substitution and statement splitting (used by the CLI before anything is parsed)."""

from __future__ import annotations

import pytest

from ksqlpy import grammar
from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import ast as A
from ksqlpy.grammar import parse, parse_one, split_statements, substitute_variables


def test_substitution_is_case_insensitive_in_names_and_literals() -> None:
    variables = {"topicName": "orders", "FMT": "JSON"}
    text = "CREATE STREAM ${TOPICNAME} WITH (kafka_topic='${topicname}', value_format='${fmt}');"
    assert substitute_variables(text, variables) == (
        "CREATE STREAM orders WITH (kafka_topic='orders', value_format='JSON');"
    )


def test_escape_and_undefined_references_are_left_alone() -> None:
    assert (
        substitute_variables("SELECT '$${x}', '${y}' FROM s;", {"x": "1"}) == "SELECT '${x}', '${y}' FROM s;"
    )


def test_quotes_in_values_cannot_end_a_literal() -> None:
    assert (
        substitute_variables("SELECT '${name}' FROM s;", {"name": "O'Brien"}) == "SELECT 'O''Brien' FROM s;"
    )
    # Outside a literal the value is inserted verbatim (a value may itself be a quoted literal).
    assert substitute_variables("SET 'a' = ${v};", {"v": "'x'"}) == "SET 'a' = 'x';"


def test_parse_applies_variables() -> None:
    stmt = parse_one("INSERT INTO ${s} (id) VALUES (${n});", {"S": "sink", "n": "42"})
    assert isinstance(stmt, A.InsertValues)
    assert stmt.target == "SINK" and stmt.values[0].this == "42"
    assert stmt.text == "INSERT INTO sink (id) VALUES (42);"


def test_split_statements_respects_quotes_and_comments() -> None:
    script = (
        "-- leading comment; not a statement\n"
        "SELECT ';' AS `x;y`, \"a;b\" FROM s; /* a; comment */\n"
        "INSERT INTO t VALUES ('it''s; fine');\n"
        "  SHOW STREAMS"
    )
    assert split_statements(script) == [
        "SELECT ';' AS `x;y`, \"a;b\" FROM s;",
        "INSERT INTO t VALUES ('it''s; fine');",
        "SHOW STREAMS",
    ]


def test_split_statements_edge_cases() -> None:
    assert split_statements("") == []
    # an empty statement is a piece of its own, for the parser to refuse; trailing blanks and comments are not
    assert split_statements(";;  ; -- x\n") == [";", ";", ";"]
    assert split_statements("SHOW TABLES; /* c */ ;") == ["SHOW TABLES;", ";"]
    # a quote that opens no complete string is a lone character, as ksqlDB's lexer reads it: its ';' ends it
    assert split_statements("SELECT 'unterminated; still open") == ["SELECT 'unterminated;", "still open"]
    assert split_statements("SHOW TABLES; -- done") == ["SHOW TABLES;"]
    assert split_statements("SELECT a -- why; not\nFROM s;") == ["SELECT a -- why; not\nFROM s;"]


def test_parse_and_split_agree() -> None:
    script = "SET 'a'='b';\nSHOW STREAMS; /* c */ DESCRIBE s;\nSELECT * FROM s"
    assert [s.text for s in parse(script)] == split_statements(script)


def test_a_long_script_parses_statement_by_statement() -> None:
    # (its speed is measured in bench/, side by side with a baseline, never timed here)
    script = "\n".join(
        f"CREATE STREAM s{i} (id INT KEY, v{i} STRUCT<a INT, b ARRAY<STRING>>) WITH (kafka_topic='t{i}', format='JSON');\n"
        f"SELECT id, v{i}->a + 1 AS x, CASE WHEN id > {i} THEN 'a' ELSE 'b' END FROM s{i} WHERE id IN (1, 2) EMIT CHANGES;"
        for i in range(1000)
    )
    statements = parse(script)
    assert len(statements) == 2000
    assert (statements[-1].line, statements[-1].column) == (2000, 1)
    assert statements[-1].query.where is not None


@pytest.mark.parametrize("sql, where", [
    ("SHOW STREAMS", "1:13"), ("SHOW STREAMS  ", "1:15"), ("SHOW STREAMS\n", "2:1"), ("SHOW STREAMS -- c", "1:18"),
    ("SHOW STREAMS; DESCRIBE S", "1:25"), ("SELECT * FROM S EMIT CHANGES", "1:29"),
    ("INSERT INTO S (A) VALUES (1)", "1:29"), ("SET 'a.b'='c'", "1:14"), ("DEFINE x = 'y'", "1:15"),
])
def test_terminated_scripts_want_the_last_semicolon(sql: str, where: str) -> None:
    """``terminated`` (what a client sends): ``statements: singleStatement* EOF`` - the ';' missing at EOF."""
    with pytest.raises(KsqlParseError) as err:
        grammar.parse(sql, terminated=True)
    assert str(err.value).startswith(f"line {where}: Syntax Error\nmissing ';' at '<EOF>'\nStatement: ")
    assert grammar.parse(sql)  # the engine's own texts may leave it out


def test_terminated_a_syntax_error_comes_before_a_preparation_failure() -> None:
    with pytest.raises(KsqlParseError) as err:
        grammar.parse("CREATE STREAM X (A INT, A INT) WITH (kafka_topic='x'); SHOW STREAMS", terminated=True)
    assert "missing ';' at '<EOF>'" in str(err.value)
    assert grammar.parse("SHOW STREAMS;", terminated=True)[0].text == "SHOW STREAMS;"


@pytest.mark.parametrize(("script", "pieces"), [
    # no closing quote and no doubled one: the quote alone is a token, the rest is read as usual
    ("SELECT 'abc FROM x; SHOW TABLES;", ["SELECT 'abc FROM x;", "SHOW TABLES;"]),
    ("SELECT `abc FROM x; SHOW TABLES;", ["SELECT `abc FROM x;", "SHOW TABLES;"]),
    ('SELECT "abc FROM x; SHOW TABLES;', ['SELECT "abc FROM x;', "SHOW TABLES;"]),
    # the longest complete token first: 'it' (up to the last doubled quote), then a lone quote
    ("SELECT 'it''s FROM x; SHOW TABLES;", ["SELECT 'it''s FROM x;", "SHOW TABLES;"]),
    ("SELECT 'a;''b;''c; SHOW TABLES;", ["SELECT 'a;''b;''c;", "SHOW TABLES;"]),
    # a closed string still holds its ';'
    ("SELECT 'a;''b' FROM x; SHOW TABLES;", ["SELECT 'a;''b' FROM x;", "SHOW TABLES;"]),
    # a lone quote after a statement starts the next one
    ("SHOW TABLES; ' ; SHOW STREAMS;", ["SHOW TABLES;", "' ;", "SHOW STREAMS;"]),
])
def test_split_follows_the_lexer_at_an_unclosed_quote(script: str, pieces: list[str]) -> None:
    assert split_statements(script) == pieces


def test_variables_after_a_lone_quote_are_tokens() -> None:
    """After the lone quote the text is code again, so ``${x}`` there is a VARIABLE token, not string text."""
    assert substitute_variables("SELECT 'it''s ${x} FROM s;", {"x": "1"}) == "SELECT 'it''s 1 FROM s;"
    assert substitute_variables("SELECT 'it''${x}' FROM s;", {"x": "1"}) == "SELECT 'it''1' FROM s;"


def test_the_script_fails_at_the_lone_quote_not_later() -> None:
    with pytest.raises(KsqlParseError) as err:
        parse("SELECT 'it''s FROM x; SHOW TABLES;")
    assert str(err.value).startswith("line 1:12: Syntax Error\nExpecting {',', 'FROM'}")
