"""ksqlDB's PROTOBUF_NOSR format: Protocol Buffers without a schema registry.

A row is one proto3 message whose fields are the columns, numbered from 1 in column order (the schema
ksqlDB generates for the columns); the bytes are the bare message (no magic byte, schema id or message
indexes). Types as Kafka Connect's protobuf converter maps them:

| SQL | protobuf |
|---|---|
| BOOLEAN, INT, BIGINT, DOUBLE, STRING, BYTES | bool, int32, int64, double, string, bytes |
| DECIMAL(p,s) | ``confluent.type.Decimal`` {bytes value (unscaled, big-endian two's complement), precision, scale} |
| DATE / TIME / TIMESTAMP | ``google.type.Date`` / ``google.type.TimeOfDay`` / ``google.protobuf.Timestamp`` |
| ARRAY<T> | repeated T (packed for numbers and booleans) |
| MAP<K,V> | repeated entry {key = 1, value = 2} |
| STRUCT | nested message |

proto3 has no NULL for scalars: a NULL scalar is written as nothing and read back as the type's default
(0, 0.0, false, "", empty list or map), exactly what ksqlDB's PROTOBUF_NOSR round trip gives; an unset BYTES
field and message-typed fields (DECIMAL, DATE, TIME, TIMESTAMP, STRUCT) read NULL.

``*_PROTOBUF_NULLABLE_REPRESENTATION`` makes the primitive fields of the row and of its STRUCTs NULL-able
as ksqlDB's schema for it declares them: OPTIONAL writes a present value even when it is the default
(proto3 ``optional``), WRAPPER writes it inside a ``google.protobuf.*Value`` message; either way an absent
field reads NULL.
"""

from __future__ import annotations

import datetime as _dt
import struct
from collections.abc import Callable
from decimal import Context
from decimal import Decimal as PyDecimal
from typing import Any

from ksqlpy import types as T
from ksqlpy.serde.base import Columns, SerdeError, ValueSerde
from ksqlpy.serde.coerce import fit_decimal
from ksqlpy.serde.protobuf_types import value_precision
from ksqlpy.serde.protobuf_wire import raw_fields, read_varint, repeated_items, signed, varint, wire_matches
from ksqlpy.utf16 import JAVA_UTF8

_WIDE = Context(prec=1000)  # any DECIMAL: the default context (28 digits) rounds wider values

_DOUBLE = struct.Struct("<d")
_EPOCH = _dt.date(1970, 1, 1)
_SCALARS = ("BOOLEAN", "INTEGER", "BIGINT", "DOUBLE")
_NULLABLE_PRIMITIVES = (*_SCALARS, "STRING", "BYTES")  # the fields a nullable representation makes NULL-able


# --------------------------------------------------------------------------- wire primitives
_varint = varint
_read_varint = read_varint
_signed = signed
_fields = raw_fields


def _tag(out: bytearray, num: int, wire: int) -> None:
    _varint(out, (num << 3) | wire)


# --------------------------------------------------------------------------- writing
def _encode_message(types: list[T.SqlType], values: Any, nullable: str | None = None) -> bytes:
    """``nullable``: the nullable representation of the message's own primitive fields (and its STRUCTs')."""
    out = bytearray()
    for num, (t, v) in enumerate(zip(types, values, strict=True), 1):
        if nullable is not None and v is not None and t.name in _NULLABLE_PRIMITIVES:
            _encode_present(out, num, t, v, nullable)
        else:
            _encode_field(out, num, t, v, nullable)
    return bytes(out)


def _encode_present(out: bytearray, num: int, t: T.SqlType, v: Any, nullable: str) -> None:
    """A non-NULL primitive that must read back as present: written even when it is the default, inside a
    ``google.protobuf.*Value`` message for WRAPPER."""
    if nullable == "WRAPPER":  # the wrapper's own field follows proto3 (a default value is left out)
        body = bytearray()
        _encode_field(body, 1, t, v)
        _tag(out, num, 2)
        _varint(out, len(body))
        out += body
    elif t.name in _SCALARS:
        _scalar(out, num, t.name, v)
    else:
        raw = v.encode("utf-8", "replace") if t.name == "STRING" else bytes(v)
        _tag(out, num, 2)
        _varint(out, len(raw))
        out += raw


def _decimal_message(v: PyDecimal, t: T.SqlType) -> bytes:
    scale = t.scale if isinstance(t, T.Decimal) else max(-v.as_tuple().exponent, 0)  # type: ignore[operator]
    unscaled = int(v.scaleb(scale, context=_WIDE).to_integral_value(context=_WIDE))
    precision = value_precision(unscaled)  # the value's, as DecimalUtils.fromBigDecimal writes it
    size = max(1, (unscaled.bit_length() + 8) // 8)
    out = bytearray()
    _tag(out, 1, 2)
    raw = unscaled.to_bytes(size, "big", signed=True)
    _varint(out, len(raw))
    out += raw
    if precision:
        _tag(out, 2, 0)
        _varint(out, precision)
    if scale:
        _tag(out, 3, 0)
        _varint(out, scale)
    return bytes(out)


def _small_message(values: list[int]) -> bytes:
    out = bytearray()
    for num, v in enumerate(values, 1):
        if v:
            _tag(out, num, 0)
            _varint(out, v)
    return bytes(out)


def _message_bytes(t: T.SqlType, v: Any, nullable: str | None = None) -> bytes:
    name = t.name
    if name == "DECIMAL":
        return _decimal_message(v if isinstance(v, PyDecimal) else PyDecimal(str(v)), t)
    if name == "DATE":
        d = _EPOCH + _dt.timedelta(days=int(v))
        return _small_message([d.year, d.month, d.day])
    if name == "TIME":
        ms = int(v)
        return _small_message([ms // 3_600_000, ms // 60_000 % 60, ms // 1000 % 60, ms % 1000 * 1_000_000])
    if name == "TIMESTAMP":
        ms = int(v)
        return _small_message([ms // 1000, ms % 1000 * 1_000_000])
    if isinstance(t, T.Struct):
        return _encode_message([ft for _, ft in t.fields], [v.get(n) for n, _ in t.fields], nullable)
    raise SerdeError(f"PROTOBUF_NOSR cannot write type {t}")


def _scalar(out: bytearray, num: int, name: str, v: Any, packed: bool = False) -> None:
    if name == "DOUBLE":
        if not packed:
            _tag(out, num, 1)
        out += _DOUBLE.pack(float(v))
    else:
        if not packed:
            _tag(out, num, 0)
        _varint(out, int(v))


def _encode_field(out: bytearray, num: int, t: T.SqlType, v: Any, nullable: str | None = None) -> None:
    if v is None:
        return
    name = t.name
    if name in _SCALARS:
        if v == 0 and not (name == "DOUBLE" and str(float(v)).startswith("-")):
            return
        _scalar(out, num, name, v)
    elif name in ("STRING", "BYTES"):
        raw = v.encode("utf-8", "replace") if name == "STRING" else bytes(v)
        if raw:
            _tag(out, num, 2)
            _varint(out, len(raw))
            out += raw
    elif isinstance(t, T.Array):
        el = t.element
        items = repeated_items(v, str(num))
        if not items:
            return
        if el.name in _SCALARS:
            body = bytearray()
            for x in items:
                _scalar(body, num, el.name, x, packed=True)
            _tag(out, num, 2)
            _varint(out, len(body))
            out += body
        else:
            for x in items:
                inner = bytearray()
                _encode_field(inner, num, el, x)
                if not inner:  # a default element still takes its place in a repeated field
                    _tag(inner, num, 2 if el.name not in _SCALARS else 0)
                    _varint(inner, 0)
                out += inner
    elif isinstance(t, T.Map):
        for k, x in v.items():
            entry = bytearray()
            _encode_field(entry, 1, t.key, k)
            _encode_field(entry, 2, t.value, x)
            _tag(out, num, 2)
            _varint(out, len(entry))
            out += entry
    else:
        body = _message_bytes(t, v, nullable)
        _tag(out, num, 2)
        _varint(out, len(body))
        out += body


# --------------------------------------------------------------------------- reading
def _default(t: T.SqlType) -> Any:
    name = t.name
    if name == "BOOLEAN":
        return False
    if name in ("INTEGER", "BIGINT"):
        return 0
    if name == "DOUBLE":
        return 0.0
    if name == "STRING":
        return ""
    if isinstance(t, T.Array):
        return []
    if isinstance(t, T.Map):
        return {}
    return None


def _scalar_value(name: str, wire: int, raw: Any) -> Any:
    if name == "DOUBLE":
        if wire != 1:
            raise SerdeError("Protobuf DOUBLE field is not 64-bit")
        return _DOUBLE.unpack(raw)[0]
    if wire != 0:
        raise SerdeError(f"Protobuf {name} field is not a varint")
    if name == "BOOLEAN":
        return raw != 0
    return _signed(raw, 32 if name == "INTEGER" else 64)


def _packed(name: str, raw: bytes) -> list[Any]:
    out = []
    if name == "DOUBLE":
        for i in range(0, len(raw), 8):
            out.append(_DOUBLE.unpack_from(raw, i)[0])
        return out
    pos = 0
    while pos < len(raw):
        v, pos = _read_varint(raw, pos)
        out.append(_scalar_value(name, 0, v))
    return out


def _ints(raw: bytes, n: int) -> list[int]:
    got = [0] * n
    for num, wire, v in _fields(raw):
        if 1 <= num <= n and wire == 0:
            got[num - 1] = _signed(v, 64)
    return got


def _message_value(t: T.SqlType, raw: bytes, nullable: str | None = None) -> Any:
    name = t.name
    if name == "DECIMAL":
        unscaled, scale = 0, 0
        for num, wire, v in _fields(raw):
            if num == 1 and wire == 2:
                unscaled = int.from_bytes(v, "big", signed=True) if v else 0
            elif num == 3 and wire == 0:
                scale = _signed(v, 32)
        d = PyDecimal(unscaled).scaleb(-scale, context=_WIDE)
        return fit_decimal(d, t) if isinstance(t, T.Decimal) else d  # DecimalUtil.ensureFit: never rounded
    if name == "DATE":
        y, m, d = _ints(raw, 3)
        return (_dt.date(y, m, d) - _EPOCH).days
    if name == "TIME":
        h, mi, s, nanos = _ints(raw, 4)
        return ((h * 60 + mi) * 60 + s) * 1000 + nanos // 1_000_000
    if name == "TIMESTAMP":
        s, nanos = _ints(raw, 2)
        return s * 1000 + nanos // 1_000_000
    if isinstance(t, T.Struct):
        values = _decode_message(raw, [ft for _, ft in t.fields], nullable)
        return {n: v for (n, _), v in zip(t.fields, values, strict=True)}
    raise SerdeError(f"PROTOBUF_NOSR cannot read type {t}")


def _value(t: T.SqlType, wire: int, raw: Any, nullable: str | None = None) -> Any:
    name = t.name
    if name in _SCALARS:
        return _scalar_value(name, wire, raw)
    if wire != 2:
        raise SerdeError(f"Protobuf {name} field is not length-delimited")
    if name == "STRING":
        return bytes(raw).decode("utf-8", JAVA_UTF8)
    if name == "BYTES":
        return bytes(raw)
    return _message_value(t, raw, nullable)


def _decode_message(buf: bytes, types: list[T.SqlType], nullable: str | None = None) -> list[Any]:
    """The message's fields in order. An absent field reads as proto3's default, except: BYTES and message
    types read NULL, and so does every primitive under a nullable representation; a WRAPPER field is the
    ``value`` inside its wrapper message."""
    missing = object()
    values: list[Any] = [missing] * len(types)
    for num, wire, raw in _fields(buf):
        if not 1 <= num <= len(types):
            continue  # an unknown field: proto3 readers skip it
        t = types[num - 1]
        wrapped = nullable == "WRAPPER" and t.name in _NULLABLE_PRIMITIVES
        if not wire_matches(wire, 2 if wrapped else _wire(t), isinstance(t, T.Array)):
            continue  # another wire type than declared: protobuf's parser skips it as an unknown field
        if isinstance(t, T.Array):
            cur = values[num - 1] if values[num - 1] is not missing else []
            el = t.element
            if el.name in _SCALARS and wire == 2:
                cur.extend(_packed(el.name, raw))
            else:
                cur.append(_value(el, wire, raw))
            values[num - 1] = cur
        elif isinstance(t, T.Map):
            cur = values[num - 1] if values[num - 1] is not missing else {}
            k, v = _decode_message(raw, [t.key, t.value])
            cur[k] = v
            values[num - 1] = cur
        elif wrapped:
            values[num - 1] = _wrapped(t, raw)
        else:
            values[num - 1] = _value(t, wire, raw, nullable)
    absent = _default if nullable is None else _nullable_default
    return [absent(t) if v is missing else v for t, v in zip(types, values, strict=True)]


def _wire(t: T.SqlType) -> int:
    """The wire type protobuf writes a field of SQL type ``t`` with (an ARRAY: its elements')."""
    if isinstance(t, T.Array):
        return _wire(t.element)
    return 1 if t.name == "DOUBLE" else 0 if t.name in _SCALARS else 2


def _wrapped(t: T.SqlType, raw: Any) -> Any:
    """The ``value`` of a ``google.protobuf.*Value`` wrapper: present, so never NULL (empty: the default)."""
    inner = [(w, v) for num, w, v in _fields(raw) if num == 1 and w == _wire(t)]
    if not inner:
        return b"" if t.name == "BYTES" else _default(t)
    w, v = inner[-1]
    return _value(t, w, v)


def _nullable_default(t: T.SqlType) -> Any:
    return None if t.name in _NULLABLE_PRIMITIVES else _default(t)


# --------------------------------------------------------------------------- the serde
class ProtobufNoSrSerde(ValueSerde):
    format = "PROTOBUF_NOSR"

    def __init__(self, columns: Columns, nullable: str | None = None, *, unwrapped: bool = False) -> None:
        """``nullable``: ``*_PROTOBUF_NULLABLE_REPRESENTATION`` (OPTIONAL, WRAPPER or None: plain proto3).
        ``unwrapped``: a single column written bare (a single key, WRAP_SINGLE_VALUE=false): the Connect
        schema handed to ProtobufData is the column's own, and a NULL column is no message at all - null
        bytes, as ksqlDB's KsqlConnectSerializer writes a null datum. A STRUCT column is then the root
        message itself: its fields numbered from 1 (ProtobufData turns a root STRUCT schema into the
        message); any other type is still a one-field message (the wrapper a raw root value needs), the
        same bytes as wrapped."""
        super().__init__(columns)
        self.types = [t for _, t in self.columns]
        self.nullable = nullable.upper() if nullable else None
        self.unwrapped = unwrapped and len(self.types) == 1
        self.root_struct: T.Struct | None = None
        if self.unwrapped and isinstance(self.types[0], T.Struct):
            self.root_struct = self.types[0]

    def deserialize(self, data: bytes | None) -> tuple | None:
        if data is None:
            return None
        try:
            if self.root_struct is not None:
                return (_message_value(self.root_struct, bytes(data), self.nullable),)
            return tuple(_decode_message(bytes(data), self.types, self.nullable))
        except SerdeError:
            raise
        except Exception as e:  # noqa: BLE001 - any malformed message is a bad record
            raise SerdeError(f"Failed to deserialize PROTOBUF_NOSR message: {e}") from None

    def serialize(self, row: tuple | None) -> bytes | None:
        if row is None or (self.unwrapped and row[0] is None):
            return None
        try:
            if self.root_struct is not None:
                return _message_bytes(self.root_struct, row[0], self.nullable)
            return _encode_message(self.types, row, self.nullable)
        except SerdeError:
            raise
        except Exception as e:  # noqa: BLE001
            raise SerdeError(f"Failed to serialize PROTOBUF_NOSR message: {e}") from None


def encoder(types: list[T.SqlType]) -> Callable[[Any], bytes]:
    """Row values -> message bytes (for tools that build messages from other representations)."""
    return lambda values: _encode_message(types, values)


def decoder(types: list[T.SqlType]) -> Callable[[bytes], list[Any]]:
    return lambda data: _decode_message(data, types)
