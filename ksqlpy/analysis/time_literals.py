"""ISO-8601 strings compared with ROWTIME, WINDOWSTART or WINDOWEND are timestamps.

ksqlDB rewrites ``ROWTIME >= '2020-02-23T23:45'`` (and ``=``, ``<>``, ``<``, ``<=``, ``>``, ``BETWEEN``) into a
comparison with epoch milliseconds before it plans a WHERE clause, for persistent, push and pull queries
alike: the text is UTC unless it names a zone, and a partial text is padded with zeros. A text that is no
timestamp fails the statement (ksqlDB's PartialStringToTimestampParser raises a KsqlException, which the
engine words as the statement's error) - never a server error.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ksqlpy.errors import KsqlStatementError

TIME_COLUMNS = ("ROWTIME", "WINDOWSTART", "WINDOWEND")
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between)


def iso_time_literals(where: exp.Expression) -> exp.Expression:
    """``where`` with the string literals of comparisons that involve a time column as epoch-ms numbers."""
    from ksqlpy.functions.isotime import parse_timestamp_iso

    def fix(node: exp.Expression) -> exp.Expression:
        if isinstance(node, _COMPARISONS) and any(
                c.name.upper() in TIME_COLUMNS for c in node.find_all(exp.Column)):
            for lit in list(node.find_all(exp.Literal)):
                if lit.is_string:
                    lit.replace(exp.Literal.number(_parse_iso(lit.this, parse_timestamp_iso)))
        return node

    return where.copy().transform(fix)


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
