"""A join query printed the way ksqlDB prints the statement it planned (``SqlFormatter`` over the sanitized
statement), for the errors that quote it (``Statement: ...``, see ``ksqlpy.analysis.sql_formatter``).

Every column reference is qualified by its source's alias, ``*`` is expanded as the join's SELECT expands
it, and the FROM clause is the left source and one line per joined source::

    FROM L L
    LEFT OUTER JOIN R R WITHIN 10 SECONDS ON ((L.ID = R.ID))
"""

from __future__ import annotations

from ksqlpy.analysis.join_projection import KeyComponent, expand_stars
from ksqlpy.analysis.join_scope import JoinScope
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.format import format_expression
from ksqlpy.grammar.ast import JoinClause, Query, WithinSpec
from ksqlpy.plan.logical import Scan

JOIN_TYPES = {"INNER": "INNER JOIN", "LEFT": "LEFT OUTER JOIN", "RIGHT": "RIGHT OUTER JOIN",
              "FULL": "FULL OUTER JOIN"}
_UNITS = (("DAYS", 86_400_000), ("HOURS", 3_600_000), ("MINUTES", 60_000), ("SECONDS", 1_000))


def _duration(ms: int) -> str:
    """A duration in the largest unit that holds it exactly (the parsed statement keeps milliseconds)."""
    for unit, size in _UNITS:
        if ms and ms % size == 0:
            return f"{ms // size} {unit}"
    return f"{ms} MILLISECONDS"


def _within(w: WithinSpec) -> str:
    """ksqlDB's ``WithinExpression``: one size, or ``(before, after)``, then the grace period."""
    if w.before_ms == w.after_ms:
        text = f" WITHIN {_duration(w.before_ms)}"
    else:
        text = f" WITHIN ({_duration(w.before_ms)}, {_duration(w.after_ms)})"
    if w.grace_ms is not None:
        text += f" GRACE PERIOD {_duration(w.grace_ms)}"
    return text


def _joined(jc: JoinClause, scope: JoinScope, alias: str) -> str:
    within = _within(jc.within) if jc.within is not None else ""
    on = format_expression(scope.qualify(jc.on, "JOIN ON"))
    return f"{JOIN_TYPES[jc.kind]} {jc.right.name} {alias}{within} ON ({on})"


def printed_join_query(query: Query, scope: JoinScope, leaves: list[Scan], keys: list[KeyComponent],
                       names: list[str]) -> tuple[list[tuple[str, str]], list[str]] | None:
    """(the select list as (text, name), the FROM clause and the clauses after it up to EMIT), given the
    output ``names`` the analysis gave the select items; None when the query cannot be printed."""
    try:
        items = expand_stars(query, scope, leaves, keys, rekey=bool(query.partition_by))
        if len(items) != len(names):
            return None
        select = [(format_expression(e if virtual else scope.qualify(e, "SELECT")), name)
                  for (e, _, virtual), name in zip(items, names, strict=True)]
        written = sorted(leaves, key=lambda lf: lf.index)  # the join tree may place them in another order
        lines = [f"FROM {query.source.name} {written[0].alias}"]
        lines += [_joined(jc, scope, written[i + 1].alias) for i, jc in enumerate(query.joins)]
        if query.where is not None:
            lines.append(f"WHERE {format_expression(scope.qualify(query.where, 'WHERE'))}")
        if query.group_by:
            lines.append("GROUP BY " + ", ".join(format_expression(scope.qualify(g, "GROUP BY"))
                                                 for g in query.group_by))
        if query.partition_by:
            lines.append("PARTITION BY " + ", ".join(format_expression(scope.qualify(p, "PARTITION BY"))
                                                     for p in query.partition_by))
        if query.having is not None:
            lines.append(f"HAVING {format_expression(scope.qualify(query.having, 'HAVING'))}")
    except KsqlStatementError:
        return None
    return select, lines


__all__ = ["printed_join_query"]
