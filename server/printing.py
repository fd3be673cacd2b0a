"""PRINT <topic>: raw records as text lines, the formats guessed from the bytes (reference §1.4).

    Key format: KAFKA_STRING
    Value format: JSON or KAFKA_STRING
    rowtime: 2022/12/02 17:22:02.556 Z, key: 18, value: {"a":1}, partition: 0

The guessing is ksqlDB's RecordFormatter's (from memory): the key and the value each keep a list of the
formats that could have written them, in a fixed order; every record of a poll narrows the lists (a format
that does not read the record's bytes is dropped) before any record of that poll is formatted, and the
first poll prints ``Key format:`` / ``Value format:`` once, the remaining formats joined by `` or ``. The
formats, in order:

* the schema-registry formats, read from Confluent's framing (magic byte 0, a 4-byte schema id): ``AVRO``
  (an id the registry holds as AVRO; printed as Avro's ``GenericData.toString``), ``PROTOBUF`` (an id held
  as PROTOBUF, then the message indexes; printed as protobuf's ``TextFormat`` short debug string of the
  message the indexes name), ``JSON_SR`` (an id held as JSON; printed as Jackson writes the JSON node);
* ``KAFKA_INT`` (4 bytes), ``KAFKA_BIGINT`` and ``KAFKA_DOUBLE`` (8 bytes), ``JSON`` (bytes that parse as
  JSON), ``KAFKA_STRING`` (UTF-8 text of printable characters);
* for keys also the windowed layouts of each of those - ``SESSION(F)`` (key bytes, then the window end
  and start as big-endian longs), ``HOPPING(F)`` and ``TUMBLING(F)`` (key bytes, then the window start) -
  printed as Kafka Streams' ``Windowed`` prints: ``[key@start/end]``, a time window's end unknown to the
  reader (``Infinity``). A window reading needs some key bytes and window bounds that are times (0 up to
  year 9999, a session's end not before its start).

No data for a side yet: ``¯\\_(ツ)_/¯ - no data processed``; records of different formats: ``MIXED``. A
record is printed with the first of its formats that is a schema-registry format or text, else the first;
a null as ``<null>``, bytes no format reads as ``<Failed to deserialize>``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import struct
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any

import orjson

from ksqlpy.grammar import ast as A
from ksqlpy.javatext import double_to_string
from ksqlpy.server.errors import bad_request

NO_DATA = "¯\\_(ツ)_/¯ - no data processed"
MIXED = "MIXED"
FAILED = "<Failed to deserialize>"
NULL = "<null>"

_I = struct.Struct(">i")
_Q = struct.Struct(">q")
_D = struct.Struct(">d")
_MAX_TIME = 253402300799999  # 9999-12-31T23:59:59.999Z
_BASE = ("AVRO", "PROTOBUF", "JSON_SR", "KAFKA_INT", "KAFKA_BIGINT", "KAFKA_DOUBLE", "JSON", "KAFKA_STRING")
_SR = ("AVRO", "PROTOBUF", "JSON_SR")
_TEXT = ("JSON", "KAFKA_STRING")
WINDOWS = ("SESSION", "HOPPING", "TUMBLING")
KEY_FORMATS = tuple(f for base in _BASE for f in (*(f"{w}({base})" for w in WINDOWS), base))
VALUE_FORMATS = _BASE


# --------------------------------------------------------------------------- schema-registry readers
class _Registered:
    """The registry's schemas by id, parsed once each for the one schema type they are."""

    def __init__(self, registry: Any) -> None:
        self.registry = registry
        self.parsed: dict[tuple[int, str], Any] = {}

    def schema(self, data: bytes, schema_type: str) -> Any:
        if self.registry is None or len(data) < 5 or data[0] != 0:
            return None
        sid = struct.unpack_from(">I", data, 1)[0]
        key = (sid, schema_type)
        if key not in self.parsed:
            parsed = None
            try:
                rs = self.registry.by_id(sid)
                if rs is not None and rs.schema_type == schema_type:
                    parsed = _PARSERS[schema_type](self.registry, rs.schema)
            except Exception:  # noqa: BLE001 - a schema we cannot read does not read the record
                parsed = None
            self.parsed[key] = parsed
        return self.parsed[key]


def _parse_avro(registry: Any, text: str) -> Any:
    import fastavro

    from ksqlpy.serde.avro_format import strip_logical
    from ksqlpy.serde.avro_references import inline_references, registry_lookup

    schema = inline_references(json.loads(text), registry_lookup(registry))
    return fastavro.parse_schema(strip_logical(schema), _write_hint=False)


def _parse_protobuf(registry: Any, text: str) -> Any:
    from ksqlpy.serde.protobuf_format import registry_loader
    from ksqlpy.serde.protobuf_schema import parse_proto

    return parse_proto(text, registry_loader(registry))


_PARSERS: dict[str, Callable[[Any, str], Any]] = {"AVRO": _parse_avro, "PROTOBUF": _parse_protobuf,
                                                  "JSON": lambda _r, _t: True}


def _read_avro(reg: _Registered, data: bytes) -> str:
    import fastavro

    schema = reg.schema(data, "AVRO")
    if schema is None:
        raise ValueError("not Avro")
    buf = io.BytesIO(data[5:])
    v = fastavro.schemaless_reader(buf, schema, None)
    if buf.tell() != len(data) - 5:
        raise ValueError("bytes after the Avro datum")
    return v if isinstance(v, str) else _avro_text(v)  # a bare string is a Utf8, printed as it is


def _read_protobuf(reg: _Registered, data: bytes) -> str:
    from ksqlpy.serde.protobuf_wire import decode, unframe

    file = reg.schema(data, "PROTOBUF")
    if file is None:
        raise ValueError("not protobuf")
    _, indexes, body = unframe(data)
    msg = file.by_indexes(indexes)
    return _proto_text(file, msg, decode(file, msg, body))


def _read_json_sr(reg: _Registered, data: bytes) -> str:
    if reg.schema(data, "JSON") is None:
        raise ValueError("not JSON_SR")
    return _jackson_text(json.loads(data[5:].decode("utf-8")))


# --------------------------------------------------------------------------- Avro's GenericData.toString
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


# --------------------------------------------------------------------------- protobuf's TextFormat
_PROTO_ESCAPES = {0x07: "\\a", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x0B: "\\v",
                  0x5C: "\\\\", 0x27: "\\'", 0x22: '\\"'}
_MASK64 = (1 << 64) - 1


def _proto_bytes(b: bytes) -> str:
    """TextFormat.escapeBytes: C escapes, other bytes outside printable ASCII as three octal digits."""
    out = []
    for c in b:
        if c in _PROTO_ESCAPES:
            out.append(_PROTO_ESCAPES[c])
        elif 0x20 <= c < 0x7F:
            out.append(chr(c))
        else:
            out.append(f"\\{c:03o}")
    return '"' + "".join(out) + '"'


def _float_text(x: float) -> str:
    """Java's Float.toString: the shortest digits that give back the same 32-bit float."""
    if x != x or x in (float("inf"), float("-inf")) or x == 0:
        return double_to_string(x)
    bits = struct.pack("<f", x)
    for digits in range(1, 10):
        short = float(f"{x:.{digits}g}")
        if struct.pack("<f", short) == bits:
            return double_to_string(short)
    return double_to_string(x)


def _proto_scalar(file: Any, kind: str, v: Any) -> str:
    if kind == "string":
        return _proto_bytes(v.encode("utf-8", "surrogatepass"))
    if kind == "bytes":
        return _proto_bytes(v)
    if kind == "bool":
        return "true" if v else "false"
    if kind == "double":
        return double_to_string(v)
    if kind == "float":
        return _float_text(v)
    if kind in ("uint64", "fixed64"):
        return str(v & _MASK64)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str) and v.startswith("UNKNOWN_ENUM_VALUE_"):
        return v.rpartition("_")[2]  # an undeclared number of an open enum prints as the number
    return str(v)


def _proto_field(file: Any, name: str, kind: str, v: Any) -> str:
    from ksqlpy.serde.protobuf_schema import SCALARS, ProtoMessage

    if kind not in SCALARS:
        t = file.lookup(kind)
        if isinstance(t, ProtoMessage):
            inner = _proto_text(file, t, v or {})
            return f"{name} {{ {inner} }}" if inner else f"{name} {{ }}"
    return f"{name}: {_proto_scalar(file, kind, v)}"


def _proto_text(file: Any, msg: Any, values: dict[str, Any]) -> str:
    """protobuf's TextFormat short debug string of a message (fields by number, set fields only)."""
    from ksqlpy.serde.protobuf_wire import default

    parts: list[str] = []
    for f in sorted(msg.fields, key=lambda f: f.number):
        if f.name not in values:
            continue
        v = values[f.name]
        if f.is_map:
            for k, x in v.items():
                entry = [f"key: {_proto_scalar(file, f.key_type or 'string', k)}"]
                if x is not None:
                    entry.append(_proto_field(file, "value", f.type, x))
                parts.append(f"{f.name} {{ {' '.join(entry)} }}")
        elif f.is_repeated:
            parts.extend(_proto_field(file, f.name, f.type, x) for x in v)
        else:
            implicit = f.label == "" and f.oneof is None
            if implicit and v is not None and not isinstance(v, dict) and v == default(file, f.type):
                continue  # proto3 implicit presence: a default scalar is not a set field
            parts.append(_proto_field(file, f.name, f.type, v))
    return " ".join(parts)


# --------------------------------------------------------------------------- Jackson's JsonNode.toString
def _jackson_text(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return double_to_string(v)
    if isinstance(v, str):
        return orjson.dumps(v).decode()
    if isinstance(v, list):
        return "[" + ",".join(_jackson_text(x) for x in v) + "]"
    return "{" + ",".join(f"{orjson.dumps(str(k)).decode()}:{_jackson_text(x)}" for k, x in v.items()) + "}"


# --------------------------------------------------------------------------- the formats
def _printable(text: str) -> bool:
    return all(c.isprintable() or c in "\t\r\n" for c in text)


def _read_plain(fmt: str, data: bytes, reg: _Registered) -> str:
    """``data`` printed as ``fmt`` (a format without window), ValueError if it does not read so."""
    if fmt == "AVRO":
        return _read_avro(reg, data)
    if fmt == "PROTOBUF":
        return _read_protobuf(reg, data)
    if fmt == "JSON_SR":
        return _read_json_sr(reg, data)
    if fmt == "KAFKA_INT":
        return str(_I.unpack(data)[0])
    if fmt == "KAFKA_BIGINT":
        return str(_Q.unpack(data)[0])
    if fmt == "KAFKA_DOUBLE":
        return double_to_string(_D.unpack(data)[0])
    text = data.decode("utf-8")
    if fmt == "JSON":
        orjson.loads(data)
        return text
    if not _printable(text):
        raise ValueError("not printable text")
    return text


def _time(ms: int) -> bool:
    return 0 <= ms <= _MAX_TIME


def read_as(fmt: str, data: bytes, reg: _Registered) -> str:
    """``data`` printed as ``fmt`` (windowed ones too); ValueError (or another error) if it does not read."""
    window, _, base = fmt.partition("(")
    if not base:
        return _read_plain(fmt, data, reg)
    base = base[:-1]
    if window == "SESSION":
        if len(data) <= 16:
            raise ValueError("no session window")
        end, start = struct.unpack_from(">qq", data, len(data) - 16)
        if not (_time(start) and _time(end) and end >= start):
            raise ValueError("no session window")
        return f"[{_read_plain(base, data[:-16], reg)}@{start}/{end}]"
    if len(data) <= 8:
        raise ValueError("no time window")
    start = _Q.unpack_from(data, len(data) - 8)[0]
    if not _time(start):
        raise ValueError("no time window")
    return f"[{_read_plain(base, data[:-8], reg)}@{start}/Infinity]"


def _rank(fmt: str) -> int:
    base = fmt.partition("(")[2][:-1] or fmt
    return 0 if base in _SR or base in _TEXT else 1


class FormatGuess:
    """One side's (key or value) possible formats, narrowed by every non-null record seen."""

    def __init__(self, formats: Sequence[str], registered: _Registered) -> None:
        self.all = tuple(formats)
        self.possible: list[str] = list(formats)
        self.reg = registered
        self.seen = False
        self.mixed = False

    def readings(self, data: bytes, among: Iterable[str]) -> dict[str, str]:
        out = {}
        for f in among:
            try:
                out[f] = read_as(f, data, self.reg)
            except Exception:  # noqa: BLE001 - any failure means: not this format
                continue
        return out

    def update(self, data: bytes | None) -> dict[str, str] | None:
        """Narrows by ``data``; returns its readings by the formats still possible (all of its own if none)."""
        if data is None:
            return None
        self.seen = True
        got = self.readings(data, self.possible) if not self.mixed else {}
        if not got:  # no format left reads every record
            self.mixed = True
            self.possible = []
            return self.readings(data, self.all)
        self.possible = [f for f in self.possible if f in got]
        return got

    def describe(self) -> str:
        if not self.seen:
            return NO_DATA
        if self.mixed or not self.possible:
            return MIXED
        return " or ".join(self.possible)

    def render(self, data: bytes | None, readings: dict[str, str] | None) -> str:
        if data is None:
            return NULL
        order = [f for f in self.possible if f in (readings or {})] or [f for f in self.all if f in (readings or {})]
        if not order:
            return FAILED
        best = min(order, key=lambda f: (_rank(f), order.index(f)))
        return (readings or {})[best]


class RecordFormatter:
    """Formats records of one topic as PRINT shows them; ``registry`` reads the schema-registry formats."""

    def __init__(self, registry: Any = None) -> None:
        reg = _Registered(registry)
        self.keys = FormatGuess(KEY_FORMATS, reg)
        self.values = FormatGuess(VALUE_FORMATS, reg)

    def format(self, records: Sequence[tuple[int, bytes | None, bytes | None, int]]) -> list[str]:
        """``records``: (timestamp, key, value, partition) of one poll; every record narrows the formats
        before any is formatted."""
        read = [(self.keys.update(k), self.values.update(v)) for _, k, v, _ in records]
        return [f"rowtime: {format_rowtime(ts)}, key: {self.keys.render(k, rk)}, "
                f"value: {self.values.render(v, rv)}, partition: {p}"
                for (ts, k, v, p), (rk, rv) in zip(records, read, strict=True)]

    def header(self) -> list[str]:
        return [f"Key format: {self.keys.describe()}", f"Value format: {self.values.describe()}"]


def format_rowtime(ms: int) -> str:
    """``yyyy/MM/dd HH:mm:ss.SSS Z`` in UTC; a record without a timestamp (-1) ``N/A``."""
    if ms == -1:
        return "N/A"
    t = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)
    return t.strftime("%Y/%m/%d %H:%M:%S.") + f"{t.microsecond // 1000:03d} Z"


def poll(log: Any, topic: str, positions: list[int]) -> list[tuple[int, bytes | None, bytes | None, int]]:
    """One poll of every partition from ``positions`` (advanced): (timestamp, key, value, partition)."""
    out = []
    for p, pos in enumerate(positions):
        batch = log.fetch(topic, p, pos, 500)
        if not batch.offsets:
            continue
        positions[p] = batch.next_offset
        out.extend((batch.timestamps[i], batch.keys[i], batch.values[i], p) for i in range(len(batch.offsets)))
    return out


class PrintSession:
    """The lines of one PRINT. Over HTTP (ksqlDB's TopicStreamWriter): every record of a poll is formatted
    (narrowing the formats), the header follows the first poll with records, then every INTERVAL-th record
    up to LIMIT. Over the WebSocket (``websocket``: ksqlDB's PrintPublisher, from memory): a poll's records
    are sampled first - every INTERVAL-th, up to what LIMIT leaves - and only those are formatted, so only
    they narrow the formats; no header line is sent (PrintPublisher has no FormatsTracker)."""

    def __init__(self, registry: Any, interval: int | None, limit: int | None, *, websocket: bool = False) -> None:
        self.formatter = RecordFormatter(registry)
        self.interval = max(int(interval or 1), 1)
        self.limit = limit
        self.seen = self.printed = 0
        self.header_done = websocket
        self.websocket = websocket

    @property
    def done(self) -> bool:
        return self.limit is not None and self.printed >= self.limit

    def _sampled(self, records: Sequence[Any]) -> list[Any]:
        out = []
        for r in records:
            if self.done or self.limit is not None and self.printed + len(out) >= self.limit:
                break
            self.seen += 1
            if (self.seen - 1) % self.interval == 0:
                out.append(r)
        return out

    def lines(self, records: Sequence[tuple[int, bytes | None, bytes | None, int]]) -> list[str]:
        if not records or self.done:
            return []
        if self.websocket:
            lines = self.formatter.format(self._sampled(records))
            self.printed += len(lines)
            return lines
        formatted = self.formatter.format(records)
        out = []
        if not self.header_done:
            out.extend(self.formatter.header())
            self.header_done = True
        for line in formatted:
            self.seen += 1
            if (self.seen - 1) % self.interval:
                continue
            out.append(line)
            self.printed += 1
            if self.done:
                break
        return out


def missing_topic_message(log: Any, topic: str) -> str:
    """PRINT of a topic that does not exist (ksqlDB's StreamedQueryResource.handlePrintTopic, from memory):
    the topics whose names match but for case are suggested as the statements to type, one per line
    (``\tprint <name>;``)."""
    similar = [t.name for t in log.list_topics() if t.name.lower() == topic.lower()]
    hint = "\nDid you mean:\n" + "\n".join(f"\tprint {name};" for name in similar) if similar else ""
    return (f"Could not find topic '{topic}', or the KSQL user does not have permissions to list the topic. "
            f"Topic names are case-sensitive.{hint}")


def interval_error(interval: int | None) -> str | None:
    """A PRINT's INTERVAL below 1 (0, or a negative one the grammar reads): ksqlDB's TopicStreamWriter
    refuses it when it is built - after the topic is found, before anything is read (from memory):
    ``INTERVAL must be greater than one, but was: <n>``. None when it is fine (absent is 1)."""
    if interval is not None and int(interval) < 1:
        return f"INTERVAL must be greater than one, but was: {int(interval)}"
    return None


class TopicPrinter:
    def __init__(self, engine: Any, stmt: A.PrintTopic, partitions: int) -> None:
        self.log = engine.log
        self.registry = getattr(engine, "schema_registry", None)
        self.topic = stmt.topic
        self.interval = stmt.interval
        self.limit = stmt.limit
        self.positions = [self.log.start_offset(self.topic, p) if stmt.from_beginning
                          else self.log.end_offset(self.topic, p) for p in range(partitions)]
        self.closed = False

    @classmethod
    def open(cls, engine: Any, stmt: A.PrintTopic) -> TopicPrinter:
        info = engine.log.describe_topic(stmt.topic)
        if info is None:
            raise bad_request(missing_topic_message(engine.log, stmt.topic))
        refused = interval_error(stmt.interval)
        if refused is not None:
            raise bad_request(refused)
        return cls(engine, stmt, info.partitions)

    def close(self) -> None:
        self.closed = True

    async def lines(self, stop: Callable[[], bool] = lambda: False, idle_s: float | None = None,
                    websocket: bool = False) -> AsyncIterator[str]:
        """The PRINT's lines. ``idle_s``: after that long without a record, an empty line - ksqlDB's
        TopicStreamWriter writes a newline for a poll (of its disconnect-check interval, 1 s) that brought
        no record, which is how it finds a client gone (from memory); the CLI reads it as 'waiting'. The
        WebSocket's PrintPublisher sends no such frame (``None``), nor the header (``websocket``, see
        PrintSession)."""
        session = PrintSession(self.registry, self.interval, self.limit, websocket=websocket)
        delay = 0.01
        quiet_since = time.monotonic()
        while not self.closed and not stop() and not session.done:
            records = poll(self.log, self.topic, self.positions)
            for line in session.lines(records):
                yield line
            if not records:
                if idle_s is not None and time.monotonic() - quiet_since >= idle_s:
                    quiet_since = time.monotonic()
                    yield ""
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.1)
            else:
                quiet_since = time.monotonic()
                delay = 0.01
