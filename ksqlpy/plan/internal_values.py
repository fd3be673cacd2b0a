"""The value columns ksqlDB writes its internal topics with, so a schema-registry value format can register
them under ``<internal topic>-value`` as ksqlDB's serializers do on first write (from memory of ksqlDB's
AggregateNode, AggregateAnalyzer and KudafAggregator; the runtime's own internal encoding is private).

An aggregation first projects the columns it needs (its *required columns*: the column references of the
GROUP BY expressions, then of the aggregate calls' arguments in call order - ``COUNT(*)`` reads ``ROWTIME``,
ksqlDB's default argument -; window bounds excluded; each once) as ``KSQL_INTERNAL_COL_<n>``, followed by one
internal column per aggregate argument that is not a plain column reference. That row is the value of
``Aggregate-GroupBy-repartition``. The aggregate store (``Aggregate-Aggregate-Materialize``, and its
changelog) holds the required columns, then ``KSQL_AGG_VARIABLE_<n>`` per aggregate call in its
intermediate (state) type: AVG's ``STRUCT<SUM, COUNT>``, not its DOUBLE result.
"""

from __future__ import annotations

from dataclasses import replace

from ksqlpy import types as T
from ksqlpy.analysis.pseudo_columns import OFFSET_COLUMNS
from ksqlpy.catalog import Source
from ksqlpy.expr import bound as B
from ksqlpy.plan.logical import Aggregate

INTERNAL_COLUMN = "KSQL_INTERNAL_COL_{}"
WINDOW_BOUNDS = ("WINDOWSTART", "WINDOWEND")
Columns = list[tuple[str, T.SqlType]]


# the pseudo columns a table source's store keeps with each row, in order (ksqlDB's
# SystemColumns.mustBeMaterializedForTableJoins): ROWTIME is the record's timestamp, so only these two
MATERIALIZED_PSEUDO = dict(zip(OFFSET_COLUMNS, (T.INTEGER, T.BIGINT), strict=True))


def materialized_source_values(source: Source, offsets: bool) -> Columns:
    """The value columns of a table source materialized as read (``KsqlTopic-Reduce``, a join's
    ``KafkaTopic_Left|Right-Reduce``): the source's value columns, then ROWPARTITION INTEGER and ROWOFFSET
    BIGINT when the query was planned with ``ksql.rowpartition.rowoffset.enabled`` on (``offsets``), because
    a later step reads them from the stored row, not from a record. From memory of ksqlDB's
    SourceBuilder.buildTableMaterialized / LogicalSchema.withPseudoColumnsToMaterialize under the source
    step's pseudoColumnVersion (1 with the property on, 0 off)."""
    columns = [(c.name, c.type) for c in source.value_columns]
    return columns + list(MATERIALIZED_PSEUDO.items()) if offsets else columns


def required_columns(agg: Aggregate) -> list[tuple[str, T.SqlType]]:
    """The input columns the aggregation reads, in ksqlDB's order, by their names in the input row."""
    seen: dict[str, T.SqlType] = {}

    def visit(e: B.Expr) -> None:
        for node in e.walk():
            if isinstance(node, B.ColumnRef) and node.name.upper() not in WINDOW_BOUNDS:
                seen.setdefault(node.name, node.type)

    for g in agg.group_by:
        visit(g)
    for call in agg.aggregates:
        if not call.args:  # COUNT(*): ksqlDB counts its default argument, the source's ROWTIME
            seen.setdefault("ROWTIME", T.BIGINT)
        for a in call.args:
            visit(a)
    return list(seen.items())


def internal_names(agg: Aggregate) -> tuple[dict[str, str], dict[B.Expr, str]]:
    """ksqlDB's ``InternalSchema``: each required column's internal name, then each aggregate argument's that
    is not a plain required column (by expression, each once)."""
    columns = {n: INTERNAL_COLUMN.format(i) for i, (n, _) in enumerate(required_columns(agg))}
    expressions: dict[B.Expr, str] = {}
    for call in agg.aggregates:
        for a in call.args:
            if isinstance(a, B.ColumnRef) and a.name in columns or a in expressions:
                continue
            expressions[a] = INTERNAL_COLUMN.format(len(columns) + len(expressions))
    return columns, expressions


def internal_text(e: B.Expr, names: tuple[dict[str, str], dict[B.Expr, str]]) -> str:
    """An expression over the aggregation's input as ksqlDB's steps after the Prepare step print it: over the
    internal columns (``UCASE(KSQL_INTERNAL_COL_0)``)."""
    columns, expressions = names
    if e in expressions:
        return expressions[e]

    def rename(node: B.Expr) -> B.Expr:
        if isinstance(node, B.ColumnRef) and node.name in columns:
            return replace(node, display=columns[node.name])
        return node

    return str(e.transform(rename))


def repartition_values(agg: Aggregate) -> Columns:
    """The value of ``Aggregate-GroupBy-repartition``: every internal column of the Prepare step."""
    out: Columns = list(required_columns(agg))
    _, expressions = internal_names(agg)
    out += [(name, e.type) for e, name in expressions.items()]
    return [(INTERNAL_COLUMN.format(i), t) for i, (_, t) in enumerate(out)]


def aggregate_store_values(agg: Aggregate) -> Columns:
    """The value of the aggregate store and its changelog: the required columns, then each aggregate's
    state in its intermediate type (the result type where a function keeps no other state)."""
    out: Columns = [(INTERNAL_COLUMN.format(i), t) for i, (_, t) in enumerate(required_columns(agg))]
    for call in agg.aggregates:
        resolved = call.resolved
        state = getattr(resolved, "intermediate_type", None) or resolved.return_type
        out.append((call.name, state))
    return out
