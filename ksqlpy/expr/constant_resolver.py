"""ksqlDB's ``GenericExpressionResolver`` (from memory): an expression without columns evaluated once and
made a value of one column's type by the STRICT coercion, with the resolver's own refusal texts.

Two statements resolve values this way: INSERT VALUES (every value) and a pull query's key lookup (a key
compared with anything but a literal - ``K = 1 + 1``, ``K = CAST(...)``, ``K IN (ABS(-2))``; a literal
skips the resolver there). Keeping the rule here gives both the same evaluation, coercion and wording.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlError
from ksqlpy.expr.binder import bind
from ksqlpy.expr.fold import constant_value
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext, Clause
from ksqlpy.expr.strict_coercion import CoercionFailed, base_type_name, coerce_strict, java_value_text
from ksqlpy.serde.formats import type_text


class ResolveFailed(Exception):
    """The expression has no value of the column's type; ``reason`` is ksqlDB's text (empty when the
    evaluation itself failed: the resolver's throwing logger carries no message then)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def resolve_constant(e: exp.Expression, target: T.SqlType, column: str, ctx: BindContext,
                     clause: Clause | None = None) -> Any:
    """The value of ``e`` (no column references) as a value of ``target`` for column ``column``; None for
    NULL. Raises ResolveFailed with the resolver's reason. ``clause``: the context compile errors are worded
    in (``Clause.INSERT_VALUE``: ``Invalid insert value: <reason>.``, typing errors included)."""
    try:
        bound = bind(e, Scope(), ctx, clause)
        ctx.check()
    except KsqlError as ex:
        raise ResolveFailed(ex.message) from None
    try:
        result = constant_value(bound, ctx.registry)
    except KsqlError as ex:
        raise ResolveFailed(ex.message) from None
    except Exception:  # noqa: BLE001 - a failure while evaluating (1/0, CAST('x' AS INT)): no reason given
        raise ResolveFailed("") from None
    try:
        return coerce_strict(result, bound.type, target)
    except CoercionFailed as failed:
        raise ResolveFailed(f"Expected type {type_text(target)} for field `{column}` but got "
                            f"{base_type_name(bound.type)}({java_value_text(result, bound.type)}){failed.hint}"
                            ) from None
