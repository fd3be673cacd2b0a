"""The harness's own serdes: record specs (the JSON of the test file) <-> bytes on the topic.

Like ksqlDB's QTT (its ``ValueSpec*SerdeSupplier`` classes), these are independent of the engine's
serdes: inputs are written as a Kafka client would write them and outputs are read back from raw
bytes, so an engine whose serializer and deserializer share a bug cannot pass by symmetry.

- JSON: the spec is the JSON document itself (a string spec is a JSON string). Read back exactly.
- DELIMITED: the spec is the text.
- KAFKA: the single column's type decides: INT 4 bytes, BIGINT 8 bytes (big-endian), DOUBLE 8-byte
  IEEE, STRING UTF-8, BYTES raw (base64 in the spec).
- NONE: no bytes.
- AVRO / JSON_SR: through the engine's schema registry, see ``sr_codec``; PROTOBUF likewise, see
  ``protobuf_codec``.
- Windowed keys (Kafka Streams layout): time windows ``key + start(8)``, the end being start + size;
  session windows ``key + end(8) + start(8)``.
- A null spec is null bytes (a tombstone for values).
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass
from typing import Any

from ksqlpy import types as T
from ksqlpy.testing import exactjson
from ksqlpy.testing.model import Window
from ksqlpy.testing.support import UNSUPPORTED_FORMATS


class UnsupportedFeature(Exception):
    """The case needs a format/layout the harness cannot produce or read: skip it."""


@dataclass(frozen=True)
class Undecodable:
    """Bytes the sink's format could not read; never equal to any expected value."""

    data: bytes
    reason: str

    def __repr__(self) -> str:
        return f"<undecodable {self.data[:32].hex()}: {self.reason}>"


class Codec:
    """spec -> bytes and bytes -> comparable value, for one format and its columns."""

    def encode(self, spec: Any) -> bytes | None:
        raise NotImplementedError

    def decode(self, data: bytes | None) -> Any:
        raise NotImplementedError


class JsonCodec(Codec):
    def encode(self, spec: Any) -> bytes | None:
        return None if spec is None else exactjson.dumps(spec).encode("utf-8")

    def decode(self, data: bytes | None) -> Any:
        if data is None:
            return None
        try:
            return exactjson.loads(data)
        except ValueError as e:
            return Undecodable(data, f"not JSON: {e}")


class DelimitedCodec(Codec):
    def encode(self, spec: Any) -> bytes | None:
        if spec is None:
            return None
        return (spec if isinstance(spec, str) else exactjson.dumps(spec)).encode("utf-8")

    def decode(self, data: bytes | None) -> Any:
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            return Undecodable(data, f"not UTF-8: {e}")


class NoneCodec(Codec):
    def encode(self, spec: Any) -> bytes | None:
        return None

    def decode(self, data: bytes | None) -> Any:
        return None if data is None else Undecodable(data, "format NONE but bytes present")


_PACKED = {"INTEGER": ">i", "BIGINT": ">q", "DOUBLE": ">d"}


class KafkaCodec(Codec):
    """Kafka's primitive serializers; ``sql_type`` None when the source has no column on this side."""

    def __init__(self, sql_type: T.SqlType | None) -> None:
        self.sql_type = sql_type
        self.pack = _PACKED.get(sql_type.name) if sql_type is not None else None

    def encode(self, spec: Any) -> bytes | None:
        if spec is None:
            return None
        name = self.sql_type.name if self.sql_type is not None else None
        if self.pack is not None:
            try:
                number = float(spec) if name == "DOUBLE" else int(spec)
                return struct.pack(self.pack, number)
            except (ValueError, TypeError, struct.error):
                pass  # a deliberately bad input: write its text and let the engine cope
        if name == "BYTES" and isinstance(spec, str):
            return base64.b64decode(spec)
        return (spec if isinstance(spec, str) else exactjson.dumps(spec)).encode("utf-8")

    def decode(self, data: bytes | None) -> Any:
        if data is None:
            return None
        if self.pack is not None:
            size = struct.calcsize(self.pack)
            if len(data) != size:
                return Undecodable(data, f"{self.sql_type} needs {size} bytes, got {len(data)}")
            number = struct.unpack(self.pack, data)[0]
            return exactjson.JavaLong(number) if self.pack == ">q" else number
        if self.sql_type is not None and self.sql_type.name == "BYTES":
            return bytes(data)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            return Undecodable(data, f"not UTF-8: {e}")


def codec(fmt: str, columns: list[Any], *, registry: Any = None, topic: str | None = None,
          is_key: bool = False, full_name: str | None = None, nullable: str | None = None,
          wrap_single_value: bool | None = None) -> Codec:
    """The codec for ``fmt`` over the columns of one side (key or value) of a source.

    The schema-registry formats need the engine's ``registry`` and the ``topic`` (for its subjects);
    ``full_name`` picks the PROTOBUF message of a schema with several; ``nullable`` is PROTOBUF_NOSR's
    nullable representation (the registry formats' is in their registered schema); ``wrap_single_value``
    the value's WRAP_SINGLE_VALUE (False: a single value column written bare, as a single key is)."""
    fmt = fmt.upper()
    if fmt == "PROTOBUF" and registry is not None and topic is not None:
        from ksqlpy.testing.protobuf_codec import ProtobufSrCodec

        subj = f"{topic}-{'key' if is_key else 'value'}"
        return ProtobufSrCodec(registry, subj, full_name)  # type: ignore[return-value]
    if fmt in ("AVRO", "JSON_SR") and registry is not None and topic is not None:
        from ksqlpy.testing.sr_codec import AvroCodec, JsonSrCodec

        subj = f"{topic}-{'key' if is_key else 'value'}"
        return (AvroCodec if fmt == "AVRO" else JsonSrCodec)(registry, subj)  # type: ignore[return-value]
    if fmt == "JSON":
        return JsonCodec()
    if fmt == "DELIMITED":
        return DelimitedCodec()
    if fmt == "NONE":
        return NoneCodec()
    if fmt == "PROTOBUF_NOSR":
        from ksqlpy.testing.protobuf_codec import ProtobufNoSrCodec

        unwrapped = len(columns) == 1 and (is_key or wrap_single_value is False)
        return ProtobufNoSrCodec(columns, nullable, unwrapped)  # type: ignore[return-value]
    if fmt == "KAFKA":
        if len(columns) > 1:
            raise UnsupportedFeature(f"KAFKA format over {len(columns)} columns")
        return KafkaCodec(columns[0].type if columns else None)
    if fmt in UNSUPPORTED_FORMATS:
        raise UnsupportedFeature(f"Unsupported format: {fmt}")
    raise UnsupportedFeature(f"Unsupported format: {fmt} (no harness serde)")


class GuessCodec(DelimitedCodec):
    """For topics no source describes: written as DELIMITED is (text if the spec is text, else JSON); read
    as JSON, else as text."""

    def decode(self, data: bytes | None) -> Any:
        if data is None:
            return None
        decoded = JsonCodec().decode(data)
        return super().decode(data) if isinstance(decoded, Undecodable) else decoded


# --------------------------------------------------------------------------- windowed keys

_LONG = struct.Struct(">q")
_LONG_MAX = 2**63 - 1


def encode_windowed(inner: bytes | None, window: Window) -> bytes:
    body = inner or b""
    if window.type == "session":
        return body + _LONG.pack(window.end) + _LONG.pack(window.start)
    return body + _LONG.pack(window.start)


def decode_windowed(data: bytes | None, window_type: str, size_ms: int | None) -> tuple[bytes | None, Window | None]:
    """Split a windowed key into (inner key bytes, window); window None if the bytes are too short."""
    if data is None:
        return None, None
    if window_type == "session":
        if len(data) < 16:
            return data, None
        end = _LONG.unpack_from(data, len(data) - 16)[0]
        start = _LONG.unpack_from(data, len(data) - 8)[0]
        inner = data[:-16]
    else:
        if len(data) < 8:
            return data, None
        start = _LONG.unpack_from(data, len(data) - 8)[0]
        end = min(start + (size_ms or 0), _LONG_MAX)  # Kafka caps the computed end
        inner = data[:-8]
    return inner, Window(start, end, window_type)


def window_kind(window_type: str | None) -> str:
    """Catalog window type (TUMBLING/HOPPING/SESSION) -> QTT's 'time' / 'session'."""
    return "session" if (window_type or "").upper() == "SESSION" else "time"

