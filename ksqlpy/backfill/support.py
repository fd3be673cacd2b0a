"""What the Spark backfill can run today, checked before anything is created.

Every refusal is a ``BackfillUnsupported`` naming the feature, so a user knows to run the statement on
the streaming runtime instead (which handles everything). What is supported, and why the rest is not,
is listed in docs/backfill.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import ast as A
from ksqlpy.plan.logical import Aggregate, Join, JoinFlavor, Scan, Sink

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine


# what each join needs that a backfill task does not have: two inputs read together in one task
_JOINS = {
    JoinFlavor.STREAM_STREAM: "stream-stream joins (WITHIN): each side's records are buffered in join windows "
                              "and matched in the order both topics interleave, so a task would read two "
                              "co-partitioned topics in timestamp order with both window stores",
    JoinFlavor.STREAM_TABLE: "stream-table joins: each stream record is matched against the table as it was "
                             "when the record arrived, so a task would replay the table's topic interleaved "
                             "with the stream's by timestamp into a store",
    JoinFlavor.TABLE_TABLE: "table-table joins: either side's update re-joins against the other side's store, "
                            "so a task would replay both tables' topics together into two stores",
    JoinFlavor.FOREIGN_KEY: "foreign-key table joins: updates on either side re-join through a subscription "
                            "store, so a task would replay both tables' topics together",
}


class BackfillUnsupported(KsqlStatementError):
    """The statement is valid but the Spark backfill cannot run it (yet)."""


def refuse(what: str) -> BackfillUnsupported:
    return BackfillUnsupported(f"The Spark backfill does not support {what} yet; run the statement on the "
                               "streaming runtime instead (without backfill).")


def statement(engine: Engine, sql: str) -> A.CreateAsSelect:
    """The one CREATE STREAM/TABLE AS SELECT a backfill runs."""
    stmts = engine.parse(sql)
    if len(stmts) != 1 or not isinstance(stmts[0], A.CreateAsSelect):
        raise KsqlStatementError("A backfill runs exactly one CREATE STREAM ... AS SELECT or CREATE TABLE ... AS "
                                 "SELECT statement.")
    stmt = stmts[0]
    if engine.catalog.source(stmt.name) is not None:
        raise KsqlStatementError(f"Cannot backfill '{stmt.name}': a source with that name exists already. A "
                                 "backfill creates its sink and query.")
    return stmt


def moves_records(sub_topologies: int, partitions: int) -> bool:
    """Does the query's aggregation move records between partitions? It has a repartition topic (two
    sub-topologies) whenever its groups are not the source's key - ksqlDB plans it whatever the partition
    count - but over one partition the topic hands the one task its records in source offset order, which
    aggregating the source partition in place gives too."""
    return sub_topologies > 1 and partitions > 1


def check(engine: Engine, plan: Sink) -> None:
    """Raise ``BackfillUnsupported`` for what the backfill cannot reproduce exactly."""
    if str(engine.prop("ksqlpy.workers", "inline")).strip().lower() == "process":
        raise refuse("queries run by worker processes (ksqlpy.workers=process)")
    from ksqlpy.backfill.writes import choose

    choose(engine)  # (who writes the output: ``tasks`` refused where the broker shows aborted transactions)
    scan = plan.bottom
    if not isinstance(scan, Scan):
        join = plan.find(Join)
        raise refuse(_JOINS.get(join.flavor, "joins") if join is not None else "joins")
    source = scan.source
    if source.kind != "STREAM":
        raise refuse("a TABLE as the source: its updates replace and retract earlier rows, so a task would "
                     "need the table's store as of each record (the source table's materialization and the "
                     "grouper's previous contributions), which the backfill does not build")
    agg = plan.find(Aggregate)
    if agg is None:
        return
    if agg.window is not None:
        if moves_records(2 if agg.repartition else 1, engine.catalog.partition_count(source.topic) or 1):
            raise refuse("windowed GROUP BY on anything but the source key over several partitions (the "
                          "streaming result then depends on how the repartition topic interleaves partitions)")


def check_sink(sink: Any) -> None:
    """What the sink needs (nothing refused today: the schema-registry formats go with the job, ``registry``)."""
