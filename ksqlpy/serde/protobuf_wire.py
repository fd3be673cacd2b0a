"""Protocol Buffers on the wire: varints, the Confluent framing, and messages read and written by schema.

Two layers, both free of SQL types:

- primitives (``varint``, ``read_varint``, ``raw_fields``, ``signed``) shared with PROTOBUF_NOSR;
- ``encode``/``decode`` of a ``ProtoMessage`` (see ``protobuf_schema``) to and from *proto values*: a
  message is a dict of field name -> value holding only the fields present on the wire (proto3 implicit
  presence: a scalar equal to its default is not written), repeated fields are lists, maps are dicts,
  enums are their value names, nested messages are dicts. The SQL mapping sits on top (``protobuf_types``).

The Confluent wire format (``frame``/``unframe``): magic byte 0, the 4-byte big-endian schema id, then the
*message indexes* - the path of the written message among the schema's (nested) messages as a zig-zag
varint count and zig-zag varints, with the common ``[0]`` written as the single byte 0 - then the message.
"""

from __future__ import annotations

import struct
from typing import Any

from ksqlpy.serde.base import SerdeError, SinkSchemaError
from ksqlpy.serde.protobuf_schema import ProtoEnum, ProtoField, ProtoFile, ProtoMessage
from ksqlpy.utf16 import JAVA_UTF8

_MASK64 = (1 << 64) - 1
_HEADER = struct.Struct(">bI")
_VARINT_TYPES = frozenset({"int32", "int64", "uint32", "uint64", "bool", "sint32", "sint64"})
_FIXED = {"double": (1, struct.Struct("<d")), "float": (5, struct.Struct("<f")), "fixed32": (5, struct.Struct("<I")),
          "sfixed32": (5, struct.Struct("<i")), "fixed64": (1, struct.Struct("<Q")),
          "sfixed64": (1, struct.Struct("<q"))}
_DEFAULTS: dict[str, Any] = {"string": "", "bytes": b"", "bool": False, "double": 0.0, "float": 0.0}


# --------------------------------------------------------------------------- primitives
def varint(out: bytearray, v: int) -> None:
    v &= _MASK64
    while v > 0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise SerdeError("Protobuf message ends inside a varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise SerdeError("Protobuf varint is too long")


def signed(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def raw_fields(buf: bytes) -> list[tuple[int, int, Any]]:
    """(field number, wire type, raw value) of every field of a message, in order. A group (wire types 3
    and 4, proto2's) is no field of a ksqlDB schema: skipped whole, as protobuf skips an unknown field."""
    out: list[tuple[int, int, Any]] = []
    pos, n = 0, len(buf)
    groups: list[int] = []  # field numbers of the groups being skipped, innermost last
    while pos < n:
        key, pos = read_varint(buf, pos)
        num, wire = key >> 3, key & 7
        if num == 0:
            raise SerdeError("Protocol message contained an invalid tag (zero).")
        if wire == 3:
            groups.append(num)
            continue
        if wire == 4:
            if not groups or groups.pop() != num:
                raise SerdeError("Protocol message end-group tag did not match expected tag.")
            continue
        if wire == 0:
            v, pos = read_varint(buf, pos)
        elif wire == 1:
            v, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            size, pos = read_varint(buf, pos)
            v, pos = buf[pos:pos + size], pos + size
        elif wire == 5:
            v, pos = buf[pos:pos + 4], pos + 4
        else:
            raise SerdeError("Protocol message tag had invalid wire type.")
        if pos > n:
            raise SerdeError("Protobuf message is truncated")
        if not groups:
            out.append((num, wire, v))
    if groups:
        raise SerdeError("Protobuf message is truncated")
    return out


def _zigzag(n: int) -> int:
    return (n << 1) ^ (n >> 63)


def _unzigzag(n: int) -> int:
    return (n >> 1) ^ -(n & 1)


# --------------------------------------------------------------------------- Confluent framing
def frame(schema_id: int, indexes: list[int], body: bytes) -> bytes:
    out = bytearray(_HEADER.pack(0, schema_id))
    if list(indexes) == [0]:
        out.append(0)
    else:
        varint(out, _zigzag(len(indexes)))
        for i in indexes:
            varint(out, _zigzag(i))
    return bytes(out) + body


def unframe(data: bytes, fmt: str = "PROTOBUF") -> tuple[int, list[int], bytes]:
    """(schema id, message indexes, message bytes) of a Confluent-framed protobuf record."""
    if len(data) < 6 or data[0] != 0:
        raise SerdeError(f"Failed to deserialize data from {fmt}: Unknown magic byte!")
    schema_id = _HEADER.unpack_from(data)[1]
    count, pos = read_varint(data, 5)
    count = _unzigzag(count)
    indexes = []
    for _ in range(count):
        i, pos = read_varint(data, pos)
        indexes.append(_unzigzag(i))
    return schema_id, indexes or [0], bytes(data[pos:])


# --------------------------------------------------------------------------- reading
def _scalar(kind: str, wire: int, raw: Any) -> Any:
    """A scalar field's value as protobuf-java holds it: ``uint64``/``fixed64`` are a Java long (their bits,
    so 2^64-1 is -1: a BIGINT, as ProtobufData passes the long on); ``uint32``/``fixed32`` unsigned
    (ProtobufData widens them with Integer.toUnsignedLong)."""
    if kind in _FIXED:
        v = _FIXED[kind][1].unpack(raw)[0]
        return signed(v, 64) if kind == "fixed64" else v
    if wire != 0:
        raise SerdeError(f"Protobuf {kind} field has wire type {wire}")
    if kind == "bool":
        return raw != 0
    if kind in ("int32", "sint32"):
        return _unzigzag(raw) if kind == "sint32" else signed(raw, 32)
    if kind == "sint64":
        return _unzigzag(raw)
    if kind == "int64":
        return signed(raw, 64)
    if kind == "uint32":
        return raw & 0xFFFFFFFF
    return signed(raw, 64)  # uint64: a Java long


def _packed(kind: str, raw: bytes) -> list[Any]:
    if kind in _FIXED:
        fmt = _FIXED[kind][1]
        return [_scalar(kind, 1, raw[i:i + fmt.size]) for i in range(0, len(raw), fmt.size)]
    out, pos = [], 0
    while pos < len(raw):
        v, pos = read_varint(raw, pos)
        out.append(_scalar(kind, 0, v))
    return out


def _value(file: ProtoFile, kind: str, wire: int, raw: Any) -> Any:
    if kind == "string":
        return bytes(raw).decode("utf-8", JAVA_UTF8)
    if kind == "bytes":
        return bytes(raw)
    if kind in _VARINT_TYPES or kind in _FIXED:
        return _scalar(kind, wire, raw)
    t = file.lookup(kind)
    if isinstance(t, ProtoEnum):
        return enum_name(t, signed(raw, 32))
    if wire != 2:
        raise SerdeError(f"Protobuf message field {t.full_name} has wire type {wire}")
    return decode(file, t, raw)


def wire_matches(wire: int, expected: int, repeated: bool) -> bool:
    """Whether protobuf's parser reads a field sent with ``wire`` as the declared field: its own wire type,
    or for a repeated scalar also the packed form (2). Anything else Java's ``MessageReflection`` treats
    as an unknown field and skips, so the declared field stays unset (its default, or NULL)."""
    return wire == expected or (repeated and wire == 2 and expected != 2)


UNKNOWN = object()  # a closed enum's undeclared number: protobuf keeps it as an unknown field


def enum_name(t: ProtoEnum, number: int) -> Any:
    """The value protobuf-java reads for ``number`` of enum ``t`` (MessageReflection, from memory): the first
    name declared for it; an undeclared number of an open (proto3) enum a value created for it, named
    ``UNKNOWN_ENUM_VALUE_<Enum>_<n>`` (findValueByNumberCreatingIfUnknown); of a closed (proto2) enum no value
    at all (``UNKNOWN``: the field reads as unset, the element or map entry is dropped)."""
    name = t.values.get(number)
    if name is not None:
        return name
    return UNKNOWN if t.closed else f"UNKNOWN_ENUM_VALUE_{t.full_name.rpartition('.')[2]}_{number}"


def decode(file: ProtoFile, msg: ProtoMessage, data: bytes) -> dict[str, Any]:
    """The fields present in ``data`` (a message of type ``msg``) as proto values. A proto2 ``required``
    field missing fails the parse, as DynamicMessage.parseFrom does (the record is a bad record)."""
    fields = msg.by_number()
    out: dict[str, Any] = {}
    for num, wire, raw in raw_fields(data):
        f = fields.get(num)
        if f is None or not wire_matches(wire, 2 if f.is_map else _wire_of(file, f.type), f.is_repeated):
            continue  # unknown fields (and known ones with another wire type) are skipped, as protobuf does
        if f.is_map:
            entry = raw_fields(raw)
            k = v = None
            for n, w, r in entry:
                if n == 1 and w == _wire_of(file, f.key_type or "string"):
                    k = _value(file, f.key_type or "string", w, r)
                elif n == 2 and w == _wire_of(file, f.type):
                    v = _value(file, f.type, w, r)
            if k is None:
                k = _DEFAULTS.get(f.key_type or "", 0)
            if v is None and f.type != "bytes":  # an unset bytes value reads NULL, as an unset bytes field does
                v = default(file, f.type)
            if v is UNKNOWN:
                continue
            out.setdefault(f.name, {})[k] = v
        elif f.is_repeated:
            items = out.setdefault(f.name, [])
            if wire == 2 and _wire_of(file, f.type) != 2:  # packed scalars
                if _is_enum(file, f.type):
                    en = file.lookup(f.type)
                    items.extend(x for x in (_value(file, en.full_name, 0, x) for x in _packed("uint64", raw))
                                 if x is not UNKNOWN)
                else:
                    items.extend(_packed(f.type, raw))
            elif (item := _value(file, f.type, wire, raw)) is not UNKNOWN:
                items.append(item)
        else:
            value = _value(file, f.type, wire, raw)
            if value is UNKNOWN:
                continue
            if f.oneof is not None:
                for other in msg.fields:
                    if other.oneof == f.oneof:
                        out.pop(other.name, None)
            if isinstance(value, dict) and isinstance(out.get(f.name), dict):
                value = {**out[f.name], **value}  # repeated occurrences of a message field merge
            out[f.name] = value
    missing = [f.name for f in msg.fields if f.label == "required" and f.name not in out]
    if missing:
        raise SerdeError(f"Message missing required fields: {', '.join(missing)}")
    return out


def _is_enum(file: ProtoFile, kind: str) -> bool:
    return kind not in _DEFAULTS and kind not in _VARINT_TYPES and kind not in _FIXED and isinstance(
        file.lookup(kind), ProtoEnum)


def default(file: ProtoFile, kind: str) -> Any:
    """proto3's default of a singular field of type ``kind`` (None for messages: absent)."""
    if kind in _DEFAULTS:
        return _DEFAULTS[kind]
    if kind in _VARINT_TYPES or kind in _FIXED:
        return 0
    t = file.lookup(kind)
    if isinstance(t, ProtoEnum):
        return t.values.get(0, "0")
    return None


# --------------------------------------------------------------------------- writing
def _write_scalar(out: bytearray, kind: str, v: Any) -> None:
    if kind in ("double", "float"):
        out += _FIXED[kind][1].pack(float(v))
    elif kind in ("fixed64", "fixed32"):  # the value's bits, as protobuf-java writes a long/int
        out += _FIXED[kind][1].pack(int(v) & (_MASK64 if kind == "fixed64" else 0xFFFFFFFF))
    elif kind in _FIXED:
        out += _FIXED[kind][1].pack(int(v))
    elif kind in ("sint32", "sint64"):
        varint(out, _zigzag(int(v)))
    else:
        varint(out, int(v))


def _wire_of(file: ProtoFile, kind: str) -> int:
    if kind in _FIXED:
        return _FIXED[kind][0]
    if kind in _VARINT_TYPES or _is_enum(file, kind):
        return 0
    return 2


def _is_default(kind: str, v: Any) -> bool:
    if kind in ("double", "float"):
        return v == 0 and str(float(v))[0] != "-"
    if isinstance(v, str | bytes | bool | int | float):
        return not v
    return False


def _field(out: bytearray, file: ProtoFile, f: ProtoField, kind: str, num: int, v: Any, presence: bool) -> None:
    if v is None:
        return
    if kind == "string" or kind == "bytes":
        raw = v.encode("utf-8", "replace") if isinstance(v, str) else bytes(v)
        if raw or presence:
            varint(out, num << 3 | 2)
            varint(out, len(raw))
            out += raw
        return
    if kind in _VARINT_TYPES or kind in _FIXED:
        if presence or not _is_default(kind, v):
            varint(out, num << 3 | _FIXED.get(kind, (0,))[0])
            _write_scalar(out, kind, v)
        return
    t = file.lookup(kind)
    if isinstance(t, ProtoEnum):
        n = t.number(v) if isinstance(v, str) else int(v)
        if n or presence:
            varint(out, num << 3)
            varint(out, n)
        return
    body = encode(file, t, v)
    varint(out, num << 3 | 2)
    varint(out, len(body))
    out += body


def repeated_items(values: Any, field: str) -> list[Any]:
    """The elements of a repeated field. Protobuf has no NULL element (its message builder refuses one), so
    ksqlDB's serializer fails and the query with it (a SinkSchemaError; INSERT VALUES is refused)."""
    items = list(values)
    if any(x is None for x in items):
        raise SinkSchemaError(f"Cannot write a NULL element into the repeated field {field}: protobuf arrays "
                              "have no NULL elements")
    return items


def encode(file: ProtoFile, msg: ProtoMessage, values: dict[str, Any]) -> bytes:
    """The bytes of a message of type ``msg`` with the (proto) ``values`` given by field name."""
    out = bytearray()
    for f in sorted(msg.fields, key=lambda x: x.number):
        v = values.get(f.name)
        if v is None:
            continue
        if f.is_map:
            for k, x in v.items():
                entry = bytearray()
                _field(entry, file, f, f.key_type or "string", 1, k, False)
                _field(entry, file, f, f.type, 2, x, False)
                varint(out, f.number << 3 | 2)
                varint(out, len(entry))
                out += entry
        elif f.is_repeated:
            items = repeated_items(v, f"'{f.name}' of message {msg.name}")
            if not items:
                continue
            if _wire_of(file, f.type) != 2:  # packed, as proto3 writes repeated scalars
                body = bytearray()
                t = None if f.type in _VARINT_TYPES or f.type in _FIXED else file.lookup(f.type)
                for x in items:
                    if isinstance(t, ProtoEnum):
                        varint(body, t.number(x) if isinstance(x, str) else int(x))
                    else:
                        _write_scalar(body, f.type, x)
                varint(out, f.number << 3 | 2)
                varint(out, len(body))
                out += body
            else:
                for x in items:
                    _field(out, file, f, f.type, f.number, x, True)
        else:
            # fields with presence (proto2's labels, proto3's optional, oneof members) are written when set, even
            # to their default
            _field(out, file, f, f.type, f.number, v, f.label in ("optional", "required") or f.oneof is not None)
    return bytes(out)
