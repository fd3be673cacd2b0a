"""What the shell needs from an engine, whether it runs in-process or behind ksqlDB's REST API.

Everything above this module (session, renderer, REPL) speaks one language: ksqlDB's REST entity
JSON (``{"@type": "streams", ...}``) for statement results and rows of JSON values for queries. The
embedded backend converts the engine's results into that shape, the remote backend receives it, so
the shell behaves the same in both modes and ``OUTPUT JSON`` prints what a server would send.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

Entity = dict[str, Any]


class BackendError(Exception):
    """A statement failed. ``line``/``column`` (1-based, relative to ``statement``) mark a syntax error."""

    def __init__(self, message: str, *, statement: str = "", line: int = 0, column: int = 0,
                 error_code: int = 40000, entities: list[Entity] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.statement = statement
        if not line:
            # syntax errors (``line 2:7:``, also after ``Failed to prepare statement: ``) and semantic
            # errors (``Line: 2, Col: 7:``) both mark where the statement went wrong
            m = re.match(r"(?:Failed to prepare statement: )?(?:line (\d+):(\d+)|Line: (\d+), Col: (\d+))", message)
            if m:
                line, column = int(m.group(1) or m.group(3)), int(m.group(2) or m.group(4))
        self.line = line
        self.column = column
        self.error_code = error_code
        self.entities = entities or []


class BackendUnavailable(BackendError):
    """The engine could not be opened or the server could not be reached."""


@dataclass
class SourceInfo:
    """A stream or table as completion needs it."""

    name: str
    kind: str
    columns: list[str] = field(default_factory=list)


class QueryStream(Protocol):
    """A running SELECT (push or pull). Iterate ``rows()``; ``close()`` stops it early."""

    query_id: str
    column_names: list[str]
    column_types: list[str]
    final_message: str | None

    def rows(self, poll_s: float = 0.2) -> Iterator[list[Any] | None]:
        """Rows as lists of JSON values; ``None`` now and then while nothing arrives (lets the
        caller check timeouts), ending when the query is done."""
        ...

    def close(self) -> None: ...


class Backend(Protocol):
    """An engine the shell can talk to."""

    mode: str  # "embedded" | "remote"
    location: str  # data directory or server URL

    def server_info(self) -> dict[str, Any]:
        """``{"version": ..., "serverStatus": ...}`` for the banner."""
        ...

    def execute(self, sql: str, properties: dict[str, Any]) -> list[Entity]:
        """Run one non-query statement; REST entities out, BackendError on failure."""
        ...

    def query(self, sql: str, properties: dict[str, Any]) -> QueryStream:
        """Start a SELECT (push or pull)."""
        ...

    def print_topic(self, sql: str, properties: dict[str, Any]) -> Iterator[str | None]:
        """Lines of a PRINT statement as ksqlDB prints them; ``None`` while waiting."""
        ...

    def validate_property(self, name: str) -> None:
        """Raise BackendError if ``name`` may not be SET."""
        ...

    def sources(self) -> list[SourceInfo]:
        """Streams and tables with their columns, for completion."""
        ...

    def functions(self) -> list[str]:
        """Function names, for completion."""
        ...

    def topics(self) -> list[str]:
        """Topic names, for completion after PRINT."""
        ...

    def property_names(self) -> list[str]:
        """Known property names, for completion inside SET."""
        ...

    def catalog_changed(self) -> None:
        """A statement may have changed the catalog (remote caches refresh)."""
        ...

    def close(self) -> None: ...


@dataclass
class ListStream:
    """A finished result (a pull query) presented as a QueryStream."""

    query_id: str
    column_names: list[str]
    column_types: list[str]
    data: list[list[Any]]
    final_message: str | None = None
    schema: str | None = None  # the header's schema text (`` `ID` STRING KEY, `V` INTEGER``), when known

    def rows(self, poll_s: float = 0.2) -> Iterator[list[Any] | None]:
        yield from self.data

    def close(self) -> None:
        pass
