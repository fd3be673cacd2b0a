"""The typed logical plan of one query.

A query over one source is a fixed pipeline, the shape Kafka Streams builds for ksqlDB:

    Scan -> Filter(WHERE) -> [Rekey(PARTITION BY)] -> [Aggregate(GROUP BY, WINDOW) -> Filter(HAVING)]
         -> [FlatMap(table functions)] -> Project -> Sink

Each stage's expressions are sqlglot trees already validated against the schema of the stage before;
the physical layer compiles them. Column sets between stages are ``RowSchema`` values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from ksqlpy.catalog import Source, WindowInfo
from ksqlpy.grammar.ast import FunctionCall, WindowSpec
from ksqlpy.types import SqlType


@dataclass
class SchemaColumn:
    name: str
    type: SqlType
    role: str  # key | value | system | window | header


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


@dataclass
class OutputColumn:
    """A column of the query's result: its name, type and the expression computing it."""

    name: str
    type: SqlType
    expr: exp.Expression


@dataclass
class AggregateCall:
    """One aggregate in a GROUP BY query, computed into the internal column ``name``."""

    name: str
    function: str
    args: list[exp.Expression]  # non-literal arguments (COUNT(*) has none)
    literals: list[Any]
    node: FunctionCall
    resolved: Any = None  # ResolvedAggregate once typed
    arg_types: list[SqlType] = field(default_factory=list)


@dataclass
class Rekey:
    exprs: list[exp.Expression]
    names: list[str]
    types: list[SqlType]


@dataclass
class Aggregation:
    group_by: list[exp.Expression]  # over the pre-aggregation scope
    key_names: list[str]
    key_types: list[SqlType]
    aggregates: list[AggregateCall]
    window: WindowSpec | None = None
    having: exp.Expression | None = None  # over the post-aggregation scope
    # non-aggregate columns that must be carried (window + group columns are the key)


@dataclass
class QueryPlan:
    source: Source
    alias: str
    input_schema: RowSchema
    where: exp.Expression | None
    rekey: Rekey | None
    aggregation: Aggregation | None
    table_functions: list[FunctionCall]
    key: list[OutputColumn]
    value: list[OutputColumn]
    result_kind: str  # STREAM | TABLE
    emit: str | None = None  # CHANGES | FINAL
    limit: int | None = None
    projection_schema: RowSchema | None = None  # what the Project stage sees
    windowed: WindowInfo | None = None  # output windowing (windowed aggregation or windowed source)
    sql: str = ""
    custom_types: dict[str, SqlType] = field(default_factory=dict)
