"""What the Spark backfill can run today, checked before anything is created.

Every refusal is a ``BackfillUnsupported`` naming the feature, so a user knows to run the statement on
the streaming runtime instead (which handles everything). What is supported, and why the rest is not,
is listed in docs/backfill.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import ast as A
from ksqlpy.plan.logical import Aggregate, Join, Scan, Sink

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine


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


def replayed(engine: Engine, plan: Sink) -> bool:
    """Whether the query runs on the replay lowering (``replay``): a join, whose result depends on how its
    inputs interleave; a TABLE source, whose updates retract earlier rows; a windowed GROUP BY on anything
    but the source key over several partitions, whose result depends on how the repartition topic
    interleaves the partitions - all decided by the streaming runtime's tasks, which the replay runs as
    they are."""
    scan = plan.bottom
    if plan.find(Join) is not None or not isinstance(scan, Scan) or scan.source.kind != "STREAM":
        return True
    agg = plan.find(Aggregate)
    return agg is not None and agg.window is not None and moves_records(
        2 if agg.repartition else 1, engine.catalog.partition_count(scan.source.topic) or 1)


def check(engine: Engine, plan: Sink) -> None:
    """Raise ``BackfillUnsupported`` for what the backfill cannot reproduce exactly."""
    if str(engine.prop("ksqlpy.workers", "inline")).strip().lower() == "process":
        raise refuse("queries run by worker processes (ksqlpy.workers=process)")
    from ksqlpy.backfill.writes import choose

    choose(engine)  # (who writes the output: ``tasks`` refused where the broker shows aborted transactions)


def check_sink(sink: Any) -> None:
    """What the sink needs (nothing refused today: the schema-registry formats go with the job, ``registry``)."""
