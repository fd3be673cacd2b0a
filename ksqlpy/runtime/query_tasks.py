"""A query's tasks, built from its physical topology (``plan.topology``) for a ``RuntimeContext``: what the
engine runs in its process and a worker process runs for the partitions it owns.

Per sub-topology and owned partition, one task: a ``Task`` over a source or repartition topic, or a
``JoinTask`` over the channels of a join stage; its processor is the sub-topology's operator chain built
from each operator's config (the stateless stage, grouping, aggregation, materialization, the join's
result), its writer the sink or repartition topic the chain ends in. Stores are opened here and restored
by each task in its restore phase. Internal topics the topology names are created if missing.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ksqlpy.catalog import Source
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.bound import ColumnRef
from ksqlpy.functions import builtin_registry, javatime
from ksqlpy.plan import naming
from ksqlpy.plan.logical import ColumnRole
from ksqlpy.plan.topology import (
    AggregateStage,
    GroupStage,
    JoinOperator,
    JoinResult,
    JoinStage,
    Materialize,
    MaterializedRows,
    ReadRepartition,
    ReadSource,
    StatelessStage,
    StoreKind,
    SubTopology,
    TopicKind,
    Topology,
    ToResult,
    WriteRepartition,
    WriteSink,
)
from ksqlpy.runtime.aggregate import (
    AggregateProcessor,
    Aggregation,
    GroupProcessor,
    aggregate_spec,
    aggregator_class,
    key_bytes,
)
from ksqlpy.runtime.aggregator import AggregateSpec
from ksqlpy.runtime.alignment import upstream_first, wire_upstream
from ksqlpy.runtime.combine import Combiner, combinable
from ksqlpy.runtime.context import (
    RuntimeContext,
    fail_on_deserialization,
    poll_records,
    state_root,
    strict_timestamps,
    warm_copy,
)
from ksqlpy.runtime.group_by import Grouper, compile_grouping
from ksqlpy.runtime.join_build import JoinWiring
from ksqlpy.runtime.join_keys import rekey
from ksqlpy.runtime.join_output import JoinOutput, where_predicate
from ksqlpy.runtime.join_placement import aggregated, materialized, relocate
from ksqlpy.runtime.join_task import JoinTask, ResultRows, TaskContext
from ksqlpy.runtime.materialize import (
    AggregateMaterialization,
    InputRowsProcessor,
    InputRowStore,
    Materialization,
    MaterializingProcessor,
    ProjectedMaterialization,
    SourceTableProcessor,
    StoreMaterialization,
    TableStore,
    table_sort_key,
)
from ksqlpy.runtime.processor import Processor
from ksqlpy.runtime.reader import SourceReader
from ksqlpy.runtime.repartition import RepartitionReader, RepartitionWriter
from ksqlpy.runtime.serdes import QuerySerdes
from ksqlpy.runtime.stateless import (
    SplitStage,
    TableWhereDeletes,
    projection_processor,
    stateless_processor,
    where_processor,
)
from ksqlpy.runtime.task import Task, init_all
from ksqlpy.runtime.writer import SinkWriter
from ksqlpy.schema_registry.sources import SR_FORMATS
from ksqlpy.serde import key_serde, register_writer_schema, value_serde
from ksqlpy.state.environment import StoreEnvironment
from ksqlpy.state.store import KeyValueStore
from ksqlpy.state.windowed import TIME_INDEX

Rows = Callable[[list[tuple]], None]

_LOG = logging.getLogger(__name__)


@dataclass
class QueryTasks:
    """The running form of one query: its tasks and what it holds besides them."""

    topology: Topology
    tasks: list[Any]
    stores: list[KeyValueStore] = field(default_factory=list)
    aggregation: Aggregation | None = None  # an aggregation's aggregators (pull queries, backfill)
    materialization: Materialization | None = None  # what pull queries read of a table result
    state_root: str | None = None
    log: Any = None

    @property
    def source_names(self) -> list[str]:
        return self.topology.sources

    def close(self) -> None:
        """Close the tasks (their processors and stores); a transient query's internal topics go too."""
        for t in self.tasks:
            try:
                t.close()
            except Exception:  # noqa: BLE001 - closing is best effort
                pass
        for kv in self.stores:
            kv.close()
        if not self.topology.persistent:  # a transient query's state and topics are its own
            self._delete_topics()
            if self.state_root:
                shutil.rmtree(self.state_root, ignore_errors=True)

    def cleanup(self) -> None:
        """After TERMINATE/DROP: delete the query's internal topics and local state (ksqlDB's cleanup)."""
        self.close()
        self._delete_topics()
        if self.state_root:
            shutil.rmtree(self.state_root, ignore_errors=True)

    def _delete_topics(self) -> None:
        for t in self.topology.internal_topics():
            try:
                if self.log.topic_exists(t.name):
                    self.log.delete_topic(t.name)
            except Exception:  # noqa: BLE001 - best effort
                pass


def sink_timestamp(sink: Source, *, from_column: bool = True) -> dict[str, Any]:
    """Where a sink with TIMESTAMP='col' takes each record's timestamp from (none: the record keeps the
    ROWTIME the query computed, as an INSERT INTO's do - ``WriteSink.timestamp_from_column``)."""
    col = sink.timestamp_column
    if not col or not from_column:
        return {}
    keys = [c.name for c in sink.key_columns]
    values = [c.name for c in sink.value_columns]
    if col in keys:
        where = (0, keys.index(col))
    elif col in values:
        where = (1, values.index(col))
    else:
        raise KsqlStatementError(f"The TIMESTAMP column set in the WITH clause does not exist in the schema: '{col}'")
    parser = javatime.timestamp_parser(sink.timestamp_format) if sink.timestamp_format else None
    return {"timestamp_from": where, "timestamp_parser": parser}


def sink_writer(ctx: RuntimeContext, write: WriteSink, query_id: str) -> SinkWriter:
    sink = write.sink
    # a log that writes every record to one partition (the test harness's TopologyTestDriver view,
    # ``testing.partitioning``) gets the rows as one batch in the order they were emitted, not grouped by the
    # partition their base keys would go to
    partitions = 1 if getattr(ctx.log, "one_partition", False) else write.partitions
    return SinkWriter(sink.topic, ctx.key_serde(sink), ctx.value_serde(sink), ctx.plog, query_id,
                      windowed=sink.windowed is not None, keyless=not sink.key_columns, partitions=partitions,
                      **sink_timestamp(sink, from_column=write.timestamp_from_column))


def _width(table: Source) -> int:
    """The row width of a materialized table as it is now: rows stored before a query upgrade appended
    columns are shorter and read back with NULLs in the new columns."""
    return len(table.key_columns) + len(table.value_columns) + (2 if table.windowed is not None else 0)


def sink_key_order(topology: Topology) -> list[int] | None:
    """Per key column of the source a CTAS over a table reads, the position of the sink's key column that
    holds it (the sink's keys are the source's, possibly renamed or reordered); None when they are not
    plain references to the source's key columns."""
    stage = next(op for s in topology.sub_topologies for op in s.operators if isinstance(op, StatelessStage))
    keys = stage.outputs[0][:-2] if stage.windowed_keys else stage.outputs[0]
    positions = stage.projection_schema.key_positions()
    order: dict[int, int] = {}
    for j, col in enumerate(keys):
        if not isinstance(col.expr, ColumnRef) or col.expr.index not in positions:
            return None
        order[positions.index(col.expr.index)] = j
    if sorted(order) != list(range(len(positions))):
        return None
    return [order[i] for i in range(len(positions))]


def task_order(topology: Topology) -> list[SubTopology]:
    """Sub-topologies in the order their tasks are polled, upstream first: join stages (numbered from the
    join's root) in reverse, then the others in order."""
    joins = [s for s in topology.sub_topologies if s.operator(JoinStage) is not None]
    rest = [s for s in topology.sub_topologies if s.operator(JoinStage) is None]
    return upstream_first([*reversed(joins), *rest], topology)


class _Build:
    """Building one query's tasks (see the module docstring)."""

    def __init__(self, ctx: RuntimeContext, topology: Topology, on_rows: Rows | None,
                 cache_entries: int | None) -> None:
        self.ctx = ctx
        self.topology = topology
        self.query_id = topology.query_id
        self.persistent = topology.persistent
        self.on_rows = on_rows
        self.cache_entries = cache_entries
        self.strict = strict_timestamps(ctx)
        self.fail_on_deserialization = fail_on_deserialization(ctx)
        self.max_batch = poll_records(ctx)
        self.out = QueryTasks(topology, [], log=ctx.log)
        self.serdes = QuerySerdes(ctx)  # one serde per (format, schema) for every task of the query
        self.joins = JoinWiring(ctx, topology, self.serdes)
        self.functions = topology.functions if topology.functions is not None else builtin_registry()
        self.specs: dict[int, AggregateSpec] = {}
        self.compiled: dict[Any, Any] = {}  # generated functions by operator: compiled once, shared by the tasks
        self.tables: dict[int, TableStore] = {}  # materialized rows by partition
        self.read_stage: Processor | None = None  # a CTAS over a table: the stage its stored rows are read through
        self._sink: SinkWriter | None = None  # one writer for every task of the query

    def internal_topics(self) -> None:
        """Create the query's internal topics; a key in a schema-registry format registers its schema."""
        log = self.ctx.log
        registry = getattr(self.ctx, "schema_registry", None)
        for t in self.topology.internal_topics():
            if t.kind is TopicKind.CHANGELOG and not self.persistent:
                continue
            if not log.topic_exists(t.name):
                log.create_topic(t.name, t.partitions, 1, {"cleanup.policy": t.cleanup_policy})
            if t.key is None or registry is None or not self.persistent:
                continue
            if t.key.format in SR_FORMATS:
                try:
                    register_writer_schema(key_serde(t.key.format, t.key.columns, registry=registry, topic=t.name,
                                                     full_name=getattr(t.key, "full_name", None)))
                except Exception as e:  # noqa: BLE001 - the query's own records do not depend on it
                    _LOG.warning("could not register the key schema of %s: %s", t.name, e)
            values = getattr(t.key, "values", None)  # (a plan from before values were modelled has none)
            if values and (t.key.value_format or "").upper() in SR_FORMATS:
                try:
                    register_writer_schema(value_serde(t.key.value_format or "", values, registry=registry,
                                                       topic=t.name, full_name=t.key.value_full_name,
                                                       nullable=t.key.value_nullable))
                except Exception as e:  # noqa: BLE001 - as for the key
                    _LOG.warning("could not register the value schema of %s: %s", t.name, e)

    def store(self, sub: SubTopology, name: str, partition: int) -> KeyValueStore:
        spec = self.topology.store(name)
        changelog = spec.changelog if self.persistent else None
        index = TIME_INDEX if spec.kind in (StoreKind.WINDOW, StoreKind.SESSION) and name == naming.AGGREGATE_STORE \
            else None  # a window or session aggregate's time index stays off the changelog (state.windowed)
        where = naming.store_directory(name, sub.id, partition, join=sub.operator(JoinStage) is not None)
        if self.out.state_root is None:  # (a query without stores has no state directory)
            self.out.state_root = state_root(self.ctx, self.query_id, persistent=self.persistent)
        # the query's stores here share one LMDB environment (``state.environment``): room for every store
        # of every task this host could build
        environment = StoreEnvironment.shared_at(self.out.state_root, len(self.topology.stores) * sum(
            s.partitions for s in self.topology.sub_topologies))
        kv = KeyValueStore(os.path.join(self.out.state_root, where),
                           self.ctx.log if self.persistent else None, changelog, partition, index, environment)
        kv.seed = warm_copy(self.ctx, changelog, partition)  # a standby's copy: the restore replays the tail
        self.out.stores.append(kv)
        return kv

    def once(self, op: Any, make: Callable[[], Any]) -> Any:
        """``make()`` for ``op`` the first time (code generation is per query, not per task)."""
        got = self.compiled.get(id(op))
        if got is None:
            got = self.compiled[id(op)] = make()
        return got

    def table_filter(self, stage: StatelessStage) -> tuple[Processor, Processor]:
        """A table's stage split for filtering with the previous row (``stateless.filter_with_previous``):
        its WHERE alone, and the stage without it (compiled once per query)."""
        got = self.compiled.get(("table filter", id(stage)))
        if got is None:
            functions, plog, qid = self.functions, self.ctx.plog, self.query_id
            got = self.compiled[("table filter", id(stage))] = (
                where_processor(stage, functions, plog, qid), projection_processor(stage, functions, plog, qid))
        return got

    def grouper(self, stage: GroupStage, kv: KeyValueStore | None) -> Grouper:
        pipeline = self.once(stage, lambda: compile_grouping(stage, self.functions))
        return Grouper(stage, pipeline, self.ctx.plog, self.query_id, kv)

    def spec(self, stage: AggregateStage) -> AggregateSpec:
        spec = self.specs.get(id(stage))
        if spec is None:
            spec = self.specs[id(stage)] = aggregate_spec(stage, self.functions, self.topology.function_config,
                                                          self.ctx.plog, self.query_id,
                                                          cache_entries=self.cache_entries)
            self.out.aggregation = Aggregation(spec)
        return spec

    def combiner(self, group: GroupStage, topic: str) -> Combiner | None:
        """The per-key combiner of the items written to ``topic``, when the aggregation reading it allows
        one (``runtime.combine``)."""
        for sub in self.topology.sub_topologies:
            first = sub.operators[0]
            agg = sub.operator(AggregateStage)
            if isinstance(first, ReadRepartition) and first.topic == topic and agg is not None:
                spec = self.spec(agg)
                return Combiner(spec.accs, agg.key_columns) if combinable(group, agg, spec) else None
        return None

    # ------------------------------------------------------------------ the chain after a task's input
    def chain(self, sub: SubTopology, ops: list[Any], partition: int, stores: list[KeyValueStore]) -> tuple[
            Processor | None, Any, bool]:
        """The processor and writer of ``ops`` (what follows the input) and whether it ends the query."""
        functions, plog, qid = self.functions, self.ctx.plog, self.query_id
        proc: Processor | None = None
        writer: Any = None
        final = False
        grouping: GroupStage | None = None
        filtered_table = False  # a table's WHERE: deletes only for keys whose previous row passed
        stage: StatelessStage | None = None
        for op in ops:
            if isinstance(op, StatelessStage):
                stage = op
                filtered_table = op.tombstone_on_filter and op.where is not None
                materialize = next((o for o in ops if isinstance(o, Materialize)), None)
                if filtered_table and ((materialize is None and op.where_store is not None)
                                       or (materialize is not None and materialize.rows is MaterializedRows.INPUT)):
                    # filtered with the previous row: the WHERE alone and the stage without it are what run,
                    # and give the whole stage's rows too (a pull query's) - the whole stage is not compiled
                    proc = self.once(op, lambda op=op: SplitStage(*self.table_filter(op)))
                else:
                    proc = self.once(op, lambda op=op: stateless_processor(op, functions, plog, qid))
                if filtered_table and op.where_store is not None and materialize is None:
                    # (no store: the rows come filtered with their previous rows - a table join's JoinOutput)
                    kv = self.store(sub, op.where_store, partition)  # per task: its own keys
                    stores.append(kv)
                    # positions in the rows the stage reads: every column but ROWTIME/ROWPARTITION/ROWOFFSET,
                    # which come beside them - a windowed table's bounds follow its pseudo columns in the schema
                    carried = [c for c in op.input_schema.columns if c.role is not ColumnRole.SYSTEM]
                    keys = [i for i, c in enumerate(carried) if c.role in (ColumnRole.KEY, ColumnRole.WINDOW)]
                    proc = TableWhereDeletes(proc, keys, kv, *self.table_filter(op))
                final = True
            elif isinstance(op, GroupStage):
                grouping = op
            elif isinstance(op, AggregateStage):
                spec = self.spec(op)
                kv = self.store(sub, op.store, partition)
                stores.append(kv)
                aggregator = aggregator_class(op.window)(spec, kv, plog, qid)
                assert self.out.aggregation is not None
                self.out.aggregation.aggregators.append(aggregator)
                self.out.aggregation.stores.append(kv)
                grouper = None
                if grouping is not None:
                    grouper = self.grouper(grouping, kv if grouping.store == op.store else None)
                proc = AggregateProcessor(grouper, aggregator, table=op.table)
                grouping = None
                final = True
            elif isinstance(op, Materialize):
                kv = self.store(sub, op.store, partition)
                stores.append(kv)
                final = True
                if op.rows is MaterializedRows.INPUT:
                    assert op.source is not None and proc is not None
                    inputs = InputRowStore(kv, op.source)
                    self.tables[partition] = inputs
                    self.read_stage = proc  # the sink's rows are the stage's output of the stored rows
                    where = project = None
                    if filtered_table:
                        assert stage is not None
                        where, project = self.table_filter(stage)
                    proc = InputRowsProcessor(proc, inputs, where, project)
                    continue
                source_rows = op.rows is MaterializedRows.SOURCE
                table = TableStore(kv, len(op.table.key_columns), op.table.windowed is not None,
                                   None if source_rows else _width(op.table))
                self.tables[partition] = table
                proc = (SourceTableProcessor(table) if source_rows
                        else MaterializingProcessor(proc, table, filtered_table))  # type: ignore[arg-type]
            elif isinstance(op, WriteRepartition):
                assert grouping is not None
                kv0 = None
                if grouping.store is not None:
                    kv0 = self.store(sub, grouping.store, partition)
                    stores.append(kv0)
                proc = GroupProcessor(self.grouper(grouping, kv0), self.combiner(grouping, op.topic))
                writer = RepartitionWriter(op.topic, self.serdes.key_bytes(op.key_columns, op.key_format,
                                                                           op.key_delimiter))
                grouping = None
            elif isinstance(op, WriteSink):
                writer = self.sink_writer(op)
        return proc, writer, final

    def sink_writer(self, op: WriteSink) -> SinkWriter:
        if self._sink is None:
            self._sink = sink_writer(self.ctx, op, self.query_id)
        return self._sink

    # ------------------------------------------------------------------ tasks
    def build(self) -> QueryTasks:
        self.internal_topics()
        built: list[tuple[SubTopology, int, Any]] = []
        for sub in task_order(self.topology):
            for p in range(sub.partitions):
                if self.ctx.owns(p):  # a worker builds only the partitions it runs
                    task = self.task(sub, p)
                    built.append((sub, p, task))
                    self.out.tasks.append(task)
        wire_upstream(self.ctx, self.topology, built)
        self.materialization()
        if self.persistent:
            self.relocate()
        init_all(self.out.tasks)
        return self.out

    def relocate(self) -> None:
        """Move into the partitions whose tasks run here the join store entries whose key is placed there
        since an upgrade of the key's bytes (``join_placement``), before any task restores; with them the join's materialized result and
        an aggregation on the join key in the join's task. An aggregation reading a repartition topic moves
        its groups the same way: they are placed by the group key's repartition bytes."""
        writers = {op.topic: op for s in self.topology.sub_topologies for op in s.operators
                   if isinstance(op, WriteRepartition)}
        for sub in self.topology.sub_topologies:
            first, agg = sub.operators[0], sub.operator(AggregateStage)
            if isinstance(first, ReadRepartition) and agg is not None and sub.partitions > 1:
                w = writers.get(first.topic)
                changelog = self.topology.store(agg.store).changelog
                if w is not None and changelog and w.key_format in SR_FORMATS:
                    relocate(self.ctx.log, self.topology.application_id, [], w.key_format, sub.partitions, None,
                             {changelog: aggregated(key_bytes(w.key_columns, w.key_format, w.key_delimiter),
                                                    sub.partitions)}, self.owned(sub))
            stage = sub.operator(JoinStage)
            if stage is None or sub.partitions < 2:
                continue
            for op in stage.wiring:
                if isinstance(op, JoinOperator) and op.codec.format in SR_FORMATS:
                    topics = [t for t in (self.topology.store(n).changelog for n in op.stores.values()) if t]
                    results = {}
                    mat = sub.operator(Materialize)
                    changelog = self.topology.store(mat.store).changelog if mat is not None else None
                    if isinstance(op.output, ToResult) and changelog:
                        results[changelog] = materialized(self.joins.codec(op.codec), len(mat.table.key_columns),
                                                          sub.partitions)
                    agg = sub.operator(AggregateStage)  # grouped by the join key: no repartition before it
                    changelog = self.topology.store(agg.store).changelog if agg is not None else None
                    if isinstance(op.output, ToResult) and changelog:
                        results[changelog] = aggregated(self.joins.codec(op.codec), sub.partitions)
                    relocate(self.ctx.log, self.topology.application_id, topics, op.codec.format, sub.partitions,
                             rekey(op.codec.format, op.codec.types), results, self.owned(sub))

    def owned(self, sub: SubTopology) -> list[int]:
        """The partitions of ``sub`` whose tasks run here: the move into a partition is its task's."""
        return [p for p in range(sub.partitions) if self.ctx.owns(p)]

    def task(self, sub: SubTopology, p: int) -> Any:
        ctx, ops = self.ctx, sub.operators
        group = self.topology.application_id
        first = ops[0]
        stores: list[KeyValueStore] = []
        if isinstance(first, JoinStage):
            return self.join_task(sub, p)
        proc, writer, final = self.chain(sub, ops[1:], p, stores)
        assert proc is not None
        on_rows = self.on_rows if final else None
        if isinstance(first, ReadSource):
            source = first.source
            reader: Any = SourceReader(source, self.serdes.key_serde(source), self.serdes.value_serde(source), ctx.plog,
                                       self.query_id, keep_tombstones=first.keep_tombstones,
                                       throw_on_invalid_timestamp=self.strict and first.strict_timestamps,
                                       fail_on_deserialization=self.fail_on_deserialization)
            reader.columnar = getattr(proc, "columnar", False)  # a stage reading whole columns
            topic, start_at = source.topic, first.start_at
        else:
            assert isinstance(first, ReadRepartition)
            reader, topic, start_at = RepartitionReader(), first.topic, "earliest"
        task = Task(task_id=f"{sub.id}_{p}", log=ctx.log, group=group, topic=topic, partition=p, reader=reader,
                    processor=proc, writer=writer, plog=ctx.plog, start_at=start_at, on_rows=on_rows,
                    commit=self.persistent, stores=stores, max_batch=self.max_batch)
        agg = sub.operator(AggregateStage)
        if agg is not None and agg.idle_advance_ms is not None:
            task.idle_ms = agg.idle_advance_ms
        return task

    def join_task(self, sub: SubTopology, p: int) -> JoinTask:
        ctx, ops = self.ctx, sub.operators
        stage = ops[0]
        assert isinstance(stage, JoinStage)
        task_ctx = TaskContext(p, ctx.plog, self.query_id, lambda name, changelog: self.store(sub, name, p))
        result = sub.operator(JoinResult)
        if result is not None and JoinOutput.takes_rows(result):
            task_ctx.result_rows = ResultRows(result.key_columns)
        self.joins.wire(task_ctx, stage, lambda name: task_ctx.store(name, None))
        finish: Processor | None = None
        writer: Any = None
        final = False
        if result is not None:
            stores: list[KeyValueStore] = []
            downstream, writer, final = self.chain(sub, ops[2:], p, stores)
            for kv in stores:
                task_ctx.add_store(kv)
            assert downstream is not None
            where = self.once(result, lambda: where_predicate(result, self.functions, self.ctx.plog,
                                                                    self.query_id))
            finish = JoinOutput(result, where, downstream, p, task_ctx.result_rows)
        return JoinTask(task_id=f"{sub.id}_{p}", log=ctx.log, group=self.topology.application_id, ctx=task_ctx,
                        finish=finish, writer=writer, on_rows=self.on_rows if final else None,
                        commit=self.persistent, max_batch=self.max_batch)

    def materialization(self) -> None:
        sink = self.topology.sink
        if self.out.aggregation is not None:
            if sink is not None:
                self.out.materialization = AggregateMaterialization(self.out.aggregation, sink.windowed)
            return
        if self.tables:
            mat = next(op for s in self.topology.sub_topologies for op in s.operators
                       if isinstance(op, Materialize))
            stores = [self.tables[p] for p in sorted(self.tables)]
            if mat.rows is MaterializedRows.INPUT:
                assert mat.source is not None and self.read_stage is not None
                self.out.materialization = ProjectedMaterialization(
                    stores, mat.table.windowed, self.read_stage,  # type: ignore[arg-type]
                    sink_key_order(self.topology), table_sort_key(mat.source))
                return
            self.out.materialization = StoreMaterialization(stores, mat.table.windowed, table_sort_key(mat.table))


def build_tasks(ctx: RuntimeContext, topology: Topology, *, on_rows: Rows | None = None,
                cache_entries: int | None = None) -> QueryTasks:
    """The tasks of ``topology`` for the partitions ``ctx`` owns, restored and positioned. ``on_rows``: where
    a transient query's result rows go; ``cache_entries`` overrides the aggregation record cache."""
    return _Build(ctx, topology, on_rows, cache_entries).build()
