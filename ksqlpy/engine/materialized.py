"""Which tables pull queries can read, and the queries that keep them materialized.

* CTAS with GROUP BY: the aggregation's own stores (``AggregateMaterialization``).
* CTAS without aggregation: a store per task fed by the query's output (its topology's ``Materialize``).
* CREATE SOURCE TABLE: ksqlDB starts an internal query ``CST_<NAME>_<n>`` that reads the topic into a
  store (``start_source_table_query``), unless ``ksql.source.table.materialization.enabled`` is false.
* A plain CREATE TABLE has no materialization: pulling from it is an error, as in ksqlDB.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ksqlpy.analysis.query import analyze_query
from ksqlpy.catalog import Source
from ksqlpy.engine.queries import PersistentQuery, partition_counts
from ksqlpy.grammar import parse
from ksqlpy.plan.lower import lower_source_table
from ksqlpy.runtime.materialize import Materialization
from ksqlpy.runtime.query_tasks import build_tasks

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine


def start_source_table_query(engine: Engine, source: Source, sql: str) -> PersistentQuery | None:
    """ksqlDB's ``CST_`` query: materialize a SOURCE table so pull queries can read it."""
    # the configuration's switch, not a session's or request's (ksqlDB reads it with getConfig(false))
    enabled = str(engine.configured("ksql.source.table.materialization.enabled", "true")).lower() != "false"
    if not enabled or source.kind != "TABLE":
        return None
    query_id = engine.next_query_id("CST", source.name)
    (stmt,) = parse(f"SELECT * FROM `{source.name}`;")
    plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=None,  # type: ignore[attr-defined]
                         persistent=False)
    if getattr(engine, "sandbox", False):  # validating a request (sandbox.py): planned, nothing built
        stand_in = engine.build_persistent(plan, source, query_id, sql)
        stand_in.source_names = []
        source.created_by_query = query_id
        engine.start_persistent(stand_in)
        return None
    topology = lower_source_table(source, query_id, engine, partition_counts(engine), engine.plan_rules)
    query = PersistentQuery(query_id, sql, plan, source, build_tasks(engine, topology))
    source.created_by_query = query_id
    engine.start_persistent(query)
    return query


def materializing_query(engine: Engine, table: Source) -> PersistentQuery | None:
    """The running query whose stores pull queries on ``table`` read (None: none)."""
    for q in engine.queries.values():
        if q.sink_name == table.name and getattr(q, "materialization", None) is not None and q.state != "TERMINATED":
            return q  # type: ignore[no-any-return]
    return None


def materialization_for(engine: Engine, table: Source) -> Materialization | None:
    """The materialized state of ``table``, if a running query keeps one."""
    for q in engine.queries.values():
        mat = getattr(q, "materialization", None)
        if q.sink_name == table.name and mat is not None and q.state != "TERMINATED":
            from ksqlpy.engine.pull_partitions import partition_count, restrict, standby_reads

            # the partitions this thread's pull query may read (a cluster's routing)
            view = restrict(q, mat)
            # the query runs in worker processes: read this process's copies of its stores, each caught up
            # to what the workers had committed when the query first reads it (engine/pull_copies.py; a
            # server of a cluster keeps its copies caught up in the background alone: server/membership.py)
            if not q.tasks and not engine.hosting.standby_refresh:
                return standby_reads(q, mat, view, partition_count(mat))
            return view
    return None
