"""Streamed query responses: the three wire formats, and a response that notices when the client leaves.

Formats (reference §1.4/§1.5), chosen from the Accept header:

- StreamedRow JSON (``application/vnd.ksql.v1+json``; /query's default): a JSON array written as it goes,
  ``[{"header":...}`` then ``,\\n{"row":...}`` per row, ``,\\n{"finalMessage":...}`` and ``]\\n`` at the end.
  /query's legacy writer (``ksql.endpoint.migrate.query=false``, and PRINT's route) puts the comma after each
  element instead - ``[{"header":...},\\n``, ``{"row":...},\\n``, ``{"finalMessage":...}``, ``]\\n`` - and
  writes a bare newline whenever no row came for a second (clients skip blank lines).
- delimited (``application/vnd.ksqlapi.delimited.v1``; /query-stream's default, and ``*/*``): a metadata
  object line, then one JSON array line per row.
- JSON array (``application/json`` on /query-stream): ``[meta,row,row]`` with no newlines.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from ksqlpy.server.values import dumps, quote

DELIMITED = "application/vnd.ksqlapi.delimited.v1"
KSQL_V1_JSON = "application/vnd.ksql.v1+json"
JSON = "application/json"
PROTOBUF = "application/vnd.ksql.v1+protobuf"

Column = tuple[str, Any, bool]  # name, SQL type, is key


def accept_list(header: str | None) -> list[str]:
    """Media types of an Accept header, most preferred first (weights honoured, stable otherwise)."""
    if not header:
        return []
    items = []
    for i, part in enumerate(header.split(",")):
        fields = [f.strip() for f in part.split(";")]
        media = fields[0].lower()
        if not media:
            continue
        q = 1.0
        for f in fields[1:]:
            if f.startswith("q="):
                try:
                    q = float(f[2:])
                except ValueError:
                    q = 0.0
        if q > 0:
            items.append((-q, i, media))
    return [m for _, _, m in sorted(items)]


def choose(header: str | None, supported: list[str], default: str) -> str | None:
    """The first acceptable supported type; ``*/*`` and a missing header give ``default``; None: nothing fits."""
    prefs = accept_list(header)
    if not prefs:
        return default
    for media in prefs:
        if media in supported:
            return media
        if media in ("*/*", "application/*"):
            return default
    return None


class UnwritableRow(Exception):
    """A row the response's format cannot represent (the response ends with an error element instead)."""


class Writer:
    """Turns query events into bytes of one wire format, one write per event. ``more``: another element
    follows (the StreamedRow format ends an element with its separator, so a client reading lines sees
    each row as soon as it is written)."""

    media_type = DELIMITED
    keepalive = b""  # written when a push query has had no row for a while (the legacy writer's newline)

    def __init__(self, query_id: str, columns: list[Column], schema: str | None = None) -> None:
        self.query_id = query_id
        self.columns = columns
        self.schema = schema  # the header's schema text when it is not the columns' (see QueryRun.schema)

    def header(self, more: bool = True) -> bytes: ...
    def row(self, values: list[Any], tombstone: bool = False, more: bool = True) -> bytes: ...
    def final(self, message: str) -> bytes: ...
    def consistency(self, token: str) -> bytes: ...
    def error(self, envelope: dict[str, Any]) -> bytes: ...
    def end(self) -> bytes: ...


class StreamedRowWriter(Writer):
    """``[{"header":...},\\n`` then ``{"row":...},\\n`` per row, ``{"finalMessage":...}``, ``]\\n``: every
    line one element (clients strip a leading ``[`` and a trailing ``,`` or ``]``), complete as it is
    written. Where nothing follows an element (a pull query's last row) it has no separator, so the whole
    body is also one JSON array; a push query closed by its client ends ``,\\n]\\n``, as ksqlDB's does."""

    media_type = KSQL_V1_JSON

    def header_fields(self) -> dict[str, Any]:
        schema = self.schema or ", ".join(f"{quote(n)} {t}{' KEY' if key else ''}" for n, t, key in self.columns)
        return {"queryId": self.query_id, "schema": schema}

    def header(self, more: bool = True) -> bytes:
        return b"[" + dumps({"header": self.header_fields()}) + (b",\n" if more else b"")

    def row_element(self, values: list[Any], tombstone: bool) -> dict[str, Any]:
        body: dict[str, Any] = {"columns": values}
        if tombstone:
            body["tombstone"] = True
        return {"row": body}

    def row(self, values: list[Any], tombstone: bool = False, more: bool = True,
            source_host: str | None = None) -> bytes:
        """``source_host``: the host that served the row (a debug request's pull query), as ``sourceHost``."""
        element = self.row_element(values, tombstone)
        if source_host is not None:
            element["sourceHost"] = source_host
        return dumps(element) + (b",\n" if more else b"")

    def final(self, message: str) -> bytes:
        return dumps({"finalMessage": message})

    def consistency(self, token: str) -> bytes:
        """A pull query's last element: StreamedRow's ``consistencyToken``, a ConsistencyToken entity."""
        return dumps({"consistencyToken": {"consistencyToken": token}})

    def error(self, envelope: dict[str, Any]) -> bytes:
        return dumps({"errorMessage": envelope})

    def end(self) -> bytes:
        return b"]\n"


class LegacyStreamedRowWriter(StreamedRowWriter):
    """/query's legacy writer: the StreamedRow format, and a bare newline whenever no row came for a while
    (a client skips blank lines; the server learns early that a client has gone)."""

    keepalive = b"\n"


class DelimitedWriter(Writer):
    media_type = DELIMITED

    def meta(self) -> dict[str, Any]:
        return {"queryId": self.query_id, "columnNames": [n for n, _, _ in self.columns],
                "columnTypes": [str(t) for _, t, _ in self.columns]}

    def header(self, more: bool = True) -> bytes:
        return dumps(self.meta()) + b"\n"

    def row(self, values: list[Any], tombstone: bool = False, more: bool = True) -> bytes:
        return b"" if tombstone else dumps(values) + b"\n"

    def final(self, message: str) -> bytes:
        return b""

    def consistency(self, token: str) -> bytes:
        """The ConsistencyToken entity as a line of its own."""
        return dumps({"consistencyToken": token}) + b"\n"

    def error(self, envelope: dict[str, Any]) -> bytes:
        return dumps(envelope) + b"\n"

    def end(self) -> bytes:
        return b""


class JsonArrayWriter(DelimitedWriter):
    media_type = JSON

    def header(self, more: bool = True) -> bytes:
        return b"[" + dumps(self.meta())

    def row(self, values: list[Any], tombstone: bool = False, more: bool = True) -> bytes:
        return b"" if tombstone else b"," + dumps(values)

    def consistency(self, token: str) -> bytes:
        return b"," + dumps({"consistencyToken": token})

    def error(self, envelope: dict[str, Any]) -> bytes:
        return b"," + dumps(envelope)

    def end(self) -> bytes:
        return b"]"


WRITERS: dict[str, type[Writer]] = {KSQL_V1_JSON: StreamedRowWriter, DELIMITED: DelimitedWriter,
                                    JSON: JsonArrayWriter}


class StreamingBody(Response):
    """A chunked (HTTP/1.1) or DATA-framed (HTTP/2) response that ends early when the client goes away.

    ``chunks`` is iterated while another task waits for ``http.disconnect``; whichever ends first cancels
    the other, and ``on_close`` always runs (shielded), so no query outlives its client.
    """

    def __init__(self, chunks: AsyncIterator[bytes], media_type: str,
                 on_close: Callable[[], Awaitable[None]] | None = None, watch_disconnect: bool = True,
                 status_code: int = 200) -> None:
        super().__init__(status_code=status_code, media_type=media_type)
        # no Content-Length: the body is streamed (chunked on HTTP/1.1)
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]
        self.chunks = chunks
        self.on_close = on_close
        self.watch_disconnect = watch_disconnect

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from ksqlpy.server.draining import OPEN

        with OPEN.open():  # a shutdown waits for it to end (draining.py)
            await self._respond(scope, receive, send)

    async def _respond(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with anyio.create_task_group() as tg:
                if self.watch_disconnect:
                    async def watch() -> None:
                        while True:
                            message = await receive()
                            if message["type"] == "http.disconnect":
                                tg.cancel_scope.cancel()
                                return

                    tg.start_soon(watch)
                try:
                    await send({"type": "http.response.start", "status": self.status_code,
                                "headers": self.raw_headers})
                    async for chunk in self.chunks:
                        if chunk:
                            await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                except OSError:
                    pass
                finally:
                    tg.cancel_scope.cancel()
        finally:
            with contextlib.suppress(Exception):
                await self.chunks.aclose()  # type: ignore[attr-defined]
            if self.on_close is not None:
                with anyio.CancelScope(shield=True):
                    await self.on_close()


async def batches_of(tq: Any, stop: Callable[[], bool], most: int = 2000,
                     idle_s: float | None = None) -> AsyncIterator[list[Any]]:
    """Rows of a running push query as they arrive, in batches of what is there (never waiting to fill
    one); ends when the query ends or ``stop()``. With ``idle_s``, an empty batch whenever no row came for
    that long (a writer's keep-alive).

    Polls the query's queue with a short, growing sleep (2-50 ms) rather than parking a worker thread
    per query: hundreds of idle push queries then cost nothing but timers.
    """
    limit = getattr(tq, "limit", None)
    if limit is not None and limit <= 0:  # LIMIT 0: done before any row, on every endpoint
        return
    delay = 0.002
    q = tq.rows
    loop = asyncio.get_running_loop()
    quiet_since = loop.time()
    while True:
        batch: list[Any] = []
        ended = False
        while len(batch) < most:
            try:
                row = q.get_nowait()
            except queue.Empty:
                break
            if row is None:
                ended = True
                break
            batch.append(row)
        if batch:
            delay = 0.002
            quiet_since = loop.time()
            yield batch
        if ended:
            return
        if not batch:
            if stop():
                return
            if idle_s is not None and loop.time() - quiet_since >= idle_s:
                quiet_since = loop.time()
                yield []
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.05)


async def rows_of(tq: Any, stop: Callable[[], bool]) -> AsyncIterator[Any]:
    """Rows of a running push query one by one (see ``batches_of``)."""
    async for batch in batches_of(tq, stop):
        for row in batch:
            yield row
