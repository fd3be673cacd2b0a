"""What the Spark backfill can run today, checked before anything is created.

Every refusal is a ``BackfillUnsupported`` naming the feature, so a user knows to run the statement on
the streaming runtime instead (which handles everything). What is supported, and why the rest is not,
is listed in docs/backfill.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import ast as A
from ksqlpy.plan.logical import Aggregate, Scan, Sink

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


def check(engine: Engine, plan: Sink) -> None:
    """Raise ``BackfillUnsupported`` for what the backfill cannot reproduce exactly."""
    if str(engine.prop("ksqlpy.workers", "inline")).strip().lower() == "process":
        raise refuse("queries run by worker processes (ksqlpy.workers=process)")
    scan = plan.bottom
    if not isinstance(scan, Scan):
        raise refuse("joins")
    source = scan.source
    if source.kind != "STREAM":
        raise refuse("a TABLE as the source (its updates retract earlier contributions)")
    agg = plan.find(Aggregate)
    if agg is None:
        return
    if agg.window is not None:
        if agg.repartition:
            raise refuse("windowed GROUP BY on anything but the source key over several partitions (the "
                          "streaming result then depends on how the repartition topic interleaves partitions)")


def check_sink(sink: Any) -> None:
    """What the sink needs (nothing refused today: the schema-registry formats go with the job, ``registry``)."""
