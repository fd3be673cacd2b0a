"""ISO-8601 strings compared with ROWTIME, WINDOWSTART or WINDOWEND are timestamps.

ksqlDB rewrites ``ROWTIME >= '2020-02-23T23:45'`` (and ``=``, ``<>``, ``<``, ``<=``, ``>``, ``BETWEEN``) into a
comparison with epoch milliseconds before it plans a WHERE clause, for persistent, push and pull queries
alike: the text is UTC unless it names a zone, and a partial text is padded with zeros. A text that is no
timestamp fails the statement (ksqlDB's PartialStringToTimestampParser raises a KsqlException, which the
engine words as the statement's error) - never a server error.

Only where the time column itself is the operand (StatementRewriteForMagicPseudoTimestamp, from memory): a
comparison (IS [NOT] DISTINCT FROM too) with the column on one side and a string literal on the other, or a
BETWEEN whose value is the column (its string bounds). A column inside an expression (``ABS(ROWTIME)``,
``CAST(ROWTIME AS STRING)``) is a BIGINT like any other: its string operands stay strings.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ksqlpy.errors import KsqlStatementError

TIME_COLUMNS = ("ROWTIME", "WINDOWSTART", "WINDOWEND")
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ)


def iso_time_literals(where: exp.Expression) -> exp.Expression:
    """``where`` with the string literals compared with a time column as epoch-ms numbers."""
    from ksqlpy.functions.isotime import parse_timestamp_iso

    def as_time(node: exp.Expression) -> None:
        lit = _bare(node)
        if isinstance(lit, exp.Literal) and lit.is_string:
            node.replace(exp.Literal.number(_parse_iso(lit.this, parse_timestamp_iso)))

    def fix(node: exp.Expression) -> exp.Expression:
        if isinstance(node, _COMPARISONS):
            if _is_time_column(node.this):
                as_time(node.expression)
            elif _is_time_column(node.expression):
                as_time(node.this)
        elif isinstance(node, exp.Between) and _is_time_column(node.this):
            as_time(node.args["low"])
            as_time(node.args["high"])
        return node

    return where.copy().transform(fix)


def _bare(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _is_time_column(node: exp.Expression) -> bool:
    node = _bare(node)
    return isinstance(node, exp.Column) and node.name.upper() in TIME_COLUMNS


def _parse_iso(text: str, parse: Any) -> int:
    from ksqlpy.functions.javatime import DateTimeError

    try:
        return int(parse(text))
    except DateTimeError as e:
        if "T24" in text:  # ksqlDB accepts hour 24 as the next day's midnight
            try:
                return int(parse(text.replace("T24", "T00"))) + 24 * 3600 * 1000
            except DateTimeError:
                pass
        raise KsqlStatementError(e.message) from None
