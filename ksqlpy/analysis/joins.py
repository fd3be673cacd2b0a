"""Analysis of queries whose FROM clause is a join.

A join of n sources is a left-deep tree of binary steps ``((s0 J s1) J s2) ...``. For each step this
module checks what ksqlDB checks (join order and type, WITHIN, primary keys, key types, windowing,
co-partitioning), decides which sides are repartitioned and in which key format, and names the
step's key. The result of the whole join is then presented as one virtual source (the join key
columns followed by every source's block of ``ALIAS_COL`` columns), and the rest of the query -
WHERE, PARTITION BY, GROUP BY, HAVING, the projection - is analyzed by the single-source analyzer
over it: the plan's chain reads the join's subtree (``ksqlpy.plan.logical.Join``).

Beyond ksqlDB, when ``ksqlpy.join.multi.condition.enabled`` is set: ``ON a.x = b.x AND a.y = b.y`` joins on
the composite key (x, y); by default such criteria are refused as ksqlDB refuses them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.analysis.join_checks import check_foreign_key_join, check_key_type, check_windows, check_within
from ksqlpy.analysis.join_keys import KeyBinder, KeyExpr
from ksqlpy.analysis.join_projection import KeyComponent, plan_select
from ksqlpy.analysis.join_scope import JoinScope, block_columns, text
from ksqlpy.analysis.join_text import printed_join_query
from ksqlpy.analysis.pseudo_columns import check_queryable, offsets_enabled
from ksqlpy.analysis.scope import scope_for
from ksqlpy.analysis.source_hints import did_you_mean
from ksqlpy.analysis.written import column_refs
from ksqlpy.catalog import Catalog, Column, Source, WindowInfo
from ksqlpy.errors import KsqlStatementError, at, locating, location, location_within
from ksqlpy.expr.binder import bind
from ksqlpy.expr.stages import BindContext, Clause
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.grammar.ast import FunctionCall, JoinClause, Query, SourceRef
from ksqlpy.plan.logical import (
    ColumnRole,
    Join,
    JoinFlavor,
    JoinKey,
    JoinKind,
    ResultKind,
    RowSchema,
    Scan,
    SchemaColumn,
    Sink,
)
from ksqlpy.plan.partitioning import join_repartitions
from ksqlpy.properties import as_bool
from ksqlpy.session_state import SessionState

JOIN_TEXT = {JoinKind.INNER: "[INNER] JOIN", JoinKind.LEFT: "LEFT [OUTER] JOIN", JoinKind.RIGHT: "RIGHT [OUTER] JOIN",
             JoinKind.FULL: "[FULL] OUTER JOIN"}
DAY_MS = 24 * 3600 * 1000
KEY_PREFIX = "$JOIN_KEY"


@dataclass
class _Input:
    """What a join step sees on one side: a source, or the result of the steps before it."""

    kind: ResultKind
    name: str  # left-most source name, for messages
    key_format: tuple[str, str | None, Any]  # (format, delimiter, window identity)
    partitions: int
    classes: list[list[KeyExpr]]  # per key column: the expressions equal to it (column refs first)
    columns: list[list[KeyExpr]]  # per key column: the column references among them, left to right
    node: Join | Scan
    windowed: WindowInfo | None = None
    key_types: list[T.SqlType] = field(default_factory=list)
    key_name: str | None = None  # the full schema name of its key format (``_key_name``)


def _window_id(w: WindowInfo | None) -> Any:
    if w is None:
        return None
    return ("SESSION", None) if w.type.upper() == "SESSION" else ("TIME", w.size_ms)


def analyze_join_query(query: Query, catalog: Catalog, session: SessionState, *, sink_name: str | None,
                       persistent: bool, sql: str = "", ctx: BindContext | None = None, **options: Any) -> Sink:
    from ksqlpy.analysis.query import analyze_query, bind_context

    if ctx is None:
        ctx = bind_context(session)

    leaves = _resolve_leaves(query, catalog)
    _check_value_formats(leaves)
    for lf in leaves:
        check_queryable([c.name for c in lf.source.columns], session.properties)
    scope = JoinScope([(lf.source, lf.alias) for lf in leaves], offsets=offsets_enabled(session.properties))
    scope.check_ambiguity(sanitized_expressions(query))
    all_columns = {c.name for lf in leaves for c in lf.source.columns}
    joined_schema = RowSchema([c for lf in leaves for c in lf.columns])
    typing_scope = scope_for(joined_schema)
    keys_of = KeyBinder(scope, typing_scope, ctx)

    # every condition's sources are checked before any join's semantics, as ksqlDB does
    multi_condition = as_bool(session.properties.get(MULTI_CONDITION_PROPERTY, False))
    conditions = []
    for i, jc in enumerate(query.joins):
        with locating(location_within(jc.on)):
            conditions.append(_conditions(jc.on, scope, keys_of, leaves[i + 1].alias,
                                          multi_condition=multi_condition))
    root_leaf, placed = _build_join_tree(conditions, leaves)
    if persistent and any(lf.source.kind == "TABLE" and lf.source.windowed is not None for lf in leaves):
        # ksqlDB's PushQueryValidator: after the analyzer's checks of each join (windowing among them), before
        # logical planning, a persistent query reading any windowed table - joined or FROM - is refused
        for lf in leaves[1:]:
            check_windows(leaves[0].source, lf.source)
        raise KsqlStatementError("KSQL does not support persistent queries on windowed tables.")
    written = leaves
    leaves = [written[root_leaf]] + [written[p.leaf] for p in placed]  # the join tree's order, left to right
    current = _leaf_input(leaves[0], catalog, keys_of)
    nodes: list[Join] = []
    for p in placed:
        jc, conds = query.joins[p.join], conditions[p.join]
        if p.flipped:
            jc, conds = _flip(jc, conds)
        right = _leaf_input(written[p.leaf], catalog, keys_of)
        with locating(location(query.joins[p.join].right)):  # an error about a join step points at its source
            node, current = _step(jc, conds, current, right, scope, typing_scope, session, all_columns, ctx,
                                  n_way=len(query.joins) > 1)
        nodes.append(node)
    for depth, node in enumerate(reversed(nodes)):
        node.context = "L_" * depth
    root = nodes[-1]

    if root.result_kind is ResultKind.TABLE and query.partition_by and not query.group_by and query.window is None:
        # by the join's own key: nothing to re-key (else refused once the rest of the query is planned)
        by = [scope.rewrite(p, "PARTITION BY") for p in query.partition_by]
        if _table_join_partition_by(by, leaves[0], check=False) == []:
            query = replace(query, partition_by=[])
    keys, key_columns = _final_key(current, root)
    for k in keys:
        if k.synthetic:
            scope.extra[k.column] = k.column
    offset = len(key_columns)
    for lf in leaves:
        lf.offset = offset
        offset += len(lf.columns)
    virtual = _virtual_source(leaves, root, key_columns, current)
    keyed = not query.group_by and not query.partition_by and not _has_aggregate(query, session.functions)
    fk_left = leaves[0].alias if root.flavor is JoinFlavor.FOREIGN_KEY else None
    select = plan_select(query, scope, keys_of, leaves, keys, sink_name=sink_name, persistent=persistent,
                         keyed=keyed, foreign_key_left=fk_left)
    partition_by = [scope.rewrite(p, "PARTITION BY") for p in query.partition_by]
    if root.result_kind is ResultKind.TABLE and partition_by and not query.group_by and query.window is None:
        partition_by = _table_join_partition_by(partition_by, leaves[0]) or []
    rewritten = Query(
        select=select, source=SourceRef(virtual.name), joins=[], window=query.window,
        where=scope.rewrite(query.where, "WHERE") if query.where is not None else None,
        group_by=[scope.rewrite(g, "GROUP BY") for g in query.group_by],
        partition_by=partition_by,
        having=scope.rewrite(query.having, "HAVING") if query.having is not None else None,
        emit=query.emit, limit=query.limit,
    )
    plan = analyze_query(rewritten, _Overlay(catalog, virtual), session, sink_name=sink_name, persistent=persistent,
                         sql=sql, ctx=ctx, base=root, source_columns=frozenset(all_columns), **options)
    printed = printed_join_query(query, scope, leaves, keys, [name for _, name in plan.project.printed])
    if printed is not None:
        plan.project.printed, plan.project.printed_from = printed
    return plan


# --------------------------------------------------------------------------- sources


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
    kafka = [lf.source.name for lf in leaves if (lf.source.value_format or "").upper() == "KAFKA"]
    if kafka:
        raise KsqlStatementError(f"Source(s) {', '.join(kafka)} are using the 'KAFKA' value format. This format "
                                 "does not yet support JOIN.")


def _partitions(catalog: Catalog, source: Source) -> int:
    """For co-partitioning: a topic without a known count counts as one partition."""
    return catalog.partition_count(source.topic) or 1


def _key_name(source: Source) -> str | None:
    """The full schema name a source's key format carries (``KEY_SCHEMA_FULL_NAME``; an AVRO key's default
    ``<Source>Key``), which the internal topics of a join taking that key format register their key with
    (ksqlDB's join key format is the source's ``FormatInfo``, properties included)."""
    from ksqlpy.schema_registry.sources import serde_options

    return serde_options(source, True)["full_name"] if source.key_columns else None


def _leaf_input(leaf: Scan, catalog: Catalog, keys_of: KeyBinder) -> _Input:
    src = leaf.source
    keys = [keys_of(exp.column(c.name, table=leaf.alias), "JOIN ON") for c in src.key_columns]
    return _Input(kind=ResultKind(src.kind), name=src.name,
                  key_format=((src.key_format or "KAFKA").upper(), src.key_delimiter, _window_id(src.windowed)),
                  partitions=_partitions(catalog, src), classes=[[k] for k in keys], columns=[[k] for k in keys],
                  node=leaf, windowed=src.windowed, key_types=[c.type for c in src.key_columns],
                  key_name=_key_name(src))


# --------------------------------------------------------------------------- one step


@dataclass
class _Condition:
    left: exp.Expression  # qualified, over the left input's sources
    right: exp.Expression  # qualified, over the right source
    written: str  # "A = B" as written (qualified), for messages
    left_key: KeyExpr
    right_key: KeyExpr
    left_type: T.SqlType | None = None
    right_type: T.SqlType | None = None
    left_alias: str = ""  # the source the left side references
    sides: tuple[str, str] = ("", "")  # the sources of the comparison's two sides, as written


def _step(jc: JoinClause, conds: list[_Condition], left: _Input, right: _Input, scope: JoinScope,
          typing_scope: Any, session: SessionState, all_columns: set[str], ctx: BindContext, *,
          n_way: bool) -> tuple[Join, _Input]:
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
    check_within(jc, left.kind, right.kind)

    # the right side of a join with a table must be the table's primary key
    if right.kind is ResultKind.TABLE:
        conds = _order_by_key(conds, right, left, described)
        left_keyed = len(left.classes) == len(conds) and all(
            c.left_key in cl for c, cl in zip(conds, left.classes, strict=False))
    else:
        left_keyed, conds = _keyed(left, conds)
    right_keyed = [c.right_key for c in conds] == [cl[0] for cl in right.classes]
    for c in conds:
        _type_condition(c, scope, typing_scope, ctx)
    if left.kind is ResultKind.STREAM and right.kind is ResultKind.STREAM:
        flavor = JoinFlavor.STREAM_STREAM
    elif left.kind is ResultKind.STREAM:
        flavor = JoinFlavor.STREAM_TABLE
    else:
        flavor = JoinFlavor.TABLE_TABLE if left_keyed else JoinFlavor.FOREIGN_KEY
    if flavor is JoinFlavor.FOREIGN_KEY:
        check_foreign_key_join(kind, described, [c.written for c in conds], n_way=n_way)
        if len(conds) != 1:
            raise KsqlStatementError("Invalid join condition: foreign-key table-table joins support a single "
                                     f"condition. Got {' AND '.join(c.written for c in conds)}.")
    for c in conds:
        if c.left_type != c.right_type:
            raise KsqlStatementError(f"Invalid join condition: types don't match. Got "
                                     f"{c.written.split(' = ')[0]}{{{c.left_type}}} = "
                                     f"{c.written.split(' = ', 1)[1]}{{{c.right_type}}}.")

    check_windows(left, right)
    if flavor is JoinFlavor.FOREIGN_KEY and (left.windowed is not None or right.windowed is not None):
        raise KsqlStatementError("Foreign-key table-table joins are not supported on windowed tables.")
    # a stream side not joined on its key must be re-keyed
    need_left = flavor in (JoinFlavor.STREAM_STREAM, JoinFlavor.STREAM_TABLE) and not left_keyed
    need_right = flavor is JoinFlavor.STREAM_STREAM and not right_keyed
    default = str(session.properties.get("ksql.persistence.default.format.key", "KAFKA")).upper()
    fmt, rep_left, rep_right, forced = join_repartitions(
        flavor, left.key_format, right.key_format, left_is_source=isinstance(left.node, Scan), need_left=need_left,
        need_right=need_right, default_format=default)
    # the key format's full name comes with it, from the side whose format the step takes
    named = left if not need_left else right if not need_right else \
        next((s for s in (left, right) if s.key_format[0] != "NONE"), None)
    key_name = named.key_name if named is not None and named.key_format == fmt else None
    for side, rep, need in ((left, rep_left, need_left), (right, rep_right, need_right)):
        # a windowed stream is only re-keyed into a schema-registry format on its own key (its windowed
        # key carried over); any other re-keying of a windowed source, and any of a windowed table, fails
        if rep and side.windowed is not None and (need or not forced or side.kind is ResultKind.TABLE):
            raise KsqlStatementError(_windowed_repartition_message(side.kind is ResultKind.TABLE and forced))
    if flavor is not JoinFlavor.FOREIGN_KEY and left.partitions != right.partitions:
        raise KsqlStatementError(
            f"Can't join `{left.name}` with `{right.name}` since the number of partitions don't match. "
            f"`{left.name}` partitions = {left.partitions}; `{right.name}` partitions = {right.partitions}. "
            "Please repartition either one so that the number of partitions match.")
    if flavor is JoinFlavor.STREAM_TABLE and kind is JoinKind.RIGHT:
        # ksqlDB's analysis and logical planning accept it; only building the stream-table join refuses it
        raise KsqlStatementError(f"Invalid join type encountered: {JOIN_TEXT[kind]}")
    if rep_left and isinstance(left.node, Scan):
        left.node.repartitioned = True
    right_leaf.repartitioned = rep_right

    keys, classes, columns = _step_keys(kind, flavor, left, conds, left_keyed, all_columns)
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
    out = _Input(kind=node.result_kind, name=left.name, key_format=fmt,
                 partitions=left.partitions, classes=classes, columns=columns, node=node, windowed=left.windowed,
                 key_types=[k.type for k in keys], key_name=key_name)
    return node, out


def _windowed_repartition_message(forced_table: bool) -> str:
    text = ("Implicit repartitioning of windowed sources is not supported. "
            "See https://github.com/confluentinc/ksql/issues/4385.")
    if forced_table:
        text += (" As a result, ksqlDB does not support joins on windowed sources with Schema-Registry-enabled key "
                 "formats (AVRO, JSON_SR, PROTOBUF) at this time. Please repartition your sources to use a "
                 "different key format before performing the join.")
    return text


MULTI_CONDITION_PROPERTY = "ksqlpy.join.multi.condition.enabled"
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeNEQ)


def _unparen(e: exp.Expression) -> exp.Expression:
    while isinstance(e, exp.Paren):
        e = e.this
    return e


def _criteria_shape(on: exp.Expression, scope: JoinScope, multi_condition: bool) -> list[exp.Expression]:
    """ksqlDB's Analyzer.visitJoinedSource: the criteria is one ``=`` comparison.

    Two equalities joined by AND or OR are refused as multiple conditions, anything else that is not a
    comparison (IS NOT DISTINCT FROM is a NOT there) as unsupported, a comparison other than ``=`` as not an
    equality. With ``ksqlpy.join.multi.condition.enabled`` (ksqlpy's extension, off by default) ANDed
    equalities join on the composite key instead; the parts are returned in order."""
    top = _unparen(on)
    if not isinstance(top, _COMPARISONS):
        if multi_condition and isinstance(top, exp.And):
            parts: list[exp.Expression] = []

            def flatten(e: exp.Expression) -> None:
                e = _unparen(e)
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
        if isinstance(top, exp.And | exp.Or) and all(isinstance(_unparen(x), exp.EQ)
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


def _conditions(on: exp.Expression, scope: JoinScope, keys_of: KeyBinder, right: str,
                multi_condition: bool = False) -> list[_Condition]:
    for col in column_refs(on):
        if col.table:
            scope.check_qualifier(col.table)
    parts = _criteria_shape(on, scope, multi_condition)
    if len(parts) > 1:
        seen = [keys_of(p, "JOIN ON") for p in parts]
        if any(x in seen[:i] for i, x in enumerate(seen)):
            raise KsqlStatementError("Invalid join condition: joins on multiple conditions are not yet supported. "
                                     f"Got {text(_qualified(_unparen(on), scope))}.")
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
            out.append(_Condition(qa, qb, written, ka, kb, left_alias=ra, sides=(ra, rb)))
        elif ra == right:
            out.append(_Condition(qb, qa, written, kb, ka, left_alias=rb, sides=(ra, rb)))
        else:
            raise KsqlStatementError(f"A join criteria is expected to reference the source (`{right}`) in the FROM "
                                     f"clause, instead the right source references `{rb}` and the left source "
                                     f"references `{ra}`")
    return out


@dataclass
class _Placed:
    """One written join as ksqlDB's JoinTree places it: the source it adds to the tree, and whether the join
    was flipped to do so (its criteria's sides swapped, LEFT and RIGHT exchanged - JoinInfo.flip)."""

    join: int  # the join's position as written
    leaf: int  # the position (as written) of the source it adds
    flipped: bool


def _build_join_tree(conditions: list[list[_Condition]], leaves: list[Scan]) -> tuple[int, list[_Placed]]:
    """ksqlDB's JoinTree.build over the joins as written: the tree starts from the first criteria's other source
    (not the joined one - usually the FROM source, but a source joined later when the criteria names it), and
    each join adds the source the tree lacks: its joined source, or - flipped - the criteria's other source when
    the joined one is already in the tree. A join with both sources already in the tree is circular, one with
    neither cannot be placed. Returns the root's position and the joins in tree order (which is written order)."""
    positions = {lf.alias: i for i, lf in enumerate(leaves)}
    tree: _TreeNode | None = None
    placed: list[_Placed] = []
    root = 0
    for i, conds in enumerate(conditions):
        c = conds[0]
        right = leaves[i + 1].alias
        if tree is None:
            tree = _TreeNode(c.left_alias)
            root = positions[c.left_alias]
        members = tree.aliases()
        if right in members and c.left_alias in members:
            raise KsqlStatementError(f"Cannot perform circular join - both `{right}` and {text(c.left)} are already "
                                     f"included in the current join tree: {tree.debug(0)}")
        if c.left_alias in members:
            # ksqlpy's composite criteria: every condition's other side is already in the tree
            for o in conds[1:]:
                if o.left_alias not in members:
                    _refuse_unjoined(o, right)
            tree = _TreeNode("", tree, _TreeNode(right))
            placed.append(_Placed(i, i + 1, flipped=False))
        elif right in members:
            if len(conds) > 1:
                _refuse_unjoined(c, right)
            tree = _TreeNode("", tree, _TreeNode(c.left_alias))
            placed.append(_Placed(i, positions[c.left_alias], flipped=True))
        else:
            raise KsqlStatementError("Cannot build JOIN tree; neither source in the join is the FROM source or "
                                     f"included in a previous JOIN: {c.written}")
    return root, placed


def _refuse_unjoined(c: _Condition, joined: str) -> None:
    ra, rb = c.sides
    raise KsqlStatementError(f"A join criteria is expected to reference the source (`{joined}`) in the FROM clause, "
                             f"instead the right source references `{rb}` and the left source references `{ra}`")


_FLIPPED_KIND = {"LEFT": "RIGHT", "RIGHT": "LEFT"}


def _flip(jc: JoinClause, conds: list[_Condition]) -> tuple[JoinClause, list[_Condition]]:
    """JoinInfo.flip: the join seen from its other side - criteria sides swapped, LEFT and RIGHT exchanged."""
    kind = _FLIPPED_KIND.get(jc.kind, jc.kind)
    swapped = [replace(c, left=c.right, right=c.left, left_key=c.right_key, right_key=c.left_key,
                       left_alias=c.sides[0] if c.sides[1] == c.left_alias else c.sides[1])
               for c in conds]
    return replace(jc, kind=kind), swapped  # type: ignore[arg-type]


@dataclass
class _TreeNode:
    """A node of ksqlDB's JoinTree: a source (leaf) or a join of two nodes."""

    alias: str
    left: _TreeNode | None = None
    right: _TreeNode | None = None

    def aliases(self) -> set[str]:
        if self.left is None or self.right is None:
            return {self.alias}
        return self.left.aliases() | self.right.aliases()

    def debug(self, indent: int) -> str:
        """JoinTree's debugString: a join as ``⋈`` with its sides on ``+--`` lines, a leaf as its alias."""
        if self.left is None or self.right is None:
            return f"`{self.alias}`"
        pad = " " * indent
        return f"⋈\n{pad}+--{self.left.debug(indent + 3)}\n{pad}+--{self.right.debug(indent + 3)}"


def _order_by_key(conds: list[_Condition], right: _Input, left: _Input, described: str) -> list[_Condition]:
    """Joins with a table: each condition's right side is a primary-key column, in key order."""
    keys = [cl[0] for cl in right.classes]
    rights = [c.right_key for c in conds]
    if len(rights) != len(keys) or any(k not in rights for k in keys):
        bad = next((c for c in conds if c.right_key not in keys), conds[0])
        if left.kind is ResultKind.STREAM:
            raise KsqlStatementError(f"Invalid join condition: stream-table joins require to join on the table's "
                                     f"primary key. Got {bad.written}.")
        raise KsqlStatementError(f"Invalid join condition: table-table joins require to join on the primary key "
                                 f"of the right input table. Got {bad.written}.")
    return [next(c for c in conds if c.right_key == k) for k in keys]


def _type_condition(c: _Condition, scope: JoinScope, typing_scope: Any, ctx: BindContext) -> None:
    c.left_type = bind(scope.rewrite(c.left, "JOIN ON"), typing_scope, ctx, Clause.JOIN_ON).type
    c.right_type = bind(scope.rewrite(c.right, "JOIN ON"), typing_scope, ctx, Clause.JOIN_ON).type


def _row_scope(side: Join | Scan) -> Any:
    """The row a join step reads on one side: its sources' blocks, left to right."""
    leaves = side.leaves if isinstance(side, Join) else [side]
    return scope_for(RowSchema([c for lf in leaves for c in lf.columns]))


def _keyed(inp: _Input, conds: list[_Condition]) -> tuple[bool, list[_Condition]]:
    """Is the input already keyed by the conditions' expressions on its side? Conditions come back in the
    order of the input's key columns when it is."""
    lefts = [c.left_key for c in conds]
    if len(inp.classes) != len(conds) or not conds:
        return False, conds
    ordered = []
    used: set[int] = set()
    for cl in inp.classes:
        hit = next((i for i, k in enumerate(lefts) if i not in used and k in cl), None)
        if hit is None:
            return False, conds
        used.add(hit)
        ordered.append(conds[hit])
    return True, ordered


def _step_keys(kind: JoinKind, flavor: JoinFlavor, left: _Input, conds: list[_Condition], left_keyed: bool,
               all_columns: set[str]) -> tuple[list[JoinKey], list[list[KeyExpr]], list[list[KeyExpr]]]:
    """The step's output key: its columns, and per column the expressions equal to it."""
    if flavor is JoinFlavor.FOREIGN_KEY:
        keys = [JoinKey(n, t) for n, t in zip(_key_names(len(left.classes)), left.key_types, strict=True)]
        return keys, left.classes, left.columns
    keys: list[JoinKey] = []
    classes: list[list[KeyExpr]] = []
    columns: list[list[KeyExpr]] = []
    names = _key_names(len(conds))
    synthetic_taken: set[str] = set()
    for i, c in enumerate(conds):
        lk, rk = c.left_key, c.right_key
        if kind is JoinKind.FULL:
            cl, cols = [], []
        elif left_keyed:
            cl = _distinct([*left.classes[i], lk, rk])
            cols = _distinct([*left.columns[i], *(k for k in (lk, rk) if k.column is not None)])
        else:
            cl = _distinct([lk, rk])
            cols = [k for k in cl if k.column is not None]
        first = cols[0].column if cols else None
        if first is None:
            name = _synthetic_name(all_columns, synthetic_taken)
            keys.append(JoinKey(name, c.left_type or T.STRING, synthetic=True))
            classes.append([KeyBinder.synthetic(name)])
            columns.append([KeyBinder.synthetic(name)])
        else:
            keys.append(JoinKey(names[i], c.left_type or T.STRING, display=first.name))
            classes.append(cl)
            columns.append(cols)
    return keys, classes, columns


def _distinct(keys: list[KeyExpr]) -> list[KeyExpr]:
    """``keys`` without repeats, first occurrences kept (bound nodes need not hash: a literal may hold a list)."""
    out: list[KeyExpr] = []
    for k in keys:
        if k not in out:
            out.append(k)
    return out


def _key_names(n: int) -> list[str]:
    return [KEY_PREFIX if i == 0 else f"{KEY_PREFIX}_{i}" for i in range(n)]


def _synthetic_name(all_columns: set[str], taken: set[str]) -> str:
    n = 0
    while True:
        name = "ROWKEY" if n == 0 else f"ROWKEY_{n}"
        if name not in all_columns and name not in taken:
            taken.add(name)
            return name
        n += 1


# --------------------------------------------------------------------------- the result


def _final_key(current: _Input, root: Join) -> tuple[list[KeyComponent], list[SchemaColumn]]:
    comps = []
    cols = []
    for k, viable in zip(root.keys, current.columns, strict=True):
        comps.append(KeyComponent(column=k.name, viable=list(viable), synthetic=k.synthetic))
        cols.append(SchemaColumn(k.name, k.type, ColumnRole.KEY))
    return comps, cols


def _table_join_partition_by(partition_by: list[exp.Expression], first: Scan, *,
                             check: bool = True) -> list[exp.Expression] | None:
    """PARTITION BY over a table-table join's result, as ksqlDB's SchemaKTable.selectKey sees it: the join's key
    column is the left-most table's key column under its joined name (``T_ID``); partitioning by it re-keys
    nothing (``[]``), anything else would re-key a table and is refused, naming both in the joined row's names
    (None without ``check``)."""
    keys = first.source.key_columns
    if not check and (len(partition_by) != 1 or len(keys) != 1):
        return None
    if len(partition_by) != 1 or len(keys) != 1:
        raise KsqlStatementError("Cannot repartition a TABLE source. If this is a join, joins on tables with "
                                 "multiple columns is not yet supported.")
    key = f"{first.alias}_{keys[0].name}"
    target = _unparen(partition_by[0])
    if isinstance(target, exp.Column) and target.name == key:
        return []
    if not check:
        return None
    raise KsqlStatementError("Cannot repartition a TABLE source. If this is a join, make sure that the criteria "
                             f"uses the TABLE's key column {key} instead of {text(target)}")


def _virtual_source(leaves: list[Scan], root: Join, key_columns: list[SchemaColumn],
                    current: _Input) -> Source:
    first = leaves[0].source
    key_format = (first.key_format or "KAFKA").upper()
    if key_format == "NONE":
        key_format = current.key_format[0]
    columns = [Column(c.name, c.type, key=True) for c in key_columns]
    columns += [Column(c.name, c.type) for lf in leaves for c in lf.columns]
    same = key_format == (first.key_format or "").upper()
    return Source(name=first.name, kind=root.result_kind, topic=first.topic, columns=columns, key_format=key_format,
                  value_format=first.value_format,
                  key_delimiter=first.key_delimiter if same else current.key_format[1],
                  value_delimiter=first.value_delimiter, wrap_single_value=None, windowed=root.windowed)


def _has_aggregate(query: Query, registry: FunctionRegistry) -> bool:
    nodes = [i.expr for i in query.select] + ([query.having] if query.having is not None else [])
    return any(registry.kind_of(f.fname) == "aggregate" for n in nodes for f in n.find_all(FunctionCall))


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
