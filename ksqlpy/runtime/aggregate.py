"""Aggregation queries as tasks: GROUP BY with optional TUMBLING / HOPPING / SESSION windows and HAVING.

The work splits in two halves (``group_by.Grouper``: WHERE, group key, aggregate arguments; and an
``Aggregator``: state, windows, emission). When the group key is not the source key and the source has
several partitions, the halves run in two sub-topologies joined by a repartition topic
(``repartition``); otherwise one task per source partition runs both, with no topic in between.

Every task's state lives in one ``KeyValueStore`` (LMDB + changelog); a batch's state changes go to the
changelog inside the batch's log transaction and to LMDB right after it commits (``after_commit``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ksqlpy.catalog import Source
from ksqlpy.expr.bound import ColumnRef
from ksqlpy.plan.logical import OutputColumn, QueryPlan
from ksqlpy.plan.window_defaults import grace_ms
from ksqlpy.private_files import private_dir
from ksqlpy.runtime.accumulate import Accumulators
from ksqlpy.runtime.agg_loop import build_batch_loop
from ksqlpy.runtime.aggregator import AggregateSpec, Aggregator, encode_key
from ksqlpy.runtime.assignment import owns
from ksqlpy.runtime.emit import build_projector
from ksqlpy.runtime.group_by import Grouper, group_columns
from ksqlpy.runtime.reader import DecodedBatch, SourceReader, throws_on_invalid_timestamp
from ksqlpy.runtime.record_cache import cache_entries, collapse
from ksqlpy.runtime.repartition import RepartitionReader, RepartitionWriter, repartition_topic, safe_key_bytes
from ksqlpy.runtime.session import SessionAggregator
from ksqlpy.runtime.task import Task
from ksqlpy.runtime.windows import TimeWindowAggregator
from ksqlpy.state.store import KeyValueStore
from ksqlpy.state.windowed import TIME_INDEX

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

IDLE_ADVANCE_PROPERTY = "ksqlpy.emit.final.idle.advance.ms"


# ---------------------------------------------------------------------------------------------- processors
class AggregateProcessor:
    """One task doing both halves: source batch -> items -> aggregator -> output rows."""

    def __init__(self, grouper: Grouper | None, aggregator: Aggregator, kv: KeyValueStore, *, table: bool) -> None:
        self.grouper = grouper
        self.aggregator = aggregator
        self.kv = kv
        self.table = table

    def __call__(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        items = self.grouper(d) if self.grouper is not None else d.rows
        out: list[tuple] = []
        if self.table:
            self.aggregator.table(items, out)
        else:
            self.aggregator.stream(items, out)
        self.aggregator.end_batch(out)
        self.kv.flush(tx)
        entries = self.aggregator.spec.cache_entries
        if entries and not self.aggregator.cached:  # the generic loops emit every update: fold them here
            return collapse(out, entries, self.aggregator.unseen)
        return out

    def after_commit(self) -> None:
        self.kv.commit_local()

    def abort(self) -> None:
        self.kv.abort()
        self.aggregator.load_meta()

    def idle_rows(self, idle_ms: int) -> Callable[[Any], list[tuple]] | None:
        """A step to run in a transaction if the quiet stream should advance (EMIT FINAL), else None."""
        out: list[tuple] = []
        if not self.aggregator.idle(idle_ms, out):
            return None

        def step(tx: Any) -> list[tuple]:
            self.aggregator.end_batch(out)
            self.kv.flush(tx)
            return out

        return step


class GroupProcessor:
    """First sub-topology of a repartitioned aggregation: source batch -> items for the repartition topic."""

    def __init__(self, grouper: Grouper, kv: KeyValueStore | None) -> None:
        self.grouper = grouper
        self.kv = kv

    def __call__(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        items = self.grouper(d)
        if self.kv is not None:
            self.kv.flush(tx)
        return items

    def after_commit(self) -> None:
        if self.kv is not None:
            self.kv.commit_local()

    def abort(self) -> None:
        if self.kv is not None:
            self.kv.abort()


# ---------------------------------------------------------------------------------------------- building
@dataclass
class AggregateTasks:
    """What building an aggregation gives the query: its tasks, its aggregators (pull queries read
    them) and what to close when the query ends."""

    tasks: list[Task]
    aggregators: list[Aggregator]
    spec: AggregateSpec
    stores: list[KeyValueStore] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)  # internal topics to delete with a transient query
    log: Any = None
    internal_topics: list[str] = field(default_factory=list)  # changelogs, repartition: deleted on TERMINATE
    state_root: str | None = None

    def late_records(self) -> int:
        """Records dropped because their window had closed (stream time past end + grace), all tasks."""
        return sum(a.late for a in self.aggregators)

    def close(self) -> None:
        for s in self.stores:
            try:
                s.close()
            except Exception:  # noqa: BLE001 - closing is best effort
                pass
        self.stores = []
        for t in self.topics:
            try:
                self.log.delete_topic(t)
            except Exception:  # noqa: BLE001
                pass
        self.topics = []

    def cleanup(self) -> None:
        """The query was terminated: its internal topics and state directory go too."""
        self.close()
        for t in self.internal_topics:
            try:
                if self.log.topic_exists(t):
                    self.log.delete_topic(t)
            except Exception:  # noqa: BLE001 - best effort
                pass
        if self.state_root:
            shutil.rmtree(self.state_root, ignore_errors=True)


def window_settings(plan: QueryPlan) -> tuple[int, int, int, int]:
    """(size or gap, advance, grace, retention) with ksqlDB's defaults (``plan.window_defaults``): grace one
    day minus the size (0 under EMIT FINAL, where ksqlDB closes windows at their end), retention = size +
    grace."""
    agg = plan.aggregation
    assert agg is not None and agg.window is not None
    w = agg.window
    size = w.size_ms
    advance = w.advance_ms or size
    grace = grace_ms(size, w.grace_ms, plan.emit == "FINAL")
    retention = w.retention_ms if w.retention_ms is not None else size + grace
    return size, advance, grace, retention


def build_spec(engine: Engine, plan: QueryPlan, query_id: str, groups: list[list[OutputColumn]],
               sink: Source | None, properties: dict[str, Any] | None = None) -> AggregateSpec:
    agg = plan.aggregation
    assert agg is not None
    _, _, counts = group_columns(plan)
    accs = Accumulators([a.resolved for a in agg.aggregates], counts)
    projection = build_projector(plan, groups, agg.having, engine.plog, query_id)
    spec = AggregateSpec(accs=accs, project=projection.project, having=agg.having is not None,
                         emit_final=plan.emit == "FINAL", sort_key=key_serializer(engine, plan, sink),
                         cache_entries=0 if plan.emit == "FINAL" else cache_entries(
                             engine.effective_properties(), properties or {}))
    if agg.window is not None:
        spec.window_type = agg.window.type
        spec.size, spec.advance, spec.grace, spec.retention = window_settings(plan)
        idle = engine.prop(IDLE_ADVANCE_PROPERTY)
        spec.idle_advance_ms = int(idle) if idle not in (None, "") and int(idle) > 0 else None
    spec.batch_loop = build_batch_loop(spec, projection.inline)
    return spec


def key_serializer(engine: Engine, plan: QueryPlan, sink: Source | None) -> Callable[[tuple], bytes]:
    """Group key -> bytes in the sink's key format (ksqlDB's store and partitioning order)."""
    from ksqlpy.serde import key_serde

    agg = plan.aggregation
    assert agg is not None
    cols = list(zip(agg.key_names, agg.key_types, strict=True))
    fmt = sink.key_format if sink is not None else ("KAFKA" if len(cols) == 1 else "JSON")
    try:
        ks = key_serde(fmt, cols, delimiter=sink.key_delimiter if sink is not None else None)
    except Exception:  # noqa: BLE001 - a format that cannot hold the key: private bytes still place it
        return encode_key
    return safe_key_bytes(ks.serialize)


def needs_repartition(plan: QueryPlan, partitions: int) -> bool:
    """GROUP BY on anything but the source key, over more than one partition. A windowed source is always
    re-keyed (ksqlDB's "Group by on windowed should always require rekey"): its records are placed by the
    windowed key, so one key's windows can sit in different partitions."""
    if partitions <= 1:
        return False
    agg = plan.aggregation
    assert agg is not None
    key_positions = [i for i, c in enumerate(plan.input_schema.columns) if c.role == "key"]
    if plan.source.kind == "TABLE" or plan.source.windowed is not None or len(key_positions) != len(agg.group_by):
        return True
    return [g.index if isinstance(g, ColumnRef) else None for g in agg.group_by] != key_positions


def _aggregator_class(plan: QueryPlan) -> type[Aggregator]:
    agg = plan.aggregation
    assert agg is not None
    if agg.window is None:
        return Aggregator
    return SessionAggregator if agg.window.type == "SESSION" else TimeWindowAggregator


def build_aggregate_tasks(engine: Engine, plan: QueryPlan, query_id: str, groups: list[list[OutputColumn]], *,
                          persistent: bool, sink: Source | None, writer: Any, group: str, start_at: str,
                          partitions: int, on_rows: Callable[[list[tuple]], None] | None = None,
                          properties: dict[str, Any] | None = None) -> AggregateTasks:
    """The tasks of an aggregation query (see the module docstring); ``properties``: the query's own
    (request) properties over the engine's."""
    source = plan.source
    table = source.kind == "TABLE"
    spec = build_spec(engine, plan, query_id, groups, sink, properties)
    service = str(engine.prop("ksql.service.id", "default_"))
    prefix = str(engine.prop("ksql.persistent.prefix", "query_")) if persistent else "transient_"
    internal = f"_confluent-ksql-{service}{prefix}{query_id}"
    state_root = (os.path.join(engine.data_dir, "state", query_id) if persistent
                  else tempfile.mkdtemp(prefix=f"{query_id}-", dir=_transient_root(engine)))
    result = AggregateTasks([], [], spec, log=engine.log, state_root=state_root)
    cls = _aggregator_class(plan)
    key_in, value_in = engine.key_serde(source), engine.value_serde(source)

    def store(name: str, changelog: str | None, partition: int, n: int, index: Any = None) -> KeyValueStore:
        if changelog is not None and persistent:
            if not engine.log.topic_exists(changelog):
                engine.log.create_topic(changelog, n, 1, {"cleanup.policy": "compact"})
            if changelog not in result.internal_topics:
                result.internal_topics.append(changelog)
        kv = KeyValueStore(os.path.join(state_root, f"{name}-{partition}"), engine.log if persistent else None,
                           changelog if persistent else None, partition, index)
        result.stores.append(kv)
        return kv

    def reader() -> SourceReader:
        return SourceReader(source, key_in, value_in, engine.plog, query_id, keep_tombstones=table,
                            throw_on_invalid_timestamp=throws_on_invalid_timestamp(engine))

    agg_changelog = f"{internal}-Aggregate-Aggregate-Materialize-changelog"
    index = TIME_INDEX if spec.window_type is not None else None  # kept off the changelog (state.windowed)
    if not needs_repartition(plan, partitions):
        for p in range(partitions):
            if not owns(engine, p):  # a worker builds only the partitions it runs
                continue
            kv = store("Aggregate-Materialize", agg_changelog, p, partitions, index)
            aggregator = cls(spec, kv, engine.plog, query_id)
            grouper = Grouper(plan, engine.plog, query_id, kv if table else None)
            proc = AggregateProcessor(grouper, aggregator, kv, table=table)
            result.aggregators.append(aggregator)
            result.tasks.append(_task(engine, f"0_{p}", group, source.topic, p, reader(), proc, writer, start_at,
                                      on_rows, spec, persistent))
        return result

    topic = repartition_topic(service, prefix, query_id)
    if not engine.log.topic_exists(topic):
        engine.log.create_topic(topic, partitions, 1, {"cleanup.policy": "delete"})
    (result.internal_topics if persistent else result.topics).append(topic)
    rwriter = RepartitionWriter(topic, spec.sort_key)
    for p in range(partitions):
        if not owns(engine, p):
            continue
        kv0 = store("KsqlTopic-Reduce", f"{internal}-KsqlTopic-Reduce-changelog", p, partitions) if table else None
        grouper = Grouper(plan, engine.plog, query_id, kv0)
        result.tasks.append(_task(engine, f"0_{p}", group, source.topic, p, reader(), GroupProcessor(grouper, kv0),
                                  rwriter, start_at, None, None, persistent))
    for p in range(partitions):
        if not owns(engine, p):
            continue
        kv = store("Aggregate-Materialize", agg_changelog, p, partitions, index)
        aggregator = cls(spec, kv, engine.plog, query_id)
        proc = AggregateProcessor(None, aggregator, kv, table=table)
        result.aggregators.append(aggregator)
        result.tasks.append(_task(engine, f"1_{p}", group, topic, p, RepartitionReader(), proc, writer, "earliest",
                                  on_rows, spec, persistent))
    return result


def _task(engine: Engine, task_id: str, group: str, topic: str, partition: int, reader: Any, proc: Any,
          writer: Any, start_at: str, on_rows: Callable[[list[tuple]], None] | None,
          spec: AggregateSpec | None, commit: bool) -> Task:
    task = Task(task_id=task_id, log=engine.log, group=group, topic=topic, partition=partition, reader=reader,
                processor=proc, writer=writer, plog=engine.plog, start_at=start_at, on_rows=on_rows, commit=commit)
    if spec is not None and spec.idle_advance_ms is not None:
        task.idle_ms = spec.idle_advance_ms  # type: ignore[attr-defined]
    return task


def _transient_root(engine: Engine) -> str:
    root = private_dir(os.path.join(engine.data_dir, "state", "transient"))
    return root
