"""Whether rows must move to another partition before a stateful step: the repartition decisions of the
logical plan (analysis asks them as it builds the tree, between ksqlDB's checks; PARTITION BY's own is
``Rekey.repartition``, decided in ``analysis.query``).

Rows that are joined must meet in one task, keyed alike: ``join_repartitions``.

Rows that are aggregated together must be in one task. They are when the groups are what the input is
partitioned by: a stream's key, in order; after a stream join, its key column (the join column the
projection names - rows with equal join keys meet in one task). A table's groups always move (its rows are
retracted from their old group by their own key): a table-table or foreign-key join's result too. The decision is the plan's, not the data's: it does not depend on the partition count (ksqlDB's
plan has ``Aggregate-GroupBy-repartition`` over a one-partition source as over any other - SHOW TOPICS and
a case's ``post.topics`` see it).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ksqlpy import types as T
from ksqlpy.expr.bound import ColumnRef, Expr
from ksqlpy.plan.group_key import holds_key
from ksqlpy.plan.logical import Join, JoinFlavor, PlanNode, ResultKind, Scan

SR_KEY_FORMATS = frozenset({"AVRO", "JSON_SR", "PROTOBUF"})
KeyFormat = tuple[str, str | None, Any]  # (format, delimiter, window identity)


def _name(e: Expr) -> str | None:
    return e.name if isinstance(e, ColumnRef) else None


def _bottom(node: PlanNode) -> PlanNode:
    while not isinstance(node, (Scan, Join)):
        node = node.inputs[0]
    return node


def group_by_repartition(group_by: list[Expr], input: PlanNode, projected: Collection[str] = (), *,
                         table_joins_move: bool = True) -> bool:
    """Does GROUP BY ``group_by`` (over ``input``'s row) need ``Aggregate-GroupBy-repartition``?

    ksqlDB's ``SchemaKStream.groupBy`` (repartitionNeeded, from memory): no only when the grouping is the
    input's key columns, in order, as plain column references; a windowed input or a table
    (``SchemaKTable.groupBy`` is always ``KTable.groupBy``: a table-table or foreign-key join's result too)
    always moves. A stream join's result is keyed by one key column, which ``LogicalPlanner.buildJoinKey``
    (from memory) names after the first viable key column (each side's join column, an earlier join's
    column equal to it) that the projection selects as a plain column, else after the first viable one
    (``projected``: the joined-row columns the SELECT names plainly); grouping by that column is grouping
    by the key - by any other viable column it is not, though its values are equal wherever present. A
    synthetic key (FULL OUTER, or joined on expressions: ``ROWKEY``) is only grouped by itself.
    ``table_joins_move`` False: the layout of queries placed before ``plan.rules``' revision 6, where a
    table-table join's result grouped by any of its join columns stayed in the join's task."""
    bottom = _bottom(input)
    if isinstance(bottom, Join):
        if bottom.flavor is JoinFlavor.FOREIGN_KEY or len(group_by) != len(bottom.left_exprs):
            return True
        table = bottom.result_kind is ResultKind.TABLE
        if table and table_joins_move:
            return True
        if any(k.synthetic for k in bottom.keys):  # only the synthetic key column itself is the key
            return [g.index if isinstance(g, ColumnRef) else None for g in group_by] != input.schema.key_positions()
        viable = bottom.key_columns_viable or [[n for n in (_name(left), _name(right)) if n is not None]
                                               for left, right in zip(bottom.left_exprs, bottom.right_exprs,
                                                                      strict=True)]
        if table:
            return any(_name(g) not in names for g, names in zip(group_by, viable, strict=True))
        return any(_name(g) is None or _name(g) != join_key_column(names, projected)
                   for g, names in zip(group_by, viable, strict=True))
    keys = input.schema.key_positions()
    # a windowed source is always re-keyed (ksqlDB: "Group by on windowed should always require rekey"): its
    # records are placed by the windowed key, so one key's windows can sit in different partitions
    if input.result_kind is ResultKind.TABLE or bottom.windowed is not None or len(keys) != len(group_by):
        return True
    return [g.index if isinstance(g, ColumnRef) else None for g in group_by] != keys


def _has_struct(t: Any) -> bool:
    """A STRUCT in a key type (a key holds no MAP)."""
    return isinstance(t, T.Struct) or (isinstance(t, T.Array) and _has_struct(t.element))


def foreign_key_right_rekeyed(right: KeyFormat, right_key_types: list[Any]) -> bool:
    """Whether a foreign-key join re-keys its right table through ``RightSourceKeyed-SelectKey-repartition``:
    when the table's key format is AVRO, JSON_SR or PROTOBUF and its primary key holds a STRUCT. Such a key's
    registered schema (its record name, field docs...) is the producer's, so its bytes in the table's topic
    need not be the bytes the join's own serializer writes for the foreign key - the subscription would hash
    to another partition than the row it asks for. Re-keyed, the table's rows sit where the join's own bytes
    place them. Any other key is trusted as written: no co-partitioning is needed for a foreign key."""
    return right[0] in SR_KEY_FORMATS and any(_has_struct(t) for t in right_key_types)


def join_key_column(viable: list[str], projected: Collection[str]) -> str | None:
    """The viable key column a stream join's key column is named after (``group_by_repartition``)."""
    return next((n for n in viable if n in projected), viable[0] if viable else None)


def join_repartitions(flavor: JoinFlavor, left: KeyFormat, right: KeyFormat, *, left_is_source: bool,
                      need_left: bool, need_right: bool, default_format: str,
                      right_key_types: list[Any] | None = None,
                      key_types: list[Any] | None = None) -> tuple[KeyFormat, bool, bool, bool]:
    """(join key format, repartition left, repartition right, schema-registry key format) of one join step,
    as ksqlDB's ``JoinNode.resolveKeyFormats`` and ``PreJoinRepartitionNode`` decide them.

    ``left``/``right``: each side's key format; ``left_is_source``: the left side is a source (not an
    earlier join, whose result is already in the join's own format); ``need_*``: a stream side not joined
    on its key. The join's key format is the left side's if it needs no re-keying (a nested join's own
    choice), else the right side's if it needs none, else the first non-NONE of the two (else
    ``default_format``, ``ksql.persistence.default.format.key``) - JSON when that one cannot write a key of
    ``key_types`` (the join key's types). A source side is then re-keyed into that
    format when its own differs (windows included) - and always when the format is AVRO, JSON_SR or
    PROTOBUF: a schema-registry key is never trusted to be byte-compatible with the other side's. A
    foreign-key join keeps the left key and re-keys its left table never, its right table only as
    ``foreign_key_right_rekeyed`` says (``right_key_types``: the right table's key types)."""
    if flavor is JoinFlavor.FOREIGN_KEY:
        return left, False, foreign_key_right_rekeyed(right, right_key_types or []), False
    if not need_left:
        fmt = left
    elif not need_right:
        fmt = right
    else:
        fmt = next((f for f in (left, right) if f[0] != "NONE"), (default_format, None, None))
        if key_types is not None and not holds_key(fmt[0], key_types):
            # both sides re-keyed by expression into a format that cannot write the new key (KAFKA: a STRUCT,
            # a BOOLEAN; DELIMITED: a STRUCT, ARRAY, MAP): SchemaKStream.selectKey's sanitizeKeyFormat moves
            # the re-keyed streams - and so the join - to JSON, without the format's properties
            fmt = ("JSON", None, None)
    forced = fmt[0] in SR_KEY_FORMATS
    rep_left = need_left or (left_is_source and (left != fmt or forced))
    rep_right = need_right or right != fmt or forced
    return fmt, rep_left, rep_right, forced
