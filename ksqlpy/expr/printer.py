"""Bound expressions as ksqlDB's ``ExpressionFormatter`` prints them (messages, DESCRIBE, EXPLAIN).

Columns print by name (unqualified: a bound column is a position in one row), binary operators in
parentheses, literals in SQL form (a DOUBLE as Java prints it), casts the binder inserted not at all.
``ksqlpy.expr.format`` prints parsed trees the same way for what is reported before binding.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from typing import Any

from ksqlpy import javatext
from ksqlpy import types as T
from ksqlpy.types import quote_ident


def format_bound(e: Any) -> str:
    """A bound expression (``ksqlpy.expr.bound.Expr``) in ksqlDB's printed form."""
    printer = _PRINTERS.get(type(e).__name__)
    if printer is None:
        raise TypeError(f"not a bound expression: {e!r}")
    return printer(e)


f = format_bound


def _case(e: Any) -> str:
    parts = ["CASE"] + [f"WHEN {f(c)} THEN {f(v)}" for c, v in e.whens]
    if e.default is not None:
        parts.append(f"ELSE {f(e.default)}")
    return "(" + " ".join(parts) + " END)"


def _binary(e: Any) -> str:
    return f"({f(e.left)} {e.op.value} {f(e.right)})"


_PRINTERS: dict[str, Callable[[Any], str]] = {
    "ColumnRef": lambda e: e.display or quote_ident(e.name),
    "LambdaVar": lambda e: e.name,
    "Literal": lambda e: e.shown if e.shown is not None else format_literal(e.value, e.type),
    "Cast": lambda e: f(e.operand) if e.implicit else f"CAST({f(e.operand)} AS {e.type})",
    "Call": lambda e: f"{e.fn.name}({', '.join(f(a) for a in e.args)})",
    "Arithmetic": _binary,
    "Comparison": _binary,
    "Logical": _binary,
    "Negate": lambda e: negate_text(f(e.operand)),
    "UnaryPlus": lambda e: f"+{f(e.operand)}",
    "Not": lambda e: f"(NOT {f(e.operand)})",
    "IsNull": lambda e: f"({f(e.operand)} IS {'NOT ' if e.negated else ''}NULL)",
    "Between": lambda e: f"({f(e.operand)} BETWEEN {f(e.low)} AND {f(e.high)})",
    "InList": lambda e: f"({f(e.operand)} IN ({', '.join(f(i) for i in e.items)}))",
    "Like": lambda e: f"({f(e.operand)} LIKE {f(e.pattern)}"
                      + (f" ESCAPE {format_literal(e.escape, T.STRING)}" if e.escape is not None else "") + ")",
    "Subscript": lambda e: f"{f(e.base)}[{f(e.index)}]",
    "Dereference": lambda e: f"{f(e.base)}->{e.field if e.field == '*' else quote_ident(e.field)}",
    "ArrayCtor": lambda e: "ARRAY[" + ", ".join(f(i) for i in e.items) + "]",
    "MapCtor": lambda e: "MAP(" + ", ".join(f"{f(k)}:={f(v)}" for k, v in e.entries) + ")",
    "StructCtor": lambda e: "STRUCT(" + ", ".join(f"{quote_ident(n)}:={f(v)}" for n, v in e.fields) + ")",
    "Case": _case,
    "Lambda": lambda e: f"({', '.join(e.params)}) => {f(e.body)}",
}


def negate_text(operand: str) -> str:
    """``-x``; ``- -x`` when the operand's text starts with a minus, as ksqlDB's ExpressionFormatter writes it
    (so that the two minuses never read as a comment)."""
    return "- " + operand if operand.startswith("-") else "-" + operand


def format_literal(value: Any, t: T.SqlType) -> str:
    """A constant in SQL form: strings quoted, DOUBLE as Java's ``Double.toString``, NULL as ``null``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if t == T.STRING:
        return "'" + str(value).replace("'", "''") + "'"
    if isinstance(value, float):
        return javatext.double_to_string(value)
    if isinstance(value, decimal.Decimal):
        return javatext.decimal_to_string(value)
    return str(value)
