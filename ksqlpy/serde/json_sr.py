"""ksqlDB's JSON_SR format: JSON with the Confluent header (magic byte 0 + 4-byte schema id).

The payload is what the JSON format writes for the same columns (ksqlDB reads JSON_SR with its JSON
reader after checking the header), so the JSON serde does the work; this module adds the header, the
JSON Schema ksqlDB registers for the columns (Kafka Connect's JsonSchemaData layout: ``connect.index``,
``connect.type``, optional fields as ``oneOf [null, T]``) and the inference of SQL types from a
registered JSON Schema.
"""

from __future__ import annotations

import json
import struct
from typing import Any

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError
from ksqlpy.serde import json_sr_unions as U
from ksqlpy.serde.base import Columns, SerdeError, SinkSchemaError, UnreadableSchemaError, ValueSerde

_HEADER = struct.Struct(">bI")
_CONNECT = "org.apache.kafka.connect.data."


def type_schema(t: T.SqlType) -> dict[str, Any]:
    """The JSON Schema of a SQL type, as Connect's JsonSchemaData writes it (non-null)."""
    n = t.name
    simple = {"BOOLEAN": {"type": "boolean"}, "INTEGER": {"type": "integer", "connect.type": "int32"},
              "BIGINT": {"type": "integer", "connect.type": "int64"},
              "DOUBLE": {"type": "number", "connect.type": "float64"}, "STRING": {"type": "string"},
              "BYTES": {"type": "string", "connect.type": "bytes"}}
    if n in simple:
        return dict(simple[n])
    if isinstance(t, T.Decimal):
        return {"type": "number", "title": _CONNECT + "Decimal", "connect.version": 1, "connect.type": "bytes",
                "connect.parameters": {"scale": str(t.scale), "connect.decimal.precision": str(t.precision)}}
    if n in ("DATE", "TIME", "TIMESTAMP"):
        return {"type": "integer", "title": _CONNECT + n.capitalize(), "connect.version": 1,
                "connect.type": "int64" if n == "TIMESTAMP" else "int32"}
    if isinstance(t, T.Array):
        return {"type": "array", "items": _optional(type_schema(t.element))}
    if isinstance(t, T.Map):
        return {"type": "object", "additionalProperties": _optional(type_schema(t.value)), "connect.type": "map"}
    if isinstance(t, T.Struct):
        return _object(list(t.fields))
    raise SerdeError(f"JSON_SR cannot represent type {t}")


def _optional(schema: dict[str, Any]) -> dict[str, Any]:
    return {"oneOf": [{"type": "null"}, schema]}


def _object(fields: list[tuple[str, T.SqlType]]) -> dict[str, Any]:
    props = {}
    for i, (n, t) in enumerate(fields):
        props[n] = {**_optional(type_schema(t)), "connect.index": i}
    return {"type": "object", "properties": props}


def json_schema(columns: Columns, *, wrap: bool) -> dict[str, Any]:
    """The JSON Schema ksqlDB registers for a row of ``columns``."""
    if not wrap and len(columns) == 1:
        return _optional(type_schema(columns[0][1]))
    return _object(list(columns))


_EVERIT = "org.everit.json.schema."
# connect.type on a number or integer schema decides its Connect type (JsonSchemaData reads both as a
# NumberSchema and switches on connect.type first)
_NUMBER_TYPES = {"int8": T.INTEGER, "int16": T.INTEGER, "int32": T.INTEGER, "int64": T.BIGINT,
                 "float32": T.DOUBLE, "float64": T.DOUBLE, "bytes": T.BYTES}


def _unsupported(schema: Any) -> UnreadableSchemaError:
    """What JsonSchemaData says of a schema that is none of the kinds it converts, by the class the JSON Schema
    library loads it as (from memory: 'Unsupported schema type <class>')."""
    if schema is True or schema == {}:
        kind = "TrueSchema" if schema is True else "EmptySchema"
    elif schema is False:
        kind = "FalseSchema"
    elif isinstance(schema, dict) and "const" in schema:
        kind = "ConstSchema"
    elif isinstance(schema, dict) and "not" in schema:
        kind = "NotSchema"
    elif isinstance(schema, dict) and schema.get("type") == "null":
        kind = "NullSchema"
    else:
        kind = "EmptySchema"
    return UnreadableSchemaError(f"Unsupported schema type {_EVERIT}{kind}")


def _java_hash(name: str) -> int:
    """``HashMap.hash(name)``: Java's String.hashCode over UTF-16 code units, its high half folded in."""
    h = 0
    data = name.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h ^ (h >> 16)


def _hash_map_order(names: list[str]) -> list[str]:
    """The order a ``java.util.HashMap`` filled with ``names`` (in this order, default capacity 16, doubled
    past 0.75 full) iterates them: by bucket, then as inserted. The JSON Schema library keeps an object's
    ``properties`` in such maps (org.json's JSONObject, everit's ObjectSchema), so that is the order
    JsonSchemaData meets them in."""
    capacity = 16
    while len(names) > capacity * 3 // 4:
        capacity *= 2
    return [n for _, n in sorted(((_java_hash(n) & (capacity - 1), i), n) for i, n in enumerate(names))]


def connect_fields(props: dict[str, Any]) -> list[tuple[str, Any]]:
    """An object schema's properties as JsonSchemaData makes STRUCT fields of them (from memory of
    toConnectSchema): met in the JSON Schema library's map order, each placed at its ``connect.index`` or,
    without one, at the number of fields placed so far - a later property placed at a taken position replaces
    the earlier one - and the fields ordered by position."""
    placed: dict[int, tuple[str, Any]] = {}
    for name in _hash_map_order(list(props)):
        sub = props[name]
        index = sub.get("connect.index") if isinstance(sub, dict) else None
        if not isinstance(index, int) or isinstance(index, bool):
            index = len(placed)
        placed[index] = (name, sub)
    return [placed[i] for i in sorted(placed)]


def sql_type_of(schema: Any, *, upper: bool = True) -> T.SqlType:
    """The SQL type ksqlDB infers for a JSON Schema (property names upper-cased unless ``upper`` is False),
    as Connect's JsonSchemaData converts it (from memory): ``connect.type`` decides a number's type; an object
    is a MAP only when marked ``connect.type: map`` (its ``additionalProperties`` the values), else the STRUCT
    of its ``properties`` (none: an empty STRUCT); ``allOf`` only as the JSON Schema library builds it for a
    typed ``const``/``enum``; a schema of no convertible kind (``{}``, ``true``, a bare ``const``, ``not``,
    ``null``) is refused."""
    if not isinstance(schema, dict) or not schema:
        raise _unsupported(schema)
    for key in ("oneOf", "anyOf"):
        if key in schema:
            branches = [s for s in schema[key] if not (isinstance(s, dict) and s.get("type") == "null")]
            if len(branches) == 1 and len(schema[key]) == 2:  # [null, T]: T, optional
                return sql_type_of(branches[0], upper=upper)
            return _union_struct(branches, upper=upper)
    if "allOf" in schema:
        return _all_of(schema, upper=upper)
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        if len(kinds) > 1:  # the JSON Schema library reads it as an anyOf of one schema per type, in order
            return _union_struct([{**schema, "type": k} for k in kinds], upper=upper)
        kind = kinds[0] if len(kinds) == 1 else None
    title = str(schema.get("title") or "")
    ctype = schema.get("connect.type")
    if kind == "boolean":
        return T.BOOLEAN
    if kind in ("integer", "number"):
        if ctype is None:
            ctype = "int64" if kind == "integer" else "float64"
        if ctype not in _NUMBER_TYPES:
            raise UnreadableSchemaError(f"Unsupported type {ctype}")
        return _logical(title, ctype, schema) or _NUMBER_TYPES[ctype]
    if kind == "string" or (kind is None and "enum" in schema):  # JsonSchemaData: an enum is a STRING
        return (_logical(title, "bytes", schema) or T.BYTES) if ctype == "bytes" else T.STRING
    if kind == "array":
        entry = _map_entry(schema) if ctype == "map" else None
        if entry is not None:
            return T.Map(sql_type_of(entry[0], upper=upper), sql_type_of(entry[1], upper=upper))
        return T.Array(sql_type_of(schema.get("items") or {}, upper=upper))
    if kind == "object" or (kind is None and ("properties" in schema or "additionalProperties" in schema)):
        if ctype == "map":
            values = schema.get("additionalProperties")
            if not isinstance(values, dict):  # absent or boolean: no value schema (Connect's SchemaBuilder.map)
                raise UnreadableSchemaError("valueSchema cannot be null.")
            return T.Map(T.STRING, sql_type_of(values, upper=upper))
        ordered = connect_fields(schema.get("properties") or {})
        return T.Struct(tuple((n.upper() if upper else n, sql_type_of(s, upper=upper)) for n, s in ordered))
    if kind is None or kind == "null":
        raise _unsupported(schema)
    raise KsqlStatementError(f"Unsupported: JSON schema type {kind!r}")


# a Connect logical type is its name on the one Connect type it is defined over (ksqlDB's Connect-to-SQL
# conversion checks both: an int64 titled Date is a BIGINT, a float64 titled Decimal a DOUBLE)
_LOGICAL_TYPES = {("Date", "int32"): T.DATE, ("Time", "int32"): T.TIME, ("Timestamp", "int64"): T.TIMESTAMP}


def _logical(title: str, connect_type: str, schema: dict[str, Any]) -> T.SqlType | None:
    """The logical SQL type a number/string schema's ``title`` names over its Connect type, else None:
    JsonSchemaData builds the Connect type from ``connect.type`` (an integer without one is int64, a number
    float64) and names it by the title; ksqlDB's ConnectToSqlTypeConverter then reads DATE/TIME only from an
    INT32, TIMESTAMP only from an INT64 and DECIMAL only from BYTES (from memory of both)."""
    if not title.startswith(_CONNECT):
        return None
    name = title[len(_CONNECT):]
    if name == "Decimal":
        if connect_type != "bytes":
            return None
        params = schema.get("connect.parameters") or {}
        return T.Decimal(int(params.get("connect.decimal.precision", 64)), int(params.get("scale", 0)))
    return _LOGICAL_TYPES.get((name, connect_type))


def _all_of(schema: dict[str, Any], *, upper: bool) -> T.SqlType:
    """JsonSchemaData's allOf: only a ``const`` or ``enum`` beside a string or number schema (the form the JSON
    Schema library gives ``{"type": "string", "const": ...}``) reads, as that typed schema; any other
    combination is refused, naming the criterion and the schema."""
    subs = [s for s in schema["allOf"] if isinstance(s, dict)]
    typed = next((s for s in subs if s.get("type") in ("string", "number", "integer")), None)
    marker = any("const" in s or "enum" in s for s in subs)
    if typed is not None and marker and len(subs) == len(schema["allOf"]):
        return sql_type_of(typed, upper=upper)
    raise UnreadableSchemaError(f"Unsupported criterion allOf for {json.dumps(schema, separators=(',', ':'))}")


def _map_entry(schema: dict[str, Any]) -> tuple[Any, Any] | None:
    """(key schema, value schema) of an array marked ``connect.type: map`` whose items are objects with
    ``key`` and ``value`` properties: the form Connect's JsonSchemaData gives a map whose keys are not
    strings, read back as a MAP (``toConnectSchema``; the keys' type is kept, so a map of INT keys is
    refused by the JSON formats' STRING-key rule when a source is created over it). None otherwise."""
    items = schema.get("items")
    props = items.get("properties") if isinstance(items, dict) else None
    if not isinstance(props, dict) or "key" not in props or "value" not in props:
        return None
    return props["key"], props["value"]


def _nullable(schema: Any) -> bool:
    """Whether a property's schema admits null itself: a ``oneOf``/``anyOf`` with a ``null`` branch or a
    ``type`` list naming ``null`` (Connect reads those as optional wherever they stand)."""
    if not isinstance(schema, dict):
        return True
    for key in ("oneOf", "anyOf"):
        if any(isinstance(b, dict) and b.get("type") == "null" for b in schema.get(key) or []):
            return True
    kind = schema.get("type")
    return kind == "null" or (isinstance(kind, list) and "null" in kind)


_SQL_CONNECT_TYPES = {"BOOLEAN": "BOOLEAN", "INTEGER": "INT32", "BIGINT": "INT64", "DOUBLE": "FLOAT64",
                      "STRING": "STRING", "BYTES": "BYTES", "DECIMAL": "BYTES", "DATE": "INT32", "TIME": "INT32",
                      "TIMESTAMP": "INT64", "ARRAY": "ARRAY", "MAP": "MAP", "STRUCT": "STRUCT"}


def _connect_type_name(schema: Any, column: T.SqlType) -> str:
    """The Connect type a property is read as, as Connect's messages print it (``INT32``): its
    ``connect.type`` when it has one (``float32`` stays FLOAT32), else that of the SQL type it reads as."""
    ctype = schema.get("connect.type") if isinstance(schema, dict) else None
    if isinstance(ctype, str) and ctype != "map":
        return ctype.upper()
    try:
        t = sql_type_of(schema, upper=False)
    except (SerdeError, KsqlStatementError):
        t = column
    name = "DECIMAL" if isinstance(t, T.Decimal) else t.name
    return _SQL_CONNECT_TYPES.get("INTEGER" if name == "INT" else name, name)


# Connect's name for a JSON Schema union (JsonSchemaData.JSON_TYPE_ONE_OF), and its fields' prefix
ONE_OF = "io.confluent.connect.json.OneOf"


def _union_struct(branches: list[Any], *, upper: bool) -> T.SqlType:
    """A ``oneOf``/``anyOf`` of several types (or of one type without ``null``), as Connect's JsonSchemaData
    reads it: a STRUCT named ``io.confluent.connect.json.OneOf`` with one optional field per non-null branch,
    in branch order, named ``io.confluent.connect.json.OneOf.field.<i>`` - the same rule as Avro's unions
    (``avro_unions``), with JsonSchemaData's names; ksqlDB upper-cases them like every inferred field."""
    fields = []
    for i, b in enumerate(branches):
        name = f"{ONE_OF}.field.{i}"
        fields.append((name.upper() if upper else name, sql_type_of(b, upper=upper)))
    return T.Struct(tuple(fields))


class JsonSrSerde(ValueSerde):
    """JSON rows behind the Confluent header; the JSON serde reads and writes the payload.

    ``converter`` is ``ksql.json_sr.converter.deserializer.enabled`` (KsqlConfig, default true; from memory of
    KsqlJsonSerdeFactory.createDeserializer): on, ksqlDB reads through Connect's JsonSchemaConverter, which
    takes a union's bare branch value into its STRUCT and a MAP from an array of ``{key, value}`` entries
    (``json_sr_unions``); off, through its plain JSON reader (KsqlJsonDeserializer, after the header
    check), which knows neither form: such a record fails like any value of the wrong JSON type, while a
    union given as an object of its field names still reads. Writing is the same either way."""

    format = "JSON_SR"

    def __init__(self, columns: Columns, *, wrap: bool, registry: Any, subject: str,
                 schema_id: int | None = None, converter: bool = True) -> None:
        from ksqlpy.serde.json_format import JsonValueSerde

        super().__init__(columns)
        self.wrap = wrap or len(self.columns) != 1
        self.inner = JsonValueSerde(columns, wrap=self.wrap)
        self.registry = registry
        self.subject = subject
        self.schema_id = schema_id
        self._header: bytes | None = None
        self._fill: Any = False  # not computed yet; see _layout
        # union STRUCTs or MAPs among the columns: read from Connect's forms (json_sr_unions)
        self._reads_unions = converter and any(U.reads_connect_forms(t) for _, t in self.columns)
        self._union_writes: Any = False  # not computed yet; see _union_schemas
        self._required: Any = False  # not computed yet; see _required_columns

    def deserialize(self, data: bytes | None) -> tuple | None:
        if data is None:
            return None
        if len(data) < 5 or data[0] != 0:
            raise SerdeError("Got unexpected JSON serialization format that did not start with the magic byte. If "
                             "this stream was not serialized using the JsonSchemaConverter, then make sure the "
                             "stream is declared with JSON format (not JSON_SR).")
        if self._reads_unions:
            return self._read_unions(bytes(data[5:]))
        return self.inner.deserialize(bytes(data[5:]))

    def _read_unions(self, payload: bytes) -> tuple | None:
        """A row whose columns hold unions: each union value turned into its STRUCT before the JSON serde's
        conversion (parsed with exact decimals, as the serde's own exact path)."""
        import decimal

        try:
            d = json.loads(payload, parse_float=decimal.Decimal)
        except ValueError as e:
            raise SerdeError(f"Invalid JSON: {e}") from None
        if not self.wrap:
            d = U.read(d, self.columns[0][1])
        elif isinstance(d, dict):
            d = dict(d)
            for name, t in self.columns:
                if U.reads_connect_forms(t) and (k := U.field_key(d, name)) is not None:
                    d[k] = U.read(d[k], t)
        return self.inner._row(d)  # type: ignore[no-any-return]

    def _union_schemas(self) -> list[Any] | None:
        """Per column, the registered schema it is written through when that schema has a union (a
        ``*_SCHEMA_ID``'s); None when nothing is written as a union."""
        if self._union_writes is not False:
            return self._union_writes  # type: ignore[no-any-return]
        self._union_writes = None
        rs = self.registry.by_id(self.schema_id) if self.schema_id is not None else None
        schema = json.loads(rs.schema) if rs is not None and rs.schema_type == "JSON" else None
        if schema is not None:  # a union may sit behind a $ref, as the layout reads it
            from ksqlpy.serde.json_sr_references import registry_lookup, resolve_references

            schema = resolve_references(schema, registry_lookup(self.registry))
        if schema is None or not U.schema_has_union(schema):
            return None
        if not self.wrap:
            self._union_writes = [schema]
        else:
            props = schema.get("properties") if isinstance(schema, dict) else None
            props = props if isinstance(props, dict) else {}
            self._union_writes = [props.get(k) if (k := U.field_key(props, n)) is not None else None
                                  for n, _ in self.columns]
        return self._union_writes  # type: ignore[no-any-return]

    def header(self) -> bytes:
        """Magic byte and the id of the schema written with (the generated one, registered once)."""
        if self._header is None:
            sid = self.schema_id
            if sid is None:
                sid = self.registry.register(self.subject, json.dumps(json_schema(self.columns, wrap=self.wrap)),
                                             "JSON")
            self._header = _HEADER.pack(0, sid)
        return self._header

    def _layout(self) -> tuple[Any, list[tuple[int | None, Any]]] | None:
        """With a ``VALUE_SCHEMA_ID`` whose object has fields the columns lack: (a JSON serde over the
        schema's fields, and per field the column index or None and the value written for it); else None.

        ksqlDB writes the row as the registered schema's struct: fields the query does not produce get
        their ``default``, else NULL when optional; a required one fails the record (SinkSchemaError).
        """
        if self._fill is not False:
            return self._fill
        self._fill = None
        rs = self.registry.by_id(self.schema_id) if self.schema_id is not None else None
        schema = json.loads(rs.schema) if rs is not None and rs.schema_type == "JSON" else None
        if schema is not None:
            from ksqlpy.serde.json_sr_references import registry_lookup, resolve_references

            schema = resolve_references(schema, registry_lookup(self.registry))
        props = schema.get("properties") if isinstance(schema, dict) and self.wrap else None
        if not isinstance(props, dict) or schema.get("connect.type") == "map":
            return None
        from ksqlpy.serde.json_format import JsonValueSerde

        required = set(schema.get("required") or [])
        ordered = connect_fields(props)
        names = [n for n, _ in self.columns]
        folded = {n.upper(): i for i, n in enumerate(names)}
        cols: list[tuple[str, T.SqlType]] = []
        plan: list[tuple[int | None, Any]] = []
        for name, sub in ordered:
            idx = names.index(name) if name in names else folded.get(name.upper())
            if idx is not None:
                cols.append((name, self.columns[idx][1]))
                plan.append((idx, None))
                continue
            sub = sub if isinstance(sub, dict) else {}
            if "default" in sub:
                fill: Any = sub["default"]
            elif name in required:
                fill = SinkSchemaError(f"Missing default value for required field: [{name}].")
            else:
                fill = None
            cols.append((name, sql_type_of(sub, upper=False) if sub else T.STRING))
            plan.append((None, fill))
        if [i for i, _ in plan] == list(range(len(names))):
            return None  # the schema is the columns: write the row as it is
        self._fill = (JsonValueSerde(cols, wrap=True), plan)
        return self._fill

    def _required_columns(self) -> list[tuple[int, str, str]]:
        """With a ``VALUE_SCHEMA_ID`` object: (column index, field name, Connect type) of each column written
        to a field Connect reads as required - listed in ``required`` and not a union with ``null``
        (JsonSchemaData.toConnectSchema, from memory)."""
        if self._required is not False:
            return self._required  # type: ignore[no-any-return]
        self._required = []
        rs = self.registry.by_id(self.schema_id) if self.schema_id is not None else None
        schema = json.loads(rs.schema) if rs is not None and rs.schema_type == "JSON" else None
        if schema is not None:
            from ksqlpy.serde.json_sr_references import registry_lookup, resolve_references

            schema = resolve_references(schema, registry_lookup(self.registry))
        props = schema.get("properties") if isinstance(schema, dict) and self.wrap else None
        if not isinstance(props, dict):
            return self._required  # type: ignore[no-any-return]
        required = set(schema.get("required") or [])
        names = [n for n, _ in self.columns]
        folded = {n.upper(): i for i, n in enumerate(names)}
        for name, sub in props.items():
            idx = names.index(name) if name in names else folded.get(name.upper())
            if idx is not None and name in required and not _nullable(sub):
                self._required.append((idx, name, _connect_type_name(sub, self.columns[idx][1])))
        return self._required  # type: ignore[no-any-return]

    def serialize(self, row: tuple | None) -> bytes | None:
        if row is None:
            return None
        if self.schema_id is not None:
            for idx, name, ctype in self._required_columns():
                if row[idx] is None:  # Connect's Struct.put refuses it (ConnectSchema.validateValue)
                    raise SinkSchemaError(f"Invalid value: null used for required field: \"{name}\", "
                                          f"schema type: {ctype}")
        unions = self._union_schemas() if self.schema_id is not None else None
        if unions is not None:
            row = tuple(U.write(v, t, sub) for v, (_, t), sub in zip(row, self.columns, unions, strict=True))
        layout = self._layout() if self.schema_id is not None else None
        if layout is None:
            body = self.inner.serialize(row)
        else:
            serde, plan = layout
            full = []
            for idx, fill in plan:
                if isinstance(fill, SinkSchemaError):
                    raise fill
                full.append(row[idx] if idx is not None else fill)
            body = serde.serialize(tuple(full))
        return None if body is None else self.header() + body
