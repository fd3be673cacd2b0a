"""Which columns of a join's stream sources the query reads, so the others need not travel with the rows.

A join carries each source's whole block (every value column) through its repartition topic, its window
stores and their changelogs, and into the joined row - a Nexmark auction's long ``extra`` and
``description`` ride along although q8 reads only its seller and time. The rows of a stream source stay
the width the plan expects, but the value columns no expression of the query reads are NULL from the
moment the record is decoded (``runtime.join_rows.block_builder``): what the query computes is unchanged,
only less is pickled, marshalled and written.

Columns read: the criteria of every join step (the key functions read the blocks), and the expressions of
the nodes that read the top join's row - the WHERE, then the projection or the GROUP BY's keys and
aggregate arguments. Any other node right above the join (PARTITION BY, table functions) keeps every
column, and so do table sources (their stored rows are what later updates and deletes compare and emit as
old values). The pseudo, window and key columns of a block are always kept. With
``ksql.logging.processing.rows.include`` the runtime keeps every column too: a failing row is logged whole.
"""

from __future__ import annotations

from ksqlpy.expr.bound import Expr, columns_used
from ksqlpy.plan.logical import Aggregate, Filter, Join, PlanNode, Project, ResultKind, Scan, Sink


def _above(plan: Sink, join: Join) -> list[PlanNode]:
    """The nodes from the sink down to ``join`` (exclusive), top first; empty if ``join`` is not on the
    sink's chain."""
    chain: list[PlanNode] = []
    node: PlanNode = plan
    while node is not join:
        chain.append(node)
        if len(node.inputs) != 1:
            return []
        node = node.inputs[0]
    return chain


def _row_reads(plan: Sink, join: Join) -> set[int] | None:
    """Indexes of the top join's row read by the nodes above it (None: a node that may read any)."""
    used: set[int] = set()
    for node in reversed(_above(plan, join)):
        if isinstance(node, Filter):
            used |= columns_used(node.predicate)
            continue
        if isinstance(node, Aggregate):
            for e in node.group_by:
                used |= columns_used(e)
            for call in node.aggregates:
                for a in call.args:
                    used |= columns_used(a)
            return used
        if isinstance(node, Project):
            for out in (*node.key, *node.value):
                used |= columns_used(out.expr)
            return used
        return None
    return None


def _leaf_offsets(columns: list[str], leaves: list[Scan]) -> dict[int, int] | None:
    """Where each leaf's block starts in a row of ``columns`` (by id of the leaf); None if one is not found
    whole."""
    out: dict[int, int] = {}
    for leaf in leaves:
        mine = [c.name for c in leaf.columns]
        if not mine or mine[0] not in columns:
            return None
        start = columns.index(mine[0])
        if columns[start:start + len(mine)] != mine:
            return None
        out[id(leaf)] = start
    return out


def _mark(reads: dict[int, set[int]], exprs: list[Expr], columns: list[str], leaves: list[Scan]) -> bool:
    """Add what ``exprs`` (over a row of ``columns``: some leaves' blocks) read to ``reads`` per leaf."""
    offsets = _leaf_offsets(columns, leaves)
    if offsets is None:
        return False
    return all(_read(reads, i, leaves, offsets) for e in exprs for i in columns_used(e))


def _read(reads: dict[int, set[int]], i: int, leaves: list[Scan], offsets: dict[int, int]) -> bool:
    """Count column ``i`` of a row of the ``leaves``' blocks (starting at ``offsets``) as read by the leaf whose
    block holds it; False when no block does."""
    for leaf in leaves:
        start = offsets[id(leaf)]
        if start <= i < start + len(leaf.columns):
            reads[id(leaf)].add(i - start)
            return True
    return False


def stream_columns_read(plan: Sink, join: Join) -> dict[int, frozenset[str]]:
    """For each stream source of the query's top ``join`` whose unread columns may be dropped (by id of its
    ``Scan``): the names of the source's non-key columns the query reads. A source not in the result keeps
    every column."""
    row = _row_reads(plan, join)
    if row is None:
        return {}
    leaves = join.leaves
    reads: dict[int, set[int]] = {id(leaf): set() for leaf in leaves}
    top = [c.name for c in join.schema.columns]
    offsets = _leaf_offsets(top, leaves)
    if offsets is None:
        return {}
    for i in row:  # the key and pseudo columns of the top join's row are in no block
        _read(reads, i, leaves, offsets)
    for step in (n for n in join.walk() if isinstance(n, Join)):
        left_leaves = step.left.leaves if isinstance(step.left, (Join, Scan)) else []
        left_cols = [c.name for lf in left_leaves for c in lf.columns]
        if not (_mark(reads, step.left_exprs, left_cols, left_leaves)
                and _mark(reads, step.right_exprs, [c.name for c in step.right.columns], [step.right])):
            return {}
    out: dict[int, frozenset[str]] = {}
    for leaf in leaves:
        if leaf.result_kind is not ResultKind.STREAM:
            continue
        source = leaf.source
        value = [c for c in source.columns if not c.key]
        names = {value[i].name for i in reads[id(leaf)] if i < len(value)}
        if len(names) < len(value):
            out[id(leaf)] = frozenset(names)
    return out
