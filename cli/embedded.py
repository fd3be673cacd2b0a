"""The shell's in-process backend: an Engine over an EmbeddedLog in a data directory."""

from __future__ import annotations

import os
import queue
from collections.abc import Iterator
from typing import Any

from ksqlpy.cli.backend import BackendError, BackendUnavailable, Entity, ListStream, SourceInfo

# Properties people commonly SET that are not in the engine's defaults (completion only).
EXTRA_PROPERTIES = ("ksql.streams.auto.offset.reset", "ksql.streams.cache.max.bytes.buffering",
                    "ksql.streams.commit.interval.ms", "ksql.query.pull.max.allowed.offset.lag",
                    "ksql.query.push.v2.enabled")


def _error(e: Exception, sql: str) -> BackendError:
    return BackendError(getattr(e, "message", str(e)), statement=sql, line=getattr(e, "line", 0) or 0,
                        column=getattr(e, "column", 0) or 0, error_code=getattr(e, "error_code", 40000))


def _os_reason(e: Exception) -> str:
    """What went wrong opening the directory, in words (no Python exception names)."""
    if isinstance(e, OSError) and e.strerror:
        return f"{e.strerror}" + (f": {e.filename}" if e.filename else "")
    return str(e) or "the engine could not start"


class EmbeddedPushStream:
    """A TransientQuery seen as a QueryStream (rows converted to REST JSON values)."""

    def __init__(self, engine: Any, tq: Any) -> None:
        self.engine = engine
        self.tq = tq
        self.query_id: str = tq.query_id
        self.column_names = [n for n, _ in tq.columns]
        self.column_types = [str(t) for _, t in tq.columns]
        self.final_message: str | None = None
        self._closed = False

    def rows(self, poll_s: float = 0.2) -> Iterator[list[Any] | None]:
        from ksqlpy.cli.entities import json_value

        types = [t for _, t in self.tq.columns]
        while True:
            try:
                row = self.tq.get(timeout=poll_s)
            except queue.Empty:
                yield None
                continue
            if row is None:
                if not self._closed:
                    limit = getattr(self.tq, "limit", None)
                    reached = limit is not None and getattr(self.tq, "emitted", 0) >= limit
                    self.final_message = "Limit Reached" if reached else "Query Completed"
                return
            yield [json_value(v, t) for v, t in zip(row, types, strict=False)]

    def close(self) -> None:
        self._closed = True
        with self.engine.lock:
            self.tq.close()


class EmbeddedBackend:
    """Runs statements on an in-process Engine; its background thread runs persistent queries."""

    mode = "embedded"

    def __init__(self, data_dir: str, properties: dict[str, Any] | None = None) -> None:
        self.location = data_dir
        try:
            from ksqlpy.engine import Engine

            os.makedirs(data_dir, exist_ok=True)
            # the engine locks the directory before it opens the log: a second engine is refused at once
            self.engine = Engine(data_dir=data_dir, properties=dict(properties or {}))
            from ksqlpy.engine.command_log import DurableStatements

            # the catalog and persistent queries survive restarts, as on the server
            # a failed backfill's DROP goes into the command log like any statement (bound late: a
            # backfill resumed by the replay below may need it)
            self.engine.backfill_statements = lambda sql: self.statements.execute(sql)
            self.statements = DurableStatements(self.engine)
            from ksqlpy.engine.processing_log import FRONT_DOOR_DEFAULTS, open_processing_log

            # bad records go to KSQL_PROCESSING_LOG, as on the server
            self.plog_sink = open_processing_log(self.engine, {**FRONT_DOOR_DEFAULTS, **self.engine.properties},
                                                 str(self.engine.prop("ksql.service.id", "default_")),
                                                 lambda stmt: self.statements.run(stmt, None))
            self.engine.start()
        except Exception as e:  # the shell reports and exits; nothing else can be done
            from ksqlpy.errors import KsqlError

            reason = getattr(e, "message", str(e)) if isinstance(e, KsqlError) else _os_reason(e)
            raise BackendUnavailable(f"Could not open the embedded engine in {data_dir}: {reason}") from e

    def server_info(self) -> dict[str, Any]:
        from ksqlpy import __version__

        return {"version": __version__, "serverStatus": "RUNNING"}

    def _run(self, sql: str, properties: dict[str, Any]) -> list[Any]:
        """``sql`` as one request, as a server runs a /ksql request: a SET, UNSET, DEFINE or UNDEFINE in it
        lasts for the rest of the request only (the session's own are the shell's, sent as ``properties``)."""
        from ksqlpy.cli.entities import to_entities
        from ksqlpy.errors import KsqlError

        engine = self.engine
        saved = dict(engine.session_properties), dict(engine.variables)
        ran: list[Any] = []

        def run(stmt: Any, props: dict[str, Any] | None) -> Any:
            result = self.statements.run(stmt, props)
            ran.append(result)
            return result

        try:
            # DurableStatements.execute, keeping count
            return engine.execute(sql, properties or None, run=run,
                                  command_offset=self.statements.commands.next_offset())
        except KsqlError as e:
            # a server's statement_error carries the entities of the statements before the failing one
            # (ksqlDB's KsqlResource), which the shell prints: so does the embedded engine's
            error = _error(e, sql)
            error.entities = [entity for r in ran if r.kind != "push" for entity in to_entities(r)]
            raise error from e
        finally:
            engine.session_properties.clear()
            engine.session_properties.update(saved[0])
            engine.variables.clear()
            engine.variables.update(saved[1])

    def execute(self, sql: str, properties: dict[str, Any]) -> list[Entity]:
        from ksqlpy.cli.entities import to_entities
        from ksqlpy.grammar.errors import split_statement_suffix

        try:
            results = self._run(sql, properties)
        except BackendError as e:
            # as a server's /ksql answers a statement's error: without the 'Statement: ...' line its message
            # ends with on the query endpoints (ksqlDB's KsqlResource: getRawUnloggedDetails, from memory)
            e.message = split_statement_suffix(e.message)[0]
            e.args = (e.message,)
            raise
        out: list[Entity] = []
        for r in results:
            if r.kind == "push":  # a SELECT that reached execute(): do not leak the query
                self.stream_for(r).close()
                raise BackendError("SELECT and PRINT statements must be run as queries", statement=sql)
            out.extend(to_entities(r))
        return out

    def stream_for(self, result: Any) -> Any:
        if result.kind == "push":
            return EmbeddedPushStream(self.engine, result.data)
        from ksqlpy.cli.entities import json_value

        data = result.data or {"columns": [], "rows": []}
        cols = data["columns"]
        rows = [[json_value(v, t) for v, (_, t) in zip(row, cols, strict=False)] for row in data["rows"]]
        query_id, schema = self._pull_header(result.statement, cols)
        return ListStream(query_id=query_id, column_names=[n for n, *_ in cols],
                          column_types=[str(c[1]) for c in cols], data=rows, final_message=data.get("final"),
                          schema=schema)

    def _pull_header(self, sql: str, cols: list[Any]) -> tuple[str, str | None]:
        """The pull query's id and header schema by the server's rule (pull_header.py): a table's key
        columns marked `` KEY``, so OUTPUT JSON prints the header a server's shell prints."""
        from ksqlpy import grammar
        from ksqlpy.engine import pull_header
        from ksqlpy.errors import KsqlError

        try:
            source = grammar.parse_one(sql).query.source
            name, alias = source.name, source.alias or source.name
        except (KsqlError, AttributeError):  # not a single-source SELECT: no key to mark
            return "", None
        catalog = self.engine.catalog
        kind, header_cols = pull_header.pull_columns(catalog, name, list(cols))
        schema = pull_header.source_schema(catalog, name, header_cols) or pull_header.schema_text(header_cols)
        return pull_header.pull_query_id(kind, alias), schema

    def query(self, sql: str, properties: dict[str, Any]) -> Any:
        results = self._run(sql, properties)
        if len(results) != 1 or results[0].kind not in ("push", "rows"):
            raise BackendError("Expected a single SELECT statement", statement=sql)
        return self.stream_for(results[0])

    def print_topic(self, sql: str, properties: dict[str, Any]) -> Iterator[str | None]:
        from ksqlpy import grammar
        from ksqlpy.cli.printer import print_topic
        from ksqlpy.errors import KsqlError

        try:
            stmt = grammar.parse_one(sql)
        except KsqlError as e:
            raise _error(e, sql) from e
        return print_topic(self.engine.log, stmt.topic, from_beginning=stmt.from_beginning,
                           interval=stmt.interval, limit=stmt.limit,
                           registry=getattr(self.engine, "schema_registry", None))

    def validate_property(self, name: str) -> None:
        return None

    def sources(self) -> list[SourceInfo]:
        try:
            return [SourceInfo(s.name, s.kind, [c.name for c in s.columns]) for s in self.engine.catalog.sources()]
        except Exception:
            return []

    def functions(self) -> list[str]:
        reg = self.engine.functions
        return sorted({*reg.scalars, *reg.aggregates, *reg.tables})

    def topics(self) -> list[str]:
        try:
            return sorted(t.name for t in self.engine.log.list_topics())
        except Exception:
            return []

    def property_names(self) -> list[str]:
        from ksqlpy.engine.config import DEFAULT_PROPERTIES

        return sorted({*DEFAULT_PROPERTIES, *EXTRA_PROPERTIES})

    def catalog_changed(self) -> None:
        return None

    def close(self) -> None:
        self.engine.close()  # stops the queries, then flushes the processing log (plog_sink) before the log closes
