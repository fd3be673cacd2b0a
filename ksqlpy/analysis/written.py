"""Expressions as written (parsed sqlglot trees): what analysis asks of them before they are bound - is an
item a star, which names a reference may take, how ksqlDB prints them qualified or not."""

from __future__ import annotations

from sqlglot import exp

from ksqlpy.grammar.ast import Dereference


def is_star(e: exp.Expression) -> bool:
    """``*`` or ``alias.*`` as a select item."""
    return isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))


def lambda_parameter(col: exp.Column) -> bool:
    """Is an unqualified column reference the parameter of an enclosing lambda?"""
    if col.table:
        return False
    node = col.parent
    while node is not None:
        if isinstance(node, exp.Lambda) and any(p.name == col.name for p in node.expressions):
            return True
        node = node.parent
    return False


def column_refs(e: exp.Expression) -> list[exp.Column]:
    """The column references of ``e``: not stars, not lambda parameters."""
    return [c for c in e.find_all(exp.Column) if not isinstance(c.this, exp.Star) and not lambda_parameter(c)]


def qualified(e: exp.Expression, alias: str) -> exp.Expression:
    """A copy of ``e`` with every unqualified column reference qualified by ``alias``, as ksqlDB prints
    expressions in messages and in the statement it planned."""
    c = e.copy()
    for col in column_refs(c):
        if not col.args.get("table"):
            col.set("table", exp.to_identifier(alias))
    return c


def strip_qualifiers(e: exp.Expression) -> exp.Expression:
    """A copy of ``e`` with column qualifiers removed, for comparing expressions as written."""
    c = e.copy()
    for col in c.find_all(exp.Column):
        if col.args.get("table") is not None:
            col.set("table", None)
    return c


def natural_name(e: exp.Expression) -> str | None:
    """The name ksqlDB gives a select item or key expression without an alias, if any."""
    if isinstance(e, exp.Column) and isinstance(e.this, exp.Identifier):
        return e.this.name
    if isinstance(e, Dereference):
        return str(e.args["field"])
    return None
