"""A small lexer for the ksql dialect, for the shell only.

The shell needs tokens on every keystroke (highlighting, "is this statement finished?", completion
context) and must not pay for importing the full parser to show a prompt, so this is a regex
scanner with the same lexical rules as ``ksqlpy.grammar.script``: ``'string'`` with ``''`` escapes,
`` `name` `` and ``"name"`` identifiers, ``--`` and ``/* */`` comments. Unterminated strings, names
and comments run to the end of the text (the user is still typing them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# token kinds (also the style class suffix used by the highlighter)
KEYWORD, NAME, QUOTED, STRING, NUMBER, COMMENT, OPERATOR, VARIABLE, FUNCTION, SPACE, PUNCT = (
    "keyword", "name", "quoted", "string", "number", "comment", "operator", "variable", "function",
    "space", "punct")

# ksqlDB's keyword vocabulary (SqlBase.g4). A copy of ksqlpy.grammar.keywords.KEYWORDS so that the
# prompt can be highlighted before the grammar (and sqlglot) is imported; a test keeps them in sync.
KEYWORDS: frozenset[str] = frozenset(
    """
    EMIT CHANGES FINAL SELECT FROM AS ALL DISTINCT WHERE WITHIN WINDOW GROUP BY HAVING LIMIT AT OR
    AND IN NOT EXISTS BETWEEN LIKE ESCAPE IS NULL TRUE FALSE INTEGER DATE TIME TIMESTAMP INTERVAL
    YEAR MONTH DAY HOUR MINUTE SECOND MILLISECOND YEARS MONTHS DAYS HOURS MINUTES SECONDS
    MILLISECONDS ZONE TUMBLING HOPPING SIZE ADVANCE RETENTION GRACE PERIOD CASE WHEN THEN ELSE END
    JOIN FULL OUTER INNER LEFT RIGHT ON PARTITION STRUCT WITH VALUES CREATE TABLE TOPIC STREAM
    STREAMS INSERT DESCRIBE EXTENDED LIST TABLES TOPICS QUERY QUERIES TERMINATE PAUSE RESUME LOAD
    COLUMNS COLUMN PARTITIONS FUNCTIONS FUNCTION DROP TO RENAME ARRAY MAP SET DEFINE UNDEFINE RESET
    SESSION SAMPLE EXPLAIN ANALYZE TYPE TYPES CAST SHOW DELETE INTO PRINT BEGINNING UNSET RUN
    SCRIPT DECIMAL KEY CONNECTOR CONNECTORS SINK SOURCE NAMESPACE MATERIALIZED VIEW PRIMARY REPLACE
    ASSERT ADD ALTER VARIABLES PLUGINS HEADERS HEADER SYSTEM IF TIMEOUT SCHEMA SUBJECT ID
    """.split()
)

# Type names are not keywords of the lexer but read better highlighted like them.
TYPE_WORDS: frozenset[str] = frozenset(
    "BOOLEAN INT BIGINT DOUBLE VARCHAR STRING BYTES DATE TIME TIMESTAMP DECIMAL ARRAY MAP STRUCT".split())

# words after which ``name (`` is a source or type being declared, not a function call
_DEFINES = frozenset({"STREAM", "TABLE", "EXISTS", "INTO", "TYPE", "AS"})

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>--[^\n]*|/\*(?:.|\n)*?(?:\*/|\Z))
  | (?P<string>'(?:[^']|'')*(?:'|\Z))
  | (?P<quoted>`(?:[^`]|``)*(?:`|\Z)|"(?:[^"]|"")*(?:"|\Z))
  | (?P<variable>\$\{[^}\s]*\}?)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[dDlL]?)
  | (?P<word>[A-Za-z_][A-Za-z0-9_@$]*)
  | (?P<operator>->|=>|<>|!=|<=|>=|\|\||::|[-+*/%<>=!:])
  | (?P<punct>.)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def tokenize(text: str) -> list[Token]:
    """All tokens of ``text``, whitespace included, so the pieces concatenate back to ``text``."""
    out: list[Token] = []
    prev = ""  # the previous code token, upper-cased
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or PUNCT
        value = m.group()
        if kind == "word":
            kind = KEYWORD if value.upper() in KEYWORDS or value.upper() in TYPE_WORDS else NAME
            # a name followed by '(' is a function call, unless it names what is being defined
            if kind == NAME and prev not in _DEFINES and text[m.end():m.end() + 64].lstrip().startswith("("):
                kind = FUNCTION
        out.append(Token(kind, value, m.start()))
        if kind not in (SPACE, COMMENT):
            prev = value.upper()
    return out


def code_tokens(text: str) -> list[Token]:
    """Tokens without whitespace and comments."""
    return [t for t in tokenize(text) if t.kind not in (SPACE, COMMENT)]


def is_unterminated(tok: Token) -> bool:
    """True for a string, quoted name or block comment still open at the end of the text."""
    t = tok.text
    if tok.kind == STRING:
        return len(t) < 2 or not _closed(t, "'")
    if tok.kind == QUOTED:
        return len(t) < 2 or not _closed(t, t[0])
    if tok.kind == COMMENT and t.startswith("/*"):
        return not t.endswith("*/") or len(t) < 4
    return False


def _closed(text: str, quote: str) -> bool:
    """A quoted token is closed when it ends with an odd run of quotes after the opening one."""
    body = text[1:]
    run = len(body) - len(body.rstrip(quote))
    return run % 2 == 1


def statement_complete(text: str) -> bool:
    """Whether an entry typed at the prompt is finished: its code ends with ';' (outside strings,
    names and comments), like ksqlDB's line reader; a trailing backslash asks for another line."""
    toks = [t for t in tokenize(text) if t.kind != SPACE]
    if not toks:
        return False
    if any(is_unterminated(t) for t in toks[-1:]):
        return False
    code = [t for t in toks if t.kind != COMMENT]
    if not code:
        return False
    return code[-1].text == ";"


def only_comments(text: str) -> bool:
    """Whether an entry is comments (closed ones) and nothing else: ksqlDB's line reader (KsqlLineParser, from
    memory) accepts a line whose comment-stripped text is empty at once, as it accepts an empty line -
    such an entry runs nothing - instead of reading on for a ';'."""
    toks = [t for t in tokenize(text) if t.kind != SPACE]
    return bool(toks) and all(t.kind == COMMENT and not is_unterminated(t) for t in toks)


def first_words(text: str, n: int = 2) -> list[str]:
    """The first ``n`` code words of a statement, upper-cased (to classify it without parsing)."""
    words: list[str] = []
    for t in tokenize(text):
        if t.kind in (SPACE, COMMENT):
            continue
        if t.kind not in (KEYWORD, NAME, FUNCTION):
            break
        words.append(t.text.upper())
        if len(words) >= n:
            break
    return words


def strip_terminator(text: str) -> str:
    """The statement without its trailing ';' and surrounding whitespace."""
    s = text.strip()
    while s.endswith(";"):
        s = s[:-1].rstrip()
    return s


def split_statements(text: str) -> list[str]:
    """Split at the ';' ending statements; each piece keeps its ';'. Prefer the grammar's splitter
    (the single source of truth) and fall back to this lexer's if the grammar cannot be imported."""
    try:
        from ksqlpy.grammar.script import split_statements as grammar_split
    except Exception:  # pragma: no cover - grammar broken or missing
        return _split(text)
    return grammar_split(text)


def _split(text: str) -> list[str]:
    pieces: list[str] = []
    begin: int | None = None
    for t in tokenize(text):
        if t.kind in (SPACE, COMMENT):
            continue
        if begin is None:
            begin = t.start
        if t.text == ";" and t.kind == PUNCT:
            pieces.append(text[begin:t.end])
            begin = None
    if begin is not None:
        pieces.append(text[begin:].rstrip())
    return pieces


def iter_lines(text: str) -> Iterator[list[tuple[str, str]]]:
    """(kind, text) fragments per line of ``text`` - tokens that span lines are cut at newlines."""
    line: list[tuple[str, str]] = []
    for tok in tokenize(text):
        parts = tok.text.split("\n")
        for i, part in enumerate(parts):
            if i:
                yield line
                line = []
            if part:
                line.append((tok.kind, part))
    yield line


def make_prompt_lexer() -> Any:
    """A prompt_toolkit Lexer highlighting with the tokens above (imported lazily)."""
    from prompt_toolkit.lexers import Lexer

    class KsqlLexer(Lexer):
        """Tokenizes the whole buffer once per change (strings and comments span lines)."""

        def lex_document(self, document: Any) -> Any:
            lines = [[(f"class:sql.{kind}", text) for kind, text in frags]
                     for frags in iter_lines(document.text)]

            def get_line(i: int) -> list[tuple[str, str]]:
                return lines[i] if i < len(lines) else []

            return get_line

    return KsqlLexer()
