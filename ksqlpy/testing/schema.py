"""``post.sources[].schema`` strings (``"`ID` BIGINT KEY, V0 INT"``) parsed and compared structurally.

Comparison follows ksqlDB's LogicalSchema equality: the key columns in order and the value columns in
order (header columns are value columns flagged HEADERS / HEADER('k')), each by name, type and flags.
Text differences (VARCHAR vs STRING, backticks, spacing, PRIMARY KEY vs KEY) do not matter.

The parser prefers ``ksqlpy.grammar.parse_schema`` and falls back to the small one below while the
grammar does not provide it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ksqlpy import types as T


@dataclass(frozen=True)
class SchemaColumn:
    name: str
    type: T.SqlType
    key: bool = False
    headers: bool = False
    header_key: str | None = None

    def __str__(self) -> str:
        flag = " KEY" if self.key else " HEADERS" if self.headers else (
            f" HEADER('{self.header_key}')" if self.header_key is not None else "")
        return f"{T.quote_ident(self.name)} {self.type}{flag}"


def parse_schema(text: str) -> list[SchemaColumn]:
    """Parse a schema string into columns (via the grammar when it offers ``parse_schema``)."""
    try:
        from ksqlpy.grammar import parse_schema as grammar_parse  # type: ignore[attr-defined]
    except ImportError:
        return _Parser(text).schema()
    return [_from_grammar(c) for c in grammar_parse(text)]


def _from_grammar(col: Any) -> SchemaColumn:
    return SchemaColumn(col.name, col.type, bool(col.key), bool(getattr(col, "headers", False)),
                        getattr(col, "header_key", None))


def columns_of(source: Any) -> list[SchemaColumn]:
    """The catalog source's columns in the same form (pseudo columns are not part of a schema)."""
    return [SchemaColumn(c.name, c.type, bool(c.key), bool(c.headers), c.header_key) for c in source.columns]


def schema_diff(expected: list[SchemaColumn], actual: list[SchemaColumn]) -> str | None:
    """None if equal, else a short description of the first difference."""
    for label, want, got in (
        ("key", [c for c in expected if c.key], [c for c in actual if c.key]),
        ("value", [c for c in expected if not c.key], [c for c in actual if not c.key]),
    ):
        if want != got:
            return f"{label} columns: expected {render(want) or '(none)'}, got {render(got) or '(none)'}"
    return None


def render(columns: list[SchemaColumn]) -> str:
    return ", ".join(map(str, columns))


# --------------------------------------------------------------------------- fallback parser

_TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)*`)|([A-Za-z_][A-Za-z0-9_]*)|(\d+)|('(?:[^']|'')*')|(\S))")


class _Parser:
    """Recursive descent over: column := ident type [KEY | PRIMARY KEY | HEADERS | HEADER('k')]."""

    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                break
            pos = m.end()
            quoted, word, num, string, sym = m.groups()
            if quoted is not None:
                self.tokens.append(("id", quoted[1:-1].replace("``", "`")))
            elif word is not None:
                self.tokens.append(("word", word.upper()))
            elif num is not None:
                self.tokens.append(("num", num))
            elif string is not None:
                self.tokens.append(("str", string[1:-1].replace("''", "'")))
            elif sym is not None:
                self.tokens.append(("sym", sym))
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, kind: str | None = None, value: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (kind and tok[0] != kind) or (value and tok[1] != value):
            raise ValueError(f"bad schema near token {self.i}: expected {value or kind}, got {tok}")
        self.i += 1
        return tok[1]

    def accept(self, value: str) -> bool:
        tok = self.peek()
        if tok is not None and tok[1] == value and tok[0] in ("word", "sym"):
            self.i += 1
            return True
        return False

    def ident(self) -> str:
        tok = self.peek()
        if tok is None or tok[0] not in ("id", "word"):
            raise ValueError(f"bad schema: expected a name, got {tok}")
        self.i += 1
        return tok[1]

    def schema(self) -> list[SchemaColumn]:
        cols: list[SchemaColumn] = []
        if self.peek() is None:
            return cols
        while True:
            cols.append(self.column())
            if not self.accept(","):
                break
        if self.peek() is not None:
            raise ValueError(f"bad schema: unexpected {self.peek()}")
        return cols

    def column(self) -> SchemaColumn:
        name = self.ident()
        typ = self.type()
        if self.accept("KEY"):
            return SchemaColumn(name, typ, key=True)
        if self.accept("PRIMARY"):
            self.take("word", "KEY")
            return SchemaColumn(name, typ, key=True)
        if self.accept("HEADERS"):
            return SchemaColumn(name, typ, headers=True)
        if self.accept("HEADER"):
            self.take("sym", "(")
            key = self.take("str")
            self.take("sym", ")")
            return SchemaColumn(name, typ, header_key=key)
        return SchemaColumn(name, typ)

    def type(self) -> T.SqlType:
        word = self.ident()
        if word == "ARRAY":
            self.take("sym", "<")
            element = self.type()
            self.take("sym", ">")
            return T.Array(element)
        if word == "MAP":
            self.take("sym", "<")
            k = self.type()
            self.take("sym", ",")
            v = self.type()
            self.take("sym", ">")
            return T.Map(k, v)
        if word == "STRUCT":
            self.take("sym", "<")
            fields: list[tuple[str, T.SqlType]] = []
            if not self.accept(">"):
                while True:
                    fname = self.ident()
                    fields.append((fname, self.type()))
                    if self.accept(">"):
                        break
                    self.take("sym", ",")
            return T.Struct(tuple(fields))
        if word == "DECIMAL":
            self.take("sym", "(")
            precision = int(self.take("num"))
            self.take("sym", ",")
            scale = int(self.take("num"))
            self.take("sym", ")")
            return T.Decimal(precision, scale)
        if word in T.PRIMITIVES_BY_NAME:
            return T.PRIMITIVES_BY_NAME[word]
        raise ValueError(f"bad schema: unknown type {word}")
