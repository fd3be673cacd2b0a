"""``post.sources[].schema`` strings (``"`ID` BIGINT KEY, V0 INT"``) parsed and compared structurally.

Comparison follows ksqlDB's LogicalSchema equality: the key columns in order and the value columns in
order (header columns are value columns flagged HEADERS / HEADER('k')), each by name, type and flags.
Text differences (VARCHAR vs STRING, backticks, spacing, PRIMARY KEY vs KEY) do not matter.

Parsing is the grammar's ``parse_schema`` (the same column syntax as CREATE statements).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ksqlpy import grammar
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
    """Parse a schema string into columns; raises ksqlpy.errors.KsqlParseError if it does not parse."""
    return [SchemaColumn(c.name, c.type, bool(c.key), bool(c.headers), c.header_key)
            for c in grammar.parse_schema(text)]


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
