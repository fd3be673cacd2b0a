"""The logical plan of one query: a tree of operators, each with its output schema and bound expressions.

Analysis produces it (``ksqlpy.analysis.query``); everything that runs a query reads it - the physical
topology (``plan.lower``), pull queries, the Spark backfill, EXPLAIN (``plan.explain``). A query over one
source is a chain; a join is a subtree, n-way joins nested left-deep::

    Sink                                   the result: a topic (CSAS/CTAS/INSERT) or the caller (push/pull)
      Project                              key and value columns
        [FlatMap]                          table functions
          [Aggregate]                      GROUP BY, WINDOW, aggregate calls, HAVING, EMIT
            [Rekey]                        PARTITION BY
              [Filter]                     WHERE
                Scan | Join(left, right)   a source; a join of two inputs (each a Scan or a Join)

Each node's expressions are bound expressions (``ksqlpy.expr.bound``) over the row of the node below it:
a ``ColumnRef`` is a position in that node's ``RowSchema`` (HAVING reads the aggregate's own output row,
a join's key expressions each side's row). They hold no parser objects, so the plan pickles.

Planning decisions are made once and recorded on the nodes: whether a re-key needs a repartition (a
PARTITION BY of exactly the key does not; a GROUP BY on the key does not; a join side keyed by its join
expression in the join's key format does not), the join flavour, and for a pull query whether it looks
keys up or scans the table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from ksqlpy.catalog import Source, WindowInfo
from ksqlpy.expr.bound import Call, ColumnRef, Expr
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.grammar.ast import WindowSpec, WithinSpec
from ksqlpy.types import SqlType


# ------------------------------------------------------------------------------------------------ kinds
class ColumnRole(StrEnum):
    KEY = "key"
    VALUE = "value"
    SYSTEM = "system"  # ROWTIME, ROWPARTITION, ROWOFFSET
    WINDOW = "window"  # WINDOWSTART, WINDOWEND
    HEADER = "header"


class ResultKind(StrEnum):
    """What rows mean: events (a stream) or changes of a keyed state (a table)."""

    STREAM = "STREAM"
    TABLE = "TABLE"


class QueryKind(StrEnum):
    PERSISTENT = "PERSISTENT"  # CREATE ... AS SELECT, INSERT INTO: writes a topic
    PUSH = "PUSH"  # SELECT ... EMIT CHANGES (and a SELECT on a stream): rows to the caller as they come
    PULL = "PULL"  # SELECT on a table without EMIT: the table's current state


class EmitMode(StrEnum):
    CHANGES = "CHANGES"
    FINAL = "FINAL"


class JoinKind(StrEnum):
    INNER = "INNER"
    LEFT = "LEFT"
    RIGHT = "RIGHT"
    FULL = "FULL"


class JoinFlavor(StrEnum):
    STREAM_STREAM = "STREAM_STREAM"
    STREAM_TABLE = "STREAM_TABLE"
    TABLE_TABLE = "TABLE_TABLE"
    FOREIGN_KEY = "FOREIGN_KEY"


class PullAccess(StrEnum):
    """How a pull query reads its table's state."""

    KEY_LOOKUP = "KEY_LOOKUP"  # every disjunct of the WHERE names each key column with constants
    TABLE_SCAN = "TABLE_SCAN"  # anything else (ksql.query.pull.table.scan.enabled)


# ------------------------------------------------------------------------------------------------ schemas
@dataclass
class SchemaColumn:
    name: str
    type: SqlType
    role: ColumnRole
    display: str | None = None  # how the column reads in messages, if not by name (an aggregate's call)


@dataclass
class RowSchema:
    columns: list[SchemaColumn]

    def by_role(self, *roles: ColumnRole) -> list[SchemaColumn]:
        return [c for c in self.columns if c.role in roles]

    def get(self, name: str) -> SchemaColumn | None:
        for c in self.columns:
            if c.name == name:
                return c
        return None

    def ref(self, name: str) -> ColumnRef:
        """A bound reference to the (first) column called ``name``."""
        for i, c in enumerate(self.columns):
            if c.name == name:
                return ColumnRef(i, c.name, c.display, type=c.type)
        raise KeyError(name)

    def key_positions(self) -> list[int]:
        return [i for i, c in enumerate(self.columns) if c.role is ColumnRole.KEY]


@dataclass
class OutputColumn:
    """A column of the query's result: its name, type and the expression computing it."""

    name: str
    type: SqlType
    expr: Expr  # over the projection's input row


@dataclass
class AggregateCall:
    """One aggregate in a GROUP BY query, computed into the internal column ``name``."""

    name: str
    function: str
    # non-literal arguments, over the pre-aggregation row; COUNT(*) / COUNT() has none: it counts the default
    # argument ROWTIME (``analysis.aggregates.DEFAULT_ARGUMENT``), which is never NULL, so every row
    args: list[Expr]
    literals: list[Any]
    text: str = ""  # the call as written, e.g. COUNT(*)
    resolved: Any = None  # ResolvedAggregate once typed
    arg_types: list[SqlType] = field(default_factory=list)
    literal_texts: list[str] = field(default_factory=list)  # the literal arguments as written (TOPK's k)


@dataclass
class JoinKey:
    name: str
    type: SqlType
    synthetic: bool = False
    display: str = ""  # ALIAS_COL of the column the key equals (ksqlDB names the key column so in messages)


# ------------------------------------------------------------------------------------------------ nodes
N = TypeVar("N", bound="PlanNode")


@dataclass(eq=False)
class PlanNode:
    """A logical operator: its output row (``schema``) and what it reads (``inputs``)."""

    schema: RowSchema

    @property
    def inputs(self) -> list[PlanNode]:
        return []

    @property
    def result_kind(self) -> ResultKind:
        """Stream or table: what the rows this node emits mean."""
        return self.inputs[0].result_kind

    @property
    def windowed(self) -> WindowInfo | None:
        """The windowing of this node's keys (a windowed aggregation's, or a windowed source's)."""
        return self.inputs[0].windowed

    def walk(self) -> Iterator[PlanNode]:
        """This node and every node below it, depth first, left before right."""
        yield self
        for i in self.inputs:
            yield from i.walk()


@dataclass(eq=False)
class Scan(PlanNode):
    """A stream or table read from its topic. In a join, ``schema`` is the block of ``ALIAS_COL`` columns
    the source fills in the joined row (``offset``: where the block starts; ``index``: the source's
    position among the join's sources); else the source's columns, pseudo and window columns."""

    source: Source
    alias: str
    index: int = 0
    offset: int = 0
    repartitioned: bool = False  # a join side re-keyed through an internal topic
    access: PullAccess | None = None  # a pull query's: key lookups or a scan of the table's state
    lookup: list[tuple[tuple, int | None, int | None]] | None = None  # KEY_LOOKUP: (key, window start range)

    @property
    def result_kind(self) -> ResultKind:
        return ResultKind(self.source.kind)

    @property
    def windowed(self) -> WindowInfo | None:
        return self.source.windowed

    @property
    def columns(self) -> list[SchemaColumn]:
        return self.schema.columns

    @property
    def leaves(self) -> list[Scan]:
        return [self]


@dataclass(eq=False)
class Filter(PlanNode):
    """WHERE: rows for which ``predicate`` (over the input row) is true go on."""

    input: PlanNode
    predicate: Expr

    @property
    def inputs(self) -> list[PlanNode]:
        return [self.input]


@dataclass(eq=False)
class Rekey(PlanNode):
    """PARTITION BY: the key becomes ``exprs`` (over the input row); the old key columns move into the value.
    ``repartition``: the new key is not the input's key, so rows go through a repartition topic to the
    partition their new key hashes to (PARTITION BY NULL keys every row NULL, and needs none)."""

    input: PlanNode
    exprs: list[Expr]
    names: list[str]
    types: list[SqlType]
    repartition: bool = True

    @property
    def inputs(self) -> list[PlanNode]:
        return [self.input]


@dataclass(eq=False)
class FlatMap(PlanNode):
    """Table functions: one output row per element. ``functions`` are over the input row; the projection
    above reads each call's element where the call appears."""

    input: PlanNode
    functions: list[Call]

    @property
    def inputs(self) -> list[PlanNode]:
        return [self.input]


@dataclass(eq=False)
class Aggregate(PlanNode):
    """GROUP BY: rows grouped by ``group_by`` (over the input row), ``aggregates`` computed per group (and
    window), then HAVING (over this node's output row: the group key columns, one column per aggregate
    call, the window bounds, ROWTIME). ``repartition``: the groups are not the input's partitioning (a key
    that is not the input's key, or any key of a table), so rows go through ``Aggregate-GroupBy-repartition``
    first. ``emit``: FINAL holds each window's result until the window closes."""

    input: PlanNode
    group_by: list[Expr]
    key_names: list[str]
    key_types: list[SqlType]
    aggregates: list[AggregateCall]
    window: WindowSpec | None = None
    having: Expr | None = None
    emit: EmitMode = EmitMode.CHANGES
    repartition: bool = True

    @property
    def inputs(self) -> list[PlanNode]:
        return [self.input]

    @property
    def result_kind(self) -> ResultKind:
        return ResultKind.TABLE

    @property
    def windowed(self) -> WindowInfo | None:
        if self.window is not None:
            w = self.window
            return WindowInfo(w.type, w.size_ms if w.type != "SESSION" else None)
        # grouping re-keys a windowed source's rows: a group is its GROUP BY values, windowed only by the
        # query's own WINDOW (ksqlDB re-keys a windowed stream whatever it groups by)
        return None


@dataclass(eq=False)
class Join(PlanNode):
    """One binary join step. ``left`` is a Scan or an earlier Join (n-way joins nest left-deep), ``right``
    a Scan. Its rows are the blocks of its sources, left to right; the top join's ``schema`` is the row the
    rest of the query reads - the join key column(s), every block, the pseudo columns."""

    left: PlanNode
    right: Scan
    kind: JoinKind
    flavor: JoinFlavor
    left_exprs: list[Expr]  # over the left input's row (its leaves' blocks, left to right)
    right_exprs: list[Expr]  # over the right leaf's block
    keys: list[JoinKey]  # the step's output key
    join_result: ResultKind  # STREAM | TABLE
    within: WithinSpec | None = None
    context: str = ""  # internal topic/store name prefix ("L_" per nesting level)
    left_from_child_key: bool = False  # the left input is a join already keyed by this step's left key
    repartition_left: bool = False  # stream: through -Join-[left-]repartition; table: re-keyed
    repartition_right: bool = False
    key_format: str = "KAFKA"  # format of the internal (co-partitioned) key
    key_delimiter: str | None = None
    # the full schema name of the internal key (the source whose key format the step takes: its
    # ``KEY_SCHEMA_FULL_NAME``, or an AVRO key's ``<Source>Key``); None: the format's default
    key_full_name: str | None = None
    join_windowed: WindowInfo | None = None
    # per key column, the joined-row columns equal to it (this step's and, keyed alike, earlier steps' join
    # columns: ksqlDB's viable key columns, any of which the projection may name the key after)
    key_columns_viable: list[list[str]] = field(default_factory=list)
    text: str = ""  # e.g. "L [INNER] JOIN R", for messages
    virtual: Source | None = None  # the top join: its result as the source the rest of the query reads
    # the top join: the FROM source as written, whose formats (and their inheritable properties) a sink takes
    # - ksqlDB's Analyzer reads them from analysis.getFrom(), not from the join's internal key format
    from_source: Source | None = None

    def __post_init__(self) -> None:
        if not self.schema.columns:  # a nested join's row: its sources' blocks
            self.schema = RowSchema([c for lf in self.leaves for c in lf.columns])

    @property
    def inputs(self) -> list[PlanNode]:
        return [self.left, self.right]

    @property
    def result_kind(self) -> ResultKind:
        return self.join_result

    @property
    def windowed(self) -> WindowInfo | None:
        return self.join_windowed

    @property
    def leaves(self) -> list[Scan]:
        left = self.left.leaves if isinstance(self.left, (Join, Scan)) else []
        return [*left, self.right]

    @property
    def key_columns(self) -> list[SchemaColumn]:
        return self.schema.by_role(ColumnRole.KEY)

    @property
    def width(self) -> int:
        """Columns of all blocks together."""
        return sum(len(lf.columns) for lf in self.leaves)


@dataclass(eq=False)
class Project(PlanNode):
    """The result's columns: ``key`` (the key the result is written with) and ``value``, each computed over
    the input row. ``printed``: the select list as ksqlDB prints the rewritten statement; ``printed_from``:
    for a join, its FROM clause and the clauses after it as printed (a single source's are printed from the
    query and its alias); ``printed_select``: the select items as written, ``*`` unexpanded, each named."""

    input: PlanNode
    key: list[OutputColumn]
    value: list[OutputColumn]
    printed: list[tuple[str, str]] = field(default_factory=list)
    printed_from: list[str] | None = None
    printed_select: list[str] = field(default_factory=list)

    @property
    def inputs(self) -> list[PlanNode]:
        return [self.input]


@dataclass(eq=False)
class Sink(PlanNode):
    """Where the result goes: a stream or table's topic (``target``, once the statement has resolved it) for
    a persistent query; the caller for a push or pull query. The query-wide facts live here: the function
    registry the plan was bound against (code generation resolves calls in it; pickled, it is rebuilt from
    its origin, see ``ksqlpy.session_state``), the statement text, EMIT and LIMIT."""

    input: Project
    query_kind: QueryKind
    functions: FunctionRegistry
    name: str | None = None  # the sink's name (persistent queries)
    target: Source | None = None
    emit: EmitMode | None = None
    limit: int | None = None
    sql: str = ""
    plan_rules: int | None = None  # the layout revision (``plan.rules``) a persistent query runs under
    # an INSERT INTO's records keep the ROWTIME the query computed: the target's TIMESTAMP column is how
    # readers of the target take theirs, not how the query writes (``plan.rules`` revision 11)
    keeps_rowtime: bool = False

    @property
    def inputs(self) -> list[PlanNode]:
        return [self.input]

    @property
    def persistent(self) -> bool:
        return self.query_kind is QueryKind.PERSISTENT

    # -- the parts of the tree most readers want
    @property
    def project(self) -> Project:
        return self.input

    def find(self, kind: type[N]) -> N | None:
        """The first node of ``kind`` from the top (None if there is none)."""
        return next((n for n in self.walk() if isinstance(n, kind)), None)

    @property
    def bottom(self) -> PlanNode:
        """What the query's chain reads: its Scan, or the top Join."""
        node: PlanNode = self
        while not isinstance(node, (Scan, Join)):
            node = node.inputs[0]
        return node

    @property
    def scans(self) -> list[Scan]:
        """The sources read, left to right."""
        return [n for n in self.walk() if isinstance(n, Scan)]

    @property
    def input_source(self) -> Source:
        """What the query's chain reads as one source: its stream or table, or a join's result (its key
        columns, formats and kind as the rest of the query sees them)."""
        b = self.bottom
        if isinstance(b, Join):
            assert b.virtual is not None
            return b.virtual
        assert isinstance(b, Scan)
        return b.source

    @property
    def format_source(self) -> Source:
        """The source whose formats a CREATE ... AS SELECT's sink inherits: the FROM source as written (for a
        join, not its result as the rest of the query reads it: a key-less FROM source leaves the sink the
        default key format, whatever key format the join's internal topics take)."""
        b = self.bottom
        if isinstance(b, Join) and b.from_source is not None:
            return b.from_source
        return self.input_source

    def with_values(self, value: list[OutputColumn]) -> None:
        """Replace the value columns (and so the result's schema): INSERT INTO's casts to the sink's types."""
        project = self.input
        project.value = value
        project.schema = RowSchema([SchemaColumn(c.name, c.type, ColumnRole.KEY) for c in project.key]
                                   + [SchemaColumn(c.name, c.type, ColumnRole.VALUE) for c in value])
        self.schema = project.schema

