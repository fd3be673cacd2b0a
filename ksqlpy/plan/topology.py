"""The physical topology of a query: what runs, as plain picklable data.

A query lowered from its analysed plan (``plan.lower``) becomes the shape Kafka Streams gives it under
ksqlDB: sub-topologies cut at internal topics, each run as one task per partition; the topics each reads
and writes (source, repartition, sink, changelog, foreign-key subscription and response topics), every name
computed once (``plan.naming``); the state stores with their kinds and changelogs; and, per
sub-topology, two views of the same thing:

* ``nodes``: Kafka Streams' TopologyDescription - sources, processors and sinks with their names, edges
  and stores - which EXPLAIN prints (``plan.describe``);
* ``operators``: the chain the runtime builds, each operator from its serialized config (Arroyo's model):
  what a task reads, the stateless stage, grouping, aggregation, joins, materialization, what it writes.
  The runtime fuses what Kafka Streams keeps apart (a filter and a projection are one generated function).

No live object and no parser tree lives here: in-process tasks, worker processes (which receive the
topology instead of SQL) and the Spark backfill all build from it. Expressions are bound expressions
(``ksqlpy.expr.bound``: frozen dataclasses naming columns by position and functions by name and argument
types), so each process generates their code itself against its own function registry. Sources and sinks
are the catalog's ``Source`` descriptions (columns, formats), plain data too; the engine's function
registry pickles as the recipe it is rebuilt from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from ksqlpy.catalog import Source, WindowInfo
from ksqlpy.expr.bound import Call, Expr
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.plan.logical import JoinFlavor, JoinKind, OutputColumn, RowSchema, SchemaColumn
from ksqlpy.types import SqlType


class StoreKind(Enum):
    KEY_VALUE = "key-value"
    WINDOW = "window"
    SESSION = "session"


class TopicKind(Enum):
    SOURCE = "source"
    SINK = "sink"
    REPARTITION = "repartition"
    CHANGELOG = "changelog"
    SUBSCRIPTION = "subscription"  # foreign-key join: left rows registering with the right side
    RESPONSE = "response"  # foreign-key join: the right side answering


class NodeKind(Enum):
    SOURCE = "Source"
    PROCESSOR = "Processor"
    SINK = "Sink"


StartAt = Literal["earliest", "latest"]


@dataclass
class TopicKey:
    """The key of an internal topic's records: its columns, format and window (the formats ksqlDB's plan step
    gives the topic - a join over windowed sources keeps their window, a windowed aggregation's store its
    WINDOW; a GroupBy repartition is never windowed) and properties (``full_name``: the key format's
    fullSchemaName, which comes with the format from the source it is taken from - an AVRO source's
    ``<Source>Key``), with ``value_format``, the format its values are written in (the input's: the leftmost
    source's of the step's side). A schema-registry format registers the key's schema under ``<topic>-key``
    when the query creates the topic, as ksqlDB's key serializer does on first write (a client of the
    registry sees the subjects of repartition and changelog topics); ``values``, the value columns ksqlDB
    writes the topic with (``plan.internal_values``), likewise under ``<topic>-value`` in the value format,
    with the input's value properties (``value_full_name``, ``value_nullable``: its protobuf nullable
    representation). None: not modelled, nothing registered."""

    columns: list[tuple[str, SqlType]]
    format: str
    full_name: str | None = None  # the key format's fullSchemaName: its record's name (None: the default)
    window: WindowInfo | None = None
    value_format: str | None = None
    values: list[tuple[str, SqlType]] | None = None
    value_full_name: str | None = None
    value_nullable: str | None = None


@dataclass
class Topic:
    name: str  # in the log
    kind: TopicKind
    partitions: int
    described: str = ""  # as TopologyDescription shows it: internal topics without the application id
    key: TopicKey | None = None  # an internal topic's key, where ksqlDB writes it with the query's key format

    @property
    def internal(self) -> bool:
        return self.kind not in (TopicKind.SOURCE, TopicKind.SINK)

    @property
    def cleanup_policy(self) -> str:
        return "compact" if self.kind is TopicKind.CHANGELOG else "delete"


@dataclass
class Store:
    name: str
    kind: StoreKind
    changelog: str | None  # topic name; None: the store has none (transient queries)
    sub_topology: int


@dataclass
class Node:
    """A node of Kafka Streams' TopologyDescription."""

    kind: NodeKind
    name: str
    successors: list[str] = field(default_factory=list)
    stores: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)  # a source's topics / a sink's topic, as described


# ------------------------------------------------------------------------------------------------ operators
@dataclass
class ReadSource:
    """A task's input: a source topic's records decoded into rows (``runtime.reader``)."""

    source: Source
    keep_tombstones: bool
    start_at: StartAt
    strict_timestamps: bool = True  # ksql.timestamp.throw.on.invalid applies (not to a CST query's reads)


@dataclass
class ReadRepartition:
    """A task's input: a repartition topic of this query (grouped items, private encoding)."""

    topic: str


@dataclass
class StatelessStage:
    """WHERE, PARTITION BY, table functions and the projection: one generated function (``plan.codegen``)."""

    input_schema: RowSchema
    where: Expr | None  # over the input row
    rekey: list[Expr] | None  # over the input row
    projection_schema: RowSchema
    table_functions: list[Call]  # over the projection's row
    outputs: list[list[OutputColumn]]  # groups of output columns: [key columns, value columns]
    tombstone_on_filter: bool = False  # tables: a row failing WHERE deletes its key downstream
    pass_tombstones: bool = False
    with_headers: bool = False
    windowed_keys: bool = False  # output keys (k..., start, end) become ((k...), start, end)
    keep_null_keys: bool = False  # the input's key is kept: a null Kafka key is written back null
    # a table's WHERE in a query that keeps no table of its own (a push query): the store of the keys whose
    # last row passed, so a row that stops matching is a delete only for them (``runtime.stateless``)
    where_store: str | None = None


@dataclass
class GroupStage:
    """WHERE, then the group key and the aggregate arguments of each record (ksqlDB's Aggregate-GroupBy)."""

    input_schema: RowSchema
    where: Expr | None
    keys: list[OutputColumn]
    args: list[OutputColumn]
    table: bool  # over a table: each source key's last contribution is retracted on update
    source_keys: int  # key columns of the input rows (a table's previous contributions are by them)
    store: str | None  # the previous contributions of a table source's keys
    # the grouping is the input stream's own key (ksqlDB's groupByKey, no repartition): no group-by mapper
    # runs, so a key with NULL columns is a group; only a record without a Kafka key is skipped, unlogged
    by_key: bool = False
    # over a table join's results: each change brings its key's previous joined row (``DecodedBatch.olds``),
    # no store remembers them (``store`` None)
    olds: bool = False


class WindowType(Enum):
    TUMBLING = "TUMBLING"
    HOPPING = "HOPPING"
    SESSION = "SESSION"


@dataclass
class WindowConfig:
    type: WindowType
    size: int  # the size, or a session's inactivity gap
    advance: int
    grace: int
    retention: int


@dataclass
class AggregateCall:
    """An aggregate function resolved in the worker's registry from its name, argument types, literals."""

    function: str
    arg_types: list[SqlType]
    literals: list[Any]


@dataclass
class AggregateStage:
    """Grouped items -> state -> updates (with windows, EMIT FINAL, HAVING, the record cache)."""

    calls: list[AggregateCall]
    arg_counts: list[int]
    window: WindowConfig | None
    emit_final: bool
    having: Expr | None
    projection_schema: RowSchema  # keys, aggregates, [WINDOWSTART, WINDOWEND], ROWTIME
    outputs: list[list[OutputColumn]]
    key_columns: list[tuple[str, SqlType]]  # the group key
    key_format: str  # the key's serialized form (store order and partitioning): ``plan.group_key``'s
    key_delimiter: str | None
    store: str
    table: bool  # the input is a table's changes (retractions)
    cache_entries: int
    idle_advance_ms: int | None
    emit_interval_ms: int = 1000  # EMIT FINAL's wall-clock throttle (runtime.aggregator.Aggregator.emit_slot)


@dataclass
class WriteRepartition:
    """Grouped items to a repartition topic, keyed (and partitioned) by their group key."""

    topic: str
    key_columns: list[tuple[str, SqlType]]
    key_format: str
    key_delimiter: str | None


class MaterializedRows(Enum):
    """What a ``Materialize`` store holds per key."""

    OUTPUT = "output"  # the query's result rows (a table-table join's): pull queries read them as stored
    SOURCE = "source"  # a CST query's: the topic's records as read, which are the table's rows
    # a CTAS over a table source: the source's rows as read (ksqlDB's ``KsqlTopic-Reduce``, TableSourceV2
    # materializing the source); the query's WHERE and projection apply when the rows are read
    INPUT = "input"


@dataclass
class Materialize:
    """A table's rows kept in a store per task, for pull queries (``table``: the table they read; ``rows``:
    what the store holds; ``source``: for ``INPUT`` rows, the table source whose rows they are)."""

    store: str
    table: Source
    rows: MaterializedRows = MaterializedRows.OUTPUT
    source: Source | None = None


@dataclass
class WriteSink:
    """The records a persistent query writes into ``sink``'s topic; ``timestamp_from_column``: each record's
    timestamp is the sink's TIMESTAMP column (a CREATE ... AS SELECT's WITH clause), else the ROWTIME the
    query computed (an INSERT INTO, which plans its sink without properties of its own)."""

    sink: Source
    partitions: int
    timestamp_from_column: bool = True


# -- joins: what a join sub-topology's tasks wire together (``runtime.join_build``)
@dataclass
class KeyCodec:
    """How a join key becomes bytes: a format over the key's types (private bytes where it cannot)."""

    format: str
    types: list[SqlType]
    delimiter: str | None = None


@dataclass
class KeyFunction:
    """Join-key expressions over a row whose columns are ``columns``; time-windowed keys carry the window."""

    exprs: list[Expr]
    columns: list[SchemaColumn]
    window_at: int | None = None
    window_size: int | None = None


@dataclass
class ToOperator:
    """Emit into a join operator's input handler."""

    operator: int
    handler: Literal["on_left", "on_right", "on_response", "on_subscription"]


@dataclass
class ToRepartition:
    """Emit into a repartition topic, re-keyed by ``key`` (None: keep the key)."""

    topic: str
    key: KeyFunction | None
    codec: KeyCodec


@dataclass
class ToResult:
    """The end of the join: the results go to the rest of the query (``join_output``)."""


Target = ToOperator | ToRepartition | ToResult


@dataclass
class JoinChannel:
    """One input topic of a join task: a source's records keyed by ``key`` as blocks, or an internal
    topic's records (``source`` None)."""

    topic: str
    target: Target
    source: Source | None = None
    key: KeyFunction | None = None
    table: bool = False
    start_at: StartAt = "earliest"
    # WHERE conjuncts over the source's block that drop a record before it is re-keyed or joined
    # (``plan.join_prefilter``); the WHERE still runs after the join
    prefilter: list[Expr] = field(default_factory=list)
    # the names of the source's non-key columns the query reads (None: every one); the others are NULL in
    # its blocks (``plan.join_columns``)
    columns_read: frozenset[str] | None = None


@dataclass
class JoinOperator:
    """A stream-stream, stream-table or table-table join of one task."""

    id: int
    flavor: JoinFlavor  # (not FOREIGN_KEY: see ForeignKeyLeft/Right)
    kind: JoinKind
    stores: dict[str, str]  # role (this, other, outer, table, left, right) -> store name
    left_width: int
    right_width: int
    codec: KeyCodec
    output: Target
    within: tuple[int, int, int, bool] | None = None  # (before, after, grace, spurious-results fix)
    # an INNER stream-table join: WHERE conjuncts over the table's block a found row must pass to be joined
    # (``plan.join_prefilter.table_prefilter``); the WHERE still runs after the join
    right_prefilter: list[Expr] = field(default_factory=list)
    # an INNER stream-stream join: WHERE conjuncts over both blocks side by side a matched pair must pass to
    # be joined (``plan.join_prefilter.pair_prefilter``); the WHERE still runs after the join
    pair_prefilter: list[Expr] = field(default_factory=list)
    # an outer stream-stream join with a GRACE PERIOD: the unmatched records whose window closed are looked for
    # at most once per this many wall-clock ms (``__emit.interval.ms.kstreams.outer.join.spurious.results.fix__``)
    emit_interval_ms: int = 1000


@dataclass
class ForeignKeyLeft:
    """The left table of a foreign-key join: subscribes to the right rows its foreign key names."""

    id: int
    stores: dict[str, str]  # left, results
    inner: bool
    fk_of: KeyFunction
    fk_codec: KeyCodec
    left_codec: KeyCodec
    subscription_topic: str
    right_width: int
    output: Target
    right_source: Source  # subscriptions go where its topic holds the foreign key (its own key serde)
    right_partitions: int
    right_rekeyed: bool = False  # the right table is re-keyed first: subscriptions go where the join's bytes hash


@dataclass
class ForeignKeyRight:
    """The right table of a foreign-key join: answers subscriptions and notifies subscribers of changes."""

    id: int
    stores: dict[str, str]  # right, subscriptions
    right_codec: KeyCodec
    left_codec: KeyCodec
    response_topic: str


JoinWiring = JoinChannel | JoinOperator | ForeignKeyLeft | ForeignKeyRight


@dataclass
class JoinStage:
    """The join part of a sub-topology: channels and operators in the order tasks wire them."""

    wiring: list[JoinWiring]


@dataclass
class JoinResult:
    """The join's results as rows of its virtual source (``runtime.join_output``): key columns, every
    source's block, window bounds; a table result's WHERE is applied with old values."""

    key_columns: int
    width: int
    table: bool
    windowed: bool  # rows end with the window bounds
    window_keys: bool  # output keys become (key, window start, window end) (not when aggregated)
    input_schema: RowSchema
    where: Expr | None


Operator = (ReadSource | ReadRepartition | StatelessStage | GroupStage | AggregateStage | WriteRepartition
            | Materialize | WriteSink | JoinStage | JoinResult)


# ------------------------------------------------------------------------------------------------ topology
@dataclass
class SubTopology:
    id: int
    partitions: int
    nodes: list[Node]
    operators: list[Operator]

    def operator(self, kind: type) -> Any:
        """The first operator of ``kind`` (None if there is none)."""
        return next((op for op in self.operators if isinstance(op, kind)), None)


@dataclass(frozen=True)
class TaskId:
    sub_topology: int
    partition: int

    def __str__(self) -> str:
        return f"{self.sub_topology}_{self.partition}"


@dataclass
class Topology:
    query_id: str
    application_id: str  # the consumer group and the prefix of internal topics
    persistent: bool
    sub_topologies: list[SubTopology]
    topics: list[Topic]
    stores: list[Store]
    functions: FunctionRegistry | None  # the engine's (pickled, the recipe it is rebuilt from elsewhere)
    function_config: dict[str, Any]  # what aggregate functions are resolved with (properties)
    sources: list[str]  # the names of the streams and tables read
    sink: Source | None = None

    @property
    def tasks(self) -> list[TaskId]:
        return [TaskId(s.id, p) for s in self.sub_topologies for p in range(s.partitions)]

    def topic(self, name: str) -> Topic:
        return next(t for t in self.topics if t.name == name)

    def store(self, name: str) -> Store:
        return next(s for s in self.stores if s.name == name)

    def internal_topics(self) -> list[Topic]:
        return [t for t in self.topics if t.internal]

    def input_topics(self) -> list[str]:
        """Every topic a task of this query reads (source and internal), upstream first."""
        out: list[str] = []
        for sub in self.sub_topologies:
            for op in sub.operators:
                names = ([op.source.topic] if isinstance(op, ReadSource) else [op.topic]
                         if isinstance(op, ReadRepartition) else [c.topic for c in op.wiring
                                                                  if isinstance(c, JoinChannel)]
                         if isinstance(op, JoinStage) else [])
                out += [n for n in names if n not in out]
        return out
