"""A ``/*`` that no ``*/`` closes is no comment: ksqlDB's lexer rule is ``BRACKETED_COMMENT: '/*' .*? '*/'``, so
without the closing pair the longest token at the '/' is the operator '/', then '*', and the text after is read
as usual. Parser, splitter and variable substitution read it that way alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlglot.tokens import TokenType

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError, KsqlParseError
from ksqlpy.grammar import parse, split_statements, substitute_variables, tokenize


def _error(sql: str) -> KsqlParseError:
    with pytest.raises(KsqlParseError) as caught:
        parse(sql, {}, terminated=True)
    return caught.value


def test_the_opening_pair_is_a_slash_and_a_star() -> None:
    sql = "SELECT 1 /* b 'c'"
    tokens = tokenize(sql)
    assert [(t.token_type, t.text, t.start) for t in tokens[2:]] == [
        (TokenType.SLASH, "/", 9), (TokenType.STAR, "*", 10), (TokenType.VAR, "b", 12), (TokenType.STRING, "c", 14)]
    assert (tokens[3].line, tokens[3].col) == (1, 11)


def test_a_closed_comment_is_still_a_comment() -> None:
    assert [t.text for t in tokenize("SELECT /* a */ 1 /* b */")] == ["SELECT", "1"]
    (stmt,) = parse("SHOW STREAMS; /* done */", {}, terminated=True)
    assert stmt.text == "SHOW STREAMS;"


@pytest.mark.parametrize(("sql", "line", "column", "detail"), [
    # where a statement starts: a '/' begins none, and ANTLR reports it against the statement keywords
    ("SHOW STREAMS; /* the end", 1, 15, "Unknown statement '/'\nDid you mean 'SET'?"),
    ("/* SHOW STREAMS;", 1, 1, "Unknown statement '/'\nDid you mean 'SET'?"),
    ("SHOW STREAMS;\n  /* not closed\nSHOW TABLES;", 2, 3, "Unknown statement '/'\nDid you mean 'SET'?"),
    # inside a statement: as the operators written out
    ("SHOW /* x */ TABLES /* y STREAMS;", 1, 21, "Expecting {';', 'EXTENDED'}"),
    ("SELECT 1 /* x FROM S;", 1, 11, ""),
])
def test_the_parser_fails_at_the_operators(sql: str, line: int, column: int, detail: str) -> None:
    e = _error(sql)
    assert (e.line, e.column) == (line, column)
    head = str(e).split("\nStatement: ")[0]
    assert head == f"line {line}:{column}: Syntax Error\n{detail}"


@pytest.mark.parametrize("head", ["SHOW ", "SHOW STREAMS; ", "CREATE STREAM S (A INT) ", "SELECT * FROM S "])
def test_the_same_error_as_a_written_slash(head: str) -> None:
    unclosed, written = _error(head + "/* x;"), _error(head + "/ * x;")
    assert (unclosed.line, unclosed.column) == (written.line, written.column) == (1, len(head) + 1)
    assert unclosed.raw_message.split("\nStatement: ")[0] == written.raw_message.split("\nStatement: ")[0]


def test_the_splitter_keeps_the_text_after_it() -> None:
    assert split_statements("SHOW STREAMS; /* open") == ["SHOW STREAMS;", "/* open"]
    assert split_statements("SHOW STREAMS; /* open; SHOW TABLES;") == ["SHOW STREAMS;", "/* open;", "SHOW TABLES;"]
    assert split_statements("SHOW STREAMS; /* a; */ SHOW TABLES;") == ["SHOW STREAMS;", "SHOW TABLES;"]


def test_references_after_it_are_code() -> None:
    assert substitute_variables("SELECT ${x} /* ${x} */ /* ${x}", {"x": "1"}) == "SELECT 1 /* ${x} */ /* 1"


def test_a_script_ending_in_one_runs_nothing(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        with pytest.raises(KsqlError) as caught:
            engine.execute("CREATE STREAM a (id INT KEY, v INT) WITH (kafka_topic='a', partitions=1, "
                           "value_format='JSON'); /* the rest")
        assert "Syntax Error" in caught.value.message
        assert not list(engine.catalog.sources())
    finally:
        engine.close()
