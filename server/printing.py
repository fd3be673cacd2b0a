"""PRINT <topic>: raw records as text lines, the formats guessed from the bytes (reference §1.4).

    Key format: KAFKA_STRING
    Value format: JSON or KAFKA_STRING
    rowtime: 2022/12/02 17:22:02.556 Z, key: 18, value: {"a":1}, partition: 0
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import struct
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson

from ksqlpy.grammar import ast as A
from ksqlpy.javatext import double_to_string
from ksqlpy.server.errors import bad_request

NO_DATA = "¯\\_(ツ)_/¯ - no data processed"


class _AvroReader:
    """Confluent-framed Avro (magic byte 0, a 4-byte schema id the registry knows as AVRO), read as
    ksqlDB's PRINT reads it: with Confluent's KafkaAvroDeserializer, whose GenericRecord prints as Avro's
    ``GenericData.toString`` does (from memory of ksqlDB's RecordFormatter and Avro's GenericData):
    ``{"NAME": "x", "N": 3, "TAGS": ["a", "b"]}``, logical types unconverted (a DECIMAL is its bytes)."""

    def __init__(self, registry: Any) -> None:
        self.registry = registry
        self.parsed: dict[int, Any] = {}

    def schema_for(self, data: bytes | None) -> Any:
        if self.registry is None or data is None or len(data) < 5 or data[0] != 0:
            return None
        sid = struct.unpack_from(">I", data, 1)[0]
        if sid not in self.parsed:
            import fastavro

            from ksqlpy.serde.avro_format import strip_logical
            from ksqlpy.serde.avro_references import inline_references, registry_lookup

            parsed = None
            try:
                rs = self.registry.by_id(sid)
                if rs is not None and rs.schema_type == "AVRO":
                    schema = inline_references(json.loads(rs.schema), registry_lookup(self.registry))
                    parsed = fastavro.parse_schema(strip_logical(schema), _write_hint=False)
            except Exception:  # noqa: BLE001 - a schema we cannot read is not Avro to PRINT
                parsed = None
            self.parsed[sid] = parsed
        return self.parsed[sid]

    def is_avro(self, data: bytes | None) -> bool:
        if self.schema_for(data) is None:
            return False
        try:
            self.read(data)
            return True
        except Exception:  # noqa: BLE001 - bytes that do not read are not Avro
            return False

    def read(self, data: bytes | None) -> Any:
        import fastavro

        assert data is not None
        return fastavro.schemaless_reader(io.BytesIO(data[5:]), self.schema_for(data), None)

    def render(self, data: bytes | None) -> str:
        if data is None:
            return "<null>"
        if self.schema_for(data) is None:
            return "<Failed to deserialize>"
        try:
            return _avro_text(self.read(data))
        except Exception:  # noqa: BLE001 - a record that does not read
            return "<Failed to deserialize>"


def _avro_escaped(text: str) -> str:
    out = []
    for ch in text:
        if ch in _AVRO_ESCAPES:
            out.append(_AVRO_ESCAPES[ch])
        elif ch <= "\x1f" or "\x7f" <= ch <= "\x9f" or "\u2000" <= ch <= "\u20ff":
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return "".join(out)


_AVRO_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
                 "\t": "\\t", "/": "\\/"}


def _avro_text(v: Any) -> str:
    """Avro's GenericData.toString of a datum read without logical-type conversions."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return double_to_string(v)
    if isinstance(v, str):
        return f'"{_avro_escaped(v)}"'
    if isinstance(v, bytes):
        return '{"bytes": "' + _avro_escaped(v.decode("latin-1")) + '"}'
    if isinstance(v, dict):  # a record (fields in schema order) or a map
        return "{" + ", ".join(f'"{_avro_escaped(str(k))}": {_avro_text(x)}' for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_avro_text(x) for x in v) + "]"
    return f'"{_avro_escaped(str(v))}"'


def _guess(data: bytes | None, avro: _AvroReader | None = None) -> str:
    if data is None:
        return NO_DATA
    if avro is not None and avro.is_avro(data):
        return "AVRO"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {4: "KAFKA_INT", 8: "KAFKA_BIGINT or KAFKA_DOUBLE"}.get(len(data), "KAFKA_BYTES")
    try:
        orjson.loads(data)
        return "JSON or KAFKA_STRING"
    except orjson.JSONDecodeError:
        pass
    if len(data) in (4, 8) and not text.isprintable():
        return "KAFKA_INT" if len(data) == 4 else "KAFKA_BIGINT or KAFKA_DOUBLE"
    return "KAFKA_STRING"


def _render(data: bytes | None, fmt: str, avro: _AvroReader | None = None) -> str:
    if data is None:
        return "<null>"
    if fmt == "AVRO" and avro is not None:
        return avro.render(data)
    if fmt == "KAFKA_INT":
        return str(struct.unpack(">i", data)[0])
    if fmt.startswith("KAFKA_BIGINT"):
        return str(struct.unpack(">q", data)[0])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "<Failed to deserialize>"


def _rowtime(ms: int) -> str:
    t = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)
    return t.strftime("%Y/%m/%d %H:%M:%S.") + f"{t.microsecond // 1000:03d} Z"


class TopicPrinter:
    def __init__(self, engine: Any, stmt: A.PrintTopic, partitions: int) -> None:
        self.log = engine.log
        self.avro = _AvroReader(getattr(engine, "schema_registry", None))
        self.topic = stmt.topic
        self.interval = max(int(stmt.interval or 1), 1)
        self.limit = stmt.limit
        self.positions = [self.log.start_offset(self.topic, p) if stmt.from_beginning
                          else self.log.end_offset(self.topic, p) for p in range(partitions)]
        self.closed = False

    @classmethod
    def open(cls, engine: Any, stmt: A.PrintTopic) -> TopicPrinter:
        info = engine.log.describe_topic(stmt.topic)
        if info is None:
            similar = [t.name for t in engine.log.list_topics() if t.name.lower() == stmt.topic.lower()]
            hint = f"\n\nDid you mean:\n\t{chr(10).join(similar)}" if similar else ""
            raise bad_request(f"Could not find topic '{stmt.topic}', or the KSQL user does not have permissions to "
                              f"list the topic. Topic names are case-sensitive.{hint}")
        return cls(engine, stmt, info.partitions)

    def close(self) -> None:
        self.closed = True

    async def lines(self, stop: Callable[[], bool] = lambda: False) -> AsyncIterator[str]:
        formats: tuple[str, str] | None = None
        seen = printed = 0
        delay = 0.01
        while not self.closed and not stop():
            got = 0
            for p, pos in enumerate(self.positions):
                batch = self.log.fetch(self.topic, p, pos, 500)
                if not batch.offsets:
                    continue
                got += len(batch.offsets)
                self.positions[p] = batch.next_offset
                for i in range(len(batch.offsets)):
                    if formats is None:
                        formats = (_guess(batch.keys[i], self.avro), _guess(batch.values[i], self.avro))
                        yield f"Key format: {formats[0]}"
                        yield f"Value format: {formats[1]}"
                    seen += 1
                    if (seen - 1) % self.interval:
                        continue
                    yield (f"rowtime: {_rowtime(batch.timestamps[i])}, key: {_render(batch.keys[i], formats[0], self.avro)}, "
                           f"value: {_render(batch.values[i], formats[1], self.avro)}, partition: {p}")
                    printed += 1
                    if self.limit is not None and printed >= self.limit:
                        return
            if not got:
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.1)
            else:
                delay = 0.01
