"""Whether rows must move to another partition before a stateful step: the repartition decisions of the
logical plan that do not depend on ksqlDB's error order (a join's sides are decided with its checks, in
``analysis.joins``; PARTITION BY in ``analysis.query``).

Rows that are aggregated together must be in one task. They are when the groups are what the input is
partitioned by: a stream's key, in order; after a join, the join key (either side's join column - rows
with equal join keys meet in one task; a foreign-key join's result is keyed by the left table's key
instead, so it moves). A table's groups always move (its rows are retracted from their old group by their
own key), and with a single partition nothing needs to move at all.
"""

from __future__ import annotations

from ksqlpy.expr.bound import ColumnRef, Expr
from ksqlpy.plan.logical import Join, JoinFlavor, PlanNode, ResultKind, Scan


def _name(e: Expr) -> str | None:
    return e.name if isinstance(e, ColumnRef) else None


def _bottom(node: PlanNode) -> PlanNode:
    while not isinstance(node, (Scan, Join)):
        node = node.inputs[0]
    return node


def group_by_repartition(group_by: list[Expr], input: PlanNode, partitions: int | None) -> bool:
    """Does GROUP BY ``group_by`` (over ``input``'s row) need ``Aggregate-GroupBy-repartition``?
    ``partitions``: the input's partition count (None if its topic is unknown: decided as for several)."""
    if partitions is not None and partitions <= 1:
        return False
    bottom = _bottom(input)
    if isinstance(bottom, Join):
        if bottom.flavor is JoinFlavor.FOREIGN_KEY or len(group_by) != len(bottom.left_exprs):
            return True
        return any(_name(g) is None or _name(g) not in (_name(left), _name(right))
                   for g, left, right in zip(group_by, bottom.left_exprs, bottom.right_exprs, strict=True))
    keys = input.schema.key_positions()
    if input.result_kind is ResultKind.TABLE or len(keys) != len(group_by):
        return True
    return [g.index if isinstance(g, ColumnRef) else None for g in group_by] != keys
