"""The machinery of lowering (``plan.lower``) and the stages every query shape shares: reading a source,
the stateless stage, aggregation, writing the sink."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ksqlpy import types as T
from ksqlpy.analysis.pseudo_columns import PROPERTY as PSEUDO_PROPERTY
from ksqlpy.analysis.pseudo_columns import offsets_enabled
from ksqlpy.catalog import Source, WindowInfo
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.bound import ColumnRef
from ksqlpy.plan import naming
from ksqlpy.plan.group_key import GroupKeyFormat, group_key_format
from ksqlpy.plan.internal_values import aggregate_store_values, materialized_source_values, repartition_values
from ksqlpy.plan.logical import (
    Aggregate,
    EmitMode,
    Filter,
    FlatMap,
    Join,
    OutputColumn,
    PlanNode,
    Rekey,
    ResultKind,
    RowSchema,
    Scan,
    Sink,
)
from ksqlpy.plan.rules import (
    GROUP_KEY_FROM_INPUT,
    SOURCE_ROWS_FOR_TABLE_SELECT,
    TABLE_JOIN_PREVIOUS_FROM_JOIN,
)
from ksqlpy.plan.topology import (
    AggregateCall,
    AggregateStage,
    GroupStage,
    Materialize,
    MaterializedRows,
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
    TopicKey,
    TopicKind,
    Topology,
    WindowConfig,
    WindowType,
    WriteRepartition,
    WriteSink,
)
from ksqlpy.plan.window_defaults import grace_ms
from ksqlpy.properties import HARNESS_FROZEN_CLOCK, HARNESS_INPUT_TOPICS, explicitly_set, resolve
from ksqlpy.schema_registry.sources import serde_options

DEFAULT_KEY_FORMAT_PROPERTY = "ksql.persistence.default.format.key"
IDLE_ADVANCE_PROPERTY = "ksqlpy.emit.final.idle.advance.ms"
CACHE_PROPERTY = "cache.max.bytes.buffering"
# Kafka Streams' internal setting (KIP-825): EMIT FINAL looks for closed windows at most this often
EMIT_INTERVAL_PROPERTY = "__emit.interval.ms.kstreams.windowed.aggregation__"
# Kafka Streams' internal setting: an outer stream-stream join with a GRACE PERIOD looks for the unmatched
# records whose window closed at most this often (``runtime.join_stream_stream``)
OUTER_JOIN_EMIT_INTERVAL_PROPERTY = "__emit.interval.ms.kstreams.outer.join.spurious.results.fix__"
DEFAULT_EMIT_INTERVAL_MS = 1000
NEVER_MS = 2**62  # a throttle interval no clock here reaches (``emit_interval_ms`` on a frozen clock)
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

    def __init__(self, plan: Sink | None, query_id: str, sink: Source | None, settings: Settings, *,
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
    def plan(self) -> Sink:
        assert self._plan is not None, "a query without a plan (a CST query) has no plan stages"
        return self._plan

    # -- properties: the request's over the host's (``name`` or ``ksql.streams.<name>``)
    def prop(self, name: str, default: Any = None) -> Any:
        if explicitly_set(name, [self.request]):
            return resolve(name, self.request)
        return self.settings.prop(name, default)

    @property
    def offsets(self) -> bool:
        """ROWPARTITION and ROWOFFSET are pseudo columns for this query (ksqlDB's pseudoColumnVersion of its
        source steps): a materialized table source keeps them with its rows."""
        return offsets_enabled({PSEUDO_PROPERTY: self.prop(PSEUDO_PROPERTY, "true")})

    @property
    def start_at(self) -> StartAt:
        return "earliest" if str(self.prop("auto.offset.reset", "latest")).lower() == "earliest" else "latest"

    def harness_start(self, topic: str) -> StartAt | None:
        """Where a query reads ``topic`` under the test harness (``HARNESS_INPUT_TOPICS`` set; None
        otherwise): a topic the case feeds from what is fed after the statements, any other whole."""
        fed = self.prop(HARNESS_INPUT_TOPICS)
        if fed is None:
            return None
        return "latest" if topic in str(fed).split(",") else "earliest"

    def start_for(self, source: Source) -> StartAt:
        """Where a query without committed offsets starts reading ``source``: ``auto.offset.reset`` when
        it is set (either spelling, any layer: configuration, SET, the request) for every source alike;
        otherwise by the source's kind, as ksqlDB's source builders default it - a stream at the latest
        offset, a table (windowed or not) at the earliest, since a table is its whole topic. Under the
        test harness as ksqlDB's TestExecutor pipes records (``harness_start``)."""
        piped = self.harness_start(source.topic)
        if piped is not None:
            return piped
        explicit = getattr(self.settings, "explicit_properties", None)
        layers = [self.request, explicit() if explicit is not None else self.settings.effective_properties()]
        if explicitly_set("auto.offset.reset", layers):
            return self.start_at
        return "earliest" if source.kind == ResultKind.TABLE else "latest"

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

    def add_topic(self, name: str, kind: TopicKind, partitions: int, described: str | None = None,
                  key: TopicKey | None = None) -> str:
        if all(t.name != name for t in self.topics):
            self.topics.append(Topic(name, kind, partitions, described if described is not None else name, key))
        return name

    def internal_topic(self, described: str, kind: TopicKind, partitions: int, key: TopicKey | None = None) -> str:
        return self.add_topic(self.names.topic(described), kind, partitions, described, key)

    def add_store(self, name: str, kind: StoreKind, sub: SubBuilder, *, changelog: bool = True,
                  key: TopicKey | None = None) -> str:
        """A state store of ``sub``; persistent queries log it to ``<name>-changelog`` keyed by ``key``."""
        log = self.names.changelog(name) if (changelog and self.persistent) else None
        if all(s.name != name for s in self.stores):
            self.stores.append(Store(name, kind, log, sub.id))
            if log is not None:
                self.add_topic(log, TopicKind.CHANGELOG, sub.partitions, f"{name}-changelog", key)
        return name

    def topology(self) -> Topology:
        plan = self._plan
        sources = [] if plan is None else [s.source.name for s in plan.scans]
        return Topology(self.query_id, self.app, self.persistent, [s.build() for s in self.subs], self.topics,
                        self.stores, plan.functions if plan is not None else None, dict(self.props), sources, self.sink)

    # -- the parts every shape has
    def read_source(self, sub: SubBuilder, source: Source, *, keep_tombstones: bool,
                    start_at: StartAt | None = None) -> Node:
        """A source topic read by ``sub``: Kafka Streams' source node, then ksqlDB's pseudo-column step (a
        table source is a KTable, without a store of its own here)."""
        self.add_topic(source.topic, TopicKind.SOURCE, sub.partitions)
        sub.operators.append(ReadSource(source, keep_tombstones, start_at or self.start_for(source)))
        node = sub.node(NodeKind.SOURCE, self.generated("KSTREAM-SOURCE"), topics=[source.topic])
        if source.kind == ResultKind.TABLE:
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
        keeps_rowtime = self._plan is not None and self._plan.keeps_rowtime
        sub.operators.append(WriteSink(self.sink, partitions, timestamp_from_column=not keeps_rowtime))
        sub.node(NodeKind.SINK, self.generated("KSTREAM-SINK"), after, topics=[self.sink.topic])

    def stateless_stage(self, groups: list[list[OutputColumn]], *, table: bool, pass_tombstones: bool,
                        windowed_keys: bool = False) -> StatelessStage:
        """The stage; a persistent query that keeps its input's key writes a null Kafka key back as null."""
        plan = self.plan
        where, rekey, flat = plan.find(Filter), plan.find(Rekey), plan.find(FlatMap)
        return StatelessStage(
            input_schema=plan.bottom.schema, where=where.predicate if where is not None else None,
            rekey=list(rekey.exprs) if rekey is not None else None,
            projection_schema=plan.project.input.schema,
            table_functions=list(flat.functions) if flat is not None else [],
            outputs=[list(g) for g in groups], tombstone_on_filter=table, pass_tombstones=pass_tombstones,
            with_headers=self.persistent, windowed_keys=windowed_keys,
            keep_null_keys=self.persistent and (rekey is None or not rekey.repartition))

    def table_where_store(self, stage: StatelessStage, sub: SubBuilder) -> list[str]:
        """For a table's WHERE in a query that keeps no table (no Materialize after ``stage``): the store of
        the keys whose last row passed (``StatelessStage.where_store``), declared on ``sub``; [] otherwise."""
        if not stage.tombstone_on_filter or stage.where is None:
            return []
        stage.where_store = self.add_store(naming.TABLE_WHERE_STORE, StoreKind.KEY_VALUE, sub)
        return [stage.where_store]

    def stateless_nodes(self, sub: SubBuilder, after: Node, *, stores: list[str] | None = None) -> Node:
        """ksqlDB's steps of the stateless stage, as named processors."""
        plan = self.plan
        if plan.find(Filter) is not None:
            after = sub.node(NodeKind.PROCESSOR, "WhereFilter", after)
        if plan.find(Rekey) is not None:
            after = sub.node(NodeKind.PROCESSOR, "PartitionBy-SelectKey", after)
        if plan.find(FlatMap) is not None:
            after = sub.node(NodeKind.PROCESSOR, "FlatMap", after)
        return sub.node(NodeKind.PROCESSOR, "Project", after, stores=stores)


def result_groups(lo: Lowering) -> list[list[OutputColumn]]:
    """What the last stage computes: [key columns, value columns] for a persistent query; for a transient
    one the value columns (and nothing as key)."""
    plan = lo.plan
    project = plan.project
    if lo.persistent:
        return [project.key, project.value]
    # tables (and aggregations) also hand over their deletes: (value group, None, ts) rows
    table = plan.find(Aggregate) is not None or plan.bottom.result_kind is ResultKind.TABLE
    return [project.value, []] if table else [project.value]


def window_key_groups(groups: list[list[OutputColumn]], schema: RowSchema) -> list[list[OutputColumn]]:
    """A windowed source's bounds (of the ``schema`` row) as two more key columns (``runtime.stateless``
    ``WindowedKeys``)."""
    bounds = [OutputColumn(n, T.BIGINT, schema.ref(n)) for n in ("WINDOWSTART", "WINDOWEND")]
    return [groups[0] + bounds, *groups[1:]]


def lower_stateless(lo: Lowering) -> None:
    """Read, the stateless stage, (materialize,) write: one sub-topology, one task per source partition."""
    plan, sink = lo.plan, lo.sink
    scan = plan.bottom
    assert isinstance(scan, Scan)
    source = scan.source
    persistent = lo.persistent
    table = scan.result_kind is ResultKind.TABLE  # (push queries on tables see deletes too)
    # streams forward null rows through a plain projection (no WHERE, no re-key, no table functions)
    stream_nulls = persistent and not table and plan.find(Filter) is None and plan.find(FlatMap) is None
    windowed_keys = (persistent and sink is not None and sink.windowed is not None and source.windowed is not None
                     and plan.find(Rekey) is None)
    groups = result_groups(lo)
    if windowed_keys:
        groups = window_key_groups(groups, plan.project.input.schema)
    sub = lo.sub(lo.source_partitions(source.topic))
    node = lo.read_source(sub, source, keep_tombstones=table or stream_nulls)
    stage = lo.stateless_stage(groups, table=table, pass_tombstones=table or stream_nulls,
                               windowed_keys=windowed_keys)
    sub.operators.append(stage)
    stores = []
    rules = plan.plan_rules
    if persistent and sink is not None and sink.kind == "TABLE" and rules is not None and \
            rules < SOURCE_ROWS_FOR_TABLE_SELECT:  # a query whose store was built before: its result rows
        key = serde_options(source, True)
        stores = [lo.add_store(naming.MATERIALIZE_STORE, StoreKind.KEY_VALUE, sub,
                               key=materialize_key(sink, source, source.key_format or "NONE", key["full_name"],
                                                   source.windowed))]
        sub.operators.append(Materialize(naming.MATERIALIZE_STORE, sink))
    elif persistent and sink is not None and sink.kind == "TABLE":
        # ksqlDB materializes the table source as read (TableSourceV2: the source's columns in its formats,
        # on the KTABLE-TRANSFORMVALUES after KTABLE-SOURCE); its WhereFilter and Project keep no store -
        # pull queries apply them to the source's rows (KsqlMaterialization's transforms), from memory of
        # SourceBuilder / TableSelectBuilder: a select over a materialized table does not materialize again
        node.stores.append(lo.add_store(naming.SOURCE_TABLE_STORE, StoreKind.KEY_VALUE, sub,
                                        key=source_table_key(source, lo.offsets)))
        sub.operators.append(Materialize(naming.SOURCE_TABLE_STORE, sink, MaterializedRows.INPUT, source))
    else:
        stores = lo.table_where_store(stage, sub)
    node = lo.stateless_nodes(sub, node, stores=stores)
    lo.write_sink(sub, node, table=table)


# ------------------------------------------------------------------------------------------------ aggregation
def window_settings(agg: Aggregate) -> WindowConfig | None:
    """ksqlDB's defaults (``plan.window_defaults``): grace one day minus the size (0 under EMIT FINAL, where
    ksqlDB closes windows at their end), retention = size + grace, a hopping window's advance defaulting to
    its size."""
    w = agg.window
    if w is None:
        return None
    size = w.size_ms
    advance = w.advance_ms or size
    grace = grace_ms(size, w.grace_ms, agg.emit is EmitMode.FINAL)
    retention = w.retention_ms if w.retention_ms is not None else size + grace
    return WindowConfig(WindowType(w.type), size, advance, grace, retention)


def cache_entries(*layers: dict[str, Any]) -> int:
    """Entries the aggregation record cache holds (0: no cache, every update goes out; see
    ``runtime.record_cache``) for property layers, later ones overriding earlier ones (engine, session,
    request); in a layer the ``ksql.streams.`` name wins."""
    value: Any = resolve(CACHE_PROPERTY, *layers, default=DEFAULT_CACHE_BYTES)
    try:
        size = int(value)
    except (TypeError, ValueError):
        size = DEFAULT_CACHE_BYTES
    return size // CACHE_ENTRY_BYTES if size > 0 else 0


def group_stage(lo: Lowering, agg: Aggregate, store: str | None) -> GroupStage:
    """WHERE, the group key and the aggregate arguments over the aggregation's input rows."""
    plan = lo.plan
    bottom = plan.bottom
    where = plan.find(Filter)
    keys = [OutputColumn(n, t, e) for n, t, e in zip(agg.key_names, agg.key_types, agg.group_by, strict=True)]
    args = [OutputColumn(f"A{i}_{j}", t, e) for i, a in enumerate(agg.aggregates)
            for j, (e, t) in enumerate(zip(a.args, a.arg_types, strict=True))]
    table = bottom.result_kind is ResultKind.TABLE
    by_key = not table and not agg.repartition
    if by_key and isinstance(bottom, Join):
        # a stream join's result grouped by its key column (``partitioning.group_by_repartition``): ksqlDB's
        # groupByKey runs no group-by mapper, so the group is the joined record's key - the join key, also
        # for a row the outer join padded on the side whose column names the key (that column's value copy
        # is NULL there, the key is not)
        cols = bottom.schema.columns
        keys = [dataclasses.replace(k, expr=ColumnRef(i, cols[i].name, type=cols[i].type))
                for k, i in zip(keys, bottom.schema.key_positions(), strict=True)]
    return GroupStage(bottom.schema, where.predicate if where is not None else None, keys, args,
                      table, len(bottom.schema.key_positions()), store, by_key=by_key)


def grouped_key_format(lo: Lowering, agg: Aggregate) -> GroupKeyFormat:
    """The format of the grouped key (repartition topic, store, changelog, pull-query placement): the
    input's key format by ksqlDB's groupBy rule (``plan.group_key``), whatever the sink's KEY_FORMAT."""
    node: PlanNode = agg.input
    while not isinstance(node, (Scan, Join)):
        node = node.inputs[0]
    if isinstance(node, Join):
        fmt, delimiter, full_name = node.key_format, node.key_delimiter, node.key_full_name
    else:
        src = node.source
        fmt, delimiter = src.key_format or "NONE", src.key_delimiter
        full_name = serde_options(src, True)["full_name"]
    sink, rules = lo.sink, lo.plan.plan_rules
    if sink is not None and rules is not None and rules < GROUP_KEY_FROM_INPUT:  # a query placed before
        same = (sink.key_format or "").upper() == (fmt or "").upper()
        return GroupKeyFormat(sink.key_format, sink.key_delimiter, full_name if same else None)
    return group_key_format(fmt, list(agg.key_types), repartition=agg.repartition,
                            default_format=str(lo.prop(DEFAULT_KEY_FORMAT_PROPERTY, "KAFKA")),
                            delimiter=delimiter, full_name=full_name)


def aggregate_stage(lo: Lowering, agg: Aggregate, store: str) -> AggregateStage:
    group_key = grouped_key_format(lo, agg)
    window = window_settings(agg)
    key_columns = list(zip(agg.key_names, agg.key_types, strict=True))
    idle = lo.prop(IDLE_ADVANCE_PROPERTY)
    idle_ms = int(idle) if window is not None and idle not in (None, "") and int(idle) > 0 else None
    final = agg.emit is EmitMode.FINAL
    return AggregateStage(
        calls=[AggregateCall(a.function, list(a.arg_types), list(a.literals)) for a in agg.aggregates],
        arg_counts=[len(a.args) for a in agg.aggregates], window=window, emit_final=final,
        having=agg.having, projection_schema=lo.plan.project.input.schema,
        outputs=[list(g) for g in result_groups(lo)], key_columns=key_columns,
        key_format=group_key.format, key_delimiter=group_key.delimiter, store=store,
        table=agg.input.result_kind is ResultKind.TABLE, idle_advance_ms=idle_ms,
        cache_entries=0 if final else cache_entries(lo.settings.effective_properties(), lo.request),
        emit_interval_ms=emit_interval_ms(lo.prop(EMIT_INTERVAL_PROPERTY), frozen_clock(lo)))


def frozen_clock(lo: Settings) -> bool:
    """Whether the wall clock never moves (the test harness: ``HARNESS_FROZEN_CLOCK``)."""
    return str(lo.prop(HARNESS_FROZEN_CLOCK, "")).lower() == "true"


def emit_interval_ms(value: Any, frozen: bool = False) -> int:
    """A throttle (EMIT FINAL's, an outer join's) from the property's value (Kafka Streams reads it as a long;
    unset: 1000). On a clock that never moves a positive interval never elapses (``NEVER_MS``): the first look
    only, as in ksqlDB's test driver, whatever the case's run takes here."""
    interval = DEFAULT_EMIT_INTERVAL_MS
    if value not in (None, ""):
        try:
            interval = max(int(value), 0)
        except (TypeError, ValueError):
            pass
    return NEVER_MS if frozen and interval > 0 else interval


def _store_kind(window: WindowConfig | None) -> StoreKind:
    if window is None:
        return StoreKind.KEY_VALUE
    return StoreKind.SESSION if window.type is WindowType.SESSION else StoreKind.WINDOW


def lower_aggregation(lo: Lowering, sub: SubBuilder, after: Node | None) -> None:
    """GROUP BY (WINDOW, HAVING) from ``sub``: its input is read here (``after`` None) or is the rows of
    ``after``'s stage (a join's results). One sub-topology when the plan keeps the groups in their partition
    (``Aggregate.repartition``), else two around ``Aggregate-GroupBy-repartition``."""
    plan = lo.plan
    agg = plan.find(Aggregate)
    assert agg is not None
    table = agg.input.result_kind is ResultKind.TABLE
    if after is None:
        scan = plan.bottom
        assert isinstance(scan, Scan)
        after = lo.read_source(sub, scan.source, keep_tombstones=table)
    window = window_settings(agg)
    aggregate_node = lo.generated("KTABLE-AGGREGATE" if table else "KSTREAM-AGGREGATE")
    stage = aggregate_stage(lo, agg, naming.AGGREGATE_STORE)
    leftmost = _leftmost(agg.input).source
    values = leftmost.value_format  # ksqlDB's internal formats: the input's value format
    options = serde_options(leftmost, False)
    group_key = TopicKey(stage.key_columns, stage.key_format, value_format=values,  # the repartition's key
                         full_name=grouped_key_format(lo, agg).full_name, values=repartition_values(agg),
                         value_full_name=options["full_name"], value_nullable=options["nullable"])
    store_key = dataclasses.replace(group_key, window=agg.windowed,  # the store's: windowed by the WINDOW
                                    values=aggregate_store_values(agg))
    if not agg.repartition:
        store = lo.add_store(naming.AGGREGATE_STORE, _store_kind(window), sub, key=store_key)
        # a table source's previous contributions share the aggregate's store
        sub.operators.append(group_stage(lo, agg, store if table else None))
        node = sub.node(NodeKind.PROCESSOR, "Aggregate-Prepare", after)
        node = sub.node(NodeKind.PROCESSOR, aggregate_node, node, stores=[store])
        sub.operators.append(stage)
        _aggregate_tail(lo, agg, sub, node)
        return
    # a table join's changes carry each key's previous joined row (Kafka Streams' KTable-KTable join sends
    # old values to KTable.groupBy): no store of them, unless the query was created keeping one
    olds = table and isinstance(plan.bottom, Join) and (
        plan.plan_rules is None or plan.plan_rules >= TABLE_JOIN_PREVIOUS_FROM_JOIN)
    previous = lo.add_store(naming.SOURCE_TABLE_STORE, StoreKind.KEY_VALUE, sub,
                            key=source_table_key(leftmost, lo.offsets)) if table and not olds else None
    sub.operators.append(dataclasses.replace(group_stage(lo, agg, previous), olds=olds))
    topic = lo.internal_topic(lo.names.repartition(naming.GROUP_BY), TopicKind.REPARTITION, sub.partitions,
                              group_key)
    sub.operators.append(WriteRepartition(topic, stage.key_columns, stage.key_format, stage.key_delimiter))
    node = sub.node(NodeKind.PROCESSOR, naming.GROUP_BY, after, stores=[previous] if previous else None)
    node = sub.node(NodeKind.PROCESSOR, f"{naming.GROUP_BY}-repartition-filter", node)
    described = lo.names.repartition(naming.GROUP_BY)
    sub.node(NodeKind.SINK, f"{naming.GROUP_BY}-repartition-sink", node, topics=[described])
    lo.index += 1  # (the repartition's generated name)
    second = lo.sub(sub.partitions)
    second.operators.append(ReadRepartition(topic))
    node = second.node(NodeKind.SOURCE, f"{naming.GROUP_BY}-repartition-source", topics=[described])
    store = lo.add_store(naming.AGGREGATE_STORE, _store_kind(window), second, key=store_key)
    node = second.node(NodeKind.PROCESSOR, aggregate_node, node, stores=[store])
    second.operators.append(stage)
    _aggregate_tail(lo, agg, second, node)


def source_table_key(source: Source, offsets: bool) -> TopicKey:
    """The key and value of a table source materialized as read (``KsqlTopic-Reduce``): the source's own
    columns in its own formats, as its serdes write them, the values followed by the materialized pseudo
    columns when ``offsets`` (``internal_values.materialized_source_values``)."""
    key, value = serde_options(source, True), serde_options(source, False)
    return TopicKey([(c.name, c.type) for c in source.key_columns], source.key_format or "NONE",
                    key["full_name"], window=source.windowed, value_format=source.value_format,
                    values=materialized_source_values(source, offsets), value_full_name=value["full_name"],
                    value_nullable=value["nullable"])


def materialize_key(sink: Source, leftmost: Source, key_format: str, key_full_name: str | None,
                    window: WindowInfo | None) -> TopicKey:
    """The key and value of a table sink's ``Materialize`` store (a table-table join's result; a table CTAS
    planned under plan rules before ``SOURCE_ROWS_FOR_TABLE_SELECT``): the rows the
    query's projection produces - the sink's key and value columns - in its internal formats, which ksqlDB's
    TableSelect step takes from the stream it selects from (the key format the rows are keyed in, the leftmost
    source's value format with that source's value properties), not from the sink's WITH clause (from memory
    of SchemaKTable.select / TableSelectBuilder)."""
    value = serde_options(leftmost, False)
    return TopicKey([(c.name, c.type) for c in sink.key_columns], key_format, key_full_name, window=window,
                    value_format=leftmost.value_format, values=[(c.name, c.type) for c in sink.value_columns],
                    value_full_name=value["full_name"], value_nullable=value["nullable"])


def _leftmost(node: PlanNode) -> Scan:
    """The first source under ``node`` (a join's leftmost): the input whose value format internal topics use."""
    while not isinstance(node, Scan):
        node = node.inputs[0]
    return node


def _aggregate_tail(lo: Lowering, agg: Aggregate, sub: SubBuilder, node: Node) -> None:
    node = sub.node(NodeKind.PROCESSOR, "Aggregate-Aggregate-ToOutputSchema", node)
    if agg.window is not None:
        node = sub.node(NodeKind.PROCESSOR, "Aggregate-WindowSelect", node)
    if agg.emit is EmitMode.FINAL:
        node = sub.node(NodeKind.PROCESSOR, "Aggregate-Suppress", node)
    if agg.having is not None:
        node = sub.node(NodeKind.PROCESSOR, "Aggregate-HavingFilter", node)
    node = sub.node(NodeKind.PROCESSOR, "Aggregate-Project", node)
    lo.write_sink(sub, node, table=True)
