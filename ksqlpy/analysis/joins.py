"""Analysis of queries whose FROM clause is a join.

A join of n sources is a left-deep tree of binary steps ``((s0 J s1) J s2) ...``. For each step this
module checks what ksqlDB checks (join order and type, WITHIN, primary keys, key types, windowing,
co-partitioning), decides which sides are repartitioned and in which key format, and names the
step's key. The result of the whole join is then presented as one virtual source (the join key
columns followed by every source's block of ``ALIAS_COL`` columns), and the rest of the query -
WHERE, PARTITION BY, GROUP BY, HAVING, the projection - is analyzed by the single-source analyzer
over it: the plan's chain reads the join's subtree (``ksqlpy.plan.logical.Join``).

The parts live by idea: the ON clause in ``join_criteria``, the n-way tree in ``join_tree``, a step's inputs
in ``join_inputs``, its key and key names in ``join_key_naming``, the per-step checks in ``join_checks``,
the SELECT list in ``join_projection``; this module runs the steps in ksqlDB's order and builds the result.

Beyond ksqlDB, when ``ksqlpy.join.multi.condition.enabled`` is set: ``ON a.x = b.x AND a.y = b.y`` joins on
the composite key (x, y); by default such criteria are refused as ksqlDB refuses them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlglot import exp

from ksqlpy.analysis.aggregates import has_aggregate
from ksqlpy.analysis.join_checks import (
    check_foreign_key_join,
    check_key_type,
    check_windows,
    check_within,
    join_key_column,
    table_rekey_refusal,
)
from ksqlpy.analysis.join_criteria import (
    MULTI_CONDITION_PROPERTY,
    Condition,
    join_conditions,
    type_condition,
    unparen,
)
from ksqlpy.analysis.join_inputs import StepInput, leaf_input
from ksqlpy.analysis.join_key_naming import final_key, keyed, order_by_key, step_keys
from ksqlpy.analysis.join_keys import KeyBinder
from ksqlpy.analysis.join_projection import plan_select
from ksqlpy.analysis.join_scope import JoinScope, block_columns, check_clause_columns, text
from ksqlpy.analysis.join_text import printed_join_query
from ksqlpy.analysis.join_tree import build_join_tree, flip
from ksqlpy.analysis.kafka_value_format import is_kafka_value_format, kafka_value_format_refusal
from ksqlpy.analysis.pseudo_columns import check_queryable, offsets_enabled, reserved_names
from ksqlpy.analysis.query_rejections import check_select_items
from ksqlpy.analysis.scope import scope_for
from ksqlpy.analysis.source_hints import did_you_mean
from ksqlpy.catalog import Catalog, Column, Source
from ksqlpy.errors import KsqlStatementError, at
from ksqlpy.expr.binder import bind
from ksqlpy.expr.stages import BindContext, Clause
from ksqlpy.grammar.ast import JoinClause, Query, SourceRef
from ksqlpy.plan.logical import (
    Join,
    JoinFlavor,
    JoinKind,
    ResultKind,
    RowSchema,
    Scan,
    SchemaColumn,
    Sink,
)
from ksqlpy.plan.partitioning import join_repartitions
from ksqlpy.plan.rules import JOIN_KEY_FORMAT_HOLDS_KEY
from ksqlpy.properties import as_bool
from ksqlpy.session_state import SessionState

JOIN_TEXT = {JoinKind.INNER: "[INNER] JOIN", JoinKind.LEFT: "LEFT [OUTER] JOIN", JoinKind.RIGHT: "RIGHT [OUTER] JOIN",
             JoinKind.FULL: "[FULL] OUTER JOIN"}


def analyze_join_query(query: Query, catalog: Catalog, session: SessionState, *, sink_name: str | None,
                       persistent: bool, sql: str = "", ctx: BindContext | None = None, **options: Any) -> Sink:
    from ksqlpy.analysis.query import analyze_query, bind_context

    if ctx is None:
        ctx = bind_context(session)

    read = _analyze_from(query, catalog, session, ctx, persistent=persistent)
    leaves, scope, typing_scope, keys_of = read.leaves, read.scope, read.typing_scope, read.keys_of
    conditions, all_columns = read.conditions, read.all_columns
    root_leaf, placed = build_join_tree(conditions, leaves)
    written = leaves
    leaves = [written[root_leaf]] + [written[p.leaf] for p in placed]  # the join tree's order, left to right
    current = leaf_input(leaves[0], catalog, keys_of)
    nodes: list[Join] = []
    step_conds: list[list[Condition]] = []
    for p in placed:
        jc, conds = query.joins[p.join], conditions[p.join]
        if p.flipped:
            jc, conds = flip(jc, conds)
        right = leaf_input(written[p.leaf], catalog, keys_of)
        node, current, conds = _step(jc, conds, current, right, scope, typing_scope, session, all_columns, ctx,
                                     n_way=isinstance(current.node, Join))
        nodes.append(node)
        step_conds.append(conds)
    for depth, node in enumerate(reversed(nodes)):
        node.context = "L_" * depth
    root = nodes[-1]

    if root.result_kind is ResultKind.TABLE and query.partition_by:
        # by the join's own key: nothing to re-key (else refused once the rest of the query is planned), also
        # before a GROUP BY
        by = [scope.rewrite(p, "PARTITION BY") for p in query.partition_by]
        if _partitions_by_join_key(by, root):
            query = replace(query, partition_by=[])
    keys, key_columns = final_key(current, root)
    for k in keys:
        if k.synthetic:
            scope.extra[k.column] = k.column
    _inner_synthetic_keys(nodes[:-1], step_conds, scope)
    offset = len(key_columns)
    for lf in leaves:
        lf.offset = offset
        offset += len(lf.columns)
    virtual = _virtual_source(leaves, root, key_columns, current, written[0].source)
    root.from_source = written[0].source
    keyed = not query.group_by and not query.partition_by and not has_aggregate(query, session.functions)
    fk_left = leaves[0].alias if root.flavor is JoinFlavor.FOREIGN_KEY else None
    select = plan_select(query, scope, keys_of, leaves, keys, sink_name=sink_name, persistent=persistent,
                         keyed=keyed, foreign_key_left=fk_left, held=ctx.projection)
    partition_by = [scope.rewrite(p, "PARTITION BY") for p in query.partition_by]
    rewritten = Query(
        select=select, source=SourceRef(virtual.name), joins=[], window=query.window,
        where=scope.rewrite(query.where, "WHERE") if query.where is not None else None,
        group_by=[scope.rewrite(g, "GROUP BY") for g in query.group_by],
        partition_by=partition_by,
        having=scope.rewrite(query.having, "HAVING") if query.having is not None else None,
        emit=query.emit, limit=query.limit,
    )
    plan = analyze_query(rewritten, _Overlay(catalog, virtual), session, sink_name=sink_name, persistent=persistent,
                         sql=sql, ctx=ctx, base=root, source_columns=frozenset(all_columns),
                         partition_by_written=[scope.qualify(p, "PARTITION BY") for p in query.partition_by],
                         **options)
    printed = printed_join_query(query, scope, leaves, keys, [name for _, name in plan.project.printed])
    if printed is not None:
        plan.project.printed, plan.project.printed_from = printed
    return plan


# --------------------------------------------------------------------------- sources


@dataclass
class _FromClause:
    """What the Analyzer read of a join query (its FROM clause and the clauses' columns), for the planning."""

    leaves: list[Scan]
    scope: JoinScope
    typing_scope: Any
    keys_of: KeyBinder
    conditions: list[list[Condition]]
    all_columns: set[str]


def check_pull_join_analysis(query: Query, catalog: Catalog, session: SessionState, *, interpreted: bool) -> None:
    """The rules of a pull query's join analysis alone (ksqlDB's Analyzer: the sources, each join's criteria and
    windowing, the SELECT items, every clause's columns, the KAFKA value format), none of the logical
    planner's (join order, types, keys): what comes before its refusal of the JOIN (PullQueryValidator runs on
    the Analyzer's result). ``interpreted``: a table's pull query (see ``bind_context``)."""
    from ksqlpy.analysis.query import bind_context

    _analyze_from(query, catalog, session, bind_context(session, interpreted=interpreted), persistent=False,
                  pull=True)


def _analyze_from(query: Query, catalog: Catalog, session: SessionState, ctx: BindContext, *, persistent: bool,
                  pull: bool = False) -> _FromClause:
    """The Analyzer's stage of a join query, in its order (see ``analyze_join_query``); ``pull``: a pull query,
    whose SELECT has no synthetic join key to name."""
    leaves = _resolve_leaves(query, catalog)
    scope = JoinScope([(lf.source, lf.alias) for lf in leaves], offsets=offsets_enabled(session.properties))
    scope.check_ambiguity(sanitized_expressions(query))
    all_columns = {c.name for lf in leaves for c in lf.source.columns}
    joined_schema = RowSchema([c for lf in leaves for c in lf.columns])
    typing_scope = scope_for(joined_schema)
    keys_of = KeyBinder(scope, typing_scope, ctx)

    # every condition's sources are checked before any join's semantics, as ksqlDB does
    multi_condition = as_bool(session.properties.get(MULTI_CONDITION_PROPERTY, False))
    conditions = []
    # ksqlDB's Analyzer.visitJoinedSource, JoinTree, LogicalPlanner.verifyJoin and JoinNode throw plain
    # KsqlExceptions: their messages say nothing of where in the text the join is (from memory)
    for i, jc in enumerate(query.joins):
        conditions.append(join_conditions(jc.on, scope, keys_of, leaves[i + 1].alias,
                                          multi_condition=multi_condition))
    windowed_table = persistent and any(lf.source.kind == "TABLE" and lf.source.windowed is not None
                                        for lf in leaves)
    # ksqlDB's Analyzer refuses incompatibly windowed sources once it has read the FROM clause (every side
    # against the FROM source: compatibility is an equivalence, so no later step's check can fail)
    for lf in leaves[1:]:
        check_windows(leaves[0].source, lf.source)
    # then its SELECT items, before any clause's column references
    check_select_items(query, ctx.registry, reserved_names(session.properties), join=True, persistent=persistent)
    # ksqlDB's Analyzer resolves every clause's columns after the FROM clause, before the logical planner
    # builds the join tree and checks each join's order, type and keys
    check_clause_columns(query, scope, pull=pull)
    # then (its analysis of the sink's properties between) the sources' value formats, before the
    # push-query validator and any join's logical planning
    _check_value_formats(leaves)
    if windowed_table:
        # ksqlDB's PushQueryValidator: after the analyzer's checks of each join (windowing among them), before
        # logical planning, a persistent query reading any windowed table - joined or FROM - is refused
        raise KsqlStatementError("KSQL does not support persistent queries on windowed tables.")
    if not pull:  # then its pseudo-column clash (a pull query's validator refuses the JOIN first)
        for lf in leaves:
            check_queryable([c.name for c in lf.source.columns], session.properties)
    return _FromClause(leaves, scope, typing_scope, keys_of, conditions, all_columns)


def _resolve_leaves(query: Query, catalog: Catalog) -> list[Scan]:
    refs = [query.source] + [j.right for j in query.joins]
    leaves: list[Scan] = []
    seen: set[str] = set()
    for i, ref in enumerate(refs):
        source = catalog.source(ref.name)
        if source is None:
            raise KsqlStatementError(at(ref, f"{ref.name} does not exist.{did_you_mean(catalog, ref.name)}"))
        if ref.name in seen:
            if len(refs) == 2:
                raise KsqlStatementError(f"Can not join '{ref.name}' to '{ref.name}': self joins are not yet "
                                         "supported.")
            raise KsqlStatementError(f"N-way joins do not support multiple occurrences of the same source. "
                                     f"Source: '{ref.name}'.")
        seen.add(ref.name)
        alias = ref.alias or source.name
        leaves.append(Scan(RowSchema(block_columns(source, alias)), source, alias, index=i))
    return leaves


def sanitized_expressions(query: Query) -> list[exp.Expression]:
    """The query's expressions in the order ksqlDB's statement rewriter visits them: SELECT, the join criteria,
    WHERE, GROUP BY, PARTITION BY, HAVING."""
    out = [item.expr for item in query.select]
    out += [j.on for j in query.joins]
    out += [query.where] if query.where is not None else []
    out += [*query.group_by, *query.partition_by]
    out += [query.having] if query.having is not None else []
    return out


def _check_value_formats(leaves: list[Scan]) -> None:
    kafka = [lf.alias for lf in leaves if is_kafka_value_format(lf.source.value_format)]
    if kafka:
        raise kafka_value_format_refusal(kafka, "JOIN")


# --------------------------------------------------------------------------- one step


def _step(jc: JoinClause, conds: list[Condition], left: StepInput, right: StepInput, scope: JoinScope,
          typing_scope: Any, session: SessionState, all_columns: set[str], ctx: BindContext, *,
          n_way: bool) -> tuple[Join, StepInput, list[Condition]]:
    right_leaf = right.node
    assert isinstance(right_leaf, Scan)
    kind = JoinKind(jc.kind)
    described = f"{left.name} {JOIN_TEXT[kind]} {right.name}"
    if left.kind is ResultKind.TABLE and right.kind is ResultKind.STREAM:
        raise KsqlStatementError(f"Invalid join order: table-stream joins are not supported; only stream-table "
                                 f"joins. Got {described}.")
    if left.kind is ResultKind.STREAM and right.kind is ResultKind.TABLE and kind is JoinKind.FULL:
        raise KsqlStatementError(f"Invalid join type: full-outer join not supported for stream-table join. "
                                 f"Got {described}.")

    # the right side of a join with a table must be the table's primary key
    if right.kind is ResultKind.TABLE:
        conds = order_by_key(conds, right, left, described)
        left_keyed = len(left.classes) == len(conds) and all(
            c.left_key in cl for c, cl in zip(conds, left.classes, strict=False))
    else:
        left_keyed, conds = keyed(left, conds)
    right_keyed = [c.right_key for c in conds] == [cl[0] for cl in right.classes]
    for c in conds:
        type_condition(c, scope, typing_scope, ctx)
    if left.kind is ResultKind.STREAM and right.kind is ResultKind.STREAM:
        flavor = JoinFlavor.STREAM_STREAM
    elif left.kind is ResultKind.STREAM:
        flavor = JoinFlavor.STREAM_TABLE
    else:
        flavor = JoinFlavor.TABLE_TABLE if left_keyed else JoinFlavor.FOREIGN_KEY
    rekeyed_table = _on_own_source_key(conds, left) if flavor is JoinFlavor.FOREIGN_KEY else None
    if rekeyed_table is not None:
        flavor = JoinFlavor.TABLE_TABLE
    if flavor is JoinFlavor.FOREIGN_KEY:
        check_foreign_key_join(kind, described, [c.written for c in conds], n_way=n_way)
        if len(conds) != 1:
            raise KsqlStatementError("Invalid join condition: foreign-key table-table joins support a single "
                                     f"condition. Got {' AND '.join(c.written for c in conds)}.")
    for c in conds:
        if c.left_type != c.right_type:
            # the comparison as written, each side with its own type (the criteria may be written right side first)
            sides = ((c.left, c.left_type), (c.right, c.right_type))
            (a, ta), (b, tb) = sides if c.left_alias == c.sides[0] else sides[::-1]
            raise KsqlStatementError(f"Invalid join condition: types don't match. Got {text(a)}{{{ta}}} = "
                                     f"{text(b)}{{{tb}}}.")

    check_windows(left, right)
    if flavor is JoinFlavor.FOREIGN_KEY and (left.windowed is not None or right.windowed is not None):
        raise KsqlStatementError("Foreign-key table-table joins are not supported on windowed tables.")
    # a stream side not joined on its key must be re-keyed
    need_left = flavor in (JoinFlavor.STREAM_STREAM, JoinFlavor.STREAM_TABLE) and not left_keyed
    need_right = flavor is JoinFlavor.STREAM_STREAM and not right_keyed
    default = str(session.properties.get("ksql.persistence.default.format.key", "KAFKA")).upper()
    fmt, rep_left, rep_right, forced = join_repartitions(
        flavor, left.key_format, right.key_format, left_is_source=isinstance(left.node, Scan), need_left=need_left,
        need_right=need_right, default_format=default, right_key_types=right.key_types,
        key_types=[c.left_type for c in conds] if session.plan_rules >= JOIN_KEY_FORMAT_HOLDS_KEY else None)
    # the key format's full name comes with it, from the side whose format the step takes
    named = left if not need_left else right if not need_right else \
        next((s for s in (left, right) if s.key_format[0] != "NONE"), None)
    key_name = named.key_name if named is not None and named.key_format == fmt else None
    # ksqlDB finds these while building the physical plan (``JoinNode.buildStream``, from memory): the sides'
    # partition counts, then the joiner of the kind's WITHIN (its presence, then the window Kafka builds of it),
    # each side's re-keying (``SchemaKStream.selectKey``), the join type - after the whole statement is
    # analysed and logically planned (its SELECT, WHERE, HAVING, key checks), before code generation: held in
    # ``ctx`` until then
    if flavor is not JoinFlavor.FOREIGN_KEY and left.partitions != right.partitions:
        ctx.planned(KsqlStatementError(
            f"Can't join `{left.name}` with `{right.name}` since the number of partitions don't match. "
            f"`{left.name}` partitions = {left.partitions}; `{right.name}` partitions = {right.partitions}. "
            "Please repartition either one so that the number of partitions match."))
    try:
        check_within(jc, left.kind, right.kind)
    except KsqlStatementError as e:
        ctx.planned(e)
    if rekeyed_table is not None:
        # building the left table (SchemaKTable.selectKey) refuses to re-key it by the source key
        ctx.planned(table_rekey_refusal(_key_column_name(left), rekeyed_table))
    for side, rep, need in ((left, rep_left, need_left), (right, rep_right, need_right)):
        # a windowed stream is only re-keyed into a schema-registry format on its own key (its windowed
        # key carried over); any other re-keying of a windowed source, and any of a windowed table, fails
        if rep and side.windowed is not None and (need or not forced or side.kind is ResultKind.TABLE):
            ctx.planned(KsqlStatementError(_windowed_repartition_message(side.kind is ResultKind.TABLE and forced)))
    if flavor is JoinFlavor.STREAM_TABLE and kind is JoinKind.RIGHT:
        # ksqlDB's analysis and logical planning accept it; only building the stream-table join refuses it
        ctx.planned(KsqlStatementError(f"Invalid join type encountered: {JOIN_TEXT[kind]}"))
    if rep_left and isinstance(left.node, Scan):
        left.node.repartitioned = True
    right_leaf.repartitioned = rep_right

    keys, classes, columns = step_keys(kind, flavor, left, conds, left_keyed, all_columns)
    for k in keys:
        check_key_type(k)
    node = Join(
        RowSchema([]), kind=kind, flavor=flavor, left=left.node, right=right_leaf,
        left_exprs=[bind(scope.rewrite(c.left, "JOIN ON"), _row_scope(left.node), ctx,
                         Clause.FK_JOIN_ON if flavor is JoinFlavor.FOREIGN_KEY else Clause.JOIN_ON) for c in conds],
        right_exprs=[bind(scope.rewrite(c.right, "JOIN ON"), _row_scope(right_leaf), ctx, Clause.JOIN_ON)
                     for c in conds],
        keys=keys, join_result=ResultKind.TABLE if left.kind is right.kind is ResultKind.TABLE else ResultKind.STREAM,
        within=jc.within, left_from_child_key=left_keyed and isinstance(left.node, Join),
        repartition_left=rep_left, repartition_right=rep_right, key_format=fmt[0], key_delimiter=fmt[1],
        key_full_name=key_name, join_windowed=left.windowed, text=described,
        key_columns_viable=[[k.column.name for k in cols if k.column is not None] for cols in columns],
    )
    out = StepInput(kind=node.result_kind, name=left.name, key_format=fmt,
                 partitions=left.partitions, classes=classes, columns=columns, node=node, windowed=left.windowed,
                 key_types=[k.type for k in keys], key_name=key_name)
    return node, out, conds


def _on_own_source_key(conds: list[Condition], left: StepInput) -> str | None:
    """A table-table step whose left side is a result of earlier steps not keyed by the criteria: is its left
    expression the single primary-key column of the source it names? As ksqlDB's
    ``LogicalPlanner.joinOnNonKeyAttribute`` decides a foreign-key join (from memory): by the key of the
    source the left expression's qualifier names among the left node's sources, not by the key of the result
    so far - so after a FULL OUTER step (keyed by the synthetic ROWKEY) ``ON T1.ID = T3.ID`` is a primary-key
    join whose left table would have to be re-keyed, not a foreign-key join inside an n-way join. Returns the
    column's joined name (``T1_ID``), else None."""
    if len(conds) != 1 or not isinstance(left.node, Join):
        return None
    e = unparen(conds[0].left)
    if not isinstance(e, exp.Column) or not e.table:
        return None
    leaf = next((lf for lf in left.node.leaves if lf.alias == e.table), None)
    if leaf is None:
        return None
    keys = leaf.source.key_columns
    return f"{leaf.alias}_{e.name}" if len(keys) == 1 and keys[0].name == e.name else None


def _key_column_name(inp: StepInput) -> str:
    node = inp.node
    assert isinstance(node, Join)
    return join_key_column(node)


def _windowed_repartition_message(forced_table: bool) -> str:
    text = ("Implicit repartitioning of windowed sources is not supported. "
            "See https://github.com/confluentinc/ksql/issues/4385.")
    if forced_table:
        text += (" As a result, ksqlDB does not support joins on windowed sources with Schema-Registry-enabled key "
                 "formats (AVRO, JSON_SR, PROTOBUF) at this time. Please repartition your sources to use a "
                 "different key format before performing the join.")
    return text


def _row_scope(side: Join | Scan) -> Any:
    """The row a join step reads on one side: its sources' blocks, left to right."""
    leaves = side.leaves if isinstance(side, Join) else [side]
    return scope_for(RowSchema([c for lf in leaves for c in lf.columns]))


# --------------------------------------------------------------------------- the result


def _inner_synthetic_keys(inner: list[Join], step_conds: list[list[Condition]], scope: JoinScope) -> None:
    """A step below the top whose key is synthetic (a FULL join, or expressions on both sides) leaves that key
    in the joined row as a value: ksqlDB's JoinParamsFactory appends a key column neither side has to the value
    schema ("so its accessible during projection", from memory; KsqlValueJoiner writes the key there), and the
    next steps carry it - so an unqualified ``ROWKEY`` in SELECT reads it when the top join's key is not
    itself called so. The innermost such step's wins: a later step whose left input already has the column
    appends none. Its value is the step's join key: the right side's expression where the right source took
    part (its ROWTIME is set), else the left side's."""
    for node, conds in zip(inner, step_conds, strict=False):
        right = node.right
        assert isinstance(right, Scan)
        for k, c in zip(node.keys, conds, strict=True):
            if not k.synthetic or k.name in scope.extra or k.name in scope.computed:
                continue
            present = exp.Not(this=exp.Is(this=exp.column(f"{right.alias}_ROWTIME"), expression=exp.Null()))
            scope.computed[k.name] = exp.Case(
                ifs=[exp.If(this=present, true=scope.rewrite(c.right, "JOIN ON"))],
                default=scope.rewrite(c.left, "JOIN ON"))



def _partitions_by_join_key(partition_by: list[exp.Expression], root: Join) -> bool:
    """PARTITION BY over a table join's result by exactly its key column (ksqlDB's ``repartitionNeeded``: one
    expression, the column the join's schema names its key - ``T_ID``, a FULL join's ``ROWKEY``): nothing to
    re-key. Anything else would re-key a table and is refused once the query is planned (query.py)."""
    if len(partition_by) != 1 or len(root.keys) != 1:
        return False
    target = unparen(partition_by[0])
    return isinstance(target, exp.Column) and target.name == join_key_column(root)


def _virtual_source(leaves: list[Scan], root: Join, key_columns: list[SchemaColumn],
                    current: StepInput, from_source: Source) -> Source:
    """The join's result as the rest of the query reads it: its key and every source's block of columns, in
    the join tree's order, with the value format and topic of the FROM source as written (``from_source``)
    and the key format of its rows: the FROM source's, or the join's internal key format when that one is
    key-less (a GROUP BY after the join groups in it). The sink takes its formats from ``from_source`` itself
    (``Sink.format_source``), as ksqlDB's Analyzer takes them from ``analysis.getFrom()``."""
    first = from_source
    key_format = (first.key_format or "KAFKA").upper()
    if key_format == "NONE":
        key_format = current.key_format[0]
    columns = [Column(c.name, c.type, key=True) for c in key_columns]
    columns += [Column(c.name, c.type) for lf in leaves for c in lf.columns]
    same = key_format == (first.key_format or "").upper()
    return Source(name=leaves[0].source.name, kind=root.result_kind, topic=first.topic, columns=columns, key_format=key_format,
                  value_format=first.value_format,
                  key_delimiter=first.key_delimiter if same else current.key_format[1],
                  value_delimiter=first.value_delimiter, wrap_single_value=None, windowed=root.windowed)


class _Overlay:
    """The catalog with the join's virtual source visible under its name (for the single-source analyzer)."""

    def __init__(self, catalog: Catalog, virtual: Source) -> None:
        self._catalog = catalog
        self._virtual = virtual

    def source(self, name: str) -> Source | None:
        return self._virtual if name == self._virtual.name else self._catalog.source(name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._catalog, name)


__all__ = ["analyze_join_query"]
