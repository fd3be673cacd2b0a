"""PROTOBUF schemas <-> SQL types, and proto values <-> ksqlpy values, as ksqlDB maps them.

ksqlDB goes through Kafka Connect's ``ProtobufData``; the mapping here is the one it gives:

| protobuf | SQL |
|---|---|
| bool, string, bytes, double, float | BOOLEAN, STRING, BYTES, DOUBLE, DOUBLE |
| int32, sint32, sfixed32 | INT |
| int64, sint64, sfixed64, uint32, fixed32, uint64, fixed64 | BIGINT |
| enum | STRING (the value's name) |
| repeated T / map<K, V> | ARRAY<T> / MAP<K, V> |
| repeated ``...Entry`` {key = 1; value = 2} (Connect's map form) | MAP<K, V> (V may be an ARRAY or a MAP) |
| message | STRUCT (a ``oneof`` group is one STRUCT field named ``<oneof>_<i>``, i its index among the oneofs) |
| google.protobuf.Timestamp, google.type.Date, google.type.TimeOfDay | TIMESTAMP, DATE, TIME |
| confluent.type.Decimal (precision/scale in ``confluent.field_meta`` params) | DECIMAL(p, s) |
| google.protobuf.*Value wrappers | STRUCT<value T>; with ``*_PROTOBUF_NULLABLE_REPRESENTATION='WRAPPER'`` the wrapped type, nullable (absent wrapper = NULL) |

NULL handling is proto3's (ksqlDB's default ``PROTOBUF`` serde): a NULL scalar is not written and reads
back as its default (0, "", false; [] and {} for repeated and map) - but an unset bytes field reads NULL, as
in ksqlDB; message-typed values
(STRUCT, DECIMAL, DATE, TIME, TIMESTAMP, wrappers) and ``optional`` fields keep NULL as absence.

``schema_text`` writes the ``.proto`` ksqlDB registers for columns it serializes: ``syntax = "proto3"``,
the imports the types need, one message ``ConnectDefault1`` (or ``*_SCHEMA_FULL_NAME``) with a field per
column numbered from 1, nested STRUCTs as nested messages ``ConnectDefault2``, ``ConnectDefault3``, ...; every
MAP as ProtobufData writes it (from memory of its fromConnectSchema: the entry is named ``getNameOrDefault`` +
``Entry`` and built without the map_entry option, so ProtobufSchema prints it as a message), a repeated
``ConnectDefault<n>Entry`` field whose nested message has ``key = 1`` and ``value = 2`` - a STRUCT value's
message nested inside the entry; the entry takes its default name (n) before its value's. An ARRAY of ARRAYs
or of MAPs has no protobuf form.
"""

from __future__ import annotations

import datetime as _dt
import re
from decimal import Context
from decimal import Decimal as PyDecimal
from typing import Any

from ksqlpy import types as T
from ksqlpy.serde import connect_types as CT
from ksqlpy.serde.base import SerdeError, UnreadableSchemaError
from ksqlpy.serde.coerce import fit_decimal
from ksqlpy.serde.protobuf_schema import ProtoEnum, ProtoField, ProtoFile, ProtoMessage
from ksqlpy.serde.protobuf_wire import default
from ksqlpy.utf16 import JAVA_UTF8

DEFAULT_NAME = "ConnectDefault1"
TIMESTAMP, DATE, TIME, DECIMAL = ("google.protobuf.Timestamp", "google.type.Date", "google.type.TimeOfDay",
                                  "confluent.type.Decimal")
WRAPPERS = {f"google.protobuf.{n}Value": k for n, k in (("Double", "double"), ("Float", "float"),
             ("Int64", "int64"), ("UInt64", "uint64"), ("Int32", "int32"), ("UInt32", "uint32"),
             ("Bool", "bool"), ("String", "string"), ("Bytes", "bytes"))}
SCALAR_SQL = {"bool": T.BOOLEAN, "string": T.STRING, "bytes": T.BYTES, "double": T.DOUBLE, "float": T.DOUBLE,
               "int32": T.INTEGER, "sint32": T.INTEGER, "sfixed32": T.INTEGER, "int64": T.BIGINT,
               "sint64": T.BIGINT, "sfixed64": T.BIGINT, "uint32": T.BIGINT, "fixed32": T.BIGINT,
               "uint64": T.BIGINT, "fixed64": T.BIGINT}
_EPOCH = _dt.date(1970, 1, 1)

_WIDE = Context(prec=1000)  # any DECIMAL: the default context (28 digits) rounds wider values


# --------------------------------------------------------------------------- schema -> SQL types
def sql_type_of(file: ProtoFile, msg: ProtoMessage, *, upper: bool = True,
                _open: tuple[int, ...] = ()) -> T.Struct:
    """The STRUCT ksqlDB infers for message ``msg`` (field names upper-cased unless ``upper`` is False). A
    message that contains itself (at any depth) has no SQL type: UnreadableSchemaError. ``_open``: the
    messages being expanded."""
    if id(msg) in _open:
        raise UnreadableSchemaError(f"Recursive schema: message {msg.name} contains itself, which no SQL type "
                                    "can hold")
    _open = (*_open, id(msg))
    fields: list[tuple[str, T.SqlType]] = []
    seen: set[str] = set()
    for f in msg.fields:
        if f.oneof is not None:
            if f.oneof in seen:
                continue
            seen.add(f.oneof)
            group = [g for g in msg.fields if g.oneof == f.oneof]
            name = oneof_name(msg, f.oneof)
            fields.append((name.upper() if upper else name,
                           T.Struct(tuple((_name(g.name, upper), field_type(file, g, upper=upper, _open=_open))
                                          for g in group))))
        else:
            fields.append((_name(f.name, upper), field_type(file, f, upper=upper, _open=_open)))
    return T.Struct(tuple(fields))


def oneof_name(msg: ProtoMessage, oneof: str) -> str:
    """The Connect field of a oneof group: its name and its index among the message's oneofs
    (``ProtobufData.unionFieldName``), ``choice_0`` for the first, ``other_1`` for the second."""
    return f"{oneof}_{msg.oneofs.index(oneof) if oneof in msg.oneofs else 0}"


def _name(n: str, upper: bool) -> str:
    return n.upper() if upper else n


def field_type(file: ProtoFile, f: ProtoField, *, upper: bool = True, _open: tuple[int, ...] = ()) -> T.SqlType:
    if f.is_map:
        return T.Map(kind_type(file, f.key_type or "string", f, upper, _open),
                     kind_type(file, f.type, f, upper, _open))
    entry = entry_fields(file, f)
    if entry is not None:
        return T.Map(field_type(file, entry[0], upper=upper, _open=_open),
                     field_type(file, entry[1], upper=upper, _open=_open))
    t = kind_type(file, f.type, f, upper, _open)
    return T.Array(t) if f.is_repeated else t


def entry_fields(file: ProtoFile, f: ProtoField) -> tuple[ProtoField, ProtoField] | None:
    """(key, value) fields when ``f`` is a MAP written as repeated entry messages: a ``map_entry`` message,
    or one as Connect's ProtobufData writes a map (a message named ``...Entry`` with just ``key = 1`` and
    ``value = 2``; its value may be repeated or a map itself, which ``map<K, V>`` cannot say)."""
    if not f.is_repeated or f.type in SCALAR_SQL or f.type in WRAPPERS or f.type in (TIMESTAMP, DATE, TIME, DECIMAL):
        return None
    t = file.lookup(f.type)
    if not isinstance(t, ProtoMessage) or len(t.fields) != 2:
        return None
    by_name = {g.name: g for g in t.fields}
    key, value = by_name.get("key"), by_name.get("value")
    if key is None or value is None or key.number != 1 or value.number != 2 or key.is_repeated:
        return None
    return (key, value) if t.map_entry or t.name.endswith("Entry") else None


def kind_type(file: ProtoFile, kind: str, f: ProtoField | None, upper: bool,
              _open: tuple[int, ...] = ()) -> T.SqlType:
    if kind in SCALAR_SQL:
        return SCALAR_SQL[kind]
    if kind == TIMESTAMP:
        return T.TIMESTAMP
    if kind == DATE:
        return T.DATE
    if kind == TIME:
        return T.TIME
    if kind == DECIMAL:
        params = f.params if f is not None else {}
        return T.Decimal(int(params.get("precision", 64)), int(params.get("scale", 0)))
    if kind in WRAPPERS and file.unwrap_wrappers:
        return SCALAR_SQL[WRAPPERS[kind]]
    t = file.lookup(kind)
    if isinstance(t, ProtoEnum):
        return T.STRING
    return sql_type_of(file, t, upper=upper, _open=_open)


# --------------------------------------------------------------------------- proto values -> SQL values
def match(name: str, candidates: dict[str, Any]) -> str | None:
    """The candidate named ``name``: exactly, else ignoring case."""
    if name in candidates:
        return name
    low = name.lower()
    return next((c for c in candidates if c.lower() == low), None)


def message_to_row(file: ProtoFile, msg: ProtoMessage, values: dict[str, Any],
                   columns: list[tuple[str, T.SqlType]]) -> tuple:
    """The row of ``columns`` a decoded message gives (fields by name; a lone field fills a lone column)."""
    slots = _slots(msg)
    row = []
    for name, t in columns:
        src = match(name, slots)
        path = f"->{name}"
        if src is None and len(columns) == 1 and len(slots) == 1:
            src, path = next(iter(slots)), ""  # a bare value: the empty path
        row.append(None if src is None else _slot_value(file, msg, slots[src], values, t, path))
    return tuple(row)


def _slots(msg: ProtoMessage) -> dict[str, Any]:
    """SQL-visible names of a message: its fields, and ``<oneof>_<i>`` for each oneof group."""
    out: dict[str, Any] = {}
    for f in msg.fields:
        if f.oneof is None:
            out[f.name] = f
        else:
            out.setdefault(oneof_name(msg, f.oneof), f.oneof)
    return out


def _slot_value(file: ProtoFile, msg: ProtoMessage, slot: Any, values: dict[str, Any], t: T.SqlType,
                path: str) -> Any:
    if isinstance(slot, ProtoField):
        return field_value(file, slot, values.get(slot.name), t, path)
    group = [g for g in msg.fields if g.oneof == slot]
    _check("struct", t, path)  # a oneof is a Connect struct: checked before its value (validateSchema)
    if not any(g.name in values for g in group):
        return None
    targets = dict(t.fields) if isinstance(t, T.Struct) else {}
    out = {}
    for name, ft in targets.items():
        g = next((g for g in group if g.name.lower() == name.lower()), None)
        out[name] = (None if g is None or g.name not in values
                     else field_value(file, g, values[g.name], ft, f"{path}->{name}"))
    return out


# Connect's widening on read (ksqlDB's ConnectDataTranslator): connect_types.check, by the Connect type
# ProtobufData gives a field
_CONNECT_SCALARS = {"int32": "int32", "sint32": "int32", "sfixed32": "int32", "int64": "int64", "sint64": "int64",
                    "sfixed64": "int64", "uint32": "int64", "fixed32": "int64", "uint64": "int64",
                    "fixed64": "int64", "float": "float32", "double": "float64", "bool": "boolean",
                    "string": "string", "bytes": "bytes",
                    TIMESTAMP: "int64", DATE: "int32", TIME: "int32", DECIMAL: "bytes"}


def connect_type(file: ProtoFile, kind: str) -> str:
    """The Connect type ProtobufData reads a value of proto type ``kind`` as (one element of a repeated)."""
    if kind in _CONNECT_SCALARS:
        return _CONNECT_SCALARS[kind]
    if kind in WRAPPERS and file.unwrap_wrappers:
        return _CONNECT_SCALARS[WRAPPERS[kind]]
    return "string" if isinstance(file.lookup(kind), ProtoEnum) else "struct"


_check = CT.check


def field_value(file: ProtoFile, f: ProtoField, v: Any, t: T.SqlType, path: str = "") -> Any:
    """The SQL value of field ``f`` holding proto value ``v`` (None: absent on the wire); ``path`` names it
    in errors as ksqlDB does (``A->B->ARRAY``)."""
    if f.is_map:
        _check("map", t, path)
        if not v:
            return {}
        kt, vt = (t.key, t.value) if isinstance(t, T.Map) else (T.STRING, T.STRING)
        kind = f.key_type or "string"
        _check(connect_type(file, kind), kt, f"{path}->MAP_KEY")
        _check(connect_type(file, f.type), vt, f"{path}->MAP_VALUE")
        return {to_sql(file, kind, k, kt, f): to_sql(file, f.type, x, vt, f) for k, x in v.items()}
    if isinstance(t, T.Map) and (entry := entry_fields(file, f)) is not None:
        kf, vf = entry
        return {field_value(file, kf, x.get("key"), t.key, f"{path}->MAP_KEY"):
                field_value(file, vf, x.get("value"), t.value, f"{path}->MAP_VALUE") for x in v or ()}
    if f.is_repeated:
        _check("array", t, path)
        el = t.element if isinstance(t, T.Array) else T.STRING
        if v:
            _check(connect_type(file, f.type), el, f"{path}->ARRAY")
        return [to_sql(file, f.type, x, el, f, f"{path}->ARRAY") for x in v or ()]
    _check(connect_type(file, f.type), t, path)  # the field's type before its value: an unset one too
    if v is None:
        if f.label == "optional" or f.oneof is not None or f.type == "bytes":  # ksqlDB reads unset bytes as NULL
            return None
        v = default(file, f.type)
        if v is None:
            return None
    return to_sql(file, f.type, v, t, f, path)


def to_sql(file: ProtoFile, kind: str, v: Any, t: T.SqlType, f: ProtoField | None = None, path: str = "") -> Any:
    """A proto value of type ``kind`` as the ksqlpy value of SQL type ``t``."""
    if v is None:
        return None
    if kind == TIMESTAMP:
        v = int(v.get("seconds", 0)) * 1000 + int(v.get("nanos", 0)) // 1_000_000
    elif kind == DATE:
        v = (_dt.date(v.get("year", 0) or 1970, v.get("month", 0) or 1, v.get("day", 0) or 1) - _EPOCH).days
    elif kind == TIME:
        v = ((v.get("hours", 0) * 60 + v.get("minutes", 0)) * 60 + v.get("seconds", 0)) * 1000 \
            + v.get("nanos", 0) // 1_000_000
    elif kind == DECIMAL:
        raw = v.get("value", b"")
        v = PyDecimal(int.from_bytes(raw, "big", signed=True) if raw else 0).scaleb(-int(v.get("scale", 0)), context=_WIDE)
    elif kind in WRAPPERS and file.unwrap_wrappers:
        v = v.get("value", default(file, WRAPPERS[kind]))
    elif isinstance(v, dict) and not isinstance(t, T.Map):
        target = file.lookup(kind)
        if isinstance(target, ProtoMessage) and isinstance(t, T.Struct):
            slots = _slots(target)
            return {name: (None if (src := match(name, slots)) is None
                           else _slot_value(file, target, slots[src], v, ft, f"{path}->{name}"))
                    for name, ft in t.fields}
    return coerce(v, t)


def coerce(v: Any, t: T.SqlType) -> Any:
    """A decoded value in the representation of SQL type ``t`` (where ksqlDB converts, we do)."""
    if v is None:
        return None
    n = t.name
    if n == "STRING" and not isinstance(v, str):
        return v.decode("utf-8", JAVA_UTF8) if isinstance(v, bytes) else str(v).lower() if isinstance(v, bool) \
            else str(v)
    if n in ("INTEGER", "BIGINT", "DATE", "TIME", "TIMESTAMP") and not isinstance(v, int):
        return int(v)
    if n == "DOUBLE" and not isinstance(v, float):
        return float(v)
    if isinstance(t, T.Decimal):  # DecimalUtil.ensureFit: never rounded, an overflow fails the record
        return fit_decimal(v if isinstance(v, PyDecimal) else PyDecimal(str(v)), t)
    return v


# --------------------------------------------------------------------------- SQL values -> proto values
def row_to_message(file: ProtoFile, msg: ProtoMessage, row: tuple, columns: list[tuple[str, T.SqlType]]
                   ) -> dict[str, Any]:
    slots = _slots(msg)
    out: dict[str, Any] = {}
    for (name, t), v in zip(columns, row, strict=True):
        src = match(name, slots)
        if src is None and len(columns) == 1 and len(slots) == 1:
            src = next(iter(slots))
        if src is not None:
            _put(file, msg, slots[src], v, t, out)
    return out


def _put(file: ProtoFile, msg: ProtoMessage, slot: Any, v: Any, t: T.SqlType, out: dict[str, Any]) -> None:
    if v is None:
        return
    if isinstance(slot, ProtoField):
        out[slot.name] = field_proto(file, slot, v, t)
        return
    targets = dict(t.fields) if isinstance(t, T.Struct) else {}
    for g in (g for g in msg.fields if g.oneof == slot):
        src = match(g.name, targets)
        if src is not None and v.get(src) is not None:
            out[g.name] = field_proto(file, g, v[src], targets[src])
            return


def field_proto(file: ProtoFile, f: ProtoField, v: Any, t: T.SqlType) -> Any:
    if f.is_map:
        kt, vt = (t.key, t.value) if isinstance(t, T.Map) else (T.STRING, T.STRING)
        return {from_sql(file, f.key_type or "string", k, kt, f): from_sql(file, f.type, x, vt, f)
                for k, x in v.items() if k is not None}
    if isinstance(t, T.Map) and (entry := entry_fields(file, f)) is not None:
        kf, vf = entry
        return [{kf.name: field_proto(file, kf, k, t.key),
                 **({} if x is None else {vf.name: field_proto(file, vf, x, t.value)})}
                for k, x in v.items() if k is not None]
    if f.is_repeated:
        el = t.element if isinstance(t, T.Array) else T.STRING
        return [from_sql(file, f.type, x, el, f) for x in v]
    return from_sql(file, f.type, v, t, f)


def from_sql(file: ProtoFile, kind: str, v: Any, t: T.SqlType, f: ProtoField | None = None) -> Any:
    """The proto value of type ``kind`` for ksqlpy value ``v`` of SQL type ``t``."""
    if v is None:
        return None
    if kind == TIMESTAMP:
        ms = int(v)
        return {"seconds": ms // 1000, "nanos": ms % 1000 * 1_000_000}
    if kind == DATE:
        d = _EPOCH + _dt.timedelta(days=int(v))
        return {"year": d.year, "month": d.month, "day": d.day}
    if kind == TIME:
        ms = int(v)
        return {"hours": ms // 3_600_000, "minutes": ms // 60_000 % 60, "seconds": ms // 1000 % 60,
                "nanos": ms % 1000 * 1_000_000}
    if kind == DECIMAL:
        return decimal_message(v, t, f)
    if kind in WRAPPERS and not isinstance(v, dict):  # a STRUCT<value T> is written as the message it is
        return {"value": from_sql(file, WRAPPERS[kind], v, t)}
    if kind in ("string",):
        return v if isinstance(v, str) else str(v)
    if kind == "bytes":
        return bytes(v)
    if kind == "bool":
        return bool(v)
    if kind in ("double", "float"):
        return float(v)
    if kind in SCALAR_SQL:
        return int(v)
    target = file.lookup(kind)
    if isinstance(target, ProtoEnum):
        return str(v)
    if not isinstance(v, dict):
        raise SerdeError(f"PROTOBUF cannot write {t} as message {target.full_name}")
    fields = list(t.fields) if isinstance(t, T.Struct) else [(k, T.STRING) for k in v]
    return row_to_message(file, target, tuple(v.get(n) for n, _ in fields), fields)


def decimal_message(v: Any, t: T.SqlType, f: ProtoField | None) -> dict[str, Any]:
    d = v if isinstance(v, PyDecimal) else PyDecimal(str(v))
    params = f.params if f is not None else {}
    scale = int(params["scale"]) if "scale" in params else t.scale if isinstance(t, T.Decimal) else \
        max(-int(d.as_tuple().exponent), 0)
    unscaled = int(d.scaleb(scale, context=_WIDE).to_integral_value(context=_WIDE))
    raw = unscaled.to_bytes(max(1, (unscaled.bit_length() + 8) // 8), "big", signed=True)
    return {"value": raw, "precision": value_precision(unscaled), "scale": scale}


def value_precision(unscaled: int) -> int:
    """The ``precision`` a ``confluent.type.Decimal`` message carries: the value's own, not the column's -
    ProtobufData writes ``DecimalUtils.fromBigDecimal(value)``, which sets ``BigDecimal.precision()`` (from
    memory): the digits of the unscaled value, 1 for zero (``1.50`` in a DECIMAL(4, 2) says 3). The column's
    precision and scale are in the field's ``confluent.field_meta`` params."""
    return len(str(abs(unscaled)))


# --------------------------------------------------------------------------- columns -> .proto text
def nesting_reason(columns: list[tuple[str, T.SqlType]], fmt: str = "PROTOBUF") -> str | None:
    """Why ``fmt`` (PROTOBUF or PROTOBUF_NOSR) cannot carry ``columns``: an ARRAY directly inside an ARRAY
    has no protobuf form (Connect's ProtobufData: "Array cannot be nested"), and an ARRAY of MAPs would
    read back as one merged MAP. None when it can."""
    def walk(t: T.SqlType) -> T.SqlType | None:
        if isinstance(t, T.Array):
            return t if isinstance(t.element, T.Array | T.Map) else walk(t.element)
        if isinstance(t, T.Map):
            return walk(t.value)
        if isinstance(t, T.Struct):
            return next((bad for _, ft in t.fields if (bad := walk(ft)) is not None), None)
        return None

    for _, t in columns:
        bad = walk(t)
        if bad is not None:
            return f"{fmt} cannot represent {bad}: Array cannot be nested"
    return None


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_identifier(scope: str, name: str) -> None:
    """protobuf-java's rule for a name (Descriptors.validateSymbolName, from memory): ASCII letters, digits
    and ``_``, not starting with a digit. ProtobufData builds its descriptor from the columns and the schema
    full name, so a column, STRUCT field or message (``*_SCHEMA_FULL_NAME``) named otherwise has no PROTOBUF
    schema: SerdeError with protobuf's text, naming the symbol by its full name (``ConnectDefault1.my-col``)."""
    if not _IDENTIFIER.match(name):
        raise SerdeError(f'{scope}{"." if scope else ""}{name}: "{name}" is not a valid identifier.')


def schema_reason(columns: list[tuple[str, T.SqlType]], fmt: str = "PROTOBUF",
                  full_name: str | None = None) -> str | None:
    """Why no ``.proto`` can be written for ``columns`` (a name protobuf refuses), None when one can."""
    try:
        schema_text(columns, full_name)
    except SerdeError as e:
        return f"Schema is not compatible with {fmt}: {e}"
    return None


def decimal_options(t: T.Decimal, indent: str) -> str:
    """A DECIMAL field's options as Confluent's ProtobufSchema prints them (from memory of its
    ProtobufSchemaUtils, which follows Square wire's OptionElement.toSchema): the ``confluent.field_meta``
    option is a MAP-kind option, printed ``{`` and ``}`` around its entries one per line, each nesting level
    two spaces deeper, a list as ``[`` ... ``]`` with its items one per line and a comma after all but the
    last; ProtobufData puts the params in the order of its HashMap (``precision`` before ``scale``). The
    lines after the first are indented as the field is (``indent``)."""
    body = ["params: [", "  {", '    key: "precision",', f'    value: "{t.precision}"', "  },", "  {",
            '    key: "scale",', f'    value: "{t.scale}"', "  }", "]"]
    return " [(confluent.field_meta) = {\n" + "".join(f"{indent}  {line}\n" for line in body) + f"{indent}}}]"


_NULLABLE_WRAPPERS = {"BOOLEAN": "Bool", "INTEGER": "Int32", "BIGINT": "Int64", "DOUBLE": "Double",
                      "STRING": "String", "BYTES": "Bytes"}

class _Writer:
    """Writes the messages ProtobufData makes of Connect schemas. Unnamed messages take Connect's default
    names ``ConnectDefault<n>``, n counting from the root's 1. With a full schema name (``named``) ksqlDB's
    ProtobufSchemaTranslator first names every STRUCT after its path (SchemaFullNameAppender, from memory: a
    field's STRUCT ``<parent>_<field>``, an ARRAY's or MAP's STRUCT that of the ARRAY or MAP), so nested
    messages are ``<Root>_<field>``...; only what stays unnamed (a map entry) counts default names, from 1."""

    def __init__(self, map_entries: bool = True, nullable: str | None = None, *, named: bool = False,
                 package: str = "") -> None:
        self.counter = 0 if named else 1
        self.imports: set[str] = set()
        self.map_entries = map_entries
        self.nullable = nullable
        self.scope = [package] if package else []  # the enclosing message names: descriptor full names

    def message(self, name: str, fields: list[tuple[str, T.SqlType]], indent: str,
                full: str | None = None, paths: list[str | None] | None = None) -> list[str]:
        """``full``: the message's full name when STRUCTs are named after their path, else None; ``paths``:
        the fields' own paths instead (a map entry's key and value are named as the MAP is)."""
        lines = [f"{indent}message {name} {{"]
        nested: list[str] = []
        check_identifier(".".join(self.scope), name)  # a message named by *_SCHEMA_FULL_NAME
        self.scope.append(name)
        for num, (fname, ft) in enumerate(fields, 1):
            check_identifier(".".join(self.scope), fname)
            path = paths[num - 1] if paths is not None else f"{full}_{fname}" if full else None
            decl, extra = self.field(fname, ft, num, indent + "  ", path)
            lines.append(f"{indent}  {decl}")
            nested += extra
        self.scope.pop()
        if nested:
            lines.append("")
            lines += nested
        lines.append(f"{indent}}}")
        return lines

    def field(self, name: str, t: T.SqlType, num: int, indent: str,
              path: str | None = None) -> tuple[str, list[str]]:
        if isinstance(t, T.Array):
            if isinstance(t.element, T.Array | T.Map):
                # Connect's ProtobufData refuses it ("Array cannot be nested"): a repeated field holds
                # no repeated values, and an ARRAY of MAPs would read back as one merged MAP
                raise SerdeError(f"PROTOBUF cannot represent {t}: Array cannot be nested")
            kind, nested, opts = self.kind(t.element, indent, path)
            return f"repeated {kind} {name} = {num}{opts};", nested
        if isinstance(t, T.Map):
            key, _, _ = self.kind(t.key, indent)
            if key not in ("string", "int32", "int64", "bool"):
                raise SerdeError(f"PROTOBUF cannot represent {t}: map keys must be integers, booleans or strings")
            # ProtobufData's form: a nested entry message, repeated, named ConnectDefault<n>Entry (n a default
            # name it takes before the value's); ``map<K, V>`` only where a caller asks for it
            if self.map_entries or isinstance(t.value, T.Array | T.Map):
                self.counter += 1
                entry = f"ConnectDefault{self.counter}Entry"
                return f"repeated {entry} {name} = {num};", self.message(entry, [("key", t.key), ("value", t.value)],
                                                                          indent, paths=[path, path])
            kind, nested, opts = self.kind(t.value, indent, path)
            return f"map<{key}, {kind}> {name} = {num}{opts};", nested
        kind, nested, opts = self.kind(t, indent, path)
        if t.name in _NULLABLE_WRAPPERS and self.nullable == "WRAPPER":
            self.imports.add("google/protobuf/wrappers.proto")
            return f"google.protobuf.{_NULLABLE_WRAPPERS[t.name]}Value {name} = {num};", nested
        if t.name in _NULLABLE_WRAPPERS and self.nullable == "OPTIONAL":
            return f"optional {kind} {name} = {num}{opts};", nested
        return f"{kind} {name} = {num}{opts};", nested

    def kind(self, t: T.SqlType, indent: str, path: str | None = None) -> tuple[str, list[str], str]:
        simple = {"BOOLEAN": "bool", "INTEGER": "int32", "BIGINT": "int64", "DOUBLE": "double",
                  "STRING": "string", "BYTES": "bytes"}
        if t.name in simple:
            return simple[t.name], [], ""
        if isinstance(t, T.Decimal):
            self.imports.add("confluent/meta.proto")
            self.imports.add("confluent/type/decimal.proto")
            return DECIMAL, [], decimal_options(t, indent)
        if t.name == "TIMESTAMP":
            self.imports.add("google/protobuf/timestamp.proto")
            return TIMESTAMP, [], ""
        if t.name == "DATE":
            self.imports.add("google/type/date.proto")
            return DATE, [], ""
        if t.name == "TIME":
            self.imports.add("google/type/timeofday.proto")
            return TIME, [], ""
        if isinstance(t, T.Struct):
            if path is not None:
                name = path.rpartition(".")[2]
                return name, self.message(name, list(t.fields), indent, path), ""
            self.counter += 1
            name = f"ConnectDefault{self.counter}"
            return name, self.message(name, list(t.fields), indent), ""
        raise SerdeError(f"PROTOBUF cannot represent type {t}")


def schema_text(columns: list[tuple[str, T.SqlType]], full_name: str | None = None, *,
                map_entries: bool = True, nullable: str | None = None) -> str:
    """The ``.proto`` ksqlDB registers for a message of ``columns`` (the same text as the protobuf query
    responses' ``protoSchema``); ``map_entries``: MAPs as repeated ``ConnectDefault<n>Entry`` {key = 1;
    value = 2} messages, as ProtobufData prints them - False writes ``map<K, V>`` where protobuf allows it (the
    same wire format).

    ``nullable`` is ``*_PROTOBUF_NULLABLE_REPRESENTATION``: ``WRAPPER`` writes primitive fields (of the row
    and of its STRUCTs) as ``google.protobuf.*Value`` wrappers, ``OPTIONAL`` as proto3 ``optional`` fields,
    so a NULL is absent rather than the type's default; None keeps plain proto3 fields."""
    package, _, name = (full_name or DEFAULT_NAME).rpartition(".")
    for part in package.split(".") if package else ():  # the package of a *_SCHEMA_FULL_NAME
        if not _IDENTIFIER.match(part):
            raise SerdeError(f'{package}: "{part}" is not a valid identifier.')
    w = _Writer(map_entries, nullable, named=bool(full_name), package=package)
    body = w.message(name, list(columns), "", full_name or None)
    head = ['syntax = "proto3";']
    if package:
        head += ["", f"package {package};"]
    if w.imports:
        head += [""] + [f'import "{i}";' for i in sorted(w.imports)]
    return "\n".join(head + [""] + body) + "\n"
