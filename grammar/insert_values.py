"""INSERT INTO ... VALUES as ksqlDB's AST builder prepares it: a column list may qualify its columns with
the target's name; the list and the values must pair up; a value may only name the target as a source.

Failures read ``Failed to prepare statement: ...`` (parse failures, as in ksqlDB).
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from . import ast
from .with_clause import PrepareError


def _unknown_qualifier(name: str) -> str:
    return f"'{name}' is not a valid stream/table name or alias."


def prepare_insert_values(stmt: ast.InsertValues, where: tuple[int, int]) -> ast.InsertValues:
    """``stmt`` with its column list (``(qualifier, name)`` pairs from the parser) reduced to names."""
    raw: Any = stmt.columns
    try:
        if not stmt.values:
            raise PrepareError("Expected some values for INSERT INTO statement.")
        columns: list[str] | None = None
        if raw is not None:
            columns = []
            for qualifier, name in raw:
                if qualifier is not None and qualifier != stmt.target:
                    raise PrepareError(_unknown_qualifier(qualifier))
                columns.append(name)
            if len(columns) != len(stmt.values):
                raise PrepareError(f"Expected number columns and values to match: {len(columns)}, "
                                   f"{len(stmt.values)}")
        for value in stmt.values:
            for column in value.find_all(exp.Column):
                qualifier = column.table
                if qualifier and qualifier.upper() != stmt.target.upper():
                    raise PrepareError(_unknown_qualifier(qualifier))
    except PrepareError as e:
        e.line, e.column = where
        raise
    stmt.columns = columns
    return stmt
