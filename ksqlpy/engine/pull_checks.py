"""ksqlDB's stricter type rules for pull-query WHERE clauses.

Persistent and push queries coerce a string literal to the other side's type (``ID = '10'``); pull
queries do not, and reject comparisons with a NULL literal, as ksqlDB does. These checks run before the
usual analysis so the user gets ksqlDB's pull-query messages.
"""

from __future__ import annotations

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.catalog import Source
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.format import format_expression

_OPS = {exp.EQ: ("EQUAL", "="), exp.NEQ: ("NOT_EQUAL", "<>"), exp.GT: ("GREATER_THAN", ">"),
        exp.GTE: ("GREATER_THAN_OR_EQUAL", ">="), exp.LT: ("LESS_THAN", "<"), exp.LTE: ("LESS_THAN_OR_EQUAL", "<=")}
_TEMPORAL_COLUMNS = ("ROWTIME", "WINDOWSTART", "WINDOWEND")


def check_where(where: exp.Expression, source: Source) -> None:
    types = {c.name: c.type for c in source.columns}
    for node in where.find_all(exp.Binary, exp.Between, exp.Like):
        if isinstance(node, exp.Like):
            _check_like(node, types)
        elif isinstance(node, exp.Between):
            _check_between(node, types)
        elif type(node) in _OPS:
            _check_compare(node, types, where)


def _column_type(e: exp.Expression, types: dict[str, T.SqlType]) -> tuple[str, T.SqlType] | None:
    if isinstance(e, exp.Column) and not isinstance(e.this, exp.Star) and e.name in types:
        return e.name, types[e.name]
    return None


def _literal_type(e: exp.Expression) -> T.SqlType | None:
    if isinstance(e, exp.Null):
        return T.NULL
    if isinstance(e, exp.Literal):
        if e.is_string:
            return T.STRING
        return T.INTEGER if e.this.lstrip("-").isdigit() else T.DOUBLE
    return None


def _incompatible(col: T.SqlType, lit: T.SqlType) -> bool:
    if lit == T.STRING:
        return col != T.STRING and col not in (T.TIMESTAMP, T.DATE, T.TIME)
    if lit in (T.INTEGER, T.DOUBLE):
        return not T.is_numeric(col)
    return False


def _check_compare(node: exp.Binary, types: dict[str, T.SqlType], where: exp.Expression) -> None:
    name, symbol = _OPS[type(node)]
    for col_side, lit_side in ((node.this, node.expression), (node.expression, node.this)):
        col = _column_type(col_side, types)
        lit = _literal_type(lit_side)
        if col is None or lit is None or col[0] in _TEMPORAL_COLUMNS:
            continue
        if lit == T.NULL:
            raise KsqlStatementError(
                f"Error in WHERE expression: Comparison with NULL not supported: {col[1]} {symbol} NULL\n"
                f"Use 'IS NULL' or 'IS NOT NULL' instead.\nStatement: {format_expression(where)}")
        if _incompatible(col[1], lit):
            raise KsqlStatementError(
                f"Error in WHERE expression: Cannot compare {col[0]} ({col[1]}) to {format_expression(lit_side)} "
                f"({lit}) with {name}.\nStatement: {format_expression(where)}")


def _check_between(node: exp.Between, types: dict[str, T.SqlType]) -> None:
    col = _column_type(node.this, types)
    if col is None:
        return
    for bound, name in ((node.args.get("low"), "GREATER_THAN_OR_EQUAL"), (node.args.get("high"), "LESS_THAN_OR_EQUAL")):
        lit = _literal_type(bound) if bound is not None else None
        if lit is not None and lit != T.NULL and _incompatible(col[1], lit):
            raise KsqlStatementError(f"Invalid expression: Cannot compare {col[0]} ({col[1]}) to "
                                     f"{format_expression(bound)} ({lit}) with {name}")


def _check_like(node: exp.Like, types: dict[str, T.SqlType]) -> None:
    col = _column_type(node.this, types)
    if col is not None and col[1] != T.STRING:
        raise KsqlStatementError(f"The column type for Like condition must be VARCHAR. The column type is {col[1]}")
