"""The typed logical plan of one query.

A query over one source is a fixed pipeline, the shape Kafka Streams builds for ksqlDB:

    Scan -> Filter(WHERE) -> [Rekey(PARTITION BY)] -> [Aggregate(GROUP BY, WINDOW) -> Filter(HAVING)]
         -> [FlatMap(table functions)] -> Project -> Sink

Each stage's expressions are bound expressions (``ksqlpy.expr.bound``) over the row of the stage before
them: a ``ColumnRef`` is a position in that stage's ``RowSchema``. They hold no parser objects, so the plan
pickles (the Spark backfill ships it to its workers); the physical layer generates code from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ksqlpy.catalog import Source, WindowInfo
from ksqlpy.expr.bound import Call, ColumnRef, Expr
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.grammar.ast import WindowSpec, WithinSpec
from ksqlpy.types import SqlType


@dataclass
class SchemaColumn:
    name: str
    type: SqlType
    role: str  # key | value | system | window | header
    display: str | None = None  # how the column reads in messages, if not by name (an aggregate's call)


@dataclass
class RowSchema:
    columns: list[SchemaColumn]

    def by_role(self, *roles: str) -> list[SchemaColumn]:
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
    args: list[Expr]  # non-literal arguments (COUNT(*) has none), over the pre-aggregation row
    literals: list[Any]
    text: str = ""  # the call as written, e.g. COUNT(*)
    resolved: Any = None  # ResolvedAggregate once typed
    arg_types: list[SqlType] = field(default_factory=list)


@dataclass
class Rekey:
    exprs: list[Expr]  # over the input row
    names: list[str]
    types: list[SqlType]


@dataclass
class Aggregation:
    group_by: list[Expr]  # over the pre-aggregation row (the input row)
    key_names: list[str]
    key_types: list[SqlType]
    aggregates: list[AggregateCall]
    window: WindowSpec | None = None
    having: Expr | None = None  # over the post-aggregation row


@dataclass
class QueryPlan:
    source: Source
    alias: str
    input_schema: RowSchema
    where: Expr | None  # over the input row
    rekey: Rekey | None
    aggregation: Aggregation | None
    table_functions: list[Call]  # over the projection's input row
    key: list[OutputColumn]
    value: list[OutputColumn]
    result_kind: str  # STREAM | TABLE
    # the engine's function registry the plan was typed against; code generation resolves calls against it
    # (pickled, it is rebuilt in the receiving process from its origin: see ksqlpy.session_state)
    functions: FunctionRegistry
    emit: str | None = None  # CHANGES | FINAL
    limit: int | None = None
    projection_schema: RowSchema | None = None  # what the Project stage sees
    windowed: WindowInfo | None = None  # output windowing (windowed aggregation or windowed source)
    sql: str = ""
    join: JoinPlan | None = None  # the FROM clause is a join: ``source`` is then its (virtual) result
    # the select list as ksqlDB prints the rewritten statement: (expression as written, qualified; its name)
    printed_select: list[tuple[str, str]] = field(default_factory=list)


# --------------------------------------------------------------------------- joins
# A join's result is seen by the rest of the query as one virtual source whose columns are the join key
# column(s) followed by every source's columns, each named ``ALIAS_COLUMN`` (see ksqlpy.analysis.joins).


@dataclass
class JoinLeaf:
    """One source of a join and the block of columns it fills in the joined row."""

    source: Source
    alias: str
    index: int  # position among the join's sources, left to right
    columns: list[SchemaColumn]  # the block: value/header columns, pseudo columns, window, key columns
    offset: int = 0  # where the block starts in the joined row (after the join key columns)
    repartitioned: bool = False  # re-keyed through an internal topic (a windowed one's bounds become values)


@dataclass
class JoinKey:
    name: str
    type: SqlType
    synthetic: bool = False
    display: str = ""  # ALIAS_COL of the column the key equals (ksqlDB names the key column so in messages)


@dataclass
class JoinNode:
    """One binary join step of a (left-deep) join tree."""

    kind: str  # INNER | LEFT | RIGHT | FULL
    flavor: str  # STREAM_STREAM | STREAM_TABLE | TABLE_TABLE | FOREIGN_KEY
    left: JoinNode | JoinLeaf
    right: JoinLeaf
    left_exprs: list[Expr]  # over the left input's row (its leaves' blocks, left to right)
    right_exprs: list[Expr]  # over the right leaf's block
    keys: list[JoinKey]  # the step's output key
    result_kind: str  # STREAM | TABLE
    within: WithinSpec | None = None
    context: str = ""  # internal topic/store name prefix ("L_" per nesting level)
    left_from_child_key: bool = False  # the left input is a join already keyed by this step's left key
    repartition_left: bool = False  # stream: through -Join-[left-]repartition; table: re-keyed
    repartition_right: bool = False
    key_format: str = "KAFKA"  # format of the internal (co-partitioned) key
    key_delimiter: str | None = None
    windowed: WindowInfo | None = None
    text: str = ""  # e.g. "L [INNER] JOIN R", for messages

    @property
    def leaves(self) -> list[JoinLeaf]:
        left = self.left.leaves if isinstance(self.left, JoinNode) else [self.left]
        return [*left, self.right]


@dataclass
class JoinPlan:
    root: JoinNode
    leaves: list[JoinLeaf]
    key_columns: list[SchemaColumn]  # the virtual source's key columns
    width: int  # number of columns of all blocks together
