"""The catalog: streams, tables, custom types and queries known to an engine.

It holds metadata only. Persistence is by replay of the statements that built it (the command topic),
so the catalog itself never needs a storage format of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ksqlpy.errors import KsqlStatementError
from ksqlpy.types import SqlType, quote_ident

SourceKind = Literal["STREAM", "TABLE"]  # (ksqlpy.plan.logical.ResultKind's values)
WindowType = Literal["TUMBLING", "HOPPING", "SESSION"]

SYSTEM_COLUMNS = ("ROWTIME", "ROWPARTITION", "ROWOFFSET")
WINDOW_COLUMNS = ("WINDOWSTART", "WINDOWEND")


@dataclass
class Column:
    name: str
    type: SqlType
    key: bool = False
    headers: bool = False
    header_key: str | None = None

    def describe(self, kind: str = "STREAM") -> str:
        suffix = ""
        if self.key:
            suffix = " PRIMARY KEY" if kind == "TABLE" else " KEY"
        elif self.headers:
            suffix = " HEADERS"
        elif self.header_key is not None:
            suffix = f" HEADER('{self.header_key}')"
        return f"{quote_ident(self.name)} {self.type}{suffix}"


@dataclass
class WindowInfo:
    type: WindowType
    size_ms: int | None = None


@dataclass
class Source:
    """A stream or table registered over a topic."""

    name: str
    kind: SourceKind
    topic: str
    columns: list[Column]
    key_format: str = "KAFKA"
    value_format: str = "JSON"
    key_delimiter: str | None = None
    value_delimiter: str | None = None
    wrap_single_value: bool | None = None
    timestamp_column: str | None = None
    timestamp_format: str | None = None
    windowed: WindowInfo | None = None
    is_source: bool = False  # CREATE SOURCE: read-only
    sql: str = ""
    created_by_query: str | None = None  # id of the CSAS/CTAS query writing it
    # the sources a CREATE ... AS SELECT read when it made this one: each of them may not be dropped while
    # this one exists (ksqlDB's source constraints, kept after the query is terminated)
    read_from: tuple[str, ...] = ()
    key_features: set[str] = field(default_factory=set)
    value_features: set[str] = field(default_factory=set)
    properties: dict[str, Any] = field(default_factory=dict)

    @property
    def key_columns(self) -> list[Column]:
        return [c for c in self.columns if c.key]

    @property
    def value_columns(self) -> list[Column]:
        return [c for c in self.columns if not c.key and not c.headers and c.header_key is None]

    @property
    def header_columns(self) -> list[Column]:
        return [c for c in self.columns if c.headers or c.header_key is not None]

    def column(self, name: str) -> Column | None:
        for c in self.columns:
            if c.name == name:
                return c
        return None

    def schema_string(self) -> str:
        return ", ".join(c.describe(self.kind) for c in self.columns)


@dataclass
class QueryInfo:
    query_id: str
    sql: str
    sink: str | None
    sources: list[str]
    kind: Literal["PERSISTENT", "PUSH"] = "PERSISTENT"
    state: Literal["RUNNING", "PAUSED", "ERROR", "TERMINATED"] = "RUNNING"


class Catalog:
    def __init__(self, partitions: Callable[[str], int | None] | None = None) -> None:
        """``partitions``: a topic's partition count on the log the sources live on (None: not known)."""
        self._partitions = partitions
        self._sources: dict[str, Source] = {}
        self._types: dict[str, SqlType] = {}
        self._queries: dict[str, QueryInfo] = {}

    def sandbox_copy(self, partitions: Callable[[str], int | None]) -> Catalog:
        """A copy the engine's sandbox may change (sources, types, query records) without touching this
        one; other attributes (configuration, hooks) are shared. ``partitions``: the sandbox's topics."""
        import copy

        out = copy.copy(self)
        out._partitions = partitions
        out._sources = {}
        for name, src in self._sources.items():
            mine = copy.copy(src)
            mine.columns = list(src.columns)  # ALTER appends
            out._sources[name] = mine
        out._types = dict(self._types)
        out._queries = {qid: copy.copy(q) for qid, q in self._queries.items()}
        return out

    # sources
    def source(self, name: str) -> Source | None:
        return self._sources.get(name)

    def require(self, name: str) -> Source:
        src = self._sources.get(name)
        if src is None:
            raise KsqlStatementError(f"{name} does not exist.")
        return src

    def sources(self) -> list[Source]:
        return list(self._sources.values())

    def sources_for_topic(self, topic: str) -> list[Source]:
        return [s for s in self._sources.values() if s.topic == topic]

    def add_source(self, source: Source, replace: bool = False) -> None:
        if source.name in self._sources and not replace:
            existing = self._sources[source.name]
            raise KsqlStatementError(
                f"Cannot add {source.kind.lower()} '{source.name}': A {existing.kind.lower()} "
                f"with the same name already exists"
            )
        self._sources[source.name] = source

    def constraints(self, name: str) -> list[str]:
        """The sources created by a CREATE ... AS SELECT over ``name`` (ksqlDB's ``sourceConstraints``)."""
        return sorted(s.name for s in self._sources.values() if name in s.read_from and s.name != name)

    def remove_source(self, name: str) -> None:
        self._sources.pop(name, None)

    def partition_count(self, topic: str) -> int | None:
        """How many partitions ``topic`` has (None: no such topic, or a catalog without a log)."""
        return self._partitions(topic) if self._partitions is not None else None

    # types
    def type(self, name: str) -> SqlType | None:
        return self._types.get(name)

    def types(self) -> dict[str, SqlType]:
        return dict(self._types)

    def add_type(self, name: str, t: SqlType) -> None:
        self._types[name] = t

    def remove_type(self, name: str) -> bool:
        return self._types.pop(name, None) is not None

    # queries
    def query(self, query_id: str) -> QueryInfo | None:
        return self._queries.get(query_id)

    def queries(self) -> list[QueryInfo]:
        return list(self._queries.values())

    def add_query(self, q: QueryInfo) -> None:
        self._queries[q.query_id] = q

    def remove_query(self, query_id: str) -> None:
        self._queries.pop(query_id, None)

    def queries_reading(self, name: str) -> list[str]:
        return [q.query_id for q in self._queries.values() if name in q.sources]

    def queries_writing(self, name: str) -> list[str]:
        return [q.query_id for q in self._queries.values() if q.sink == name]
