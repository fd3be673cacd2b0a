"""The machinery of lowering (``plan.lower``) and the stages every query shape shares: reading a source,
the stateless stage, aggregation, writing the sink."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ksqlpy import types as T
from ksqlpy.catalog import Source
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.bound import ColumnRef, Expr
from ksqlpy.plan import naming
from ksqlpy.plan.logical import OutputColumn, QueryPlan, RowSchema
from ksqlpy.plan.topology import (
    AggregateCall,
    AggregateStage,
    GroupStage,
    Materialize,
    Node,
    NodeKind,
    Operator,
    ReadRepartition,
    ReadSource,
    StartAt,
    StatelessStage,
    Store,
    StoreKind,
    SubTopology,
    Topic,
    TopicKind,
    Topology,
    WindowConfig,
    WindowType,
    WriteRepartition,
    WriteSink,
)

DEFAULT_GRACE_MS = 24 * 3600 * 1000
IDLE_ADVANCE_PROPERTY = "ksqlpy.emit.final.idle.advance.ms"
CACHE_PROPERTY = "cache.max.bytes.buffering"
CACHE_ENTRY_BYTES = 128  # see runtime.record_cache
DEFAULT_CACHE_BYTES = 10_000_000


class Settings(Protocol):
    """What lowering reads of its host: properties (``prop``: ``name`` or ``ksql.streams.<name>``)."""

    def prop(self, name: str, default: Any = None) -> Any: ...

    def effective_properties(self) -> dict[str, Any]: ...


# ------------------------------------------------------------------------------------------------ building
@dataclass
class SubBuilder:
    """One sub-topology under construction: its description nodes and its operators."""

    id: int
    partitions: int
    nodes: list[Node] = field(default_factory=list)
    operators: list[Operator] = field(default_factory=list)

    def node(self, kind: NodeKind, name: str, after: Node | list[Node] | None = None, *,
             stores: list[str] | None = None, topics: list[str] | None = None) -> Node:
        n = Node(kind, name, [], list(stores or []), list(topics or []))
        for prev in ([after] if isinstance(after, Node) else after or []):
            prev.successors.append(name)
        self.nodes.append(n)
        return n

    def chain(self, after: Node, *names: str) -> Node:
        """Processors without stores, one after the other."""
        for name in names:
            after = self.node(NodeKind.PROCESSOR, name, after)
        return after

    def build(self) -> SubTopology:
        return SubTopology(self.id, self.partitions, self.nodes, self.operators)


class Lowering:
    """The state of lowering one query: its names, the Kafka Streams name counter, what it collects."""

    def __init__(self, plan: QueryPlan | None, query_id: str, sink: Source | None, settings: Settings, *,
                 persistent: bool, partitions: Callable[[str], int | None],
                 properties: dict[str, Any] | None = None) -> None:
        self._plan = plan
        self.query_id = query_id
        self.sink = sink
        self.settings = settings
        self.persistent = persistent
        self.partitions_of = partitions
        self.request = dict(properties or {})
        self.props = {**settings.effective_properties(), **self.request}
        self.app = naming.application_id(self, query_id, persistent=persistent)
        self.names = naming.Names(self.app)
        self.index = 0  # Kafka Streams' generated-name counter
        self.subs: list[SubBuilder] = []
        self.topics: list[Topic] = []
        self.stores: list[Store] = []

    @property
    def plan(self) -> QueryPlan:
        assert self._plan is not None, "a query without a plan (a CST query) has no plan stages"
        return self._plan

    # -- properties: the request's over the host's (``name`` or ``ksql.streams.<name>``)
    def prop(self, name: str, default: Any = None) -> Any:
        for key in (name, f"ksql.streams.{name}"):
            if key in self.request:
                return self.request[key]
        return self.settings.prop(name, default)

    @property
    def start_at(self) -> StartAt:
        return "earliest" if str(self.prop("auto.offset.reset", "latest")).lower() == "earliest" else "latest"

    # -- names and registration
    def generated(self, prefix: str) -> str:
        name = naming.generated(prefix, self.index)
        self.index += 1
        return name

    def sub(self, partitions: int) -> SubBuilder:
        s = SubBuilder(len(self.subs), partitions)
        self.subs.append(s)
        return s

    def source_partitions(self, topic: str) -> int:
        n = self.partitions_of(topic)
        if n is None:
            raise KsqlStatementError(f"Kafka topic does not exist: {topic}")
        return n

    def add_topic(self, name: str, kind: TopicKind, partitions: int, described: str | None = None) -> str:
        if all(t.name != name for t in self.topics):
            self.topics.append(Topic(name, kind, partitions, described if described is not None else name))
        return name

    def internal_topic(self, described: str, kind: TopicKind, partitions: int) -> str:
        return self.add_topic(self.names.topic(described), kind, partitions, described)

    def add_store(self, name: str, kind: StoreKind, sub: SubBuilder, *, changelog: bool = True) -> str:
        log = self.names.changelog(name) if (changelog and self.persistent) else None
        if all(s.name != name for s in self.stores):
            self.stores.append(Store(name, kind, log, sub.id))
            if log is not None:
                self.add_topic(log, TopicKind.CHANGELOG, sub.partitions, f"{name}-changelog")
        return name

    def topology(self) -> Topology:
        plan = self._plan
        sources = ([] if plan is None else [lf.source.name for lf in plan.join.leaves] if plan.join is not None
                   else [plan.source.name])
        return Topology(self.query_id, self.app, self.persistent, [s.build() for s in self.subs], self.topics,
                        self.stores, plan.functions if plan is not None else None, dict(self.props), sources, self.sink)

    # -- the parts every shape has
    def read_source(self, sub: SubBuilder, source: Source, *, keep_tombstones: bool,
                    start_at: StartAt | None = None) -> Node:
        """A source topic read by ``sub``: Kafka Streams' source node, then ksqlDB's pseudo-column step (a
        table source is a KTable, without a store of its own here)."""
        self.add_topic(source.topic, TopicKind.SOURCE, sub.partitions)
        sub.operators.append(ReadSource(source, keep_tombstones, start_at or self.start_at))
        node = sub.node(NodeKind.SOURCE, self.generated("KSTREAM-SOURCE"), topics=[source.topic])
        if source.kind == "TABLE":
            node = sub.node(NodeKind.PROCESSOR, self.generated("KTABLE-SOURCE"), node)
            return sub.node(NodeKind.PROCESSOR, self.generated("KTABLE-TRANSFORMVALUES"), node)
        return sub.node(NodeKind.PROCESSOR, self.generated("KSTREAM-TRANSFORMVALUES"), node)

    def write_sink(self, sub: SubBuilder, after: Node, *, table: bool) -> None:
        """The end of the last sub-topology: the sink topic (a table's changes as a stream first), or for a
        transient query the rows handed to its caller."""
        if table:
            after = sub.node(NodeKind.PROCESSOR, self.generated("KTABLE-TOSTREAM"), after)
        if self.sink is None:
            sub.node(NodeKind.PROCESSOR, self.generated("KSTREAM-FOREACH"), after)
            return
        partitions = self.partitions_of(self.sink.topic) or 1
        self.add_topic(self.sink.topic, TopicKind.SINK, partitions)
        sub.operators.append(WriteSink(self.sink, partitions))
        sub.node(NodeKind.SINK, self.generated("KSTREAM-SINK"), after, topics=[self.sink.topic])

    def stateless_stage(self, groups: list[list[OutputColumn]], *, table: bool, pass_tombstones: bool,
                        windowed_keys: bool = False) -> StatelessStage:
        """The stage; a persistent query that keeps its input's key writes a null Kafka key back as null."""
        plan = self.plan
        return StatelessStage(
            input_schema=plan.input_schema, where=plan.where,
            rekey=list(plan.rekey.exprs) if plan.rekey is not None else None,
            projection_schema=plan.projection_schema or plan.input_schema,
            table_functions=list(plan.table_functions),
            outputs=[list(g) for g in groups], tombstone_on_filter=table, pass_tombstones=pass_tombstones,
            with_headers=self.persistent, windowed_keys=windowed_keys,
            keep_null_keys=self.persistent and keeps_input_key(plan))

    def stateless_nodes(self, sub: SubBuilder, after: Node, *, stores: list[str] | None = None) -> Node:
        """ksqlDB's steps of the stateless stage, as named processors."""
        plan = self.plan
        if plan.where is not None:
            after = sub.node(NodeKind.PROCESSOR, "WhereFilter", after)
        if plan.rekey is not None:
            after = sub.node(NodeKind.PROCESSOR, "PartitionBy-SelectKey", after)
        if plan.table_functions:
            after = sub.node(NodeKind.PROCESSOR, "FlatMap", after)
        return sub.node(NodeKind.PROCESSOR, "Project", after, stores=stores)


def result_groups(lo: Lowering) -> list[list[OutputColumn]]:
    """What the last stage computes: [key columns, value columns] for a persistent query; for a transient
    one the value columns (and nothing as key)."""
    plan = lo.plan
    if lo.persistent:
        return [plan.key, plan.value]
    # tables (and aggregations) also hand over their deletes: (value group, None, ts) rows
    return [plan.value, []] if plan.aggregation is not None or plan.source.kind == "TABLE" else [plan.value]


def keeps_input_key(plan: QueryPlan) -> bool:
    """The query writes each input record's key as it came: no PARTITION BY, or one that names exactly the
    input's key columns in order (ksqlDB's ``repartitionNeeded`` is false and it does not re-key). A null
    Kafka key then stays null instead of becoming a key of NULL columns."""
    if plan.rekey is None:
        return True
    keys = [i for i, c in enumerate(plan.input_schema.columns) if c.role == "key"]
    exprs = plan.rekey.exprs
    return bool(keys) and [e.index if isinstance(e, ColumnRef) else None for e in exprs] == keys


def window_key_groups(groups: list[list[OutputColumn]], schema: RowSchema) -> list[list[OutputColumn]]:
    """A windowed source's bounds (of the ``schema`` row) as two more key columns (``runtime.stateless``
    ``WindowedKeys``)."""
    bounds = [OutputColumn(n, T.BIGINT, schema.ref(n)) for n in ("WINDOWSTART", "WINDOWEND")]
    return [groups[0] + bounds, *groups[1:]]


def lower_stateless(lo: Lowering) -> None:
    """Read, the stateless stage, (materialize,) write: one sub-topology, one task per source partition."""
    plan, sink = lo.plan, lo.sink
    source = plan.source
    persistent = lo.persistent
    table = source.kind == "TABLE"  # (push queries on tables see deletes too)
    # streams forward null rows through a plain projection (no WHERE, no re-key, no table functions)
    stream_nulls = persistent and source.kind == "STREAM" and plan.where is None and not plan.table_functions
    windowed_keys = (persistent and sink is not None and sink.windowed is not None and source.windowed is not None
                     and plan.rekey is None)
    groups = result_groups(lo)
    if windowed_keys:
        groups = window_key_groups(groups, plan.projection_schema or plan.input_schema)
    sub = lo.sub(lo.source_partitions(source.topic))
    node = lo.read_source(sub, source, keep_tombstones=table or stream_nulls)
    sub.operators.append(lo.stateless_stage(groups, table=table, pass_tombstones=table or stream_nulls,
                                            windowed_keys=windowed_keys))
    stores = []
    if persistent and sink is not None and sink.kind == "TABLE":
        stores = [lo.add_store(naming.MATERIALIZE_STORE, StoreKind.KEY_VALUE, sub)]
        sub.operators.append(Materialize(naming.MATERIALIZE_STORE, sink))
    node = lo.stateless_nodes(sub, node, stores=stores)
    lo.write_sink(sub, node, table=source.kind == "TABLE")


# ------------------------------------------------------------------------------------------------ aggregation
def window_settings(plan: QueryPlan) -> WindowConfig | None:
    """ksqlDB's defaults: grace 24h (0 under EMIT FINAL, where ksqlDB closes windows at their end),
    retention = size + grace, a hopping window's advance defaulting to its size."""
    agg = plan.aggregation
    assert agg is not None
    w = agg.window
    if w is None:
        return None
    size = w.size_ms
    advance = w.advance_ms or size
    if w.grace_ms is not None:
        grace = w.grace_ms
    else:
        grace = 0 if plan.emit == "FINAL" else DEFAULT_GRACE_MS
    retention = w.retention_ms if w.retention_ms is not None else size + grace
    return WindowConfig(WindowType(w.type), size, advance, grace, retention)


def cache_entries(*layers: dict[str, Any]) -> int:
    """Entries the aggregation record cache holds (0: no cache, every update goes out; see
    ``runtime.record_cache``) for property layers, later ones overriding earlier ones (engine, session,
    request); in a layer the ``ksql.streams.`` name wins."""
    value: Any = DEFAULT_CACHE_BYTES
    for props in layers:
        for name in (CACHE_PROPERTY, f"ksql.streams.{CACHE_PROPERTY}"):
            if name in props:
                value = props[name]
    try:
        size = int(value)
    except (TypeError, ValueError):
        size = DEFAULT_CACHE_BYTES
    return size // CACHE_ENTRY_BYTES if size > 0 else 0


def _name(e: Expr) -> str | None:
    return e.name if isinstance(e, ColumnRef) else None


def needs_repartition(plan: QueryPlan, partitions: int) -> bool:
    """GROUP BY on anything but what the input is partitioned by, over more than one partition: the source
    key, or after a join its key - either side's join column (rows with equal join keys are in one task; a
    foreign-key join's result is keyed by the left table's key instead)."""
    if partitions <= 1:
        return False
    agg = plan.aggregation
    assert agg is not None
    join = plan.join
    if join is not None:
        root = join.root
        if root.flavor == "FOREIGN_KEY" or len(agg.group_by) != len(root.left_exprs):
            return True
        return any(_name(g) is None or _name(g) not in (_name(left), _name(right))
                   for g, left, right in zip(agg.group_by, root.left_exprs, root.right_exprs, strict=True))
    key_positions = [i for i, c in enumerate(plan.input_schema.columns) if c.role == "key"]
    if plan.source.kind == "TABLE" or len(key_positions) != len(agg.group_by):
        return True
    return [g.index if isinstance(g, ColumnRef) else None for g in agg.group_by] != key_positions


def group_stage(lo: Lowering, store: str | None) -> GroupStage:
    plan = lo.plan
    agg = plan.aggregation
    assert agg is not None
    keys = [OutputColumn(n, t, e) for n, t, e in zip(agg.key_names, agg.key_types, agg.group_by, strict=True)]
    args = [OutputColumn(f"A{i}_{j}", t, e) for i, a in enumerate(agg.aggregates)
            for j, (e, t) in enumerate(zip(a.args, a.arg_types, strict=True))]
    return GroupStage(plan.input_schema, plan.where, keys, args, plan.source.kind == "TABLE", len(plan.source.key_columns), store)


def aggregate_stage(lo: Lowering, store: str) -> AggregateStage:
    plan, sink = lo.plan, lo.sink
    agg = plan.aggregation
    assert agg is not None and plan.projection_schema is not None
    window = window_settings(plan)
    key_columns = list(zip(agg.key_names, agg.key_types, strict=True))
    idle = lo.prop(IDLE_ADVANCE_PROPERTY)
    idle_ms = int(idle) if window is not None and idle not in (None, "") and int(idle) > 0 else None
    return AggregateStage(
        calls=[AggregateCall(a.function, list(a.arg_types), list(a.literals)) for a in agg.aggregates],
        arg_counts=[len(a.args) for a in agg.aggregates], window=window, emit_final=plan.emit == "FINAL",
        having=agg.having, projection_schema=plan.projection_schema,
        outputs=[list(g) for g in result_groups(lo)], key_columns=key_columns,
        key_format=sink.key_format if sink is not None else ("KAFKA" if len(key_columns) == 1 else "JSON"),
        key_delimiter=sink.key_delimiter if sink is not None else None, store=store,
        table=plan.source.kind == "TABLE", idle_advance_ms=idle_ms,
        cache_entries=0 if plan.emit == "FINAL" else cache_entries(lo.settings.effective_properties(), lo.request))


def _store_kind(window: WindowConfig | None) -> StoreKind:
    if window is None:
        return StoreKind.KEY_VALUE
    return StoreKind.SESSION if window.type is WindowType.SESSION else StoreKind.WINDOW


def lower_aggregation(lo: Lowering, sub: SubBuilder, after: Node | None) -> None:
    """GROUP BY (WINDOW, HAVING) from ``sub``: its input is read here (``after`` None) or is the rows of
    ``after``'s stage (a join's results). One sub-topology when the groups stay in their partition, else two
    around ``Aggregate-GroupBy-repartition``."""
    plan = lo.plan
    agg = plan.aggregation
    assert agg is not None
    table = plan.source.kind == "TABLE"
    if after is None:
        after = lo.read_source(sub, plan.source, keep_tombstones=table)
    window = window_settings(plan)
    aggregate_node = lo.generated("KTABLE-AGGREGATE" if table else "KSTREAM-AGGREGATE")
    if not needs_repartition(plan, sub.partitions):
        store = lo.add_store(naming.AGGREGATE_STORE, _store_kind(window), sub)
        # a table source's previous contributions share the aggregate's store
        sub.operators.append(group_stage(lo, store if table else None))
        node = sub.node(NodeKind.PROCESSOR, "Aggregate-Prepare", after)
        node = sub.node(NodeKind.PROCESSOR, aggregate_node, node, stores=[store])
        sub.operators.append(aggregate_stage(lo, store))
        _aggregate_tail(lo, sub, node)
        return
    previous = lo.add_store(naming.SOURCE_TABLE_STORE, StoreKind.KEY_VALUE, sub) if table else None
    sub.operators.append(group_stage(lo, previous))
    topic = lo.internal_topic(lo.names.repartition(naming.GROUP_BY), TopicKind.REPARTITION, sub.partitions)
    key_columns = list(zip(agg.key_names, agg.key_types, strict=True))
    stage = aggregate_stage(lo, naming.AGGREGATE_STORE)
    sub.operators.append(WriteRepartition(topic, key_columns, stage.key_format, stage.key_delimiter))
    node = sub.node(NodeKind.PROCESSOR, naming.GROUP_BY, after, stores=[previous] if previous else None)
    node = sub.node(NodeKind.PROCESSOR, f"{naming.GROUP_BY}-repartition-filter", node)
    described = lo.names.repartition(naming.GROUP_BY)
    sub.node(NodeKind.SINK, f"{naming.GROUP_BY}-repartition-sink", node, topics=[described])
    lo.index += 1  # (the repartition's generated name)
    second = lo.sub(sub.partitions)
    second.operators.append(ReadRepartition(topic))
    node = second.node(NodeKind.SOURCE, f"{naming.GROUP_BY}-repartition-source", topics=[described])
    store = lo.add_store(naming.AGGREGATE_STORE, _store_kind(window), second)
    node = second.node(NodeKind.PROCESSOR, aggregate_node, node, stores=[store])
    second.operators.append(stage)
    _aggregate_tail(lo, second, node)


def _aggregate_tail(lo: Lowering, sub: SubBuilder, node: Node) -> None:
    plan = lo.plan
    agg = plan.aggregation
    assert agg is not None
    node = sub.node(NodeKind.PROCESSOR, "Aggregate-Aggregate-ToOutputSchema", node)
    if agg.window is not None:
        node = sub.node(NodeKind.PROCESSOR, "Aggregate-WindowSelect", node)
    if plan.emit == "FINAL":
        node = sub.node(NodeKind.PROCESSOR, "Aggregate-Suppress", node)
    if agg.having is not None:
        node = sub.node(NodeKind.PROCESSOR, "Aggregate-HavingFilter", node)
    node = sub.node(NodeKind.PROCESSOR, "Aggregate-Project", node)
    lo.write_sink(sub, node, table=True)
