"""Persistent and transient (push) queries: from a QueryPlan to running tasks."""

from __future__ import annotations

import logging
import queue
import uuid
from typing import TYPE_CHECKING, Any

from ksqlpy.catalog import Source
from ksqlpy.engine.results import TombstoneRow
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.bound import ColumnRef
from ksqlpy.grammar import ast as A
from ksqlpy.plan.codegen import StageSpec, build_stateless
from ksqlpy.plan.logical import OutputColumn, QueryPlan
from ksqlpy.runtime.assignment import owns
from ksqlpy.runtime.reader import SourceReader, throws_on_invalid_timestamp
from ksqlpy.runtime.task import Task, poll_batch, prefetch_all, stateless_processor
from ksqlpy.runtime.writer import SinkWriter

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

_LOG = logging.getLogger("ksqlpy.queries")


class PersistentQuery:
    def __init__(self, query_id: str, sql: str, plan: QueryPlan, sink: Source, tasks: list[Task]) -> None:
        self.query_id = query_id
        self.sql = sql
        self.plan = plan
        self.sink_name = sink.name
        self.sink = sink
        self.source_names = [plan.source.name]
        self.tasks = tasks
        self.state = "RUNNING"
        self.aggregation: Any = None  # runtime.aggregate.AggregateTasks of an aggregation (pull queries)
        self.materialization: Any = None  # runtime.materialize.Materialization of a table query (pull queries)
        self.resources: list[Any] = []  # closed with the query (state stores)
        self._prefetched = False

    def poll(self) -> int:
        if self.state != "RUNNING":
            return 0
        if not self._prefetched:
            self._prefetched = True
            prefetch_all(self.tasks)
        return sum(poll_batch(t) for t in self.tasks)

    def close(self) -> None:
        """Stop: what the tasks processed but hold for the commit interval is committed first (a clean
        stop hands everything over, as Kafka Streams commits on close)."""
        if self.state == "RUNNING":
            for t in self.tasks:
                if getattr(t, "pending", False):
                    try:
                        t.commit_now()
                    except Exception:  # noqa: BLE001 - the held work is read again from the committed offsets
                        _LOG.warning("query %s: committing held work on close failed", self.query_id, exc_info=True)
        self.state = "TERMINATED"
        for r in self.resources:
            r.close()

    def cleanup(self) -> None:
        """After TERMINATE/DROP: delete the query's internal topics and local state (ksqlDB's cleanup)."""
        for r in self.resources:
            clean = getattr(r, "cleanup", None)
            if clean is not None:
                clean()
        self.resources = []


def _partitions(engine: Engine, topic: str) -> int:
    info = engine.log.describe_topic(topic)
    if info is None:
        raise KsqlStatementError(f"Kafka topic does not exist: {topic}")
    return info.partitions


def _stateless_spec(plan: QueryPlan, groups: list[list[OutputColumn]], *, table: bool,
                    pass_tombstones: bool, with_headers: bool = False) -> StageSpec:
    return StageSpec(
        input_schema=plan.input_schema, where=plan.where,
        rekey_exprs=plan.rekey.exprs if plan.rekey is not None else None,
        projection_schema=plan.projection_schema or plan.input_schema,
        table_functions=plan.table_functions, outputs=groups, functions=plan.functions,
        tombstone_on_filter=table, pass_tombstones=pass_tombstones, with_headers=with_headers,
    )


def _processor_for(engine: Engine, plan: QueryPlan, query_id: str, groups: list[list[OutputColumn]],
                   *, persistent: bool) -> tuple[Any, bool]:
    """The per-task processor factory and whether the reader must keep tombstones."""
    table = plan.source.kind == "TABLE"  # (push queries on tables see deletes too)
    # streams forward null rows through a plain projection (no WHERE, no re-key, no table functions)
    stream_nulls = (persistent and plan.source.kind == "STREAM" and plan.where is None
                    and not plan.table_functions)
    pipeline = build_stateless(_stateless_spec(plan, groups, table=table, pass_tombstones=table or stream_nulls,
                                               with_headers=persistent))
    proc = stateless_processor(pipeline, engine.plog, query_id, keep_null_keys=persistent and keeps_input_key(plan))
    return (lambda partition: proc), table or stream_nulls


def keeps_input_key(plan: QueryPlan) -> bool:
    """The query writes each input record's key as it came: no PARTITION BY, or one that names exactly the
    input's key columns in order (ksqlDB's ``repartitionNeeded`` is false and it does not re-key). A null
    Kafka key then stays null instead of becoming a key of NULL columns."""
    if plan.rekey is None:
        return True
    keys = [i for i, c in enumerate(plan.input_schema.columns) if c.role == "key"]
    exprs = plan.rekey.exprs
    return bool(keys) and [e.index if isinstance(e, ColumnRef) else None for e in exprs] == keys


def tombstone_positions(plan: QueryPlan) -> list[int]:
    """Which columns of a push query's rows carry the result's key, filled in its deletes (ksqlDB's
    TombstoneFactory: a projected key column keeps its value, every other column is NULL): the GROUP BY
    keys and window bounds of an aggregation, else the key columns (and window bounds) of the table or
    joined source."""
    agg = plan.aggregation
    if agg is not None:
        names = set(agg.key_names) | ({"WINDOWSTART", "WINDOWEND"} if agg.window is not None else set())
        return [i for i, c in enumerate(plan.value) if isinstance(c.expr, ColumnRef) and c.expr.name in names]
    schema = plan.projection_schema or plan.input_schema
    return [i for i, c in enumerate(plan.value)
            if isinstance(c.expr, ColumnRef) and schema.columns[c.expr.index].role in ("key", "window")]


def _sink_timestamp(sink: Source) -> dict[str, Any]:
    """Where a sink with TIMESTAMP='col' takes each record's timestamp from."""
    col = sink.timestamp_column
    if not col:
        return {}
    keys = [c.name for c in sink.key_columns]
    values = [c.name for c in sink.value_columns]
    if col in keys:
        where = (0, keys.index(col))
    elif col in values:
        where = (1, values.index(col))
    else:
        raise KsqlStatementError(f"The TIMESTAMP column set in the WITH clause does not exist in the schema: '{col}'")
    parser = None
    if sink.timestamp_format:
        from ksqlpy.functions import javatime

        parser = javatime.timestamp_parser(sink.timestamp_format)
    return {"timestamp_from": where, "timestamp_parser": parser}


def _topic_partitions(engine: Engine, topic: str) -> int:
    info = engine.log.describe_topic(topic)
    return info.partitions if info is not None else 1


def build_persistent(engine: Engine, plan: QueryPlan, sink: Source, query_id: str, sql: str) -> PersistentQuery:
    source = plan.source
    group = f"_confluent-ksql-{engine.prop('ksql.service.id')}{engine.prop('ksql.persistent.prefix')}{query_id}"
    groups = [plan.key, plan.value]
    key_in, value_in = engine.key_serde(source), engine.value_serde(source)
    writer = SinkWriter(sink.topic, engine.key_serde(sink), engine.value_serde(sink), engine.plog, query_id,
                        windowed=sink.windowed is not None, keyless=not sink.key_columns,
                        partitions=_topic_partitions(engine, sink.topic), **_sink_timestamp(sink))
    start_at = str(engine.prop("auto.offset.reset", "latest")).lower()
    if plan.join is not None:
        from ksqlpy.runtime.join_query import build_join

        built_join = build_join(engine, plan, query_id, groups, persistent=True, sink=sink, writer=writer,
                                group=group, start_at=start_at)
        pq = PersistentQuery(query_id, sql, plan, sink, built_join.tasks)
        pq.source_names = built_join.source_names
        pq.aggregation = built_join.aggregation
        pq.resources.append(built_join)
        if built_join.aggregation is not None:
            from ksqlpy.engine.materialized import attach_aggregate

            attach_aggregate(pq, built_join.aggregation)
        elif built_join.materialization is not None:
            pq.materialization = built_join.materialization  # type: ignore[attr-defined]
        return pq
    if plan.aggregation is not None:
        from ksqlpy.runtime.aggregate import build_aggregate_tasks

        built = build_aggregate_tasks(engine, plan, query_id, groups, persistent=True, sink=sink, writer=writer,
                                      group=group, start_at=start_at, partitions=_partitions(engine, source.topic))
        pq = PersistentQuery(query_id, sql, plan, sink, built.tasks)
        pq.aggregation = built
        pq.resources.append(built)
        from ksqlpy.engine.materialized import attach_aggregate

        attach_aggregate(pq, built)
        return pq
    windowed_keys = sink.windowed is not None and source.windowed is not None and plan.rekey is None
    if windowed_keys:
        from ksqlpy.runtime.windowed_source import window_key_groups

        groups = window_key_groups(groups, plan.projection_schema or plan.input_schema)
    factory, keep_tombstones = _processor_for(engine, plan, query_id, groups, persistent=True)
    if windowed_keys:
        from ksqlpy.runtime.windowed_source import windowed_rows

        factory = windowed_rows(factory)
    tasks = []
    for p in range(_partitions(engine, source.topic)):
        if not owns(engine, p):
            continue
        reader = SourceReader(source, key_in, value_in, engine.plog, query_id, keep_tombstones=keep_tombstones,
                              throw_on_invalid_timestamp=throws_on_invalid_timestamp(engine))
        tasks.append(Task(task_id=f"0_{p}", log=engine.log, group=group, topic=source.topic, partition=p,
                          reader=reader, processor=factory(p), writer=writer, plog=engine.plog,
                          start_at=start_at))
    pq = PersistentQuery(query_id, sql, plan, sink, tasks)
    if sink.kind == "TABLE":
        from ksqlpy.engine.materialized import materialize_tasks

        materialize_tasks(engine, pq)
    return pq


class TransientQuery:
    """A push query: rows go to an in-memory queue the caller iterates."""

    def __init__(self, engine: Engine, query_id: str, plan: QueryPlan, columns: list[tuple[str, Any]],
                 limit: int | None) -> None:
        self.engine = engine
        self.query_id = query_id
        self.plan = plan
        self.columns = columns
        self.limit = limit
        self.rows: queue.Queue[tuple | None] = queue.Queue()
        self.emitted = 0
        self.tasks: list[Task] = []
        self.done = False
        self.resources: list[Any] = []  # state stores, internal topics: released once no task runs
        self._polling = False

    def _on_rows(self, rows: list[tuple]) -> None:
        for r in rows:
            if self.done:
                return
            self.rows.put(r)
            self.emitted += 1
            if self.limit is not None and self.emitted >= self.limit:
                self.close()
                return

    def poll(self) -> int:
        if self.done:
            self._release()
            return 0
        self._polling = True
        try:
            n = 0
            for t in self.tasks:
                if self.done:
                    break
                n += t.poll()
            return n
        finally:
            self._polling = False
            if self.done:
                self._release()

    def close(self) -> None:
        if not self.done:
            self.done = True
            self.rows.put(None)
            self.engine.transient.pop(self.query_id, None)
        if not self._polling:
            self._release()

    def _release(self) -> None:
        resources, self.resources = self.resources, []
        for r in resources:
            r.close()

    def __iter__(self):  # type: ignore[no-untyped-def]
        while True:
            r = self.rows.get()
            if r is None:
                return
            yield r

    def get(self, timeout: float | None = None) -> tuple | None:
        """Next row, or None when the query ended; raises queue.Empty on timeout."""
        return self.rows.get(timeout=timeout)


def build_transient(engine: Engine, stmt: A.SelectStatement, properties: dict[str, Any]) -> TransientQuery:
    from ksqlpy.analysis.query import analyze_query

    # a push query (EMIT ...) aggregates without GROUP BY as one group; a pull query over a stream does not
    plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=None, persistent=False,
                         sql=stmt.text, implicit_group=stmt.query.emit is not None)
    engine.transient_counter += 1
    # unique per process and run: a transient query never resumes another one's position
    qid = f"transient_{plan.source.name}_{engine.transient_counter}_{uuid.uuid4().int % 10**19}"
    cols = [(c.name, c.type) for c in plan.value]
    aggregating = plan.aggregation is not None
    table = plan.source.kind == "TABLE"
    # tables (and aggregations) also hand over their deletes: (value group, None, ts) rows
    groups = [plan.value, []] if aggregating or table else [plan.value]
    tq = TransientQuery(engine, qid, plan, cols, plan.limit)
    from ksqlpy.engine.config import Properties

    start_at = str(Properties(engine.effective_properties(), properties).get("auto.offset.reset")).lower()
    source = plan.source
    key_in, value_in = engine.key_serde(source), engine.value_serde(source)
    group = f"_confluent-ksql-{engine.prop('ksql.service.id')}transient_{qid}"

    windowed = aggregating and plan.aggregation.window is not None  # type: ignore[union-attr]
    keyed = frozenset(tombstone_positions(plan))

    def deleted(values: tuple) -> TombstoneRow:
        return TombstoneRow(v if i in keyed else None for i, v in enumerate(values))

    def on_rows(rows: list[tuple]) -> None:
        if aggregating:  # (key group or (key group, ws, we), value group | None, ts)
            tq._on_rows([(r[0][0] if windowed else r[0]) if r[1] is not None
                         else deleted(r[0][0] if windowed else r[0]) for r in rows])
        elif table:
            tq._on_rows([r[0] if r[1] is not None else deleted(r[0]) for r in rows])
        else:
            tq._on_rows([r[0] for r in rows if r[0] is not None])

    if plan.join is not None:
        from ksqlpy.runtime.join_query import build_join

        built_join = build_join(engine, plan, qid, groups, persistent=False, sink=None, writer=None, group=group,
                                start_at=start_at, on_rows=on_rows)
        tq.tasks.extend(built_join.tasks)
        tq.resources.append(built_join)
        engine.transient[qid] = tq
        return tq
    if aggregating:
        from ksqlpy.runtime.aggregate import build_aggregate_tasks

        built = build_aggregate_tasks(engine, plan, qid, groups, persistent=False, sink=None, writer=None,
                                      group=group, start_at=start_at, partitions=_partitions(engine, source.topic),
                                      on_rows=on_rows, properties=properties)
        tq.tasks.extend(built.tasks)
        tq.resources.append(built)
        engine.transient[qid] = tq
        return tq
    factory, keep = _processor_for(engine, plan, qid, groups, persistent=False)
    for p in range(_partitions(engine, source.topic)):
        reader = SourceReader(source, key_in, value_in, engine.plog, qid, keep_tombstones=keep,
                              throw_on_invalid_timestamp=throws_on_invalid_timestamp(engine))
        tq.tasks.append(Task(task_id=f"0_{p}", log=engine.log, group=group, topic=source.topic, partition=p,
                             reader=reader, processor=factory(p), writer=None, plog=engine.plog,
                             start_at=start_at, on_rows=on_rows, commit=False))
    engine.transient[qid] = tq
    return tq
