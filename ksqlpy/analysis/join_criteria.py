"""A join's ON clause as ksqlDB's Analyzer reads it: the criteria's shape (one ``=`` comparison; composite
equalities under ``ksqlpy.join.multi.condition.enabled``), each side referencing exactly one source, one of
them the joined source, and the types each side binds to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.analysis.join_keys import KeyBinder, KeyExpr
from ksqlpy.analysis.join_scope import JoinScope, text
from ksqlpy.analysis.written import column_refs
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.binder import bind
from ksqlpy.expr.stages import BindContext, Clause

MULTI_CONDITION_PROPERTY = "ksqlpy.join.multi.condition.enabled"


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeNEQ)


@dataclass
class Condition:
    left: exp.Expression  # qualified, over the left input's sources
    right: exp.Expression  # qualified, over the right source
    written: str  # "A = B" as written (qualified), for messages
    left_key: KeyExpr
    right_key: KeyExpr
    left_type: T.SqlType | None = None
    right_type: T.SqlType | None = None
    left_alias: str = ""  # the source the left side references
    sides: tuple[str, str] = ("", "")  # the sources of the comparison's two sides, as written


def unparen(e: exp.Expression) -> exp.Expression:
    while isinstance(e, exp.Paren):
        e = e.this
    return e


def _criteria_shape(on: exp.Expression, scope: JoinScope, multi_condition: bool) -> list[exp.Expression]:
    """ksqlDB's Analyzer.visitJoinedSource: the criteria is one ``=`` comparison.

    Two equalities joined by AND or OR are refused as multiple conditions, anything else that is not a
    comparison (IS NOT DISTINCT FROM is a NOT there) as unsupported, a comparison other than ``=`` as not an
    equality. With ``ksqlpy.join.multi.condition.enabled`` (ksqlpy's extension, off by default) ANDed
    equalities join on the composite key instead; the parts are returned in order."""
    top = unparen(on)
    if not isinstance(top, _COMPARISONS):
        if multi_condition and isinstance(top, exp.And):
            parts: list[exp.Expression] = []

            def flatten(e: exp.Expression) -> None:
                e = unparen(e)
                if isinstance(e, exp.And):
                    flatten(e.this)
                    flatten(e.expression)
                else:
                    parts.append(e)

            flatten(top)
            if all(isinstance(p, exp.EQ) for p in parts):
                return parts
        shown = _qualified(top, scope)
        if isinstance(shown, exp.NullSafeEQ):  # ksqlDB's parser made it NOT (a IS DISTINCT FROM b)
            shown = exp.Not(this=exp.NullSafeNEQ(this=shown.this, expression=shown.expression))
        printed = text(shown)
        if isinstance(top, exp.And | exp.Or) and all(isinstance(unparen(x), exp.EQ)
                                                    for x in (top.this, top.expression)):
            raise KsqlStatementError("Invalid join condition: joins on multiple conditions are not yet supported. "
                                     f"Got {printed}.")
        raise KsqlStatementError(f"Unsupported join expression: {printed}")
    if not isinstance(top, exp.EQ):
        raise KsqlStatementError("Only equality join criteria is supported.")
    return [top]


def _qualified(e: exp.Expression, scope: JoinScope) -> exp.Expression:
    """The criteria as ksqlDB prints it after its sanitizer qualified every column it could resolve."""
    try:
        return scope.qualify(e, "JOIN ON")
    except KsqlStatementError:
        return e


def join_conditions(on: exp.Expression, scope: JoinScope, keys_of: KeyBinder, right: str,
                multi_condition: bool = False) -> list[Condition]:
    for col in column_refs(on):
        if col.table:
            scope.check_qualifier(col.table)
    parts = _criteria_shape(on, scope, multi_condition)
    if len(parts) > 1:
        seen = [keys_of(p, "JOIN ON") for p in parts]
        if any(x in seen[:i] for i, x in enumerate(seen)):
            raise KsqlStatementError("Invalid join condition: joins on multiple conditions are not yet supported. "
                                     f"Got {text(_qualified(unparen(on), scope))}.")
    out = []
    for part in parts:
        qualified = scope.qualify(part, "JOIN ON")
        a, b = part.this, part.expression
        qa, qb = qualified.this, qualified.expression
        sa, sb = scope.aliases_of(a, "JOIN ON"), scope.aliases_of(b, "JOIN ON")
        for side, refs in ((qa, sa), (qb, sb)):
            if len(refs) != 1:
                raise KsqlStatementError(f"Invalid comparison expression '{text(side)}' in join '{text(qualified)}'. "
                                         "Each side of the join comparision must contain references from exactly "
                                         "one source.")
        (ra,), (rb,) = sa, sb
        if ra == rb:
            raise KsqlStatementError(f"Each side of the join must reference exactly one source and not the same "
                                     f"source. Left side references `{ra}` and right references `{rb}`")
        written = f"{text(qa)} = {text(qb)}"
        ka, kb = keys_of(a, "JOIN ON"), keys_of(b, "JOIN ON")
        if rb == right:
            out.append(Condition(qa, qb, written, ka, kb, left_alias=ra, sides=(ra, rb)))
        elif ra == right:
            out.append(Condition(qb, qa, written, kb, ka, left_alias=rb, sides=(ra, rb)))
        else:
            raise KsqlStatementError(f"A join criteria is expected to reference the source (`{right}`) in the FROM "
                                     f"clause, instead the right source references `{rb}` and the left source "
                                     f"references `{ra}`")
    return out


def type_condition(c: Condition, scope: JoinScope, typing_scope: Any, ctx: BindContext) -> None:
    c.left_type = bind(scope.rewrite(c.left, "JOIN ON"), typing_scope, ctx, Clause.JOIN_ON).type
    c.right_type = bind(scope.rewrite(c.right, "JOIN ON"), typing_scope, ctx, Clause.JOIN_ON).type
