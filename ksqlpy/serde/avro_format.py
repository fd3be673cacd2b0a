"""ksqlDB's AVRO format: Confluent wire format (magic byte 0, 4-byte schema id, Avro binary).

Schemas come from the schema registry: a reader decodes each record with the *writer's* schema (looked up
by the id in its header) and maps fields to columns by name (exact, else case-insensitively), coercing
where ksqlDB does (an Avro ``int`` read into a STRING column is ``"10"``). A writer uses the schema
ksqlDB generates from the SQL columns (``avro_schema``), registered under ``<topic>-key|value`` on first
use, or the schema a ``KEY_SCHEMA_ID``/``VALUE_SCHEMA_ID`` names.

Generated schemas, as ksqlDB's: a record ``io.confluent.ksql.avro_schemas.KsqlDataSourceSchema`` (or
``*_SCHEMA_FULL_NAME``), every field optional (``["null", T]``, default null), nested records named
``<parent>_<FIELD>``, DECIMAL as ``bytes`` + ``decimal`` logical type, DATE/TIME/TIMESTAMP as
``date``/``time-millis``/``timestamp-millis``, MAP as an Avro map (string keys only). An unwrapped single
value (``WRAP_SINGLE_VALUE=false``, or a single key column) is the bare type, not optional: ksqlDB's
``AvroSchemas.getAvroCompatibleConnectSchema`` keeps the root schema required (a NULL is no record at all),
as its top-level record is (a key ``STRUCT`` registers ``{"type": "record", ...}``, not ``["null", ...]``).

fastavro encodes and decodes; logical types are stripped from the schema it sees so values stay in
ksqlpy's representation (DATE days, TIMESTAMP millis) and decimals are converted here with the scale
of the schema.
"""

from __future__ import annotations

import io
import json
import struct
from decimal import Context
from decimal import Decimal as PyDecimal
from typing import Any

from ksqlpy import types as T
from ksqlpy import utf16
from ksqlpy.errors import KsqlStatementError
from ksqlpy.serde import avro_unions as U
from ksqlpy.serde import connect_types as CT
from ksqlpy.serde.avro_logical import decimal_precision, decimal_scale, logical_type
from ksqlpy.serde.avro_references import inline_references, registry_lookup
from ksqlpy.serde.base import Columns, SerdeError, SinkSchemaError, UnreadableSchemaError, ValueSerde
from ksqlpy.serde.coerce import fit_decimal

NAMESPACE = "io.confluent.ksql.avro_schemas"
DEFAULT_NAME = "KsqlDataSourceSchema"
DEFAULT_FULL_NAME = f"{NAMESPACE}.{DEFAULT_NAME}"


def key_schema_full_name(source_name: str) -> str:
    """The record name of a source's AVRO key when ``KEY_SCHEMA_FULL_NAME`` is not set: unique per source
    (``<namespace>.<SourceName>Key``, the name in UpperCamel from UPPER_UNDERSCORE as ksqlDB's
    ``AvroFormat`` derives it), so generated Java classes of different sinks' keys never clash
    (ksqlDB issue 6465). Values keep the shared ``KsqlDataSourceSchema``."""
    camel = "".join(w[:1].upper() + w[1:].lower() for w in source_name.split("_"))
    return f"{NAMESPACE}.{camel}Key"
_HEADER = struct.Struct(">bI")
_WIDE = Context(prec=200)  # DECIMAL quantizing must not round: ksqlDB allows precision up to 38


# --------------------------------------------------------------------------- schema generation
def check_avro_name(name: str) -> None:
    """Avro's name rule, with ksqlDB's message (field names are names)."""
    if not name or not (name[0].isalpha() or name[0] == "_"):
        raise KsqlStatementError(f"Schema is not compatible with Avro: Illegal initial character: {name}")
    for ch in name[1:]:
        if not (ch.isalnum() or ch == "_"):
            raise KsqlStatementError(f"Schema is not compatible with Avro: Illegal character in: {name}")


def _record_name(t: T.SqlType, name: str) -> str | None:
    """The name of the first record the bare schema of ``t`` holds when it is named ``name``: a STRUCT's
    own, an ARRAY's elements' (the array's name), a MAP's values' (``<name>_MapValue``); None without one."""
    if isinstance(t, T.Struct):
        return name
    if isinstance(t, T.Array):
        return _record_name(t.element, name)
    if isinstance(t, T.Map):
        return _record_name(t.value, f"{name}_{MAP_VALUE_NAME}")
    return None


def check_columns(columns: Columns, is_key: bool, full_name: str | None = None, unwrapped: bool = False) -> None:
    """Statement-time checks of the names the written schema holds (ksqlDB's AvroSchemas /
    AvroData.fromConnectSchema, from memory): map keys must be strings, the field names and the name of the
    records a ``*_SCHEMA_FULL_NAME`` gives (its last part: Avro's Schema.Name validates the name, not the
    namespace) must be Avro names. A single key column, and a single value column written unwrapped
    (``unwrapped``: WRAP_SINGLE_VALUE=false), is the bare type: its column name is in no schema, and the
    full name names a record only when the type holds a STRUCT (itself, or an ARRAY's elements / a MAP's
    values, ``<name>_MapValue``, named after it), and the message names that record."""
    bare = len(columns) == 1 and (is_key or unwrapped)
    if full_name:
        name: str | None = full_name.rpartition(".")[2]
        if bare:
            name = _record_name(columns[0][1], name)  # type: ignore[arg-type]
        if name is not None:
            check_avro_name(name)

    def walk(t: T.SqlType) -> None:
        if isinstance(t, T.Map):
            if t.key.name != "STRING":
                raise KsqlStatementError("Avro only supports MAPs with STRING keys")
            walk(t.value)
        elif isinstance(t, T.Array):
            walk(t.element)
        elif isinstance(t, T.Struct):
            for n, ft in t.fields:
                check_avro_name(n)
                walk(ft)

    for n, t in columns:
        if not bare:
            check_avro_name(n)
        walk(t)


MAP_VALUE_NAME = "MapValue"


def _optional(schema: Any) -> list[Any]:
    return ["null", schema]


def type_schema(t: T.SqlType, name: str) -> Any:
    """The (non-null) Avro schema of a SQL type; ``name`` names a record if ``t`` is a STRUCT."""
    n = t.name
    if n == "BOOLEAN":
        return "boolean"
    if n == "INTEGER":
        return "int"
    if n == "BIGINT":
        return "long"
    if n == "DOUBLE":
        return "double"
    if n == "STRING":
        return "string"
    if n == "BYTES":
        return "bytes"
    if isinstance(t, T.Decimal):
        return {"type": "bytes", "scale": t.scale, "precision": t.precision, "connect.version": 1,
                "connect.parameters": {"scale": str(t.scale), "connect.decimal.precision": str(t.precision)},
                "connect.name": "org.apache.kafka.connect.data.Decimal", "logicalType": "decimal"}
    if n == "DATE":
        return {"type": "int", "connect.version": 1, "connect.name": "org.apache.kafka.connect.data.Date",
                "logicalType": "date"}
    if n == "TIME":
        return {"type": "int", "connect.version": 1, "connect.name": "org.apache.kafka.connect.data.Time",
                "logicalType": "time-millis"}
    if n == "TIMESTAMP":
        return {"type": "long", "connect.version": 1, "connect.name": "org.apache.kafka.connect.data.Timestamp",
                "logicalType": "timestamp-millis"}
    if isinstance(t, T.Array):
        return {"type": "array", "items": _optional(type_schema(t.element, name))}
    if isinstance(t, T.Map):
        # a map's values are named one level down (ksqlDB's TypeNameGenerator.MAP_VALUE_NAME, from memory of
        # AvroSchemas.buildAvroCompatibleMap); an array's elements keep the array's name
        return {"type": "map", "values": _optional(type_schema(t.value, f"{name}_{MAP_VALUE_NAME}"))}
    if isinstance(t, T.Struct):
        return _record(name, [(fn, ft) for fn, ft in t.fields])
    raise SerdeError(f"AVRO cannot represent type {t}")


def _record(full_name: str, fields: list[tuple[str, T.SqlType]]) -> dict[str, Any]:
    ns, _, short = full_name.rpartition(".")
    rec: dict[str, Any] = {"type": "record", "name": short}
    if ns:
        rec["namespace"] = ns
    rec["fields"] = [{"name": fn, "type": _optional(type_schema(ft, f"{full_name}_{fn}")), "default": None}
                     for fn, ft in fields]
    rec["connect.name"] = full_name
    return rec


def avro_schema(columns: Columns, *, wrap: bool, full_name: str | None = None) -> Any:
    """ksqlDB's Avro schema for a row of ``columns`` (wrapped in a record unless ``wrap`` is False)."""
    full = full_name or DEFAULT_FULL_NAME
    if not wrap and len(columns) == 1:
        return type_schema(columns[0][1], full)
    return _record(full, list(columns))


# --------------------------------------------------------------------------- schema -> SQL types
def named_types(schema: Any, names: dict[str, Any] | None = None, ns: str = "") -> dict[str, Any]:
    """Every named type of ``schema`` by short and full name (to resolve references)."""
    names = {} if names is None else names
    if isinstance(schema, list):
        for s in schema:
            named_types(s, names, ns)
    elif isinstance(schema, dict):
        kind = schema.get("type")
        if kind in ("record", "enum", "fixed", "error"):
            name = str(schema.get("name", ""))
            space = schema.get("namespace", ns) if "." not in name else name.rpartition(".")[0]
            full = name if "." in name else (f"{space}.{name}" if space else name)
            names[full] = schema
            names.setdefault(full.rpartition(".")[2], schema)
            for f in schema.get("fields") or []:
                named_types(f.get("type"), names, space)
        elif kind == "array":
            named_types(schema.get("items"), names, ns)
        elif kind == "map":
            named_types(schema.get("values"), names, ns)
        elif isinstance(kind, dict | list):
            named_types(kind, names, ns)
    return names


def resolve(schema: Any, names: dict[str, Any]) -> Any:
    """A schema node with name references and ``{"type": {...}}`` wrappers followed."""
    while True:
        if isinstance(schema, str) and schema in names:
            schema = names[schema]
        elif isinstance(schema, dict) and isinstance(schema.get("type"), dict | list):
            schema = schema["type"]
        elif isinstance(schema, dict) and isinstance(schema.get("type"), str) and schema["type"] in names:
            schema = names[schema["type"]]
        else:
            return schema


def kind_of(schema: Any) -> str:
    if isinstance(schema, str):
        return schema
    if isinstance(schema, list):
        return "union"
    return str(schema.get("type"))


def connect_type_name(schema: Any) -> str:
    """The Connect type a (resolved, non-union) Avro schema is read as, as Connect's messages print it -
    ConnectSchema.validateValue's ``schema type: INT32`` for an Avro ``int`` (a logical type keeps its base's)."""
    kind = kind_of(schema)
    if isinstance(schema, dict) and isinstance(schema.get("type"), dict | list):
        kind = kind_of(schema["type"])
    return _CONNECT_TYPES.get(kind, kind).upper()


def non_null(schema: Any, names: dict[str, Any]) -> list[Any]:
    """The branches of a union other than null (the schema itself if it is not a union)."""
    schema = resolve(schema, names)
    if isinstance(schema, list):
        return [resolve(s, names) for s in schema if kind_of(resolve(s, names)) != "null"]
    return [schema]


def map_entry(schema: Any, names: dict[str, Any]) -> dict[str, Any] | None:
    """The record an Avro array's items are when Connect reads the array as a MAP (AvroData.isMapEntry, from
    memory): a record named ``io.confluent.connect.avro.MapEntry`` or carrying ``"connect.internal.type":
    "MapEntry"`` - how AvroData writes a map with non-string keys. One without exactly the fields ``key`` and
    ``value`` is Connect's DataException."""
    items = resolve(schema.get("items"), names) if isinstance(schema, dict) else None
    if not isinstance(items, dict) or kind_of(items) not in ("record", "error"):
        return None
    name = str(items.get("name", ""))
    namespace = items.get("namespace")
    if "." in name:
        namespace, name = name.rsplit(".", 1)
    if not ((namespace == "io.confluent.connect.avro" and name == "MapEntry")
            or items.get("connect.internal.type") == "MapEntry"):
        return None
    if sorted(str(f.get("name")) for f in items.get("fields", [])) != ["key", "value"]:
        raise UnreadableSchemaError("Found map encoded as array of key-value pairs, but array elements do not "
                                 "match the expected format.")
    return items


def sql_type_of(schema: Any, names: dict[str, Any] | None = None, *, upper: bool = True,
                _open: tuple[int, ...] = ()) -> T.SqlType:
    """The SQL type ksqlDB infers for an Avro schema (record field names upper-cased unless ``upper`` is
    False: a schema named by id is the physical schema, its names kept). A record that contains itself
    (through a field, at any depth) has no SQL type: UnreadableSchemaError. ``_open``: the records being
    expanded."""
    names = named_types(schema) if names is None else names
    node = resolve(schema, names)
    if U.is_union_struct(node):
        return T.Struct(tuple((fname.upper() if upper else fname,
                               sql_type_of(branch, names, upper=upper, _open=_open))
                              for _, fname, branch in U.members(node)))
    branches = non_null(schema, names)
    if len(branches) != 1:
        raise KsqlStatementError(f"Unsupported: Avro union schemas with several types are not supported: "
                                 f"{json.dumps(schema)[:200]}")
    s = branches[0]
    kind = kind_of(s)
    logical = logical_type(s)
    if kind in ("int", "long") and logical in ("date", "time-millis", "timestamp-millis"):
        return {"date": T.DATE, "time-millis": T.TIME, "timestamp-millis": T.TIMESTAMP}[logical]
    if kind in ("bytes", "fixed") and logical == "decimal":
        return T.Decimal(decimal_precision(s), decimal_scale(s))
    simple = {"boolean": T.BOOLEAN, "int": T.INTEGER, "long": T.BIGINT, "float": T.DOUBLE, "double": T.DOUBLE,
              "string": T.STRING, "enum": T.STRING, "bytes": T.BYTES, "fixed": T.BYTES}
    if kind in simple:
        return simple[kind]
    if kind == "array":
        entry = map_entry(s, names)
        if entry is not None:  # Connect's map of non-string keys: a MAP (AVRO then refuses keys not STRING)
            fields = {f["name"]: f["type"] for f in entry["fields"]}
            return T.Map(sql_type_of(fields["key"], names, upper=upper, _open=_open),
                         sql_type_of(fields["value"], names, upper=upper, _open=_open))
        return T.Array(sql_type_of(s["items"], names, upper=upper, _open=_open))
    if kind == "map":
        return T.Map(T.STRING, sql_type_of(s["values"], names, upper=upper, _open=_open))
    if kind in ("record", "error"):
        if id(s) in _open:
            raise UnreadableSchemaError(f"Recursive schema: record {s.get('name')} contains itself, which no "
                                        "SQL type can hold")
        inner = (*_open, id(s))
        return T.Struct(tuple((str(f["name"]).upper() if upper else str(f["name"]),
                               sql_type_of(f["type"], names, upper=upper, _open=inner)) for f in s["fields"]))
    if kind == "null":
        raise UnreadableSchemaError(STANDALONE_NULL)
    raise KsqlStatementError(f"Unsupported: Avro schema type {kind}")


# Confluent's AvroData.toConnectSchema (from memory): Connect has no null type, so a null schema is accepted
# only as a union member; anywhere else (a field, array items, map values, the whole schema) the converter
# refuses the schema - at inference ('Unable to verify ...') and for every record written with it
STANDALONE_NULL = "Standalone null schemas are not supported by this converter"


def has_standalone_null(schema: Any, names: dict[str, Any], _seen: set[int] | None = None) -> bool:
    """Whether an Avro schema holds a ``null`` outside a union (STANDALONE_NULL)."""
    seen = set() if _seen is None else _seen
    node = resolve(schema, names)
    if isinstance(node, list):
        return any(has_standalone_null(m, names, seen) for m in node if kind_of(resolve(m, names)) != "null")
    kind = kind_of(node)
    if kind == "null":
        return True
    if not isinstance(node, dict) or id(node) in seen:
        return False
    seen.add(id(node))
    if kind in ("record", "error"):
        return any(has_standalone_null(f.get("type"), names, seen) for f in node.get("fields", []))
    if kind == "array":
        return has_standalone_null(node.get("items"), names, seen)
    if kind == "map":
        return has_standalone_null(node.get("values"), names, seen)
    return False


def strip_logical(schema: Any) -> Any:
    """``schema`` without logical types: fastavro then reads and writes the underlying ints and bytes."""
    if isinstance(schema, list):
        return [strip_logical(s) for s in schema]
    if isinstance(schema, dict):
        return {k: strip_logical(v) for k, v in schema.items() if k != "logicalType"}
    return schema


# --------------------------------------------------------------------------- values
def decimal_to_bytes(v: Any, scale: int, size: int | None = None) -> bytes:
    """The two's-complement unscaled value; ``size``: a ``fixed`` schema's length (sign-extended to it)."""
    d = v if isinstance(v, PyDecimal) else PyDecimal(str(v))
    unscaled = int(d.scaleb(scale, context=_WIDE).to_integral_value(context=_WIDE))
    length = max(1, (unscaled.bit_length() + 8) // 8)
    if size is not None:
        if length > size:
            raise SerdeError(f"Decimal {d} does not fit the {size} bytes of its fixed schema")
        length = size
    return unscaled.to_bytes(length, "big", signed=True)


def bytes_to_decimal(raw: bytes, scale: int) -> PyDecimal:
    return PyDecimal(int.from_bytes(raw, "big", signed=True)).scaleb(-scale, context=_WIDE)


def _pick(branches: list[Any], v: Any) -> Any:
    """The union branch a Python value belongs to (first plausible one)."""
    if len(branches) == 1:
        return branches[0]
    want = {bool: ("boolean",), int: ("int", "long", "float", "double"), float: ("double", "float"),
            str: ("string", "enum"), bytes: ("bytes", "fixed"), dict: ("record", "map"), list: ("array",)}
    for typ, kinds in want.items():
        if isinstance(v, typ):
            for b in branches:
                if kind_of(b) in kinds:
                    return b
    return branches[0]


def _java_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


_CONNECT_TYPES = {"int": "int32", "long": "int64", "float": "float32", "double": "float64", "enum": "string",
                  "fixed": "bytes", "record": "struct", "error": "struct"}


def connect_kind(schema: Any, names: dict[str, Any]) -> str:
    """The Connect type AvroData reads a field of this schema as (lowercase, ``Schema.Type.getName``): a
    union of one type and null is that type, any other union a struct, an array of MapEntry records a map."""
    node = resolve(schema, names)
    if U.is_union_struct(node):
        return "struct"
    branches = non_null(schema, names)
    if not branches:
        return "null"
    s = branches[0]
    kind = kind_of(s)
    if kind == "array" and map_entry(s, names) is not None:
        return "map"
    return _CONNECT_TYPES.get(kind, kind)


def to_sql(schema: Any, v: Any, t: T.SqlType, names: dict[str, Any], path: str = "") -> Any:
    """A decoded Avro datum (written with ``schema``) as the value of SQL type ``t``; ``path`` names it in
    errors as ksqlDB does (``->F->ARRAY``). The writer's type is checked before the value, as
    ConnectDataTranslator.validateSchema is, so a type the column cannot read fails a NULL too
    (``connect_types.check``: Connect's widening on read and nothing else)."""
    CT.check(connect_kind(schema, names), t, path)
    if v is None:
        return None
    node = resolve(schema, names)
    if U.is_union_struct(node):
        return _union_to_sql(node, v, t, names, path)
    v = U.unwrap_record(v)
    s = _pick(non_null(schema, names), v)
    n = t.name
    if isinstance(t, T.Decimal):  # Connect's Decimal is BYTES: a DECIMAL column takes only bytes or fixed
        d = bytes_to_decimal(v, decimal_scale(s))
        return fit_decimal(d, t)  # DecimalUtil.ensureFit: never rounded, an overflow fails the record
    if n == "STRING":
        if isinstance(v, str):
            return v
        return _java_text(v)
    if n in ("INTEGER", "BIGINT", "DATE", "TIME", "TIMESTAMP"):
        return int(v)
    if n == "DOUBLE":
        return float(v)
    if n in ("BOOLEAN", "BYTES"):
        return bytes(v) if n == "BYTES" else v
    if isinstance(t, T.Array):
        items = s.get("items") if isinstance(s, dict) else None
        return [to_sql(items, x, t.element, names, f"{path}->ARRAY") for x in v]
    if isinstance(t, T.Map):
        if isinstance(v, dict):
            values = s.get("values") if isinstance(s, dict) else None
            return {to_sql("string", k, t.key, names, f"{path}->MAP_KEY"):
                    to_sql(values, x, t.value, names, f"{path}->MAP_VALUE") for k, x in v.items()}
        entry = map_entry(s, names)  # Connect's map as an array of {key, value} records
        fields = {f["name"]: f["type"] for f in entry["fields"]} if entry is not None else {}
        return {to_sql(fields.get("key"), e.get("key"), t.key, names, f"{path}->MAP_KEY"):
                to_sql(fields.get("value"), e.get("value"), t.value, names, f"{path}->MAP_VALUE") for e in v}
    if isinstance(t, T.Struct):
        fields = {f["name"]: f["type"] for f in s["fields"]}
        out: dict[str, Any] = {}
        for fname, ftype in t.fields:
            src = match_name(fname, fields)
            out[fname] = None if src is None else to_sql(fields[src], v.get(src), ftype, names, f"{path}->{fname}")
        return out
    raise SerdeError(f"AVRO cannot read type {t}")


def _union_to_sql(union: list[Any], v: Any, t: T.SqlType, names: dict[str, Any], path: str) -> dict[str, Any]:
    """A union's value as the STRUCT Connect makes of it: only the field of the value's branch set."""
    got = U.branch_of(v)
    if got is None:
        raise SerdeError("Cannot read an Avro union value without its branch")
    index, value = got
    out: dict[str, Any] = dict.fromkeys((n for n, _ in t.fields))
    for i, fname, branch in U.members(union):
        if i == index:
            col = match_name(fname, out)
            if col is not None:
                out[col] = to_sql(branch, value, dict(t.fields)[col], names, f"{path}->{col}")
    return out


def match_name(name: str, available: Any) -> str | None:
    """The field of ``available`` a column reads: the same name, else the one equal ignoring case."""
    if name in available:
        return name
    upper = name.upper()
    for a in available:
        if a.upper() == upper:
            return a
    return None


def to_avro(schema: Any, v: Any, t: T.SqlType, names: dict[str, Any],
            unions: dict[int, list[str | None]] | None = None) -> Any:
    """A SQL value of type ``t`` as the datum fastavro writes with (logical-type-stripped) ``schema``;
    ``unions`` names the wrappers of the schema's union structs (``avro_unions.Wrapped``)."""
    node = resolve(schema, names)
    if U.is_union_struct(node):
        return _union_to_avro(node, v, t, names, unions or {})
    if v is None:
        return None
    branches = non_null(schema, names)
    s = next((b for b in branches if _fits(b, t)), branches[0]) if len(branches) > 1 else branches[0]
    kind = kind_of(s)
    if kind in ("bytes", "fixed") and logical_type(s) == "decimal":
        return decimal_to_bytes(v, decimal_scale(s), int(s["size"]) if kind == "fixed" else None)
    if kind in ("int", "long"):
        return int(v)
    if kind in ("float", "double"):
        return float(v)
    if kind in ("string", "enum"):
        return v if isinstance(v, str) else _java_text(v)
    if kind in ("bytes", "fixed"):
        return bytes(v)
    if kind == "boolean":
        return bool(v)
    if kind == "array":
        if isinstance(t, T.Map):
            entry = resolve(s.get("items"), names)
            fields = {f["name"]: f["type"] for f in entry.get("fields", [])}
            return [{"key": to_avro(fields.get("key"), k, t.key, names, unions),
                     "value": to_avro(fields.get("value"), x, t.value, names, unions)} for k, x in v.items()]
        el = t.element if isinstance(t, T.Array) else T.STRING
        return [to_avro(s["items"], x, el, names, unions) for x in v]
    if kind == "map":
        vt = t.value if isinstance(t, T.Map) else T.STRING
        if None in v:  # Avro map keys are strings: its writer fails on a NULL key (the JSON formats write "null")
            raise SinkSchemaError("Cannot write a NULL key into an Avro map: Avro map keys are non-null strings")
        return {str(k): to_avro(s["values"], x, vt, names, unions) for k, x in v.items()}
    if kind in ("record", "error"):
        sql_fields = dict(t.fields) if isinstance(t, T.Struct) else {}
        out: dict[str, Any] = {}
        for f in s["fields"]:
            src = match_name(f["name"], sql_fields)
            value = None if src is None else to_avro(f["type"], v.get(src), sql_fields[src], names, unions)
            if value is None and "default" in f and not _nullable(f["type"], names):
                value = f["default"]  # ksqlDB fills a NULL into a required field with its default
            elif src is None and "default" in f:
                value = f["default"]
            elif value is None and not _nullable(f["type"], names):
                if src is None:
                    raise SinkSchemaError(f"Missing default value for required field: [{f['name']}].")
                raise SinkSchemaError(f"Invalid value: null used for required field: \"{f['name']}\", "
                                      f"schema type: {connect_type_name(resolve(f['type'], names))}")
            out[f["name"]] = value
        return out
    raise SerdeError(f"AVRO cannot write {t} as {kind}")


def _union_to_avro(union: list[Any], v: Any, t: T.SqlType, names: dict[str, Any],
                   unions: dict[int, list[str | None]]) -> Any:
    """A STRUCT written to a union: the branch of its first non-NULL field (Connect's ``fromConnectData``)."""
    if isinstance(v, dict) and isinstance(t, T.Struct):
        types = dict(t.fields)
        for i, fname, branch in U.members(union):
            col = match_name(fname, v)
            if col is not None and v.get(col) is not None:
                return U.written(unions[id(union)], i, to_avro(branch, v[col], types[col], names, unions))
    elif v is not None:
        raise SinkSchemaError(f"Cannot write {t} to an Avro union")
    if any(kind_of(resolve(b, names)) == "null" for b in union):
        return None
    raise SinkSchemaError("Invalid value: null used for a union without a null branch")


def _nullable(schema: Any, names: dict[str, Any]) -> bool:
    s = resolve(schema, names)
    return kind_of(s) == "null" or (isinstance(s, list) and any(kind_of(resolve(b, names)) == "null" for b in s))


def _fits(schema: Any, t: T.SqlType) -> bool:
    kind = kind_of(schema)
    n = t.name
    if isinstance(t, T.Struct):
        return kind == "record"
    if isinstance(t, T.Map):
        return kind in ("map", "array")
    if isinstance(t, T.Array):
        return kind == "array"
    return {"BOOLEAN": ("boolean",), "INTEGER": ("int", "long"), "BIGINT": ("long", "int"),
            "DOUBLE": ("double", "float"), "STRING": ("string", "enum"), "BYTES": ("bytes", "fixed"),
            "DECIMAL": ("bytes", "fixed"), "DATE": ("int",), "TIME": ("int",), "TIMESTAMP": ("long",)}.get(n, ()
                                                                                                      ).__contains__(kind)


def _without_lone_surrogates(v: Any) -> Any:
    """``v`` with every string's lone surrogates (halves of characters cut by SUBSTRING) as '?'."""
    if isinstance(v, str):
        return utf16.utf8(v).decode("utf-8")
    if isinstance(v, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_without_lone_surrogates(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_without_lone_surrogates(x) for x in v)
    return v


# --------------------------------------------------------------------------- the serde
class _Compiled:
    """A registered schema ready for fastavro (parsed once per id)."""

    def __init__(self, schema: Any) -> None:
        import fastavro

        self.schema = schema
        self.names = named_types(schema)
        # a schema Connect cannot convert fails every record written with it
        self.unreadable = STANDALONE_NULL if has_standalone_null(schema, self.names) else None
        # a union struct is read and written through records that name its branches (avro_unions)
        self.tagged = U.contains_union(schema)
        wrapped = U.Wrapped(schema) if self.tagged else None
        self.unions = wrapped.full_names if wrapped is not None else {}
        self.parsed = fastavro.parse_schema(strip_logical(wrapped.schema if wrapped is not None else schema),
                                            _write_hint=False)


class AvroSerde(ValueSerde):
    """Rows <-> Confluent-framed Avro; ``registry``/``subject`` give schema ids both ways."""

    format = "AVRO"

    def __init__(self, columns: Columns, *, wrap: bool, registry: Any, subject: str,
                 full_name: str | None = None, schema_id: int | None = None) -> None:
        super().__init__(columns)
        self.wrap = wrap or len(self.columns) != 1
        self.registry = registry
        self.subject = subject
        self.full_name = full_name
        self.schema_id = schema_id
        self._readers: dict[int, _Compiled] = {}
        self._writer: tuple[int, _Compiled] | None = None
        self._struct = T.Struct(tuple(self.columns))

    # -- reading
    def _reader(self, schema_id: int) -> _Compiled:
        c = self._readers.get(schema_id)
        if c is None:
            rs = self.registry.by_id(schema_id)
            if rs is None:
                raise SerdeError(f"Error retrieving Avro schema for id {schema_id}: Schema {schema_id} not found")
            schema = inline_references(json.loads(rs.schema), registry_lookup(self.registry))
            c = self._readers[schema_id] = _Compiled(schema)
        return c

    def deserialize(self, data: bytes | None) -> tuple | None:
        if data is None:
            return None
        import fastavro

        if len(data) < 5 or data[0] != 0:
            raise SerdeError("Failed to deserialize data from AVRO: Unknown magic byte!")
        schema_id = _HEADER.unpack_from(data)[1]
        c = self._reader(schema_id)
        if c.unreadable is not None:
            raise SerdeError(f"Failed to deserialize data from AVRO: {c.unreadable}")
        try:
            datum = fastavro.schemaless_reader(io.BytesIO(data[5:]), c.parsed, None, return_record_name=c.tagged)
        except Exception as e:  # noqa: BLE001 - any malformed record is a bad record
            raise SerdeError(f"Error deserializing Avro message for id {schema_id}: {e}") from None
        if datum is None:
            return None
        if not self.wrap:
            return (to_sql(c.schema, datum, self.columns[0][1], c.names),)  # a bare value: the empty path
        datum = U.unwrap_record(datum)
        top = _pick(non_null(c.schema, c.names), datum)
        if kind_of(top) != "record" or not isinstance(datum, dict):
            raise SerdeError(f"Expected an Avro record for {len(self.columns)} columns, got {kind_of(top)}")
        fields = {f["name"]: f["type"] for f in top["fields"]}
        row = []
        for name, t in self.columns:
            src = match_name(name, fields)
            row.append(None if src is None else to_sql(fields[src], datum.get(src), t, c.names, f"->{name}"))
        return tuple(row)

    # -- writing
    def writer(self) -> tuple[int, _Compiled]:
        """(schema id, compiled schema) this serde writes with; registers the generated schema once."""
        if self._writer is None:
            if self.schema_id is not None:
                self._writer = (self.schema_id, self._reader(self.schema_id))
            else:
                schema = avro_schema(self.columns, wrap=self.wrap, full_name=self.full_name)
                sid = self.registry.register(self.subject, json.dumps(schema), "AVRO")
                self._writer = (sid, _Compiled(schema))
        return self._writer

    def serialize(self, row: tuple | None) -> bytes | None:
        if row is None or (not self.wrap and row[0] is None):
            # unwrapped, a NULL column is no record at all: ksqlDB's KsqlConnectSerializer writes null bytes
            return None
        import fastavro

        sid, c = self.writer()
        try:
            if self.wrap:
                datum = to_avro(c.schema, dict(zip((n for n, _ in self.columns), row, strict=True)), self._struct,
                                c.names, c.unions)
            else:
                datum = to_avro(c.schema, row[0], self.columns[0][1], c.names, c.unions)
            out = io.BytesIO()
            out.write(_HEADER.pack(0, sid))
            try:
                fastavro.schemaless_writer(out, c.parsed, datum)
            except UnicodeEncodeError:  # a lone surrogate: Avro's Utf8 (String.getBytes) writes it as '?'
                out = io.BytesIO()
                out.write(_HEADER.pack(0, sid))
                fastavro.schemaless_writer(out, c.parsed, _without_lone_surrogates(datum))
            return out.getvalue()
        except SerdeError:
            raise
        except Exception as e:  # noqa: BLE001
            raise SerdeError(f"Failed to serialize Avro record: {e}") from None
