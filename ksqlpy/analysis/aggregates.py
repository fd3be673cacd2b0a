"""GROUP BY / WINDOW / HAVING analysis.

The aggregation splits a query in two scopes. Before it: the source row (after WHERE), over which the
grouping expressions and aggregate arguments are computed. After it: the group key columns, one internal
column per distinct aggregate call, and WINDOWSTART/WINDOWEND for windowed aggregations. SELECT and
HAVING are rewritten onto the second scope: aggregate calls and grouping expressions become column
references, and anything left that is not a key is an error, as in ksqlDB.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.analysis.kafka_value_format import is_kafka_value_format, kafka_value_format_refusal
from ksqlpy.analysis.scope import scope_for
from ksqlpy.analysis.written import is_star, qualified, strip_qualifiers
from ksqlpy.catalog import Source
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr import bound as B
from ksqlpy.expr.binder import bind, bind_filter, try_bind
from ksqlpy.expr.format import format_expression
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext, Clause, window_bounds_message
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.grammar.ast import FunctionCall, Query
from ksqlpy.plan.logical import (
    Aggregate,
    AggregateCall,
    ColumnRole,
    EmitMode,
    PlanNode,
    RowSchema,
    SchemaColumn,
)
from ksqlpy.plan.window_defaults import grace_ms, retention_error
from ksqlpy.session_state import SessionState


def _text(e: exp.Expression) -> str:
    return format_expression(strip_qualifiers(e))


class _Identity:
    """What an expression means, for finding equal expressions: its bound form (``T.A`` and ``A`` are the
    same column), or its text when it does not bind on its own (an aggregate call: its name and bound
    arguments)."""

    def __init__(self, scope: Scope, ctx: BindContext) -> None:
        self.scope = scope
        self.ctx = ctx

    def of(self, e: exp.Expression) -> object:
        if isinstance(e, FunctionCall) and self.ctx.registry.kind_of(e.fname) == "aggregate":
            args = [a for a in e.call_args if not isinstance(a, exp.Star)]
            return ("aggregate", e.fname, tuple(self.of(a) for a in args))
        b = try_bind(e, self.scope, self.ctx)
        return b if b is not None else ("text", _text(e))


class NoGroupByError(KsqlStatementError):
    """Aggregate functions without GROUP BY; the statement that runs the query names itself in the message."""

    def __init__(self, functions: list[str], statement: str = "SELECT") -> None:
        self.functions = functions
        super().__init__(f"{statement} statement does not support aggregate function [{', '.join(functions)}] "
                         "without a GROUP BY clause.")

    def for_statement(self, statement: str) -> NoGroupByError:
        return NoGroupByError(self.functions, statement)


# the argument ksqlDB's AggregateAnalyzer gives an aggregate called without one (from memory)
DEFAULT_ARGUMENT = "ROWTIME"


def _aggregate_text(call: FunctionCall, alias: str) -> str:
    """An aggregate call as ksqlDB lists it: columns qualified, no argument (``COUNT(*)``, ``COUNT()``) as the
    default argument (``COUNT(ROWTIME)``)."""
    q = qualified(call, alias)
    args = [a for a in q.call_args if not isinstance(a, exp.Star)] or [exp.column(DEFAULT_ARGUMENT)]
    return format_expression(FunctionCall(name=q.fname, args=args))


def aggregate_calls(query: Query, registry: FunctionRegistry) -> list[FunctionCall]:
    """The aggregate function calls of SELECT, then HAVING, in order of appearance (repeats included)."""
    nodes = [i.expr for i in query.select] + ([query.having] if query.having is not None else [])
    return [f for n in nodes for f in n.find_all(FunctionCall) if registry.kind_of(f.fname) == "aggregate"]


def has_aggregate(query: Query, registry: FunctionRegistry) -> bool:
    """Whether the query aggregates without a GROUP BY: an aggregate call in SELECT or HAVING (ksqlDB groups such
    a query by a constant; from memory of ksqlDB's Analyzer and AggregateAnalyzer, which collects the calls of
    both clauses)."""
    return bool(aggregate_calls(query, registry))


def check_group_by_format(source: Source, alias: str) -> None:
    """Analysis (before the windowed-table refusal and every AggregateAnalyzer rule): the KAFKA value format
    has no GROUP BY; the source is named by its alias in the query."""
    if is_kafka_value_format(source.value_format):
        raise kafka_value_format_refusal([alias], "GROUP BY")


def plan_aggregation(query: Query, source: Source, node: PlanNode, alias: str, session: SessionState,
                     key_names: list[str], ctx: BindContext,
                     ) -> tuple[Aggregate, list[exp.Expression], list[tuple[exp.Expression, str | None]]]:
    """The aggregation over ``node``'s row (its output row is the post-aggregation schema), the key
    expressions (over that schema) and the rewritten select items."""
    registry = ctx.registry
    schema = node.schema
    pre_scope = scope_for(schema, alias)
    ident = _Identity(pre_scope, ctx)
    if not query.group_by:
        _reject_nested_aggregates([i.expr for i in query.select if not is_star(i.expr)]
                                  + ([query.having] if query.having is not None else []), registry)
        # the constant groups no column: a star's columns are all outside it, as written ones are
        bad: list[str] = []
        for i in query.select:
            if is_star(i.expr):
                bad += [c.name for c in source.key_columns + source.value_columns + source.header_columns]
            elif _outside_aggregates(i.expr, registry):
                bad.append(format_expression(i.expr))
        if bad:
            raise KsqlStatementError(f"Non-aggregate SELECT expression(s) not part of GROUP BY: "
                                     f"{', '.join(dict.fromkeys(bad))}\n"
                                     "Either add the column(s) to the GROUP BY or remove them from the SELECT.")
        # ksqlDB groups such a query by a constant (Analyzer.addDummyGroupbyForUdafs), so AggregateAnalyzer's
        # HAVING rule fires before the missing GROUP BY is refused (AggregateNode.validateKeyPresent)
        having = _columns_outside_aggregates(query.having, registry) if query.having is not None else []
        if having:
            raise KsqlStatementError(f"Non-aggregate HAVING expression not part of GROUP BY: {', '.join(having)}\n"
                                     "Consider switching the HAVING clause to a WHERE clause before the GROUP BY.")
        # the distinct aggregate calls of SELECT, then HAVING, as the aggregation would hold them
        calls: dict[object, str] = {}
        for f in aggregate_calls(query, registry):
            calls.setdefault(ident.of(f), _aggregate_text(f, alias))
        raise NoGroupByError(list(calls.values()))
    group_by = list(query.group_by)
    seen_groups: list[object] = []
    for g in group_by:
        identity = ident.of(g)
        if identity in seen_groups:
            raise KsqlStatementError(f"Duplicate GROUP BY expression: {format_expression(qualified(g, alias))}")
        seen_groups.append(identity)
    key_types: list[T.SqlType] = []
    bound_groups: list[B.Expr] = []
    # ksqlDB's AggregateAnalyzer (throwOnWindowBoundColumnIfWindowedAggregate, from memory): with a WINDOW clause
    # the window bounds are the new windows', so GROUP BY, HAVING and aggregate arguments cannot read them - even
    # over a windowed source, whose own bounds are columns only without a WINDOW clause (a non-windowed source
    # has none: the same message when binding)
    bounds_select_only = query.window is not None or source.windowed is None
    for g in group_by:
        for f in g.find_all(FunctionCall):
            if registry.kind_of(f.fname) == "aggregate":
                raise KsqlStatementError(f"GROUP BY does not support aggregate functions: {f.fname} is an aggregate "
                                         "function.")
        if bounds_select_only and any(not c.table and c.name.upper() in ("WINDOWSTART", "WINDOWEND")
                                      for c in g.find_all(exp.Column)):
            _reject_reserved_select(query)  # ksqlDB names the select item first
            _reject_window_bounds(g)
        bg = bind(g, pre_scope, ctx, Clause.GROUP_BY)
        if isinstance(bg.type, T.NullType):
            raise KsqlStatementError("GROUP BY does not support NULL expressions")
        key_types.append(bg.type)
        bound_groups.append(bg)
    if query.having is not None and bounds_select_only:
        _reject_window_bounds(query.having)

    # distinct aggregate calls, in order of appearance (select, then having)
    aggs: list[AggregateCall] = []
    by_identity: list[tuple[object, AggregateCall]] = []
    nodes = [i.expr for i in query.select] + ([query.having] if query.having is not None else [])
    for n in nodes:
        for f in n.find_all(FunctionCall):
            if registry.kind_of(f.fname) is None:
                raise KsqlStatementError(f"Can't find any functions with the name '{f.fname}'")
            if registry.kind_of(f.fname) != "aggregate":
                continue
            identity = ident.of(f)
            if any(identity == k for k, _ in by_identity):
                continue
            for inner in f.find_all(FunctionCall):
                if inner is not f and registry.kind_of(inner.fname) == "aggregate":
                    raise KsqlStatementError(f"Aggregate functions can not be nested: {f.fname}({inner.fname}())")
            if bounds_select_only:
                for a in f.call_args:
                    _reject_window_bounds(a)
            call = _resolve_aggregate(f, len(aggs), pre_scope, ctx, session)
            by_identity.append((identity, call))
            aggs.append(call)
    if not aggs:
        raise KsqlStatementError("GROUP BY requires aggregate functions in either the SELECT or HAVING clause.")
    window = query.window
    # Building the aggregation step (physical planning: after every analysis and logical-planning error, as
    # ksqlDB's SchemaKGroupedTable.aggregate, from memory): a table's aggregation takes no WINDOW, then only
    # functions that can undo; then the value format must hold the state, and Kafka Streams' window objects
    # must accept the WINDOW as written (built with the topology)
    try:
        if source.kind == "TABLE":
            if window is not None:
                raise KsqlStatementError("Windowing not supported for table aggregations.")
            check_undo([a.function for a in aggs], [a.resolved for a in aggs])
        if source.value_format.upper() == "DELIMITED":
            _check_intermediate_types(aggs)
        if window is not None:
            _check_window_shape(window)
            _check_retention(window, query.emit)
    except KsqlStatementError as e:
        ctx.planned(e)

    post = [SchemaColumn(n, t, ColumnRole.KEY, _text(g) if not isinstance(g, exp.Column) else None)
            for n, t, g in zip(key_names, key_types, group_by, strict=True)]
    post += [SchemaColumn(a.name, a.resolved.return_type, ColumnRole.VALUE, a.text) for a in aggs]
    if window is not None:
        post += [SchemaColumn("WINDOWSTART", T.BIGINT, ColumnRole.WINDOW),
                 SchemaColumn("WINDOWEND", T.BIGINT, ColumnRole.WINDOW)]
    post.append(SchemaColumn("ROWTIME", T.BIGINT, ColumnRole.SYSTEM))
    post_schema = RowSchema(post)

    groups = list(zip(seen_groups, key_names, strict=True))

    def group_of(node: exp.Expression) -> str | None:
        identity = ident.of(node)
        return next((name for k, name in groups if k == identity), None)

    def rewrite(e: exp.Expression) -> exp.Expression:
        if isinstance(e, (exp.Literal, exp.Boolean, exp.Null)):
            top = group_of(e)
            if top is not None:
                return exp.column(top, quoted=False)  # GROUP BY 1 ... SELECT 1 AS K: the key

        def fn(node: exp.Expression) -> exp.Expression:
            if isinstance(node, (exp.Literal, exp.Boolean, exp.Null)):
                return node
            if isinstance(node, FunctionCall) and registry.kind_of(node.fname) == "aggregate":
                identity = ident.of(node)
                call = next((c for k, c in by_identity if k == identity), None)
                if call is not None:
                    return exp.column(call.name, quoted=False)
                return node
            name = group_of(node)
            return exp.column(name, quoted=False) if name is not None else node

        return e.copy().transform(fn)

    items: list[tuple[exp.Expression, str | None]] = []
    bad: list[str] = []
    for item in query.select:
        e = item.expr
        if is_star(e):
            # SELECT * in an aggregation: every source column must be a grouping column
            for c in source.key_columns + source.value_columns + source.header_columns:
                if group_of(exp.column(c.name)) is None:
                    bad.append(c.name)
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
            raise KsqlStatementError(f"Non-aggregate HAVING expression not part of GROUP BY: {', '.join(hb)}\n"
                                     "Consider switching the HAVING clause to a WHERE clause before the GROUP BY.")
        bound_having = bind_filter(having, scope_for(post_schema, None), ctx, Clause.HAVING,
                                   shown=format_expression(query.having))
        bound_having = _as_run(bound_having, query, group_by, key_names, {a.name for a in aggs}, registry)
    else:
        bound_having = None
    agg = Aggregate(post_schema, node, group_by=bound_groups, key_names=key_names, key_types=key_types,
                    aggregates=aggs, window=window, having=bound_having,
                    emit=EmitMode.FINAL if query.emit == "FINAL" else EmitMode.CHANGES)
    key_exprs: list[exp.Expression] = [exp.column(n) for n in key_names]
    return agg, key_exprs, items


def _aggregate_calls(e: exp.Expression, registry: FunctionRegistry) -> list[FunctionCall]:
    return [f for f in e.find_all(FunctionCall, bfs=False) if registry.kind_of(f.fname) == "aggregate"]


def _as_run(having: B.Expr, query: Query, group_by: list[exp.Expression], key_names: list[str],
            aggregates: set[str], registry: Any) -> B.Expr:
    """The HAVING predicate named as ksqlDB's AggregateNode runs it, for what a failing record logs
    (``Error evaluating predicate <expr>``): every aggregate call is ``KSQL_AGG_VARIABLE_<n>``, numbered by
    occurrence over the SELECT items and then HAVING (its AggregateExpressionRewriter), and a grouping column
    is its internal copy ``KSQL_INTERNAL_COL_<n>`` (numbered over the required columns, grouping columns first).
    Typing errors were reported before, against the calls as written."""
    counter = sum(len(_aggregate_calls(i.expr, registry)) for i in query.select if not is_star(i.expr))
    required: list[str] = []
    for e in [*group_by, *(i.expr for i in query.select if not is_star(i.expr))]:
        for c in e.find_all(exp.Column, bfs=False):
            if not isinstance(c.this, exp.Star) and c.name not in required:
                required.append(c.name)
    internal = {name: f"KSQL_INTERNAL_COL_{required.index(g.name)}"
                for name, g in zip(key_names, group_by, strict=True) if isinstance(g, exp.Column)}

    def name(node: B.Expr) -> B.Expr:
        nonlocal counter
        if isinstance(node, B.ColumnRef):
            if node.name in aggregates:
                counter += 1
                return replace(node, display=f"KSQL_AGG_VARIABLE_{counter - 1}")
            if node.name in internal:
                return replace(node, display=internal[node.name])
        return node

    return having.transform(name)


def check_undo(functions: list[str], resolved: list[Any]) -> None:
    """ksqlDB's error for aggregates that cannot retract, used over a TABLE source."""
    missing = list(dict.fromkeys(f for f, r in zip(functions, resolved, strict=True) if r.undo is None))
    if missing:
        names = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
        what = "function" if len(missing) == 1 else "functions"
        raise KsqlStatementError(f"The aggregation {what} {names} cannot be applied to a table source, only "
                                 "to a stream source.")


def _outside_aggregates(e: exp.Expression, registry: Any) -> bool:
    """Whether ``e`` references a column outside every aggregate call."""
    def walk(n: exp.Expression) -> bool:
        if isinstance(n, FunctionCall) and registry.kind_of(n.fname) == "aggregate":
            return False
        if isinstance(n, exp.Column) and not isinstance(n.this, exp.Star):
            return True
        return any(walk(c) for c in n.iter_expressions())

    return walk(e)


def _reject_nested_aggregates(nodes: list[exp.Expression], registry: Any) -> None:
    """AggregateAnalyzer's visit: an aggregate call inside another is refused as it is met."""
    for n in nodes:
        for f in n.find_all(FunctionCall):
            if registry.kind_of(f.fname) != "aggregate":
                continue
            for inner in f.find_all(FunctionCall):
                if inner is not f and registry.kind_of(inner.fname) == "aggregate":
                    raise KsqlStatementError(f"Aggregate functions can not be nested: {f.fname}({inner.fname}())")


def _columns_outside_aggregates(e: exp.Expression, registry: Any) -> list[str]:
    """The columns ``e`` references outside every aggregate call, once each in order (lambda parameters
    are not columns)."""
    lambdas = {p.name for lam in e.find_all(exp.Lambda) for p in lam.expressions}
    out: list[str] = []

    def walk(n: exp.Expression) -> None:
        if isinstance(n, FunctionCall) and registry.kind_of(n.fname) == "aggregate":
            return
        if isinstance(n, exp.Column) and not isinstance(n.this, exp.Star):
            if n.name not in lambdas:
                out.append(format_expression(n))
            return
        for c in n.iter_expressions():
            walk(c)

    walk(e)
    return list(dict.fromkeys(out))


def _reject_reserved_select(query: Query) -> None:
    """An unaliased WINDOWSTART/WINDOWEND select item is a reserved name (checked before GROUP BY)."""
    for item in query.select:
        e = item.expr
        if item.alias is None and isinstance(e, exp.Column) and not e.table and \
                e.name.upper() in ("WINDOWSTART", "WINDOWEND"):
            raise KsqlStatementError(f"Reserved column name in select: `{e.name.upper()}`. Please remove or alias "
                                     "the column.")


def _check_intermediate_types(aggs: list[AggregateCall]) -> None:
    """A primitive-only value format (DELIMITED) cannot hold structured aggregate state."""
    for a in aggs:
        t = getattr(a.resolved, "intermediate_type", None) or a.resolved.return_type
        if isinstance(t, (T.Array, T.Map, T.Struct)):
            raise KsqlStatementError("One of the functions used in the statement has an intermediate type that the "
                                     "value format can not handle. Please remove the function or change the format.")


def _reject_window_bounds(e: exp.Expression) -> None:
    """WINDOWSTART/WINDOWEND may only be selected (first one in text order): of a windowed aggregation, or of a
    non-windowed source."""
    for col in e.find_all(exp.Column, bfs=False):
        if not col.table and col.name.upper() in ("WINDOWSTART", "WINDOWEND"):
            raise KsqlStatementError(window_bounds_message(col.name.upper()))


def _check_window_shape(window: Any) -> None:
    """Kafka Streams' window constructors (ksqlDB builds them as written): a session needs a positive gap, a
    time window a positive size and a hop within (0, size] - windows would otherwise leave gaps - and neither
    takes a negative grace."""
    if window.type == "SESSION":
        if window.size_ms <= 0:
            raise KsqlStatementError("Gap time cannot be zero or negative.")
    else:
        if window.size_ms <= 0:
            raise KsqlStatementError("Window size (sizeMs) must be larger than zero.")
        advance = window.advance_ms
        if window.type == "HOPPING" and advance is not None and not 0 < advance <= window.size_ms:
            raise KsqlStatementError(
                "Window advancement interval should be more than zero and less than window duration which is "
                f"{window.size_ms} ms, but given advancement interval is: {advance} ms")
    # grace is set last on either window kind (`.grace(...)` after `of(...)`/`advanceBy(...)`)
    if window.grace_ms is not None and window.grace_ms < 0:
        raise KsqlStatementError("Grace period must not be negative.")


def _check_retention(window: Any, emit: str | None) -> None:
    """Kafka Streams refuses a window store that forgets windows before they close."""
    if window.retention_ms is None:
        return
    grace = grace_ms(window.size_ms, window.grace_ms, emit == "FINAL")
    error = retention_error(window.type, window.size_ms, grace, window.retention_ms)
    if error is not None:
        raise KsqlStatementError(error)


def _non_key_columns(e: exp.Expression, post: RowSchema) -> list[str]:
    """Columns of ``e`` that are neither grouping keys, aggregates nor window bounds. ROWTIME is none of them:
    the result row has one, but a SELECT or HAVING naming it is not part of GROUP BY (ksqlDB's
    AggregateAnalyzer, from memory: ``Non-aggregate SELECT expression(s) not part of GROUP BY: ROWTIME``)."""
    bad = []
    names = {c.name for c in post.columns if c.role is not ColumnRole.SYSTEM}
    for col in e.find_all(exp.Column):
        if isinstance(col.this, exp.Star):
            continue
        if col.name not in names:
            bad.append(format_expression(col))
    # lambda parameters are not columns
    lambdas = {p.name for lam in e.find_all(exp.Lambda) for p in lam.expressions}
    return [b for b in bad if b not in lambdas]


def _resolve_aggregate(f: FunctionCall, index: int, scope: Scope, ctx: BindContext,
                       session: SessionState) -> AggregateCall:
    fn = ctx.registry.aggregates[f.fname]
    args = list(f.call_args)
    if len(args) == 1 and isinstance(args[0], exp.Star):
        args = []
    if not args:
        # ksqlDB's AggregateAnalyzer (from memory): an aggregate called without arguments - COUNT(*) is one,
        # so are COUNT(), SUM(*), MAX() - takes the default argument ROWTIME (typed BIGINT by
        # ExpressionTypeManager's DEFAULT_FUNCTION_ARG_SCHEMA). COUNT keeps its argument-less form here: it
        # counts rows, which is COUNT(ROWTIME), ROWTIME never being NULL
        args = [exp.column(DEFAULT_ARGUMENT)]
        if f.fname == "COUNT":
            args = []
    # every argument is typed and the overload chosen before the literal arguments are checked (ksqlDB)
    typed = [bind(a, scope, ctx, Clause.SELECT) for a in args]
    n_lit = fn.init_arg_count([b.type for b in typed])
    n_cols = len(args) - n_lit
    literals = []
    # ksqlDB's UdafUtil.createAggregateFunctionInitArgs (from memory): an initial argument must be a Literal
    # node of the AST - a CAST, arithmetic or a column is refused, whatever it folds to; it is named by its
    # 1-based position in the call and its text
    for position, (a, c) in enumerate(zip(args[n_cols:], typed[n_cols:], strict=True), start=n_cols + 1):
        if not isinstance(c, B.Literal):
            raise KsqlStatementError(f"Parameter {position} passed to function {f.fname} must be a literal "
                                     f"constant, but was expression: '{format_expression(a)}'")
        literals.append(c.value)
    bound_args = typed[:n_cols]
    types = [b.type for b in bound_args]
    resolved = fn.resolve(types, literals, dict(session.properties))
    return AggregateCall(name=f"KSQL_AGG_VARIABLE_{index}", function=f.fname, args=bound_args, literals=literals,
                         text=_text(f), resolved=resolved, arg_types=types,
                         literal_texts=[format_expression(a) for a in args[n_cols:]])
