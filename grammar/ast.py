"""Statement AST of the ksql dialect: what ``ksqlpy.grammar.parse`` returns.

Statements are plain dataclasses. Expressions inside them are sqlglot expression trees, using
sqlglot's own node classes where they fit and the custom nodes below where ksql has its own syntax.

Expression contract (what the analyzer relies on):

- Identifiers are already normalized: unquoted names upper-cased, backticked names kept verbatim.
  A column reference is ``exp.Column(this=exp.Identifier(name), table=exp.Identifier(qualifier)?)``.
- ``*`` is ``exp.Star()``; ``src.*`` is ``exp.Column(this=exp.Star(), table=Identifier(src))``;
  ``struct->*`` is ``Dereference(this=struct_expr, field='*')``.
- Literals: ``exp.Literal`` (string or number, number text kept as written, e.g. '1', '1.5', '1e3'),
  ``exp.Boolean``, ``exp.Null``.
- Operators: exp.Add/Sub/Mul/Div/Mod, exp.Neg, UnaryPlus (``+x``, never folded), exp.DPipe (``||``), exp.EQ/NEQ/GT/GTE/LT/LTE,
  exp.NullSafeEQ (IS NOT DISTINCT FROM), exp.NullSafeNEQ (IS DISTINCT FROM), exp.And/Or/Not,
  exp.Is(this, exp.Null()) for IS NULL (IS NOT NULL = exp.Not(exp.Is(...)); ``NOT x IS NULL`` written with
  the keyword is ``exp.Not(exp.Is(...), keyword=True)``, ksqlDB's NotExpression over IsNullPredicate), exp.In(this, expressions),
  exp.Between(this, low, high), exp.Like(this, expression) optionally wrapped in exp.Escape(this=like,
  expression=literal), exp.Case(ifs=[exp.If(this=cond, true=value)], default=else) (simple CASE x WHEN v
  keeps its operand: ``exp.Case(this=x, ifs=[exp.If(this=v, ...)])``), exp.Paren may appear and means nothing.
- ``CAST(x AS type)`` is ``Cast(this=x, to=<SqlType>)`` (custom node below; the target is a ksqlpy type,
  with ``TypeName`` placeholders for custom types).
- Every function call (including COUNT, SUM, SUBSTRING...) is ``FunctionCall(name=UPPER_NAME, args=[...])``;
  ``COUNT(*)`` has ``args=[exp.Star()]``. sqlglot's typed function nodes are never produced.
- ``a->b->c`` is ``Dereference(Dereference(a, 'B'), 'C')`` (field names normalized like identifiers).
- ``a[i]`` is ``exp.Bracket(this=a, expressions=[i])``.
- ``ARRAY[a, b]`` is ``exp.Array(expressions=[...])``; ``MAP(k := v, ...)`` is
  ``MapConstructor(keys=[...], values=[...])``; ``STRUCT(f := v, ...)`` is
  ``StructConstructor(names=[...], values=[...])``.
- ``x => body`` and ``(x, y) => body`` are ``exp.Lambda(this=body, expressions=[exp.Identifier...])``;
  inside the body the parameters appear as ``exp.Column`` with no table.
- ``e AT TIME ZONE 'z'`` is ``exp.AtTimeZone(this=e, zone=literal)``.
- A time-unit argument of a function (``TIMESTAMPADD(MILLISECONDS, 5, ts)``) is
  ``IntervalUnit(unit='MILLISECONDS')``, the unit's java.util.concurrent.TimeUnit name (always plural:
  DAYS HOURS MINUTES SECONDS MILLISECONDS). As in ksqlDB, only the reserved unit words (the plural ones
  and MILLISECOND) are units there; ``DAY``/``HOUR``/``MINUTE``/``SECOND`` are ordinary column names.
- A unary minus directly on a number literal is folded into the literal, as ksqlDB does (``-5`` is
  ``Literal('-5')``, which is what lets ``-9223372036854775808`` be a valid BIGINT); on anything else
  it is ``exp.Neg``. Out-of-range integer literals and overflowing doubles are parse errors.
- The parser never produces ``exp.Paren``: grouping is in the tree's shape, so structurally equal
  expressions compare equal (GROUP BY matching). Identifiers carry no ``quoted`` flag.
- ``MapConstructor.keys``/``values`` are expression lists; ``StructConstructor.names`` are normalized
  field names (str), ``values`` expressions. ``NOT IN`` / ``NOT BETWEEN`` / ``NOT LIKE`` are
  ``exp.Not(...)`` around the positive predicate.

Durations (WINDOW, WITHIN, GRACE PERIOD, RETENTION, ASSERT TIMEOUT) are converted to milliseconds.

Positions: column references (``exp.Column``) and calls (``FunctionCall``) carry where they start in the
submitted text in their sqlglot meta (``meta['line']``, ``meta['col']``, 1-based); ``ColumnDef`` and
``SourceRef`` in ``line``/``column``, ``InsertInto``'s target in ``target_line``/``target_column``.
``ksqlpy.errors.at(node, message)`` prefixes a semantic error with ksqlDB's ``Line: n, Col: m: ``.

Statement conventions (what the parser fills in):

- Names of sources, columns, aliases, types, query ids (TERMINATE/PAUSE/RESUME/EXPLAIN) and
  connectors are normalized like identifiers. Topic names (PRINT, ASSERT TOPIC) and schema subjects
  are kept exactly as written, quoted or not - topics are case-sensitive. DEFINE/UNDEFINE variable
  names are kept as written (lookups are case-insensitive). DESCRIBE FUNCTION names are upper-cased.
- WITH property keys are upper-cased (``kafka_topic`` -> ``KAFKA_TOPIC``), except in CREATE
  SOURCE/SINK CONNECTOR, whose keys are Kafka Connect configs and keep their case.
- ``CreateSource.columns`` is ``[]`` when no column list was written (schema inference).
- ``Show.what`` is one of STREAMS TABLES TOPICS ALL_TOPICS QUERIES PROPERTIES FUNCTIONS TYPES VARIABLES
  CONNECTORS SOURCE_CONNECTORS SINK_CONNECTORS CONNECTOR_PLUGINS.
- ``Explain.statement`` carries its own ``text`` (without ';'), ``line`` and ``column``.
- ``Query.limit`` may be negative (``LIMIT -1`` parses; the engine rejects it, as ksqlDB does).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from sqlglot import exp

from ksqlpy.types import SqlType

# --------------------------------------------------------------------------- custom expression nodes


class FunctionCall(exp.Expression):
    """A call of any scalar, aggregate or table function by (upper-cased) name."""

    arg_types = {"name": True, "args": False}

    @property
    def fname(self) -> str:
        return self.args["name"]

    @property
    def call_args(self) -> list[exp.Expression]:
        return self.args.get("args") or []


class Dereference(exp.Expression):
    """Struct field access ``expr->FIELD`` (field '*' for ``expr->*``)."""

    arg_types = {"this": True, "field": True}


class Cast(exp.Expression):
    """``CAST(this AS to)`` with ``to`` a ksqlpy SqlType (not a sqlglot DataType)."""

    arg_types = {"this": True, "to": True}


class UnaryPlus(exp.Expression):
    """Unary ``+expr``: kept, as ksqlDB keeps an ArithmeticUnaryExpression with sign PLUS (typed as its
    operand, numeric only, printed ``+x``; a select item written so is not a plain column)."""

    arg_types = {"this": True}


class IntervalUnit(exp.Expression):
    """A time-unit function argument, e.g. the MILLISECONDS of ``TIMESTAMPADD(MILLISECONDS, 5, ts)``."""

    arg_types = {"unit": True}

    @property
    def unit(self) -> str:
        return self.args["unit"]


class MapConstructor(exp.Expression):
    arg_types = {"keys": False, "values": False}


class StructConstructor(exp.Expression):
    arg_types = {"names": False, "values": False}


# --------------------------------------------------------------------------- types


@dataclass(frozen=True, repr=False)
class TypeName(SqlType):
    """A reference to a custom type (CREATE TYPE) inside a type expression; the analyzer resolves it."""

    type_name: str

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.type_name

    def __str__(self) -> str:
        return self.type_name


# --------------------------------------------------------------------------- statements


@dataclass
class Statement:
    """Base: ``text`` is the statement's own source text (with its ';'), ``line``/``column`` where it starts."""

    text: str = field(default="", kw_only=True)
    line: int = field(default=1, kw_only=True)
    column: int = field(default=1, kw_only=True)


@dataclass
class ColumnDef:
    name: str
    type: SqlType
    key: bool = False  # KEY (stream) or PRIMARY KEY (table)
    primary_key: bool = False  # PRIMARY KEY was written
    headers: bool = False  # HEADERS: all headers as ARRAY<STRUCT<KEY STRING, VALUE BYTES>>
    header_key: str | None = None  # HEADER('k')
    line: int = field(default=0, compare=False)  # where the name was written (0: not parsed from text)
    column: int = field(default=0, compare=False)


@dataclass
class SourceRef:
    name: str
    alias: str | None = None
    line: int = field(default=0, compare=False)  # where the name was written (0: not parsed from text)
    column: int = field(default=0, compare=False)


@dataclass
class WithinSpec:
    before_ms: int
    after_ms: int
    grace_ms: int | None = None


@dataclass
class JoinClause:
    kind: Literal["INNER", "LEFT", "RIGHT", "FULL"]
    right: SourceRef
    on: exp.Expression
    within: WithinSpec | None = None


@dataclass
class WindowSpec:
    type: Literal["TUMBLING", "HOPPING", "SESSION"]
    size_ms: int  # SESSION: the inactivity gap
    advance_ms: int | None = None
    retention_ms: int | None = None
    grace_ms: int | None = None
    line: int = field(default=0, compare=False)  # where the window expression starts (0: not parsed from text)
    column: int = field(default=0, compare=False)
    # each duration as written, in ksqlDB's spelling (``size``/``advance``/``retention``/``grace`` ->
    # ``1 SECONDS``): what a printed statement shows (``analysis.statement_text``)
    printed: dict[str, str] = field(default_factory=dict, compare=False, repr=False)


@dataclass
class SelectItem:
    expr: exp.Expression
    alias: str | None = None


@dataclass
class Query:
    select: list[SelectItem]
    source: SourceRef
    joins: list[JoinClause] = field(default_factory=list)
    window: WindowSpec | None = None
    where: exp.Expression | None = None
    group_by: list[exp.Expression] = field(default_factory=list)
    partition_by: list[exp.Expression] = field(default_factory=list)
    partition_by_written: bool = False  # a PARTITION BY clause was written (``PARTITION BY ()`` is empty)
    having: exp.Expression | None = None
    emit: str | None = None  # CHANGES | FINAL | None (no EMIT clause: a pull query when run alone)
    limit: int | None = None


# Property values are Python values: str (quotes removed), int, float or bool.
Properties = dict[str, Any]


@dataclass
class SelectStatement(Statement):
    query: Query


@dataclass
class CreateSource(Statement):
    kind: str  # STREAM | TABLE
    name: str
    columns: list[ColumnDef]
    properties: Properties
    or_replace: bool = False
    if_not_exists: bool = False
    is_source: bool = False  # CREATE SOURCE STREAM/TABLE (read-only)


@dataclass
class CreateAsSelect(Statement):
    kind: str  # STREAM | TABLE
    name: str
    properties: Properties
    query: Query
    or_replace: bool = False
    if_not_exists: bool = False


@dataclass
class InsertInto(Statement):
    target: str
    properties: Properties
    query: Query
    target_line: int = field(default=0, kw_only=True, compare=False)  # where the target name was written
    target_column: int = field(default=0, kw_only=True, compare=False)


@dataclass
class InsertValues(Statement):
    target: str
    columns: list[str] | None
    values: list[exp.Expression]


@dataclass
class Show(Statement):
    what: str  # STREAMS TABLES TOPICS ALL_TOPICS QUERIES PROPERTIES FUNCTIONS TYPES VARIABLES CONNECTORS ...
    extended: bool = False


@dataclass
class Describe(Statement):
    name: str | None  # None with ``what`` = STREAMS/TABLES
    extended: bool = False
    what: str = "SOURCE"  # SOURCE | STREAMS | TABLES | FUNCTION | CONNECTOR


@dataclass
class Explain(Statement):
    query_id: str | None = None
    statement: Statement | None = None


@dataclass
class ResetQuery(Statement):
    """``RESET QUERY id [TO EARLIEST | TO TIMESTAMP t]``: ksqlpy's own statement (ksqlDB has none)."""

    query_id: str
    to_timestamp: int | str | None = None  # epoch ms, or an ISO-8601 text; None = the earliest offsets


@dataclass
class AlterSystem(Statement):
    """``ALTER SYSTEM 'prop'='value'``: a cluster-wide property (ksqlDB runs it in Confluent Cloud only)."""

    name: str
    value: str


@dataclass
class Terminate(Statement):
    query_id: str | None  # None = ALL


@dataclass
class PauseResume(Statement):
    action: str  # PAUSE | RESUME
    query_id: str | None  # None = ALL


@dataclass
class Drop(Statement):
    kind: str  # STREAM | TABLE
    name: str
    if_exists: bool = False
    delete_topic: bool = False


@dataclass
class CreateType(Statement):
    name: str
    type: SqlType
    if_not_exists: bool = False


@dataclass
class DropType(Statement):
    name: str
    if_exists: bool = False


@dataclass
class AlterSource(Statement):
    kind: str
    name: str
    columns: list[ColumnDef]


@dataclass
class SetProperty(Statement):
    name: str
    value: str


@dataclass
class UnsetProperty(Statement):
    name: str


@dataclass
class DefineVariable(Statement):
    name: str
    value: str


@dataclass
class UndefineVariable(Statement):
    name: str


@dataclass
class PrintTopic(Statement):
    topic: str
    from_beginning: bool = False
    interval: int | None = None
    limit: int | None = None


@dataclass
class AssertTopic(Statement):
    topic: str
    exists: bool = True
    properties: Properties = field(default_factory=dict)
    timeout_ms: int | None = None


@dataclass
class AssertSchema(Statement):
    subject: str | None = None
    schema_id: int | None = None
    exists: bool = True
    timeout_ms: int | None = None


@dataclass
class CreateConnector(Statement):
    name: str
    source: bool
    properties: Properties
    if_not_exists: bool = False


@dataclass
class DropConnector(Statement):
    name: str
    if_exists: bool = False


@dataclass
class RunScript(Statement):
    path: str
