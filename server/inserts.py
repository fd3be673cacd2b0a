"""POST /inserts-stream (HTTP/2 only): newline-separated JSON rows in, one ack per row out, as they go.

The first line names the target (``{"target": "S", "properties": {}}``), a stream: ksqlDB's endpoint refuses
a table (``Cannot insert into a table``) and, before the target, a server with inserts disabled. Each following
line is a row keyed by column name, its values coerced as ksqlDB's KeyValueExtractor does (``api_coercion.py``);
every key column needs a value (``Key field must be specified: K``). Acks are ``{"status":"ok",
"seq":N}``; the first failing row gets ``{"status":"error",...}`` and ends the response: 40000 with the reason
for a row that is not JSON, lacks a key or has a value its column does not take; 50000 ``Error in processing
inserts. Check server logs for details.`` for any other failure (a serializer's), as ksqlDB answers those.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import orjson

from ksqlpy.engine.insert_values import DISABLED
from ksqlpy.log.base import ProducerRecord
from ksqlpy.server.api_coercion import coerce, column_values
from ksqlpy.server.errors import BAD_REQUEST, BAD_STATEMENT, SERVER_ERROR, ServerError
from ksqlpy.server.values import dumps

LOG = logging.getLogger(__name__)
# ksqlDB's words for a row that failed other than by its own values (from memory of its inserts handler)
PROCESSING_FAILED = "Error in processing inserts. Check server logs for details."


class MissingKey(ValueError):
    """A row without a value for one of the stream's key columns (an error ack, 40000)."""


class RowInserter:
    """Turns JSON rows into records of one source and produces them."""

    def __init__(self, engine: Any, source: Any) -> None:
        self.engine = engine
        self.source = source
        self.keys = [(c.name, c.type) for c in source.key_columns]
        self.values = [(c.name, c.type) for c in source.value_columns]
        self.key_serde = engine.key_serde(source) if source.key_columns else None
        self.value_serde = engine.value_serde(source)

    @classmethod
    def open(cls, engine: Any, target: str) -> RowInserter:
        # ksqlDB's InsertsStreamEndpoint (from memory): the server's switch first, then the target
        if str(engine.configured("ksql.insert.into.values.enabled", "true")).lower() == "false":
            raise ServerError(BAD_REQUEST, DISABLED)
        name = target.upper() if not target.startswith("`") else target.strip("`")
        src = engine.catalog.source(name) or engine.catalog.source(target)
        statement = f"INSERT INTO {target}"
        if src is None:
            raise ServerError(BAD_STATEMENT, f"Cannot insert values into an unknown stream/table: {target}", statement)
        if src.windowed is not None:
            raise ServerError(BAD_STATEMENT, f"Cannot insert values into windowed {src.kind.lower()}: {src.name}",
                              statement)
        from ksqlpy.engine.internal_topics import is_read_only

        if is_read_only(engine, src.topic):  # the rule of INSERT VALUES (internal_topics.py)
            raise ServerError(BAD_STATEMENT, f"Cannot insert values into read-only topic: {src.topic}", statement)
        if src.is_source or src.name == str(engine.prop("ksql.logging.processing.stream.name", "")).upper():
            raise ServerError(BAD_STATEMENT, f"Cannot insert values into read-only {src.kind.lower()}: {src.name}",
                              statement)
        if src.kind == "TABLE":  # the endpoint inserts into streams only (INSERT VALUES takes tables)
            raise ServerError(BAD_STATEMENT, "Cannot insert into a table", statement)
        return cls(engine, src)

    def record(self, row: dict[str, Any]) -> ProducerRecord:
        cols = column_values(row)
        raw_key = [cols.get(n) for n, _ in self.keys]
        for (n, _), v in zip(self.keys, raw_key, strict=True):
            if v is None:  # KeyValueExtractor.extractKey: every key column, not NULL
                raise MissingKey(f"Key field must be specified: {n}")
        key = tuple(coerce(v, t) for (_, t), v in zip(self.keys, raw_key, strict=True))
        value = tuple(coerce(cols.get(n), t) for n, t in self.values)
        # the record's timestamp is the time of the insert (InsertsSubscriber: System.currentTimeMillis(), from
        # memory): a ROWTIME field is no column and is ignored; a TIMESTAMP column is read by queries as declared
        ts = int(time.time() * 1000)
        kb = self.key_serde.serialize(key) if self.key_serde is not None else None
        vb = self.value_serde.serialize(value)
        return ProducerRecord(self.source.topic, kb, vb, int(ts))

    def parse(self, line: bytes) -> ProducerRecord:
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            try:  # a whole number past 64 bits (orjson's limit): the standard parser reads it
                row = json.loads(line)
            except ValueError as e:
                raise ValueError("Invalid JSON in inserts stream") from e
        if not isinstance(row, dict):
            raise ValueError("Invalid JSON in inserts stream")
        return self.record(row)

    def write(self, records: list[ProducerRecord]) -> None:
        """All rows that arrived together go in one log transaction."""
        if records:
            with self.engine.log.transaction() as tx:
                tx.produce_many(records)


class LineTooLong(Exception):
    """A row line longer than ``ksqlpy.server.inserts.line.max.bytes``: the stream ends there."""

    def __init__(self, limit: int, rest: AsyncIterator[bytes] | None = None) -> None:
        super().__init__(f"Row too long: a line of the inserts stream exceeds {limit} bytes (the server's "
                         "'ksqlpy.server.inserts.line.max.bytes')")
        self.rest = rest  # the body after the refused line, still arriving (see ``discard``)


# what is read and thrown away of a body after its stream was refused, at most
DISCARD_MAX_BYTES = 256 << 20


async def _joined(batches: AsyncIterator[list[bytes]]) -> AsyncIterator[bytes]:
    """The lines still to come, as chunks for ``discard`` (a too-long line among them ends them)."""
    try:
        async for lines in batches:
            yield b"".join(lines)
    except LineTooLong as e:
        if e.rest is not None:
            async for chunk in e.rest:
                yield chunk


async def discard(body: AsyncIterator[bytes] | None, most: int = DISCARD_MAX_BYTES) -> None:
    """Read the rest of a refused body without keeping it. An HTTP/2 client that sends its whole body
    before reading the answer (httpx does) stops when the stream's flow-control window is full: unless
    the server goes on reading, it never gets to the error ack. Bounded, so a client that never stops
    sending cannot hold the request open by it."""
    if body is None:
        return
    seen = 0
    async for chunk in body:
        seen += len(chunk)
        if seen > most:
            return


class LineSplitter:
    """Newline-separated lines out of chunks as they arrive, in linear time: each chunk is searched once
    and a line split across chunks is joined once, when its end arrives; a partial line past ``limit``
    bytes is refused as soon as it is (nothing of it is kept)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: list[bytes] = []
        self._size = 0

    def feed(self, chunk: bytes) -> tuple[list[bytes], bool]:
        """The complete non-blank lines ``chunk`` ends, and whether a line is past the limit (then the
        lines before it are still returned, and nothing after it is read)."""
        lines: list[bytes] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            if self._size + end - start > self.limit:
                return lines, True
            line = b"".join((*self._parts, chunk[start:end])) if self._parts else chunk[start:end]
            self._parts, self._size = [], 0
            if line.strip():
                lines.append(line)
            start = end + 1
        if start < len(chunk):
            self._size += len(chunk) - start
            if self._size > self.limit:
                return lines, True
            self._parts.append(chunk[start:])
        return lines, False

    def rest(self) -> bytes:
        return b"".join(self._parts)


async def line_batches(body: AsyncIterator[bytes], limit: int = 1 << 20) -> AsyncIterator[list[bytes]]:
    """The non-blank lines of a streamed body, grouped as they arrived (one group per received chunk);
    raises LineTooLong (after the lines before it) at a line longer than ``limit`` bytes."""
    splitter = LineSplitter(limit)
    async for chunk in body:
        batch, too_long = splitter.feed(chunk)
        if batch:
            yield batch
        if too_long:
            raise LineTooLong(limit, body)
    last = splitter.rest()
    if last.strip():
        yield [last]


def ack(seq: int) -> dict[str, Any]:
    return {"status": "ok", "seq": seq}


def failure(seq: int, code: int, message: str) -> dict[str, Any]:
    return {"@type": "generic_error", "status": "error", "seq": seq, "error_code": code, "message": message}


async def acks(inserter: RowInserter, first: list[bytes], batches: AsyncIterator[list[bytes]],
               json_array: bool) -> AsyncIterator[bytes]:
    """The response body: one ack per row, written after its batch is; the first failing row ends it."""
    seq = 0
    opened = failed = False  # a header with no rows after it: no ack, the body is `[]` (or empty)
    if json_array:
        yield b"["

    too_long: list[LineTooLong] = []

    async def chained() -> AsyncIterator[list[bytes]]:
        if first:
            yield first
        try:
            async for b in batches:
                yield b
        except LineTooLong as e:
            too_long.append(e)

    async for lines in chained():
        records, items, failed = [], [], False
        for line in lines:
            try:
                records.append(inserter.parse(line))
                items.append(ack(seq))
            except ValueError as e:  # the row's own fault, worded (KsqlApiException: 40000)
                items.append(failure(seq, BAD_REQUEST, str(e)))
                failed = True
            except Exception:  # noqa: BLE001 - e.g. the serializer's: ksqlDB answers any other failure so
                LOG.warning("/inserts-stream: row %s of %s failed", seq, inserter.source.name, exc_info=True)
                items.append(failure(seq, SERVER_ERROR, PROCESSING_FAILED))
                failed = True
            seq += 1
            if failed:
                break
        try:
            inserter.write(records)
        except Exception:  # noqa: BLE001 - the producer's failure (ksqlDB's send callback): the generic answer
            LOG.warning("/inserts-stream: writing rows to %s failed", inserter.source.topic, exc_info=True)
            items = [failure(items[0]["seq"], SERVER_ERROR, PROCESSING_FAILED)]
            failed = True
        if json_array:
            yield b"".join((b"," if opened or i else b"") + dumps(it) for i, it in enumerate(items))
            opened = opened or bool(items)
        else:
            yield b"".join(dumps(it) + b"\n" for it in items)
        if failed:
            break
    if failed:  # a refused row ends the stream too: the rest of the body is read and dropped
        await discard(_joined(batches))
    if too_long:  # the rows before it were written and acked; this one is refused and the stream ends
        item = failure(seq, BAD_REQUEST, str(too_long[0]))
        yield (b"," if opened else b"") + dumps(item) if json_array else dumps(item) + b"\n"
        await discard(too_long[0].rest)  # after the ack: a client reading as it sends has it at once
    if json_array:
        yield b"]"
