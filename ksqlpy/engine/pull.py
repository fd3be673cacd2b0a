"""Pull queries: a SELECT without EMIT answers from what exists now and ends.

On streams it scans the topic to its current end. Tables are answered from materialized state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ksqlpy.engine.queries import build_transient
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import ast as A

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine


def pull_query(engine: Engine, stmt: A.SelectStatement) -> tuple[list[tuple[str, Any]], list[tuple]]:
    q = stmt.query
    if q.joins or q.group_by or q.window or q.partition_by:
        raise KsqlStatementError("Pull queries don't support JOIN, GROUP BY, WINDOW or PARTITION BY clauses.")
    src = engine.catalog.source(q.source.name)
    if src is not None and src.kind == "TABLE":
        raise KsqlStatementError("Unsupported: pull queries on tables need materialized state")
    tq = build_transient(engine, stmt, {"auto.offset.reset": "earliest"})
    try:
        ends = {(t.topic, t.partition): engine.log.end_offset(t.topic, t.partition) for t in tq.tasks}
        while any(t.position < ends[(t.topic, t.partition)] for t in tq.tasks) and not tq.done:
            if not tq.poll():
                break
        rows: list[tuple] = []
        while not tq.rows.empty():
            r = tq.rows.get_nowait()
            if r is None:
                break
            rows.append(r)
        return tq.columns, rows
    finally:
        tq.close()

