"""How deeply a statement may nest, and the error a statement past it gets.

Parsing, binding, printing and code generation all walk expression trees recursively. A statement of
``N+1+1+...`` or of nested parentheses, CASEs or calls is as deep as it is long, so the work is bounded
up front: every statement may nest ``MAX_NESTING`` levels (brackets, CASE, operator chains), and Python's
recursion limit is raised to what that many levels need in every layer (``RECURSION_LIMIT``, measured
with the deepest per-level recursion: nested function calls). A deeper statement is refused before it
is parsed when its brackets say so, or after parsing by its trees' depth, with ksqlDB's message for a
statement its parser overflowed on, naming our limit. ``too_large`` is also what any recursion that
still overflows becomes (``guard``), so no input reaches a user as a Python error or a 500.

Code generation does not depend on this: it splits deep expressions into helper functions
(``ksqlpy.expr.codegen``), as Python's compiler takes only 200 nested parentheses.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

from ksqlpy.errors import KsqlParseError

MAX_NESTING = 2000
RECURSION_LIMIT = 100_000  # ~50 frames per level: nested calls take the most (parser, binder, printer)

_OPEN = {TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE, TokenType.CASE}
_CLOSE = {TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE, TokenType.END}


class StatementTooLarge(KsqlParseError):
    """A statement nested deeper than ``MAX_NESTING`` (or deeper than the recursion it needs allows)."""

    def __init__(self, depth: int | None = None) -> None:
        found = f" (it nests {depth} levels)" if depth is not None else ""
        super().__init__("Error processing statement: Statement is too large to parse. This may be caused by "
                         "having too many nested expressions in the statement. The limit is "
                         f"{MAX_NESTING} levels of nested expressions{found}.")


def ensure_recursion_limit() -> None:
    """Python's recursion limit high enough for ``MAX_NESTING`` levels (it is process-wide; only raised)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


def check_tokens(tokens: list[Token]) -> None:
    """Refuse a script whose brackets or CASEs nest past the limit, before the parser recurses into them."""
    depth = deepest = 0
    for token in tokens:
        if token.token_type in _OPEN:
            depth += 1
            if depth > deepest:
                deepest = depth
        elif token.token_type in _CLOSE and depth:
            depth -= 1
    if deepest > MAX_NESTING:
        raise StatementTooLarge(deepest)


def expression_depth(root: exp.Expression) -> int:
    """The depth of a parsed expression tree, without recursion."""
    deepest = 0
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest = depth
        for child in node.iter_expressions():
            stack.append((child, depth + 1))
    return deepest


def _expressions(value: Any) -> Iterator[exp.Expression]:
    """Every expression tree held by a statement's dataclasses, lists and dicts (without recursion)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, exp.Expression):
            yield v
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
        elif isinstance(v, list | tuple | set | frozenset):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())


def check_statement(statement: Any) -> None:
    """Refuse a parsed statement whose expressions (operator chains included) nest past the limit."""
    for tree in _expressions(statement):
        depth = expression_depth(tree)
        if depth > MAX_NESTING:
            raise StatementTooLarge(depth)


@contextmanager
def guard() -> Iterator[None]:
    """A recursion that still overflows (a shape the limits do not foresee) is the statement's error."""
    ensure_recursion_limit()
    try:
        yield
    except RecursionError:
        raise StatementTooLarge() from None
