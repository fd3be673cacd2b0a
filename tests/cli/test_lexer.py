"""The shell's lexer: highlighting tokens, 'is the entry finished?', statement splitting."""

from __future__ import annotations

import pytest

from ksqlpy.cli import lexer as L


def kinds(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in L.tokenize(text) if t.kind != L.SPACE]


def test_tokens_cover_the_text() -> None:
    text = "SELECT a->b, 'it''s', `x y`, ABS(-1.5e3) FROM s -- c\n/* d */ WHERE ${v} <> 2;"
    assert "".join(t.text for t in L.tokenize(text)) == text


def test_token_kinds() -> None:
    assert kinds("SELECT abs(x), 'a''b', `Q`, 12.5, -- hi") == [
        ("keyword", "SELECT"), ("function", "abs"), ("punct", "("), ("name", "x"), ("punct", ")"),
        ("punct", ","), ("string", "'a''b'"), ("punct", ","), ("quoted", "`Q`"), ("punct", ","),
        ("number", "12.5"), ("punct", ","), ("comment", "-- hi")]
    assert ("variable", "${v}") in kinds("SELECT ${v}")
    assert ("operator", "->") in kinds("a->b")


def test_a_declared_name_is_not_a_function() -> None:
    assert ("name", "s") in kinds("CREATE STREAM s (id INT KEY)")
    assert ("name", "s") in kinds("INSERT INTO s (id) VALUES (1)")
    assert ("function", "COUNT") in kinds("SELECT COUNT(*) FROM s")


def test_keywords_match_the_grammar() -> None:
    grammar_keywords = pytest.importorskip("ksqlpy.grammar.keywords")
    assert grammar_keywords.KEYWORDS == L.KEYWORDS


@pytest.mark.parametrize(("text", "complete"), [
    ("SELECT 1;", True),
    ("SELECT 1", False),
    ("SELECT 1;  ", True),
    ("SELECT 1; -- trailing comment", True),
    ("SELECT ';'", False),
    ("SELECT 'it''s';", True),
    ("SELECT 'open;", False),
    ("SELECT `a;b`", False),
    ("SELECT 1 /* ; */", False),
    ("SELECT 1 /* open ;", False),
    ("CREATE STREAM s (id INT)\n WITH (kafka_topic='t');", True),
    ("CREATE STREAM s (id INT)\n", False),
    ("-- only a comment;", False),
    ("", False),
])
def test_statement_complete(text: str, complete: bool) -> None:
    assert L.statement_complete(text) is complete


@pytest.mark.parametrize("text", [
    "SELECT 1; SELECT 2;",
    "SELECT ';' FROM s; -- x;\nSHOW STREAMS;",
    "  /* a; */ DESCRIBE s ;SHOW TABLES",
    "SELECT `a;b` FROM t;",
])
def test_fallback_split_matches_the_grammar(text: str) -> None:
    script = pytest.importorskip("ksqlpy.grammar.script")
    assert L._split(text) == script.split_statements(text)


def test_first_words_and_terminator() -> None:
    assert L.first_words("  -- c\n select * from s;", 2) == ["SELECT"]
    assert L.first_words("RUN SCRIPT 'x';", 2) == ["RUN", "SCRIPT"]
    assert L.first_words("help", 1) == ["HELP"]
    assert L.strip_terminator(" output json ;; ") == "output json"


def test_lines_of_a_multiline_string_are_highlighted_as_string() -> None:
    lines = list(L.iter_lines("SELECT 'a\nb' FROM s"))
    assert lines[0][-1] == ("string", "'a")
    assert lines[1][0] == ("string", "b'")
    assert ("keyword", "FROM") in lines[1]


def test_prompt_lexer_gives_styled_lines() -> None:
    from prompt_toolkit.document import Document

    get_line = L.make_prompt_lexer().lex_document(Document("SELECT 1\nFROM s;"))
    assert get_line(0)[0] == ("class:sql.keyword", "SELECT")
    assert get_line(1)[0] == ("class:sql.keyword", "FROM")
    assert get_line(5) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("-- a note", True),
    ("/* a block */", True),
    ("  /* a */ -- b\n-- c  ", True),
    ("-- only a comment;", True),
    ("/* open", False),
    ("", False),
    ("   ", False),
    ("SHOW STREAMS; -- c", False),
    ("-- c\nSHOW STREAMS", False),
])
def test_only_comments(text: str, expected: bool) -> None:
    assert L.only_comments(text) is expected
