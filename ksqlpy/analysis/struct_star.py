"""``struct->*`` in a SELECT: one select item per field of the struct, in field order.

ksqlDB expands ``S->*`` into ``S->F1, S->F2, ...`` before anything else looks at the projection, so the
fields are named (and made unique) as unaliased dereferences are.
"""

from __future__ import annotations

import dataclasses

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.binder import bind
from ksqlpy.expr.format import format_expression
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext, Clause
from ksqlpy.grammar.ast import Dereference, FunctionCall, Query, SelectItem


def has_struct_star(query: Query) -> bool:
    return any(_is_struct_star(item.expr) for item in query.select)


def _is_struct_star(e: object) -> bool:
    return isinstance(e, Dereference) and e.args["field"] == "*"


def expand_struct_stars(query: Query, scope: Scope, ctx: BindContext) -> Query:
    """``query`` with every ``expr->*`` select item replaced by one dereference per field of ``expr``."""
    if not has_struct_star(query):
        return query
    registry = ctx.registry
    items: list[SelectItem] = []
    for item in query.select:
        e = item.expr
        if not _is_struct_star(e) or any(registry.kind_of(f.fname) == "aggregate" for f in e.find_all(FunctionCall)):
            items.append(item)
            continue
        base = e.this
        t = bind(base, scope, ctx, Clause.SELECT).type
        if not isinstance(t, T.Struct):
            raise KsqlStatementError(f"Expected STRUCT type for {format_expression(base)}->*, got: {t}")
        items += [SelectItem(Dereference(this=base.copy(), field=name)) for name, _ in t.fields]
    return dataclasses.replace(query, select=items)
