"""The shell against a running server, over ksqlDB's REST API (reference §1).

Statements go to ``POST /ksql``; SELECT to ``POST /query-stream`` (the StreamedRow format: a header,
rows, the server's final message) and is stopped with ``POST /close-query``; PRINT goes to
``POST /query``, whose body is text lines. Session properties travel with every request as
``streamsProperties`` / ``properties``, as the ksqlDB CLI does.
"""

from __future__ import annotations

import decimal
import json
import re
from collections.abc import Iterator
from typing import Any

from ksqlpy.cli.backend import BackendError, BackendUnavailable, Entity, SourceInfo
from ksqlpy.cli.row_values import TypeShape, parse_shape, read_row

DELIMITED = "application/vnd.ksqlapi.delimited.v1"
KSQL_JSON = "application/vnd.ksql.v1+json"


def _error_from(response: Any, sql: str) -> BackendError:
    """A BackendError from an error envelope (``{"@type":..., "error_code":..., "message":...}``)."""
    try:
        body = json.loads(response.read() if hasattr(response, "read") else response.content)
    except (ValueError, TypeError):
        body = None
    if isinstance(body, dict) and "message" in body:
        message = str(body.get("message"))
        # a syntax error's statementText is only its failing line (as ksqlDB's): its position is in ``sql``
        statement = sql if re.match(r"(?:Failed to prepare statement: )?line \d+:\d+:", message) else (
            body.get("statementText") or sql)
        return BackendError(message, statement=statement,
                            error_code=int(body.get("error_code") or response.status_code * 100),
                            entities=body.get("entities") or [])
    text = response.text if hasattr(response, "text") else ""
    return BackendError(f"HTTP {response.status_code}: {text[:500]}", statement=sql,
                        error_code=response.status_code * 100)


_END = object()


def polled_lines(lines: Iterator[str], poll_s: float) -> Iterator[str | None]:
    """``lines`` read by a background thread: yields each line as it arrives and None whenever ``poll_s``
    passes without one, so a caller waiting on a quiet stream still gets to check its row limit, its
    ``--query-timeout`` and Ctrl-C. An error while reading is raised here."""
    import queue
    import threading

    q: queue.Queue[Any] = queue.Queue()

    def pump() -> None:
        try:
            for line in lines:
                q.put(line)
        except BaseException as e:  # noqa: BLE001 - handed to the reader
            q.put(e)
        q.put(_END)

    threading.Thread(target=pump, name="ksqlpy-shell-stream", daemon=True).start()
    while True:
        try:
            item = q.get(timeout=poll_s)
        except queue.Empty:
            yield None
            continue
        if item is _END:
            return
        if isinstance(item, BaseException):
            raise item
        yield item


def schema_columns(schema: str) -> tuple[list[str], list[str]]:
    """Column names and types of a StreamedRow header's ``schema`` (`` `A` INTEGER KEY, `B` ARRAY<STRING>``):
    split at the top-level commas (not those inside ``<>``, ``()`` or backticks), ` KEY` dropped."""
    names: list[str] = []
    types: list[str] = []
    depth, quoted, start = 0, False, 0
    parts = []
    for i, ch in enumerate(schema):
        if ch == "`":
            quoted = not quoted
        elif not quoted and ch in "<(":
            depth += 1
        elif not quoted and ch in ">)":
            depth -= 1
        elif not quoted and depth == 0 and ch == ",":
            parts.append(schema[start:i])
            start = i + 1
    parts.append(schema[start:])
    for part in (p.strip() for p in parts):
        if not part:
            continue
        m = re.match(r"`((?:[^`]|``)*)`\s*(.*)$", part, re.DOTALL)
        name, rest = (m.group(1).replace("``", "`"), m.group(2)) if m else tuple((part.split(None, 1) + [""])[:2])
        rest = rest.strip()
        names.append(name)
        types.append(rest[:-4].rstrip() if rest.endswith(" KEY") else rest)
    return names, types


TOMBSTONE = "<TOMBSTONE>"  # how ksqlDB's shell shows the deleted values of a table's delete row


class TombstoneRow(list[Any]):
    """A table's delete row: its absent values shown as ``<TOMBSTONE>``; ``columns`` as the server sent them
    (for OUTPUT JSON, which prints the StreamedRow itself)."""

    def __init__(self, columns: list[Any]) -> None:
        super().__init__(TOMBSTONE if v is None else v for v in columns)
        self.columns = columns


class RemotePushStream:
    """A query on /query-stream in the StreamedRow format (``application/vnd.ksql.v1+json``, one element per
    line, as ksqlDB's own clients read it): a header, rows (a table's deletes flagged ``tombstone``), then
    the server's ``finalMessage`` or ``errorMessage`` - nothing when the query was stopped."""

    def __init__(self, backend: RemoteBackend, sql: str, response: Any) -> None:
        self.backend = backend
        self.response = response
        self.sql = sql
        self._lines = response.iter_lines()
        self.final_message: str | None = None
        self._closed = False
        self.query_id = ""
        self.column_names: list[str] = []
        self.column_types: list[str] = []
        self.schema: str | None = None  # the header's schema text, as the server wrote it
        self._shapes: list[TypeShape] = []  # the columns' types, to read each row's values by
        meta = self._next_element()
        if isinstance(meta, dict) and isinstance(meta.get("errorMessage"), dict):
            self.close()
            self._raise(meta["errorMessage"])
        if isinstance(meta, dict) and isinstance(meta.get("header"), dict):
            self.query_id = meta["header"].get("queryId") or ""
            self.schema = meta["header"].get("schema") or ""
            self.column_names, self.column_types = schema_columns(self.schema)
            self._shapes = [parse_shape(t) for t in self.column_types]

    @staticmethod
    def _element(line: str) -> Any:
        """One element of the StreamedRow array: the line without a leading ``[`` and a trailing ``,``/``]``."""
        line = line.strip()
        if line.startswith("["):
            line = line[1:]
        if line.endswith("]"):
            line = line[:-1]
        line = line.rstrip().rstrip(",")
        # floats as Decimal: a DECIMAL's number is read exactly (row_values.py turns the others into floats)
        return json.loads(line, parse_float=decimal.Decimal) if line else None

    def _next_element(self) -> Any:
        for line in self._lines:
            item = self._element(line)
            if item is not None:
                return item
        return None

    def _raise(self, error: dict[str, Any]) -> None:
        raise BackendError(str(error.get("message")), statement=self.sql,
                           error_code=int(error.get("error_code") or 50000))

    def rows(self, poll_s: float = 0.2) -> Iterator[list[Any] | None]:
        try:
            for line in polled_lines(self._lines, poll_s):
                item = self._element(line) if line is not None else None
                if not isinstance(item, dict):
                    yield None
                    continue
                row = item.get("row")
                if isinstance(row, dict):
                    values = read_row(list(row.get("columns") or []), self._shapes)
                    yield TombstoneRow(values) if row.get("tombstone") else values
                elif item.get("finalMessage") is not None:
                    self.final_message = str(item["finalMessage"])
                elif isinstance(item.get("errorMessage"), dict):
                    self._raise(item["errorMessage"])
        except BackendError:
            raise
        except Exception as e:
            if self._closed:
                return
            raise BackendError(f"Lost the query stream: {e}", statement=self.sql) from e

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.response.close()
        finally:
            if self.query_id:
                try:
                    self.backend.client.post("/close-query", json={"queryId": self.query_id}, timeout=5)
                except Exception:
                    pass  # closing the connection also ends the query on the server


class RemoteBackend:
    """Talks to a ksqlDB-compatible server (a ksqlpy server or ksqlDB itself)."""

    mode = "remote"

    def __init__(self, url: str, user: str | None = None, password: str | None = None,
                 timeout_s: float = 30.0, transport: Any = None) -> None:
        import httpx

        self.location = url.rstrip("/")
        self._credentials = (user, password, timeout_s, transport)  # for switch()
        auth = httpx.BasicAuth(user, password or "") if user else None
        self.client = httpx.Client(base_url=self.location, auth=auth, transport=transport,
                                   timeout=httpx.Timeout(timeout_s, read=None),
                                   headers={"Accept": "application/json"})
        self._sources: list[SourceInfo] | None = None
        self._functions: list[str] | None = None
        self._topics: list[str] | None = None
        self._properties: list[str] | None = None
        self._info: dict[str, Any] | None = None
        self._sequence = -1  # highest commandSequenceNumber seen
        self.pipelining = False  # the shell's request-pipelining: on, requests do not wait for earlier commands

    def switch(self, url: str) -> RemoteBackend:
        """The same client for another server (the shell's ``server <url>``): nothing of this server's
        state - its last command, its catalog - carries over."""
        user, password, timeout_s, transport = self._credentials
        return RemoteBackend(url, user, password, timeout_s, transport)

    # ------------------------------------------------------------------ transport
    def _post(self, path: str, body: dict[str, Any], sql: str = "") -> Any:
        import httpx

        try:
            r = self.client.post(path, json=body)
        except httpx.HTTPError as e:
            raise BackendUnavailable(f"Could not reach the server at {self.location}: {e}", statement=sql) from e
        if r.status_code >= 400:
            raise _error_from(r, sql)
        return r.json() if r.content else None

    def _open_stream(self, request: Any, sql: str) -> Any:
        """The streamed response to ``request`` once the server accepted it; an unreachable server or an
        error status raises as ``_post`` does (the error body read and the response closed first)."""
        import httpx

        try:
            response = self.client.send(request, stream=True)
        except httpx.HTTPError as e:
            raise BackendUnavailable(f"Could not reach the server at {self.location}: {e}", statement=sql) from e
        if response.status_code >= 400:
            response.read()
            response.close()
            raise _error_from(response, sql)
        return response

    def server_info(self) -> dict[str, Any]:
        import httpx

        if self._info is None:
            try:
                r = self.client.get("/info")
            except httpx.HTTPError as e:
                raise BackendUnavailable(f"Could not reach the server at {self.location}: {e}") from e
            if r.status_code == 401:
                raise BackendUnavailable("The server rejected the credentials (HTTP 401)")
            if r.status_code >= 400:
                raise _error_from(r, "")
            info = r.json().get("KsqlServerInfo", {})
            self._info = info
        return self._info

    # ------------------------------------------------------------------ statements
    def execute(self, sql: str, properties: dict[str, Any]) -> list[Entity]:
        body: dict[str, Any] = {"ksql": sql, "streamsProperties": {k: str(v) for k, v in properties.items()}}
        if self._sequence >= 0 and not self.pipelining:  # wait until the server ran our earlier commands
            body["commandSequenceNumber"] = self._sequence
        result = self._post("/ksql", body, sql) or []
        for entity in result:
            if not isinstance(entity, dict):
                continue
            seq = entity.get("commandSequenceNumber")
            if isinstance(seq, int) and seq > self._sequence:
                self._sequence = seq
            status = entity.get("commandStatus") or {}
            if status.get("status") == "ERROR":
                raise BackendError(str(status.get("message", "")).split("\n")[0], statement=sql)
        return result

    def query(self, sql: str, properties: dict[str, Any]) -> RemotePushStream:
        body = {"sql": sql, "properties": {k: str(v) for k, v in properties.items()}}
        request = self.client.build_request("POST", "/query-stream", json=body, headers={"Accept": KSQL_JSON})
        return RemotePushStream(self, sql, self._open_stream(request, sql))

    def print_topic(self, sql: str, properties: dict[str, Any]) -> Iterator[str | None]:
        body = {"ksql": sql, "streamsProperties": {k: str(v) for k, v in properties.items()}}
        response = self._open_stream(self.client.build_request("POST", "/query", json=body), sql)

        def lines() -> Iterator[str | None]:
            try:
                for line in polled_lines(response.iter_lines(), 0.2):
                    yield line.rstrip("\r\n") if line is not None and line.strip() else None
            finally:
                response.close()

        return lines()

    def validate_property(self, name: str) -> None:
        import httpx

        try:
            r = self.client.get(f"/is_valid_property/{name}")
        except httpx.HTTPError as e:
            raise BackendUnavailable(f"Could not reach the server at {self.location}: {e}") from e
        if r.status_code >= 400:
            raise _error_from(r, "")

    # ------------------------------------------------------------------ completion data (cached)
    def sources(self) -> list[SourceInfo]:
        if self._sources is None:
            out: list[SourceInfo] = []
            try:
                for entity in self.execute("SHOW STREAMS EXTENDED; SHOW TABLES EXTENDED;", {}):
                    for d in entity.get("sourceDescriptions", []):
                        out.append(SourceInfo(d.get("name", ""), d.get("type", ""),
                                              [f.get("name", "") for f in d.get("fields", [])]))
            except BackendError:
                try:
                    for entity in self.execute("SHOW STREAMS; SHOW TABLES;", {}):
                        for d in entity.get("streams", []) + entity.get("tables", []):
                            out.append(SourceInfo(d.get("name", ""), d.get("type", "")))
                except BackendError:
                    pass
            self._sources = out
        return self._sources

    def _names(self, statement: str, entity_key: str) -> list[str]:
        """Sorted names from a SHOW statement's entities (empty if the server refuses it)."""
        try:
            entities = self.execute(statement, {})
        except BackendError:
            return []
        return sorted({item["name"] for e in entities for item in e.get(entity_key, [])})

    def functions(self) -> list[str]:
        if self._functions is None:
            self._functions = self._names("SHOW FUNCTIONS;", "functions")
        return self._functions

    def topics(self) -> list[str]:
        if self._topics is None:
            self._topics = self._names("SHOW TOPICS;", "topics")
        return self._topics

    def property_names(self) -> list[str]:
        if self._properties is None:
            self._properties = self._names("SHOW PROPERTIES;", "properties")
        return self._properties

    def catalog_changed(self) -> None:
        self._sources = None
        self._topics = None

    def close(self) -> None:
        self.client.close()
