"""The values the expression compiler works with: column bindings, scopes and compiled snippets."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError


@dataclass
class Binding:
    """How generated code reads a column: a Python expression (usually a local variable) and its type."""

    code: str
    type: T.SqlType


@dataclass
class Scope:
    """Column names visible to an expression. Qualified names are ``ALIAS.NAME``."""

    columns: dict[str, Binding] = field(default_factory=dict)
    qualified: dict[str, Binding] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)
    parent: Scope | None = None  # lambdas see the enclosing scope

    def lookup(self, name: str, qualifier: str | None) -> Binding | None:
        if qualifier:
            b = self.qualified.get(f"{qualifier}.{name}")
        else:
            if name in self.ambiguous:
                raise KsqlStatementError(f"Column '{name}' is ambiguous. Could be any of: "
                                         + ", ".join(sorted(k for k in self.qualified if k.endswith('.' + name))))
            b = self.columns.get(name)
        if b is None and self.parent is not None:
            return self.parent.lookup(name, qualifier)
        return b


@dataclass
class Compiled:
    code: str
    type: T.SqlType
    literal: bool = False
    value: Any = None


def is_simple(code: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|-?\d+(\.\d+)?|'[^'\\]*'|None|True|False", code))


def is_constant(code: str) -> bool:
    """A number, string or boolean literal in generated code (never NULL: no ``is None`` check needed)."""
    return bool(re.fullmatch(r"-?\d+(\.\d+)?|'[^'\\]*'|True|False", code))


