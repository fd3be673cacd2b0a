"""Queries ksqlDB refuses outright, with its messages: table functions where they cannot run (nested, in
CASE, beside aggregates, over a table), WINDOW without GROUP BY, persistent
queries reading a windowed table, and re-keying a table or a windowed source.

Each check names the stage ksqlDB makes it in; ``analyze_query`` calls them in that order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from sqlglot import exp

from ksqlpy.analysis.join_checks import table_rekey_refusal
from ksqlpy.analysis.reserved_select import check_reserved_select
from ksqlpy.analysis.written import strip_qualifiers
from ksqlpy.catalog import Source
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.format import format_expression
from ksqlpy.expr.stages import BindContext
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.grammar.ast import FunctionCall, Query

# the link PlanNode.throwKeysNotIncludedError puts after its 'Key missing from projection (ie, SELECT).' line
# when a join's key is synthetic or several keys would do (reference ksqldb-rules.md 6.6); otherwise the line
# ends '(ie, SELECT). ' - grouping, partitioning and key columns never get it
KEYS_LINK = "See https://cnfl.io/2LV7ouS."


def _calls(query: Query, kind: str, registry: FunctionRegistry) -> list[FunctionCall]:
    return [f for item in query.select for f in item.expr.find_all(FunctionCall)
            if registry.kind_of(f.fname) == kind]


def has_aggregate(query: Query, registry: FunctionRegistry) -> bool:
    nodes = [i.expr for i in query.select] + ([query.having] if query.having is not None else [])
    return any(registry.kind_of(f.fname) == "aggregate" for n in nodes for f in n.find_all(FunctionCall))


def check_select_items(query: Query, registry: FunctionRegistry, reserved: frozenset[str], *,
                       join: bool, persistent: bool) -> None:
    """ksqlDB's ``Analyzer.visitSelect`` (from memory): item by item, the result's reserved name (see
    ``reserved_select``: an alias in every query, the column itself in persistent ones) and then its table
    functions (``TableFunctionVisitor``) - before any clause's column references are resolved, so a nested
    table function over an unknown column is refused as nested."""
    for item in query.select:
        check_reserved_select(dataclasses.replace(query, select=[item]), reserved, join=join, persistent=persistent)
        check_table_function_forms(item.expr, registry)


def check_table_function_forms(node: exp.Expression, registry: FunctionRegistry) -> None:
    """A SELECT item's table functions: one level, outside CASE."""
    for f in node.find_all(FunctionCall):
        if registry.kind_of(f.fname) != "table":
            continue
        inner = next((g for g in f.find_all(FunctionCall)
                      if g is not f and registry.kind_of(g.fname) == "table"), None)
        if inner is not None:
            raise KsqlStatementError(f"Table functions cannot be nested: {f.fname}({inner.fname}())")
        case = f.find_ancestor(exp.Case)
        if case is not None:
            raise KsqlStatementError(f"Table functions cannot be used in CASE: {format_expression(case)}")


def check_table_functions(query: Query, registry: FunctionRegistry) -> None:
    """The end of SELECT analysis: table functions do not mix with aggregation (their forms were checked
    item by item: ``check_select_items``)."""
    table_functions = _calls(query, "table", registry)
    for item in query.select:
        check_table_function_forms(item.expr, registry)
    if table_functions and (query.group_by or has_aggregate(query, registry)):
        raise KsqlStatementError("Table functions cannot be used with aggregations.")


def check_windowed_table(source: Source, *, persistent: bool) -> None:
    """The end of analysis (ksqlDB's ``PushQueryValidator``, from memory): a persistent query cannot read a
    windowed table - before anything logical or physical planning finds (AggregateAnalyzer's rules, a missing
    key, WINDOW on a table aggregation, re-keying a windowed source)."""
    if persistent and source.kind == "TABLE" and source.windowed is not None:
        raise KsqlStatementError("KSQL does not support persistent queries on windowed tables.")


def check_table_function_source(query: Query, source: Source, registry: FunctionRegistry) -> None:
    """After analysis (ksqlDB's ``QueryAnalyzer``): a table cannot feed table functions."""
    if source.kind == "TABLE" and _calls(query, "table", registry):
        raise KsqlStatementError("Table source is not supported with table functions")


def keeps_key(exprs: list[exp.Expression], source: Source) -> bool:
    """PARTITION BY the source's own key columns, in order: ksqlDB re-keys nothing."""
    keys = [c.name for c in source.key_columns]
    return len(exprs) == len(keys) and all(
        isinstance(e, exp.Column) and e.name == k for e, k in zip(exprs, keys, strict=True))


def check_repartition(exprs: list[exp.Expression], source: Source, ctx: BindContext,
                      key_name: str | None = None) -> None:
    """Physical planning (``SchemaKTable.selectKey`` / ``SchemaKStream.selectKey``, from memory): a table or a
    windowed source cannot be re-keyed - found while building the physical plan, so held in ``ctx`` until the
    logical planner's checks (a key missing from the projection among them) have passed. A table keyed by
    several columns gets the multi-column text whatever it is partitioned by; one keyed by one column names it
    (``key_name``: a join result's key column as ksqlDB's JoinNode names it) and the key expressions selectKey
    was given - the logical planner's rewritten ones, over the input's own column names (a single source's
    qualifier dropped: ``[N]``, ``[(M + 1)]``, ``[N, M]``; a join's ``L.N`` is ``L_N``), as a Java list."""
    if source.kind == "TABLE":
        keys = source.key_columns
        if len(keys) != 1:
            ctx.planned(KsqlStatementError("Cannot repartition a TABLE source. If this is a join, joins on tables "
                                           "with multiple columns is not yet supported."))
            return
        ctx.planned(table_rekey_refusal(key_name or keys[0].name,
                                        *(format_expression(strip_qualifiers(e)) for e in exprs)))
        return
    if source.windowed is not None:
        ctx.planned(KsqlStatementError("Implicit repartitioning of windowed sources is not supported. "
                                       "See https://github.com/confluentinc/ksql/issues/4385."))


def check_window(query: Query, registry: FunctionRegistry) -> None:
    """Logical planning: a WINDOW groups an aggregation. (That it groups a stream's is checked when the
    aggregation step is built: ``aggregates.plan_aggregation``.)"""
    if query.window is None:
        return
    if not query.group_by and not has_aggregate(query, registry):
        where = f"Line: {query.window.line}, Col: {query.window.column}: " if query.window.line else ""
        raise KsqlStatementError(f"{where}WINDOW clause requires a GROUP BY clause.")


def check_emit_final(query: Query, windowed_aggregation: bool, properties: Mapping[str, Any]) -> None:
    """Logical planning, for persistent and push queries alike: EMIT FINAL suppresses a windowed
    aggregation's updates until its windows close, and needs suppression enabled."""
    if query.emit != "FINAL":
        return
    if str(properties.get("ksql.suppress.enabled", "true")).strip().lower() == "false":
        raise KsqlStatementError("Suppression is currently disabled. You can enable it by setting "
                                 "ksql.suppress.enabled to true")
    if not windowed_aggregation:
        raise KsqlStatementError("EMIT FINAL is only supported for windowed aggregations.")


def _expressions(query: Query) -> list[exp.Expression]:
    nodes = [i.expr for i in query.select] + [j.on for j in query.joins] + list(query.group_by)
    nodes += list(query.partition_by) + [e for e in (query.where, query.having) if e is not None]
    return nodes


def check_lambdas_enabled(query: Query, properties: Mapping[str, Any]) -> None:
    """ksqlDB's sanitizer (before analysis) refuses any lambda while ``ksql.lambdas.enabled`` is false."""
    if str(properties.get("ksql.lambdas.enabled", "true")).strip().lower() != "false":
        return
    if any(n.find(exp.Lambda) is not None for n in _expressions(query)):
        raise KsqlStatementError("Exception while preparing statement: Lambdas are not enabled at this time.")


def check_lambda_arguments(query: Query, column_names: frozenset[str] = frozenset()) -> None:
    """ksqlDB's sanitizer (AstSanitizer, before analysis and typing; from memory) adds each lambda's parameters
    to the set of the enclosing lambdas' parameters and refuses the lambda when the set grew by fewer names
    than it has parameters: a name reused by a nested lambda, or twice in one lambda (``(x, x) => ...``); then a
    parameter named like a column of any source the query reads (``column_names``: key, value and header
    columns of the FROM and joined sources - its DataSourceExtractor's names). Neither carries a position."""

    def walk(node: exp.Expression, outer: frozenset[str]) -> None:
        if isinstance(node, exp.Lambda):
            names = [p.name for p in node.expressions]  # unquoted names are upper-cased already
            inner = outer | set(names)
            if len(inner) - len(outer) < len(names):
                raise KsqlStatementError("Exception while preparing statement: Reusing lambda arguments in nested "
                                         "lambda is not allowed")
            clash = next((n for n in names if n in column_names), None)
            if clash is not None:
                raise KsqlStatementError("Exception while preparing statement: Lambda function argument can't be a "
                                         f"column name: {clash}")
            walk(node.this, inner)
            return
        for child in node.iter_expressions():
            walk(child, outer)

    for n in _expressions(query):
        walk(n, frozenset())


def key_more_than_once(column: str, alias: str, other: str) -> str:
    """ksqlDB's FinalProjectNode refusal of one key column selected twice (aliases in sorted order); the
    same rule for single-source queries and joins."""
    a, b = sorted([alias, other])
    return (f"The projection contains a key column (`{column}`) more than once, aliased as: {a} and {b}.\n"
            "Each key column must only be in the projection once. If you intended to copy the key into the value, "
            "then consider using the AS_VALUE function to indicate which key reference should be copied.")
