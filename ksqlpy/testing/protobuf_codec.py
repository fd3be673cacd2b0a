"""The harness's PROTOBUF_NOSR codec: record specs <-> bare proto3 messages, written apart from the engine.

The message has one field per column, numbered from 1 in column order. Specs use the QTT conventions:
DATE as days, TIME as ms of day, TIMESTAMP as epoch ms, DECIMAL as a number, BYTES as base64. Reading
applies proto3's rules (an absent scalar is its default, an absent message is null), which is what ksqlDB's
expected outputs show for NULL scalars ("" and 0) - except bytes: an unset bytes field reads NULL, as the
engine's readers (ksqlDB's ProtobufData, which its harness shares) read it.
"""

from __future__ import annotations

import base64
import datetime
import struct
from decimal import Context, Decimal
from typing import Any

from ksqlpy import types as T
from ksqlpy.testing.exactjson import JavaLong

_WIDE = Context(prec=1000)  # any DECIMAL: the default context (28 digits) rounds wider values

_SCALAR_WIRE = {"BOOLEAN": 0, "INTEGER": 0, "BIGINT": 0, "DOUBLE": 1}
# the fields *_PROTOBUF_NULLABLE_REPRESENTATION makes NULL-able: proto3's implicit-presence scalars
_LONG_KINDS = frozenset({"int64", "sint64", "sfixed64", "uint64", "fixed64"})
_PRIMITIVES = ("BOOLEAN", "INTEGER", "BIGINT", "DOUBLE", "STRING", "BYTES")


def _uvarint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _uvarint(field << 3 | wire)


def _ld(field: int, body: bytes) -> bytes:
    return _key(field, 2) + _uvarint(len(body)) + body


def _pick(spec: dict, name: str) -> Any:
    if name in spec:
        return spec[name]
    for k, v in spec.items():
        if k.upper() == name.upper():
            return v
    return None


def _write(field: int, t: T.SqlType, v: Any, nullable: str | None = None) -> bytes:
    """``nullable`` (WRAPPER, OPTIONAL): a non-NULL primitive of the message and its STRUCTs is present on the
    wire even when it is the default - inside a google.protobuf.*Value message for WRAPPER."""
    if v is None:
        return b""
    kind = t.name
    if nullable == "WRAPPER" and kind in _PRIMITIVES:
        return _ld(field, _write(1, t, v))
    if nullable == "OPTIONAL" and kind in _PRIMITIVES:
        return _write(field, t, v) or (_key(field, 1) + bytes(8) if kind == "DOUBLE" else
                                       _key(field, 0) + b"\0" if kind in _SCALAR_WIRE else _ld(field, b""))
    if kind in ("BOOLEAN", "INTEGER", "BIGINT"):
        n = int(v is True) if kind == "BOOLEAN" else int(Decimal(str(v)))
        return _key(field, 0) + _uvarint(n) if n else b""
    if kind == "DOUBLE":
        return _key(field, 1) + struct.pack("<d", float(v)) if float(v) else b""
    if kind == "STRING":
        return _ld(field, str(v).encode()) if v != "" else b""
    if kind == "BYTES":
        raw = base64.b64decode(v) if isinstance(v, str) else bytes(v)
        return _ld(field, raw) if raw else b""
    if isinstance(t, T.Array):
        return b"".join(_write(field, t.element, x) or _ld(field, b"") for x in v)
    if isinstance(t, T.Map):
        return b"".join(_ld(field, _write(1, t.key, k) + _write(2, t.value, x)) for k, x in v.items())
    if isinstance(t, T.Struct):
        return _ld(field, b"".join(_write(i, ft, _pick(v, n), nullable) for i, (n, ft) in enumerate(t.fields, 1)))
    if kind == "DECIMAL":
        d = Decimal(str(v))
        scale = t.scale if isinstance(t, T.Decimal) else 0
        unscaled = int(d.scaleb(scale, context=_WIDE))
        raw = unscaled.to_bytes(max(1, (unscaled.bit_length() + 8) // 8), "big", signed=True)
        return _ld(field, _ld(1, raw) + _write(2, T.INTEGER, getattr(t, "precision", 0)) + _write(3, T.INTEGER, scale))
    if kind == "DATE":
        day = datetime.date(1970, 1, 1) + datetime.timedelta(days=int(v))
        parts = (day.year, day.month, day.day)
    elif kind == "TIME":
        ms = int(v)
        parts = (ms // 3600000, ms // 60000 % 60, ms // 1000 % 60, ms % 1000 * 1000000)
    elif kind == "TIMESTAMP":
        ms = int(v)
        parts = (ms // 1000, ms % 1000 * 1000000)
    else:
        raise ValueError(f"no PROTOBUF_NOSR spec encoding for {t}")
    return _ld(field, b"".join(_write(i, T.BIGINT, p) for i, p in enumerate(parts, 1)))


def _fields(data: bytes) -> dict[int, list[tuple[int, Any]]]:
    got: dict[int, list[tuple[int, Any]]] = {}
    i = 0
    while i < len(data):
        key, i = _read_uvarint(data, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            val, i = _read_uvarint(data, i)
        elif wire == 1:
            val, i = data[i:i + 8], i + 8
        elif wire == 5:
            val, i = data[i:i + 4], i + 4
        elif wire == 2:
            size, i = _read_uvarint(data, i)
            val, i = data[i:i + size], i + size
        else:
            raise ValueError(f"wire type {wire}")
        got.setdefault(field, []).append((wire, val))
    return got


def _read_uvarint(data: bytes, i: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        b = data[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return n, i


def _as_int(n: int, bits: int) -> int:
    n &= (1 << bits) - 1
    return n - (1 << bits) if n >= 1 << (bits - 1) else n


def _read_one(t: T.SqlType, wire: int, raw: Any, nullable: str | None = None) -> Any:
    kind = t.name
    if kind == "BOOLEAN":
        return bool(raw)
    if kind == "INTEGER":
        return _as_int(raw, 32)
    if kind == "BIGINT":
        return JavaLong(_as_int(raw, 64))  # a Long in ksqlDB's harness (compare.record_numbers_equal)
    if kind == "DOUBLE":
        return struct.unpack("<d", raw)[0]
    if kind == "STRING":
        return bytes(raw).decode()
    if kind == "BYTES":
        return base64.b64encode(bytes(raw)).decode()
    sub = _fields(bytes(raw))

    def part(i: int) -> int:
        entries = sub.get(i)
        return _as_int(entries[-1][1], 64) if entries else 0

    if isinstance(t, T.Struct):
        return {n: _read_field(sub.get(i, []), ft, nullable) for i, (n, ft) in enumerate(t.fields, 1)}
    if kind == "DECIMAL":
        raw_value = sub.get(1, [(2, b"")])[-1][1]
        unscaled = int.from_bytes(raw_value, "big", signed=True) if raw_value else 0
        return Decimal(unscaled).scaleb(-part(3), context=_WIDE)
    if kind == "DATE":
        return (datetime.date(part(1), part(2), part(3)) - datetime.date(1970, 1, 1)).days
    if kind == "TIME":
        return ((part(1) * 60 + part(2)) * 60 + part(3)) * 1000 + part(4) // 1000000
    if kind == "TIMESTAMP":
        return part(1) * 1000 + part(2) // 1000000
    raise ValueError(f"no PROTOBUF_NOSR spec decoding for {t}")


def _read_field(entries: list[tuple[int, Any]], t: T.SqlType, nullable: str | None = None) -> Any:
    """``nullable``: an absent primitive is NULL; a WRAPPER primitive is the ``value`` inside its message."""
    if nullable is not None and t.name in _PRIMITIVES:
        if not entries:
            return None
        if nullable == "WRAPPER":  # a present wrapper without its value holds the default, "" for bytes too
            inner = _fields(bytes(entries[-1][1])).get(1, [])
            return _read_field(inner, t) if inner or t.name != "BYTES" else ""
    if isinstance(t, T.Array):
        out = []
        el = t.element
        for wire, raw in entries:
            if wire == 2 and el.name in _SCALAR_WIRE:  # packed
                j = 0
                while j < len(raw):
                    if el.name == "DOUBLE":
                        out.append(struct.unpack_from("<d", raw, j)[0])
                        j += 8
                    else:
                        n, j = _read_uvarint(raw, j)
                        out.append(_read_one(el, 0, n))
            else:
                out.append(_read_one(el, wire, raw))
        return out
    if isinstance(t, T.Map):
        out_map = {}
        for _, raw in entries:
            entry = _fields(bytes(raw))
            out_map[_read_field(entry.get(1, []), t.key)] = _read_field(entry.get(2, []), t.value)
        return out_map
    if not entries:  # proto3's default, but an unset bytes field reads NULL (as the engine reads it)
        return {"BOOLEAN": False, "INTEGER": 0, "BIGINT": 0, "DOUBLE": 0.0, "STRING": ""}.get(t.name)
    wire, raw = entries[-1]
    return _read_one(t, wire, raw, nullable)


class ProtobufNoSrCodec:
    """spec <-> bytes for one side (key or value) of a source in PROTOBUF_NOSR."""

    def __init__(self, columns: list[Any], nullable: str | None = None, unwrapped: bool = False) -> None:
        """``nullable``: the side's ``*_PROTOBUF_NULLABLE_REPRESENTATION`` (WRAPPER, OPTIONAL or None).
        ``unwrapped``: a single column written bare (a single key, WRAP_SINGLE_VALUE=false); a STRUCT column
        is then the root message itself, its spec the struct's fields."""
        self.columns = [(c.name, c.type) for c in columns]
        self.nullable = nullable
        self.root: T.Struct | None = None
        if unwrapped and len(self.columns) == 1 and isinstance(self.columns[0][1], T.Struct):
            self.root = self.columns[0][1]

    def encode(self, spec: Any) -> bytes | None:
        if spec is None:
            return None
        if self.root is not None:
            return b"".join(_write(i, ft, _pick(spec, n), self.nullable) for i, (n, ft) in enumerate(self.root.fields, 1))
        if not isinstance(spec, dict) and len(self.columns) == 1:
            spec = {self.columns[0][0]: spec}
        return b"".join(_write(i, t, _pick(spec, n), self.nullable) for i, (n, t) in enumerate(self.columns, 1))

    def decode(self, data: bytes | None) -> Any:
        if data is None:
            return None
        try:
            got = _fields(bytes(data))
            if self.root is not None:
                return _read_one(self.root, 2, bytes(data), self.nullable)
            row = {n: _read_field(got.get(i, []), t, self.nullable) for i, (n, t) in enumerate(self.columns, 1)}
        except (ValueError, IndexError) as e:
            from ksqlpy.testing.specserde import Undecodable

            return Undecodable(bytes(data), f"not a PROTOBUF_NOSR message: {e}")
        return row


# --------------------------------------------------------------------------- PROTOBUF (schema registry)
def _spec_to_proto(file: Any, kind: str, spec: Any, f: Any) -> Any:
    """A spec value as the proto value of ``kind`` (the QTT conventions, as for PROTOBUF_NOSR)."""
    from ksqlpy.serde import protobuf_types as pt
    from ksqlpy.serde.protobuf_schema import ProtoEnum

    if spec is None:
        return None
    if kind == pt.TIMESTAMP:
        ms = int(spec)
        return {"seconds": ms // 1000, "nanos": ms % 1000 * 1000000}
    if kind == pt.DATE:
        day = datetime.date(1970, 1, 1) + datetime.timedelta(days=int(spec))
        return {"year": day.year, "month": day.month, "day": day.day}
    if kind == pt.TIME:
        ms = int(spec)
        return {"hours": ms // 3600000, "minutes": ms // 60000 % 60, "seconds": ms // 1000 % 60,
                "nanos": ms % 1000 * 1000000}
    if kind == pt.DECIMAL:
        return pt.decimal_message(Decimal(str(spec)), T.STRING, f)
    if kind in pt.WRAPPERS:
        return {"value": _spec_to_proto(file, pt.WRAPPERS[kind], spec, f)}
    if kind == "string":
        from ksqlpy.testing import exactjson

        return spec if isinstance(spec, str) else exactjson.dumps(spec)
    if kind == "bytes":
        return base64.b64decode(spec) if isinstance(spec, str) else bytes(spec)
    if kind == "bool":
        return bool(spec)
    if kind in ("double", "float"):
        return float(str(spec))
    if kind in pt.SCALAR_SQL:
        return int(Decimal(str(spec)))
    target = file.lookup(kind)
    if isinstance(target, ProtoEnum):
        return str(spec)
    return _spec_message(file, target, spec)


def _spec_message(file: Any, msg: Any, spec: Any) -> dict[str, Any]:
    from ksqlpy.serde import protobuf_types as pt

    if not isinstance(spec, dict):
        if len(msg.fields) != 1:
            raise ValueError(f"spec {spec!r} is not an object for message {msg.full_name}")
        spec = {msg.fields[0].name: spec}
    out: dict[str, Any] = {}
    for f in msg.fields:
        v = _pick(spec, f.name)
        if v is None:
            continue
        if f.is_map:
            out[f.name] = {_spec_to_proto(file, f.key_type, k, f): _spec_to_proto(file, f.type, x, f)
                           for k, x in v.items()}
        elif isinstance(v, dict) and pt.entry_fields(file, f) is not None:  # a map as repeated entries
            out[f.name] = [_spec_message(file, file.lookup(f.type), {"key": k, "value": x}) for k, x in v.items()]
        elif f.is_repeated:
            out[f.name] = [_spec_to_proto(file, f.type, x, f) for x in v]
        else:
            out[f.name] = _spec_to_proto(file, f.type, v, f)
    return out


def _proto_to_spec(file: Any, kind: str, v: Any) -> Any:
    from ksqlpy.serde import protobuf_types as pt
    from ksqlpy.serde.protobuf_schema import ProtoMessage

    if v is None:
        return None
    if kind in (pt.TIMESTAMP, pt.DATE, pt.TIME):
        return pt.to_sql(file, kind, v, T.BIGINT)
    if kind == pt.DECIMAL:
        raw = v.get("value", b"")
        return Decimal(int.from_bytes(raw, "big", signed=True) if raw else 0).scaleb(-int(v.get("scale", 0)), context=_WIDE)
    if kind in pt.WRAPPERS:  # a present wrapper without its value field holds the wrapped type's default
        from ksqlpy.serde.protobuf_wire import default

        return _proto_to_spec(file, pt.WRAPPERS[kind], v.get("value", default(file, pt.WRAPPERS[kind])))
    if kind == "bytes":
        return base64.b64encode(v).decode()
    if kind in _LONG_KINDS and isinstance(v, int) and not isinstance(v, bool):
        return JavaLong(v)  # a Long in ksqlDB's harness (compare.record_numbers_equal)
    if kind == "float":
        return float(f"{v:.7g}")
    if isinstance(v, dict):
        msg = file.lookup(kind)
        if isinstance(msg, ProtoMessage):
            return _message_spec(file, msg, v)
    return v


def _message_spec(file: Any, msg: Any, values: dict[str, Any]) -> dict[str, Any]:
    from ksqlpy.serde import protobuf_types as pt
    from ksqlpy.serde.protobuf_wire import default

    out: dict[str, Any] = {}
    for f in msg.fields:
        v = values.get(f.name)
        if f.is_map:
            out[f.name] = {_proto_to_spec(file, f.key_type, k): _proto_to_spec(file, f.type, x)
                           for k, x in (v or {}).items()}
        elif (entry := pt.entry_fields(file, f)) is not None:  # a map as repeated entries
            entries = [_message_spec(file, file.lookup(f.type), x) for x in v or ()]
            out[f.name] = {e[entry[0].name]: e[entry[1].name] for e in entries}
        elif f.is_repeated:
            out[f.name] = [_proto_to_spec(file, f.type, x) for x in v or ()]
        elif v is None:
            if f.label == "optional" or f.type == "bytes":  # an absent optional or bytes field is NULL
                out[f.name] = None
            elif f.oneof is None:
                d = default(file, f.type)
                out[f.name] = base64.b64encode(d).decode() if isinstance(d, bytes) else d
        else:
            out[f.name] = _proto_to_spec(file, f.type, v)
    return out


class ProtobufSrCodec:
    """Spec <-> Confluent-framed protobuf through the engine's registry (its schemas, never its serdes).

    Inputs are written with the subject's latest schema (its message ``full_name``, else the first one) and
    that message's indexes; outputs are read with the schema and message their framing names."""

    def __init__(self, registry: Any, subject: str, full_name: str | None = None) -> None:
        self.registry = registry
        self.subject = subject
        self.full_name = full_name

    def encode(self, spec: Any) -> bytes | None:
        from ksqlpy.serde.protobuf_format import registry_loader
        from ksqlpy.serde.protobuf_schema import parse_proto
        from ksqlpy.serde.protobuf_wire import encode, frame

        if spec is None:
            return None
        rs = self.registry.latest(self.subject)
        if rs is None:
            raise ValueError(f"no schema registered for subject {self.subject}")
        file = parse_proto(rs.schema, registry_loader(self.registry))
        msg = file.message(self.full_name)
        return frame(rs.id, file.indexes(msg), encode(file, msg, _spec_message(file, msg, spec)))

    def decode(self, data: bytes | None) -> Any:
        from ksqlpy.serde.protobuf_format import registry_loader
        from ksqlpy.serde.protobuf_schema import parse_proto
        from ksqlpy.serde.protobuf_wire import decode, unframe
        from ksqlpy.testing.specserde import Undecodable

        if data is None:
            return None
        try:
            sid, indexes, body = unframe(bytes(data))
            rs = self.registry.by_id(sid)
            if rs is None:
                return Undecodable(bytes(data), f"unknown schema id {sid}")
            file = parse_proto(rs.schema, registry_loader(self.registry))
            msg = file.by_indexes(indexes)
            return _message_spec(file, msg, decode(file, msg, body))
        except Exception as e:  # noqa: BLE001 - anything unreadable is a mismatch, not a crash
            return Undecodable(bytes(data), f"not PROTOBUF: {e}")
