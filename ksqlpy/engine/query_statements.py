"""Statements on queries: TERMINATE, PAUSE/RESUME, RESET QUERY, and SELECT (a pull query answered, a push
query started)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ksqlpy.engine.results import StatementResult, status
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import ast as A

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine



def transient_id(engine: Engine, query_id: str) -> str | None:
    """The running push query ``query_id`` names, if any: ksqlDB compares query ids case-insensitively
    (``QueryId``), and a push query's id is mixed-case (``transient_S_123``) while an unquoted id in
    TERMINATE may be written in any case."""
    wanted = query_id.upper()
    return next((qid for qid in list(engine.transient) if qid.upper() == wanted), None)


def materializes_source_table(engine: Engine, query_id: str) -> bool:
    """Whether ``query_id`` is the query that keeps a CREATE SOURCE TABLE materialized (ksqlDB's
    PersistentQueryType.CREATE_SOURCE): only DROP of the table ends it."""
    q = engine.queries.get(query_id)
    sink = engine.catalog.source(q.sink_name) if q is not None and q.sink_name else None
    return sink is not None and sink.is_source and sink.created_by_query == query_id


def terminate(engine: Engine, stmt: A.Terminate) -> StatementResult:
    if stmt.query_id is None:
        # from memory of ksqlDB's TerminateQueryExecutor: ALL is every persistent query but those of
        # PersistentQueryType CREATE_SOURCE - a SOURCE table's query ends only with DROP of its table
        for qid in [q for q in engine.queries if not materializes_source_table(engine, q)]:
            engine.stop_persistent(qid)
        return status(stmt, "Query terminated.")  # ksqlDB's one success text for every TERMINATE
    push = transient_id(engine, stmt.query_id)
    if push is not None:
        engine.transient[push].close()
        return status(stmt, "Query terminated.")
    qid = stmt.query_id.upper()
    if qid not in engine.queries:
        raise KsqlStatementError(f"Unknown queryId: {stmt.query_id}")
    if materializes_source_table(engine, qid):
        # ksqlDB's TerminateQueryValidator (from memory): a SOURCE table's CST_ query goes with its table
        raise KsqlStatementError(f"Cannot terminate query '{qid}' because it is linked to a source table.")
    engine.stop_persistent(qid)
    return status(stmt, "Query terminated.")


def reset_query(engine: Engine, stmt: A.ResetQuery) -> StatementResult:
    """``RESET QUERY``: ksqlpy's own statement (reset.py); runs locally, its effect is in the log."""
    from ksqlpy.engine.reset import parse_time, reset_running_query

    to = parse_time(stmt.to_timestamp) if stmt.to_timestamp is not None else None
    result = reset_running_query(engine, stmt.query_id, to)
    where = "the earliest offsets" if to is None else f"timestamp {to}"
    return status(stmt, f"Query {result.query_id} reset to {where}: its state and internal topics were deleted "
                         "and it recomputes from there.", result.query_id)


def pause_resume(engine: Engine, stmt: A.PauseResume) -> StatementResult:
    ids = list(engine.queries) if stmt.query_id is None else [stmt.query_id.upper()]
    for qid in ids:
        q = engine.queries.get(qid)
        if q is None:
            raise KsqlStatementError(f"Unknown queryId: {qid}")
        q.state = "PAUSED" if stmt.action == "PAUSE" else "RUNNING"
        info = engine.catalog.query(qid)
        if info:
            info.state = q.state
    return status(stmt, f"Query {'paused' if stmt.action == 'PAUSE' else 'resumed'}.")


def select(engine: Engine, stmt: A.SelectStatement) -> StatementResult:
    if stmt.query.emit is not None:
        tq = engine.push_query(stmt.text)
        return StatementResult("push", stmt.text, data=tq, query_id=tq.query_id)
    if getattr(engine, "sandbox", False):  # a script validated (sandbox.py): planned, not run
        from ksqlpy.engine.pull import check_pull

        return StatementResult("rows", stmt.text, data=check_pull(engine, stmt))
    from ksqlpy.engine.pull import pull_result

    # data: {"columns": [(name, type)], "rows": [tuple], "keys": [names of the key columns selected]}
    return StatementResult("rows", stmt.text, data=pull_result(engine, stmt))
