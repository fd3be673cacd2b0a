"""GROUP BY / WINDOW / HAVING analysis.

The aggregation splits a query in two scopes. Before it: the source row (after WHERE), over which the
grouping expressions and aggregate arguments are computed. After it: the group key columns, one internal
column per distinct aggregate call, and WINDOWSTART/WINDOWEND for windowed aggregations. SELECT and
HAVING are rewritten onto the second scope: aggregate calls and grouping expressions become column
references, and anything left that is not a key is an error, as in ksqlDB.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.analysis.scope import scope_for, type_check
from ksqlpy.catalog import Catalog, Source
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.format import format_expression
from ksqlpy.functions import default_registry
from ksqlpy.grammar.ast import FunctionCall, Query
from ksqlpy.plan.logical import AggregateCall, Aggregation, RowSchema, SchemaColumn

DEFAULT_GRACE_MS = 24 * 3600 * 1000


def _key(e: exp.Expression) -> str:
    from ksqlpy.analysis.query import strip_qualifiers

    return format_expression(strip_qualifiers(e))


def plan_aggregation(query: Query, source: Source, schema: RowSchema, alias: str, catalog: Catalog,
                     key_names: list[str], config: dict[str, Any]) -> tuple[Aggregation, RowSchema, list[exp.Expression],
                                                                          list[tuple[exp.Expression, str | None]]]:
    """Returns the aggregation, the post-aggregation schema, the key expressions (over that schema)
    and the rewritten select items."""
    registry = default_registry()
    custom = catalog.types()
    pre_scope = scope_for(schema, alias)
    if not query.group_by:
        raise KsqlStatementError("Aggregate functions require a GROUP BY clause")
    group_by = list(query.group_by)
    key_types: list[T.SqlType] = []
    for g in group_by:
        for f in g.find_all(FunctionCall):
            if registry.kind_of(f.fname) == "aggregate":
                raise KsqlStatementError(f"GROUP BY does not support aggregate functions: {f.fname} is an aggregate "
                                         "function.")
        if isinstance(g, exp.Column) and g.name in ("WINDOWSTART", "WINDOWEND") and source.windowed is None:
            raise KsqlStatementError(f"Window bounds column {g.name} can only be used in the SELECT clause of "
                                     "windowed aggregations")
        t = type_check(g, pre_scope, custom).type
        if isinstance(t, T.NullType):
            raise KsqlStatementError("GROUP BY does not support NULL expressions")
        key_types.append(t)

    # distinct aggregate calls, in order of appearance (select, then having)
    aggs: list[AggregateCall] = []
    by_text: dict[str, AggregateCall] = {}
    nodes = [i.expr for i in query.select] + ([query.having] if query.having is not None else [])
    for n in nodes:
        for f in n.find_all(FunctionCall):
            if registry.kind_of(f.fname) != "aggregate":
                continue
            text = _key(f)
            if text in by_text:
                continue
            for inner in f.find_all(FunctionCall):
                if inner is not f and registry.kind_of(inner.fname) == "aggregate":
                    raise KsqlStatementError(f"Aggregate functions can not be nested: {f.fname}({inner.fname}())")
            call = _resolve_aggregate(f, len(aggs), pre_scope, custom, config)
            by_text[text] = call
            aggs.append(call)
    if not aggs:
        raise KsqlStatementError("GROUP BY requires aggregate functions in either the SELECT or HAVING clause.")

    window = query.window
    if window is not None and window.grace_ms is None:
        window = type(window)(window.type, window.size_ms, window.advance_ms, window.retention_ms, None)

    post = [SchemaColumn(n, t, "key") for n, t in zip(key_names, key_types, strict=True)]
    post += [SchemaColumn(a.name, a.resolved.return_type, "value") for a in aggs]
    if window is not None:
        post += [SchemaColumn("WINDOWSTART", T.BIGINT, "window"), SchemaColumn("WINDOWEND", T.BIGINT, "window")]
    post.append(SchemaColumn("ROWTIME", T.BIGINT, "system"))
    post_schema = RowSchema(post)

    group_text = {_key(g): name for g, name in zip(group_by, key_names, strict=True)}

    def rewrite(e: exp.Expression) -> exp.Expression:
        def fn(node: exp.Expression) -> exp.Expression:
            t = _key(node) if not isinstance(node, (exp.Literal, exp.Boolean, exp.Null)) else None
            if t is not None and t in group_text:
                return exp.column(group_text[t], quoted=False)
            if isinstance(node, FunctionCall) and t in by_text:
                return exp.column(by_text[t].name, quoted=False)
            return node

        return e.copy().transform(fn)

    items: list[tuple[exp.Expression, str | None]] = []
    bad: list[str] = []
    for item in query.select:
        e = item.expr
        if isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)):
            # SELECT * in an aggregation: only the grouping columns qualify
            for g, name in zip(group_by, key_names, strict=True):
                items.append((exp.column(name), None if isinstance(g, exp.Column) else name))
            continue
        r = rewrite(e)
        if _non_key_columns(r, post_schema):
            bad.append(format_expression(e))
        items.append((r, item.alias))
    if bad:
        raise KsqlStatementError(f"Non-aggregate SELECT expression(s) not part of GROUP BY: "
                                 f"{', '.join(dict.fromkeys(bad))}\n"
                                 "Either add the column(s) to the GROUP BY or remove them from the SELECT.")
    having = None
    if query.having is not None:
        having = rewrite(query.having)
        hb = _non_key_columns(having, post_schema)
        if hb:
            raise KsqlStatementError(f"Non-aggregate HAVING expression not part of GROUP BY: {', '.join(hb)}")
        c = type_check(having, scope_for(post_schema, None), custom)
        if c.type != T.BOOLEAN:
            raise KsqlStatementError(f"Type error in HAVING expression: Should evaluate to boolean but is "
                                     f"{format_expression(query.having)} ({c.type}) instead.")
    agg = Aggregation(group_by=group_by, key_names=key_names, key_types=key_types, aggregates=aggs, window=window,
                      having=having)
    key_exprs: list[exp.Expression] = [exp.column(n) for n in key_names]
    return agg, post_schema, key_exprs, items


def _non_key_columns(e: exp.Expression, post: RowSchema) -> list[str]:
    bad = []
    names = {c.name for c in post.columns}
    for col in e.find_all(exp.Column):
        if isinstance(col.this, exp.Star):
            continue
        if col.name not in names:
            bad.append(format_expression(col))
    # lambda parameters are not columns
    lambdas = {p.name for lam in e.find_all(exp.Lambda) for p in lam.expressions}
    return [b for b in bad if b not in lambdas]


def _resolve_aggregate(f: FunctionCall, index: int, scope: Any, custom: dict, config: dict[str, Any]) -> AggregateCall:
    registry = default_registry()
    fn = registry.aggregates[f.fname]
    args = list(f.call_args)
    if len(args) == 1 and isinstance(args[0], exp.Star):
        args = []
    n_lit = fn.literal_arg_count(len(args))
    col_args, lit_args = (args[: len(args) - n_lit], args[len(args) - n_lit:]) if n_lit else (args, [])
    literals = []
    for a in lit_args:
        c = type_check(a, scope, custom)
        if not c.literal:
            raise KsqlStatementError(f"Parameter {format_expression(a)} passed to function {f.fname} must be a "
                                     "literal constant.")
        literals.append(c.value)
    types = [type_check(a, scope, custom).type for a in col_args]
    resolved = fn.resolve(types, literals, config)
    return AggregateCall(name=f"KSQL_AGG_VARIABLE_{index}", function=f.fname, args=col_args, literals=literals,
                         node=f, resolved=resolved, arg_types=types)
