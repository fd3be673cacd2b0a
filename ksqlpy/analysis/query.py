"""SELECT analysis: resolve names against the catalog, type every expression, apply ksqlDB's key and
naming rules, and produce the query's logical plan (``ksqlpy.plan.logical``). Every user error about a query's meaning is raised here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.analysis import query_rejections as rejections
from ksqlpy.analysis.aggregates import check_group_by_format, has_aggregate, plan_aggregation
from ksqlpy.analysis.join_checks import join_key_column
from ksqlpy.analysis.pseudo_columns import check_queryable, offsets_enabled, reserved_names
from ksqlpy.analysis.scope import scope_for
from ksqlpy.analysis.source_hints import did_you_mean
from ksqlpy.analysis.struct_star import expand_struct_stars
from ksqlpy.analysis.time_literals import iso_time_literals
from ksqlpy.analysis.written import is_star, lambda_parameter, natural_name, qualified, strip_qualifiers
from ksqlpy.catalog import WINDOW_COLUMNS, Catalog, Source
from ksqlpy.errors import KsqlStatementError, at
from ksqlpy.expr import bound as B
from ksqlpy.expr.binder import bind, bind_filter, try_bind
from ksqlpy.expr.format import format_expression
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext, Clause
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.grammar.ast import Dereference, FunctionCall, Query
from ksqlpy.plan.logical import (
    Aggregate,
    ColumnRole,
    EmitMode,
    Filter,
    FlatMap,
    Join,
    OutputColumn,
    PlanNode,
    Project,
    QueryKind,
    Rekey,
    RowSchema,
    Scan,
    SchemaColumn,
    Sink,
)
from ksqlpy.plan.partitioning import group_by_repartition
from ksqlpy.properties import as_bool, resolve
from ksqlpy.session_state import SessionState
from ksqlpy.types import quote_ident


class AliasGenerator:
    """ksqlDB's KSQL_COL_n names for unnamed expressions, skipping names already in use."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.n = 0

    def next(self) -> str:
        while f"KSQL_COL_{self.n}" in self.taken:
            self.n += 1
        name = f"KSQL_COL_{self.n}"
        self.n += 1
        self.taken.add(name)
        return name


def input_schema(source: Source, *, offsets: bool = True) -> RowSchema:
    """The row a query over ``source`` reads; ``offsets``: ROWPARTITION and ROWOFFSET are pseudo columns
    (``ksql.rowpartition.rowoffset.enabled``)."""
    cols = [SchemaColumn(c.name, c.type, ColumnRole.KEY) for c in source.key_columns]
    cols += [SchemaColumn(c.name, c.type, ColumnRole.VALUE) for c in source.value_columns]
    cols += [SchemaColumn(c.name, c.type, ColumnRole.HEADER) for c in source.header_columns]
    cols.append(SchemaColumn("ROWTIME", T.BIGINT, ColumnRole.SYSTEM))
    if offsets:
        cols.append(SchemaColumn("ROWPARTITION", T.INTEGER, ColumnRole.SYSTEM))
        cols.append(SchemaColumn("ROWOFFSET", T.BIGINT, ColumnRole.SYSTEM))
    if source.windowed:
        cols.append(SchemaColumn("WINDOWSTART", T.BIGINT, ColumnRole.WINDOW))
        cols.append(SchemaColumn("WINDOWEND", T.BIGINT, ColumnRole.WINDOW))
    return RowSchema(cols)


def same_expression(a: exp.Expression, b: exp.Expression, scope: Scope, ctx: BindContext) -> bool:
    """Whether two written expressions mean the same thing over ``scope`` (bound structurally equal:
    ``T.A + 1`` is ``A + 1``). Expressions that do not bind compare as written."""
    ba, bb = try_bind(a, scope, ctx), try_bind(b, scope, ctx)
    if ba is not None and bb is not None:
        return ba == bb
    return format_expression(strip_qualifiers(a)) == format_expression(strip_qualifiers(b))


def bind_context(session: SessionState, *, interpreted: bool = False) -> BindContext:
    """What binding the expressions of one statement shares (see ``ksqlpy.expr.stages``): the session's
    functions and custom types; ``interpreted``: a pull query (ksqlDB evaluates it with its interpreter)."""
    props = session.properties
    return BindContext(session.functions, dict(session.types), interpreted,
                       preserve_string_nulls=as_bool(resolve("ksql.cast.strings.preserve.nulls", props, default=True)),
                       nested_errors_null=as_bool(resolve("ksql.nested.error.set.null", props, default=True)))


# the constant every row of a push query's aggregation without GROUP BY is grouped by (ksqlDB groups by a
# constant too; the result key is never shown)
IMPLICIT_GROUP = exp.Literal.string("")


def analyze_query(query: Query, catalog: Catalog, session: SessionState, *, sink_name: str | None,
                  persistent: bool, sql: str = "", sink_timestamp: str | None = None,
                  ctx: BindContext | None = None, pull: bool = False, implicit_group: bool = False,
                  base: Join | None = None, source_columns: frozenset[str] = frozenset(),
                  partition_by_written: list[exp.Expression] | None = None) -> Sink:
    """The logical plan of ``query`` (``ksqlpy.plan.logical``). ``catalog``: the sources; ``session``: the
    engine's functions, the statement's properties, custom types; ``pull``: a pull query; ``base``: the
    join the query reads (its FROM clause analysed by ``analysis.joins``, whose result ``catalog`` shows as
    a source). Expression errors follow ksqlDB's stages: typing errors as each clause is planned,
    code-generation errors (held in ``ctx``) once every clause is typed. ``implicit_group``: a push query,
    where aggregates without GROUP BY make one group of the whole input (ksqlDB's
    ``Analyzer.addDummyGroupbyForUdafs``); elsewhere they are an error. ``partition_by_written``: a join's
    PARTITION BY expressions qualified by their sources, as messages name them (``query`` has them over the
    joined row's columns)."""
    sources = [catalog.source(r.name) for r in [query.source, *(j.right for j in query.joins)]]
    if base is None and all(sources):
        # ksqlDB's sanitizer, once its DataSourceExtractor has found every source (an unknown one is
        # reported first, by _analyze); a join's rewritten query was checked as written
        rejections.check_lambdas_enabled(query, session.properties)
        names = frozenset(c.name for src in sources if src is not None for c in src.columns)
        rejections.check_lambda_arguments(query, names)
    if ctx is None:
        ctx = bind_context(session, interpreted=pull)
    kind = QueryKind.PERSISTENT if persistent else QueryKind.PULL if pull else QueryKind.PUSH
    plan = _analyze(query, catalog, session, sink_name=sink_name, kind=kind, sql=sql,
                    sink_timestamp=sink_timestamp, ctx=ctx, base=base, implicit_group=implicit_group,
                    source_columns=source_columns, partition_by_written=partition_by_written)
    agg = plan.find(Aggregate)
    rejections.check_emit_final(query, agg is not None and agg.window is not None, session.properties)
    ctx.check()
    if kind is QueryKind.PULL:
        _check_pull(plan)
    return plan


def check_analysis(query: Query, catalog: Catalog, session: SessionState, *, pull: bool) -> None:
    """The rules of a pull query's analysis alone (a join's: ``analysis.joins``) - ksqlDB's QueryAnalyzer: its
    sources, every column a clause names, the clause rules - and none of logical planning's (typing WHERE and the select items,
    resolving functions, the projection's schema). What a server checks before a pull query meets the
    host's limits and ``ksql.pull.queries.enable``, which ksqlDB's QueryExecutor checks between the two (from
    memory of QueryExecutor.handleQuery: analyzeQueryWithNoOutputTopic, the switch, handleTablePullQuery's
    limits, then executeTablePullQuery plans)."""
    sources = [catalog.source(r.name) for r in [query.source, *(j.right for j in query.joins)]]
    if all(sources):
        rejections.check_lambdas_enabled(query, session.properties)
        rejections.check_lambda_arguments(query, frozenset(c.name for s in sources if s is not None
                                                           for c in s.columns))
    source = sources[0]
    if source is None:
        raise KsqlStatementError(at(query.source, f"{query.source.name} does not exist."
                                    f"{did_you_mean(catalog, query.source.name)}"))
    if query.joins:  # a join's analysis is its own (analysis.joins)
        from ksqlpy.analysis.joins import check_pull_join_analysis

        check_pull_join_analysis(query, catalog, session, interpreted=pull)
        return
    if query.where is not None:
        query = dataclasses.replace(query, where=iso_time_literals(query.where))
    ctx = bind_context(session, interpreted=pull)
    scope = scope_for(input_schema(source, offsets=offsets_enabled(session.properties)),
                      query.source.alias or source.name)
    _analysis_rules(query, source, session, ctx, scope, persistent=False, base=None, pull=True)


def _analysis_rules(query: Query, source: Source, session: SessionState, ctx: BindContext, in_scope: Scope, *,
                    persistent: bool, base: Join | None, pull: bool) -> Query:
    """Analysis's rules over one source's row, in ksqlDB's order, before logical planning types WHERE; the
    query with its ``struct->*`` items expanded. ``pull``: a pull query, whose validator's own rules come before
    the pseudo-column clash (checked by ``engine.pull``)."""
    registry = ctx.registry
    query = expand_struct_stars(query, in_scope, ctx)
    if base is None:  # a join's select items were checked as its FROM clause was read
        reserved = reserved_names(session.properties)
        rejections.check_select_items(query, registry, reserved, join=False, persistent=persistent)
    _check_column_references(query, in_scope)
    if query.where is not None:
        if source.windowed is None:  # an unknown column is reported before an aggregate in WHERE
            bound = next((c for c in query.where.find_all(exp.Column, bfs=False)
                          if not c.table and c.name.upper() in WINDOW_COLUMNS), None)
            if bound is not None:
                raise KsqlStatementError(f"Error in WHERE expression: Unknown column {bound.name.upper()}.")
        _check_no_aggregates(query.where, "WHERE", registry)
    # the rest of analysis (SELECT's table functions, the KAFKA format's GROUP BY, PushQueryValidator's windowed
    # table) comes before logical planning types WHERE
    rejections.check_table_functions(query, registry)
    if query.group_by or has_aggregate(query, registry):
        check_group_by_format(source, query.source.alias or source.name)
    rejections.check_windowed_table(source, persistent=persistent)
    if not pull:
        # PushQueryValidator (from memory): after the persistent-over-windowed-table refusal, its
        # validateNoUserColumnsWithSameNameAsPseudoColumns - once every column is resolved
        check_queryable([c.name for c in source.columns], session.properties)
    return query


def _analyze(query: Query, catalog: Catalog, session: SessionState, *, sink_name: str | None, kind: QueryKind,
             sql: str, sink_timestamp: str | None, ctx: BindContext, base: Join | None,
             implicit_group: bool = False, source_columns: frozenset[str] = frozenset(),
             partition_by_written: list[exp.Expression] | None = None) -> Sink:
    persistent = kind is QueryKind.PERSISTENT
    source = catalog.source(query.source.name)
    if source is None:
        raise KsqlStatementError(at(query.source, f"{query.source.name} does not exist."
                                    f"{did_you_mean(catalog, query.source.name)}"))
    if query.partition_by_written and not query.partition_by:
        raise KsqlStatementError("PARTITION BY requires at least one expression")
    if query.where is not None:
        query = dataclasses.replace(query, where=iso_time_literals(query.where))
    if query.joins:
        from ksqlpy.analysis.joins import analyze_join_query

        return analyze_join_query(query, catalog, session, sink_name=sink_name, persistent=persistent, sql=sql,
                                  sink_timestamp=sink_timestamp, ctx=ctx, pull=kind is QueryKind.PULL,
                                  implicit_group=implicit_group)
    alias = query.source.alias or source.name
    schema = input_schema(source, offsets=offsets_enabled(session.properties))
    in_scope = scope_for(schema, alias)
    registry = ctx.registry
    query = _analysis_rules(query, source, session, ctx, in_scope, persistent=persistent, base=base,
                            pull=kind is QueryKind.PULL)
    where = bind_filter(query.where, in_scope, ctx, Clause.WHERE) if query.where is not None else None
    node: PlanNode
    if base is None:
        node = Scan(schema, source, alias)
    else:  # the join's result is the source: its row is the one the rest of the query reads
        base.schema, base.virtual = schema, source
        node = base
    if where is not None:
        node = Filter(schema, node, where)

    taken = {c.name for c in schema.columns}
    source_names = set(taken)
    # a join's sources keep their own column names for this (ksqlDB's generator skips the KSQL_COL_n
    # names of every source schema, not of the joined row's ALIAS_COL names)
    gen = AliasGenerator(taken | source_columns)
    # ksqlDB names unnamed select items KSQL_COL_n in select order, before naming keys
    item_names: dict[int, str] = {}
    field_names: set[str] = set()  # the names unaliased struct fields took so far
    for i, item in enumerate(query.select):
        if not is_star(item.expr):
            name = item.alias if item.alias is not None else natural_name(item.expr)
            if name is not None and item.alias is None and isinstance(item.expr, Dereference):
                # ksqlDB's alias generator (AstSanitizer, from memory) names an unaliased struct field by the
                # field, made unique against the source columns and the fields named before it (B, B_1, ...;
                # ITEMID->ITEMID is ITEMID_1); a plain column keeps its own name - a repeated one is the
                # schema's "Duplicate value columns" error, in every kind of query
                base, k = name, 0
                while name in source_names or name in field_names:
                    k += 1
                    name = f"{base}_{k}"
                field_names.add(name)
            item_names[i] = name if name is not None else gen.next()

    key_names_taken: set[str] = set()

    def key_name(e: exp.Expression) -> str:
        """A GROUP BY / PARTITION BY expression's key column: a column keeps its name; another expression
        takes the name of an identical select item (ksqlDB's LogicalPlanner.buildAggregateSchema, from
        memory), else a struct field is named by the field made unique against the source's columns and the
        keys named before it (ksqlDB's key alias generator: S1->F, S2->F are F and F_1 - two keys never share
        a name), else a generated KSQL_COL_n."""
        natural = natural_name(e)
        if natural and not isinstance(e, Dereference):
            name = natural
        else:
            name = next((item_names[i] for i, item in enumerate(query.select)
                         if i in item_names and same_expression(item.expr, e, in_scope, ctx)), None)
            if name is None and natural:
                name, k = natural, 0
                while name in source_names or name in key_names_taken:
                    k += 1
                    name = f"{natural}_{k}"
            if name is None:
                name = gen.next()
        key_names_taken.add(name)
        return name

    rekey = None
    rekey_written: list[exp.Expression] = []
    proj_schema = schema
    key_exprs: list[exp.Expression] = [exp.column(c.name) for c in source.key_columns]
    select_items: list[tuple[exp.Expression, str | None]] | None = None

    rejections.check_window(query, registry)
    if query.partition_by and rejections.keeps_key(query.partition_by, source) and (
            source.kind == "TABLE" or source.windowed is not None):
        query = dataclasses.replace(query, partition_by=[])  # the key it already has: nothing to re-key
    if query.partition_by and (query.group_by or has_aggregate(query, registry)):
        # ksqlDB's LogicalPlanner (from memory) puts PARTITION BY (UserRepartitionNode) on the input, before
        # the aggregation - explicit GROUP BY or the one an aggregate without it implies - so its rules hold
        # (columns of the input, no aggregate, a table or windowed source cannot be re-keyed) but the rows'
        # grouping re-keys them again: the aggregation reads the input row as it would without it (the GROUP
        # BY and aggregate arguments name the input's columns; ColumnReferenceValidator resolves them there)
        _plan_rekey(query.partition_by, node, alias, ctx, lambda e: natural_name(e) or "")
        rejections.check_repartition(query.partition_by, source, ctx,
                                     key_name=join_key_column(base) if isinstance(base, Join) else None)
        query = dataclasses.replace(query, partition_by=[])
    if query.partition_by:
        rekey, rekey_written = _plan_rekey(query.partition_by, node, alias, ctx, key_name)
        rejections.check_repartition(query.partition_by, source, ctx,
                                     key_name=join_key_column(base) if isinstance(base, Join) else None)
        node = rekey
        proj_schema = rekey.schema
        key_exprs = [] if not rekey.names else [exp.column(n) for n in rekey.names]
        # select items referring to the partitioning expression are the new key columns
        select_items = [(_replace_exprs(item.expr, rekey, rekey_written, in_scope, ctx), item.alias)
                        for item in query.select]

    aggregation = None
    if query.group_by or has_aggregate(query, registry):
        if not query.group_by and implicit_group and not persistent:
            query = dataclasses.replace(query, group_by=[IMPLICIT_GROUP.copy()])
        names = [key_name(g) for g in query.group_by]
        aggregation, key_exprs, agg_items = plan_aggregation(query, source, node, alias, session, names, ctx)
        aggregation.repartition = group_by_repartition(aggregation.group_by, node,
                                                       _plain_columns(query, in_scope, ctx) if base else ())
        node = aggregation
        proj_schema = aggregation.schema
        select_items = agg_items

    items = _expand_select(query, proj_schema, alias, source, select_items, transient=not persistent)
    rejections.check_table_function_source(query, source, registry)
    if ctx.projection:  # a join's key missing from its projection or selected twice
        raise ctx.projection[0]

    proj_scope = scope_for(proj_schema, alias)
    key_refs = [try_bind(k, proj_scope, ctx) for k in key_exprs]
    table_functions: list[B.Call] = []
    key_cols: list[tuple[int, OutputColumn]] = []
    value_cols: list[OutputColumn] = []
    used_keys: set[int] = set()
    names_seen: set[str] = set()
    printed: list[tuple[str, str]] = []
    for e, given, index in items:
        name = item_names.get(index) if index is not None else None
        if name is None:  # an empty quoted alias (``AS `` ``) is a name: ksqlDB's ColumnName of ""
            name = given if given is not None else (natural_name(e) or gen.next())
        written = query.select[index].expr if index is not None else e
        printed.append((format_expression(qualified(written, alias)), name))
        be = bind(e, proj_scope, ctx, Clause.SELECT, table_functions=True)
        table_functions += [n for n in be.walk() if isinstance(n, B.Call) and n.fn.kind is B.FunctionKind.TABLE
                            and n not in table_functions]
        t = be.type
        if isinstance(t, T.NullType):
            # every query refuses a projected expression without a type. ksqlDB's FinalProjectNode (persistent
            # and conventional push queries, SelectionUtil) says so in these words; a table pull query's and a
            # scalable push query's QueryProjectNode builds its schema column by column and fails at the
            # column's type (Column's requireNonNull(type, "type"), whose message "type" EngineExecutor
            # rethrows as the statement's error - from memory): the same refusal, given here in the clear words
            raise KsqlStatementError("Can't infer a type of null. Please explicitly cast it to a required type, "
                                     "e.g. CAST(null AS VARCHAR).")
        key_index = next((i for i, k in enumerate(key_refs) if i not in used_keys and k == be), None)
        col = OutputColumn(name, t, be)
        if key_index is None and persistent:
            dup = next((c for i, c in key_cols if key_refs[i] == be), None)
            if dup is not None and isinstance(be, B.ColumnRef):
                if aggregation is not None:
                    raise KsqlStatementError(f"The projection contains a key column more than once: `{dup.name}` and "
                                             f"`{name}`.")
                raise KsqlStatementError(rejections.key_more_than_once(be.name, dup.name, name))
        if key_index is not None and persistent:
            if name in names_seen:
                # ksqlDB types every SELECT item as a value column of the projection before it moves the key
                # columns out (the visible "Duplicate value columns found in schema: `COUNT` BIGINT" for
                # `DATA AS COUNT, COUNT(*) AS COUNT`): a key column named like an earlier item is that error too
                raise KsqlStatementError(f"Duplicate value columns found in schema: `{name}` {t}")
            used_keys.add(key_index)
            key_cols.append((key_index, col))
        else:
            if name in names_seen:
                raise KsqlStatementError(f"Duplicate value columns found in schema: `{name}` {t}")
            value_cols.append(col)
        names_seen.add(name)
    key_cols_sorted = [c for _, c in sorted(key_cols, key=lambda p: p[0])]

    if persistent and sink_name is not None:
        missing = [k for i, k in enumerate(key_exprs) if i not in used_keys]
        if sink_timestamp is not None and sink_timestamp not in names_seen:
            raise KsqlStatementError(f"The TIMESTAMP column set in the WITH clause does not exist in the schema: "
                                     f"'{sink_timestamp}'")
        if missing:
            # ksqlDB names every key expression when any is missing (only the missing ones for GROUP BY)
            if aggregation is None:
                missing = list(key_exprs)
            else:  # named as written in GROUP BY, not by the generated key column names
                missing = [g for i, g in enumerate(query.group_by) if i not in used_keys]
            if rekey is not None:
                # ksqlDB's UserRepartitionNode names its original (sanitized) expressions, not the ones
                # rewritten over a join's columns
                missing = (partition_by_written if partition_by_written is not None
                           else [qualified(x, alias) for x in rekey_written])
            _missing_key_error(sink_name, missing, aggregation is not None, rekey is not None)
        if not value_cols:
            raise KsqlStatementError("The projection contains no value columns.")
    if table_functions:
        node = FlatMap(node.schema, node, table_functions)
    key_cols = [OutputColumn(c.name, c.type, c.expr) for c in key_cols_sorted]
    out_schema = RowSchema([SchemaColumn(c.name, c.type, ColumnRole.KEY) for c in key_cols]
                           + [SchemaColumn(c.name, c.type, ColumnRole.VALUE) for c in value_cols])
    project = Project(out_schema, node, key_cols, value_cols, printed,
                      printed_select=_printed_select(query, printed, [index for _, _, index in items]))
    return Sink(out_schema, project, kind, registry, name=sink_name, emit=EmitMode(query.emit) if query.emit else None,
                limit=query.limit, sql=sql)


def _printed_select(query: Query, printed: list[tuple[str, str]], indexes: list[int | None]) -> list[str]:
    """The select items as ksqlDB's sanitized statement prints them: each written item with its name, a
    ``*`` as written (the sanitizer does not expand it)."""
    named = {i: f"{text} {quote_ident(name)}" for (text, name), i in zip(printed, indexes, strict=True) if i is not None}
    out = []
    for i, item in enumerate(query.select):
        if is_star(item.expr):
            out.append(format_expression(item.expr))
        elif i in named:
            out.append(named[i])
        else:
            return []  # an item the analysis left out: no text to print
    return out


def _check_pull(plan: Sink) -> None:
    """A repeated column name in a pull query's projection (its QueryProjectNode keeps key columns as
    values: the check above sees keys apart). (How a pull query reads its table is decided once the table
    is known to be queryable: ``plan.pull_access``.)"""
    seen: set[str] = set()
    for c in plan.project.value:  # the items as analysed: a struct's ``->*`` is its fields, named unique
        if c.name in seen:
            raise KsqlStatementError(f"Duplicate value columns found in schema: `{c.name}` {c.type}")
        seen.add(c.name)


def _missing_key_error(sink: str, missing: list[exp.Expression], grouping: bool, rekey: bool) -> None:
    texts = [format_expression(m if rekey else strip_qualifiers(m)) for m in missing]
    if grouping:
        what = "grouping expression" if len(texts) == 1 else "grouping expressions"
    elif rekey:
        what = "partitioning expression" if len(texts) == 1 else "partitioning expressions"
    else:
        what = "key column" if len(texts) == 1 else "key columns"
    joined = texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]
    keys = "Key" if len(texts) == 1 else "Keys"
    raise KsqlStatementError(f"{keys} missing from projection (ie, SELECT). \nThe query used "
                             f"to build `{sink}` must include the {what} {joined} in its projection (eg, SELECT {', '.join(texts)}...).")


def _plan_rekey(exprs: list[exp.Expression], node: PlanNode, alias: str, ctx: BindContext,
                key_name: Callable[[exp.Expression], str]) -> tuple[Rekey, list[exp.Expression]]:
    """PARTITION BY over ``node``'s row, and the partitioning expressions as written."""
    schema = node.schema
    scope = scope_for(schema, alias)
    if not exprs:
        raise KsqlStatementError("PARTITION BY requires at least one expression")
    if len(exprs) > 1 and any(isinstance(e, exp.Null) for e in exprs):
        raise KsqlStatementError("Cannot PARTITION BY multiple columns including NULL")
    names: list[str] = []
    types: list[T.SqlType] = []
    kept: list[B.Expr] = []
    written: list[exp.Expression] = []
    if not (len(exprs) == 1 and isinstance(exprs[0], exp.Null)):
        for e in exprs:
            _check_no_aggregates(e, "PARTITION BY", ctx.registry)
            missing = next((c for c in e.find_all(exp.Column)
                            if not isinstance(c.this, exp.Star) and scope.lookup(c.name, c.table or None) is None
                            and not lambda_parameter(c)), None)
            if missing is not None:
                raise KsqlStatementError(at(missing,
                    f"PARTITION BY column '{missing.name}' cannot be resolved. '{missing.name}' must be a column in "
                    "the source schema since PARTITION BY is applied on the input."))
            be = bind(e, scope, ctx, Clause.PARTITION_BY)
            names.append(key_name(e))
            types.append(be.type)
            kept.append(be)
            written.append(e)
    new_keys = [SchemaColumn(n, t, ColumnRole.KEY) for n, t in zip(names, types, strict=True)]
    values = [c for c in schema.by_role(ColumnRole.VALUE) if c.name not in names]
    old_keys = [SchemaColumn(c.name, c.type, ColumnRole.VALUE) for c in schema.by_role(ColumnRole.KEY)
                if c.name not in names]
    # a header column PARTITIONed BY is the key from here on, as a value column is (ksqlDB's source row carries
    # header columns among its values, and UserRepartitionNode's SELECT * leaves the new key names out of them)
    rest = [c for c in schema.by_role(ColumnRole.HEADER) if c.name not in names]
    rest += schema.by_role(ColumnRole.SYSTEM, ColumnRole.WINDOW)
    # ksqlDB's repartitionNeeded: PARTITION BY exactly the input's key columns, in order, keeps every record
    # where it is (and a null Kafka key stays null); anything else re-keys
    keys = schema.key_positions()
    same_key = bool(keys) and [e.index if isinstance(e, B.ColumnRef) else None for e in kept] == keys
    rekey = Rekey(RowSchema(new_keys + values + old_keys + rest), node, kept, names, types, repartition=not same_key)
    return rekey, written


def _check_column_references(query: Query, scope: Scope) -> None:
    """ksqlDB's ColumnReferenceValidator: every column a clause names exists, checked for all clauses
    (WHERE, GROUP BY, PARTITION BY, HAVING, SELECT) before any expression is typed. WINDOWSTART/WINDOWEND are
    columns of the schema it validates against when the source is windowed (then ``scope`` has them) or the
    query has a WINDOW clause (ksqlDB's ``Analysis.getFromSourceSchemas``: a windowed aggregation's source
    schema carries the bounds; the later stages - WHERE typing, AggregateAnalyzer - refuse them where they
    are not allowed); otherwise they cannot be resolved in any clause, as any unknown column."""
    clauses = [("WHERE", [query.where] if query.where is not None else []), ("GROUP BY", query.group_by),
               ("PARTITION BY", query.partition_by), ("HAVING", [query.having] if query.having is not None else []),
               ("SELECT", [i.expr for i in query.select])]
    for clause, exprs in clauses:
        for e in exprs:
            lambdas = e.find(exp.Lambda) is not None  # else no column is a lambda's (no walk up per column)
            for col in e.find_all(exp.Column):
                if isinstance(col.this, exp.Star) or (lambdas and lambda_parameter(col)):
                    continue
                if col.name in WINDOW_COLUMNS and query.window is not None:
                    continue
                if scope.lookup(col.name, col.table or None) is None:
                    full = f"{col.table}.{col.name}" if col.table else col.name
                    detail = (f" '{col.name}' must be a column in the source schema since PARTITION BY is applied "
                              "on the input." if clause == "PARTITION BY" else "")
                    raise KsqlStatementError(at(col, f"{clause} column '{full}' cannot be resolved.{detail}"))


def _replace_exprs(e: exp.Expression, rekey: Rekey, written: list[exp.Expression], scope: Scope,
                   ctx: BindContext) -> exp.Expression:
    """Replace (sub)expressions equal to a PARTITION BY expression by a reference to its key column."""
    keys = [(x, n) for x, w, n in zip(rekey.exprs, written, rekey.names, strict=True) if not isinstance(w, exp.Column)]
    if not keys or is_star(e):
        return e

    def key_of(node: exp.Expression) -> str | None:
        b = try_bind(node, scope, ctx)
        return next((n for x, n in keys if x == b), None) if b is not None else None

    root = key_of(e)
    if root is not None:
        return exp.column(root)

    def fn(node: exp.Expression) -> exp.Expression:
        if isinstance(node, (exp.Literal, exp.Boolean, exp.Null)):
            return node
        name = key_of(node)
        return exp.column(name) if name is not None else node

    return e.copy().transform(fn)


def _star_columns(schema: RowSchema, source: Source, transient: bool) -> list[str]:
    """What ``*`` expands to: keys, then (for push and pull queries on windowed data) WINDOWSTART and
    WINDOWEND, then the value columns and after them the header columns, each in their declared order - a
    header column declared between value columns comes after them (ksqlDB's source row is the value
    columns with the header columns appended, ``SourceBuilderUtils.AddKeyAndPseudoColumns``, and
    ``DataSourceNode.resolveSelectStar`` lists that row's columns; from memory)."""
    keys = [c.name for c in schema.by_role(ColumnRole.KEY)]
    window = [c.name for c in schema.by_role(ColumnRole.WINDOW)] if transient else []
    rest = {c.name for c in schema.by_role(ColumnRole.VALUE, ColumnRole.HEADER)}
    declared = [c.name for c in source.value_columns + source.header_columns if c.name in rest]
    others = [c.name for c in schema.by_role(ColumnRole.VALUE, ColumnRole.HEADER) if c.name not in declared]
    return keys + window + declared + others


def _expand_select(query: Query, schema: RowSchema, alias: str, source: Source,
                   rewritten: list[tuple[exp.Expression, str | None]] | None, transient: bool = False,
                   ) -> list[tuple[exp.Expression, str | None, int | None]]:
    """Select items as (expression, alias, index of the select item or None for a '*' expansion)."""
    out: list[tuple[exp.Expression, str | None, int | None]] = []
    for i, item in enumerate(query.select):
        e = item.expr
        if is_star(e):
            qual = e.table if isinstance(e, exp.Column) else None
            if qual and qual not in (alias, source.name):
                raise KsqlStatementError(f"'{qual}' is not a valid stream/table name or alias.")
            if rewritten is not None and query.group_by:
                continue  # handled below from the rewritten list
            for name in _star_columns(schema, source, transient):
                out.append((exp.column(name), None, None))
            continue
        if isinstance(e, Dereference) and e.args["field"] == "*":  # left by expand_struct_stars
            raise KsqlStatementError("Unsupported: struct->* of an aggregate in SELECT")
        if rewritten is not None and not query.group_by:
            e = rewritten[i][0]
        out.append((e, item.alias, i))
    if rewritten is not None and query.group_by:
        # aggregation: items were rewritten onto the post-aggregation schema ('*' expanded to keys)
        out = []
        idx = 0
        for i, item in enumerate(query.select):
            if is_star(item.expr):
                for _ in schema.by_role(ColumnRole.KEY):
                    out.append((rewritten[idx][0], None, None))
                    idx += 1
            else:
                out.append((rewritten[idx][0], item.alias, i))
                idx += 1
    return out


def _check_no_aggregates(e: exp.Expression, clause: str, registry: FunctionRegistry) -> None:
    for f in e.find_all(FunctionCall):
        if registry.kind_of(f.fname) == "aggregate":
            raise KsqlStatementError(f"{clause} does not support aggregate functions: {f.fname} is an aggregate function.")


def _plain_columns(query: Query, scope: Scope, ctx: BindContext) -> set[str]:
    """The input-row columns the SELECT names as plain column references (a star: all of them) - what
    ksqlDB's ``Projection.containsExpression`` finds when it names a join's key column."""
    out: set[str] = set()
    for item in query.select:
        e = item.expr
        if is_star(e):
            out |= set(scope.columns)
        elif isinstance(e, exp.Column):
            bound = try_bind(e, scope, ctx)
            if isinstance(bound, B.ColumnRef):
                out.add(bound.name)
    return out
