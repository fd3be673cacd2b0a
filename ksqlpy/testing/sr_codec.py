"""The harness's AVRO and JSON_SR codecs, written apart from the engine's serdes (as ksqlDB's QTT does).

Like ksqlDB's ``ValueSpecAvroSerdeSupplier``: an input spec is converted to an Avro datum guided by the
*latest schema registered* for the topic's subject (pre-registered by the case's ``topics[].schema`` or
registered by the engine when the source was created), and written with that schema's id; an output is
read with the schema its header names and turned back into a spec (records -> objects with the schema's
field names, decimals -> exact numbers, Connect's ``[{key, value}]`` maps -> objects, bytes -> bytes).
JSON_SR is the JSON spec behind the 5-byte header.
"""

from __future__ import annotations

import base64
import io
import json
import struct
from decimal import Context, Decimal
from typing import Any

from ksqlpy.serde.avro_logical import decimal_scale, logical_type
from ksqlpy.testing import exactjson

_WIDE = Context(prec=1000)  # any DECIMAL: the default context (28 digits) rounds wider values

_HEADER = struct.Struct(">bI")


def _names(schema: Any, out: dict[str, Any], ns: str = "") -> dict[str, Any]:
    if isinstance(schema, list):
        for s in schema:
            _names(s, out, ns)
    elif isinstance(schema, dict):
        t = schema.get("type")
        if t in ("record", "enum", "fixed"):
            name = str(schema["name"])
            space = name.rpartition(".")[0] if "." in name else schema.get("namespace", ns)
            out[name.rpartition(".")[2]] = schema
            out[f"{space}.{name.rpartition('.')[2]}" if space else name] = schema
            for f in schema.get("fields", []):
                _names(f["type"], out, space)
        elif t == "array":
            _names(schema["items"], out, ns)
        elif t == "map":
            _names(schema["values"], out, ns)
        elif isinstance(t, dict | list):
            _names(t, out, ns)
    return out


def _strip(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_strip(s) for s in schema]
    if isinstance(schema, dict):
        return {k: _strip(v) for k, v in schema.items() if k != "logicalType"}
    return schema


def _node(schema: Any, names: dict[str, Any]) -> Any:
    while True:
        if isinstance(schema, str) and schema in names:
            schema = names[schema]
        elif isinstance(schema, dict) and isinstance(schema.get("type"), dict | list):
            schema = schema["type"]
        else:
            return schema


def _kind(schema: Any) -> str:
    return schema if isinstance(schema, str) else ("union" if isinstance(schema, list) else str(schema["type"]))


def _is_map_entries(schema: Any, names: dict[str, Any]) -> bool:
    items = _node(schema.get("items"), names) if isinstance(schema, dict) else None
    if not isinstance(items, dict) or items.get("type") != "record":
        return False
    return sorted(f["name"] for f in items["fields"]) == ["key", "value"]


def spec_to_avro(schema: Any, spec: Any, names: dict[str, Any],
                 unions: dict[int, list[str | None]] | None = None) -> Any:
    """A QTT spec as the datum of ``schema`` (logical types as their underlying ints and bytes); a union
    struct's branch is named through ``unions`` (the wrappers of ``avro_unions.Wrapped``)."""
    s = _node(schema, names)
    if isinstance(s, list):
        if spec is None:
            return None
        errors = []
        tags = (unions or {}).get(id(s))
        union_struct = _union_member(s, spec, names)
        if union_struct is not None:
            index, value = union_struct
            datum = spec_to_avro(s[index], value, names, unions)
            return (tags[index], {"v": datum}) if tags else datum
        for index, branch in enumerate(s):
            if _kind(_node(branch, names)) == "null":
                continue
            try:
                datum = spec_to_avro(branch, spec, names, unions)
                return (tags[index], {"v": datum}) if tags else datum
            except (ValueError, TypeError, KeyError, ArithmeticError) as e:
                errors.append(str(e))
        raise ValueError(f"spec {spec!r} fits no branch of {s}: {errors}")
    if spec is None:
        return None
    kind = _kind(s)
    logical = logical_type(s)
    if kind == "null":
        raise ValueError("not null")
    if kind in ("bytes", "fixed") and logical == "decimal":
        from ksqlpy.serde.avro_format import decimal_to_bytes

        # a fixed schema's bytes are its whole length, the unscaled value sign-extended to it
        return decimal_to_bytes(Decimal(str(spec)), decimal_scale(s), int(s["size"]) if kind == "fixed" else None)
    if kind in ("int", "long"):
        if isinstance(spec, bool | dict | list):
            raise TypeError(f"{spec!r} is not a number")
        return int(Decimal(str(spec)))
    if kind in ("float", "double"):
        if isinstance(spec, bool | dict | list):
            raise TypeError(f"{spec!r} is not a number")
        return float(str(spec))
    if kind == "boolean":
        if not isinstance(spec, bool):
            raise TypeError(f"{spec!r} is not a boolean")
        return spec
    if kind in ("string", "enum"):
        if isinstance(spec, dict | list):
            raise TypeError(f"{spec!r} is not a string")
        return spec if isinstance(spec, str) else exactjson.dumps(spec)
    if kind in ("bytes", "fixed"):
        return base64.b64decode(spec) if isinstance(spec, str) else bytes(spec)
    if kind == "array":
        if isinstance(spec, dict) and _is_map_entries(s, names):
            entry = _node(s["items"], names)
            types = {f["name"]: f["type"] for f in entry["fields"]}
            return [{"key": spec_to_avro(types["key"], k, names, unions), "value": spec_to_avro(types["value"], v, names, unions)}
                    for k, v in spec.items()]
        if not isinstance(spec, list):
            raise TypeError(f"{spec!r} is not an array")
        return [spec_to_avro(s["items"], x, names, unions) for x in spec]
    if kind == "map":
        if not isinstance(spec, dict):
            raise TypeError(f"{spec!r} is not a map")
        return {str(k): spec_to_avro(s["values"], v, names, unions) for k, v in spec.items()}
    if kind == "record":
        if not isinstance(spec, dict):
            raise TypeError(f"{spec!r} is not a record")
        out = {}
        for f in s["fields"]:
            name = f["name"]
            key = name if name in spec else next((k for k in spec if k.upper() == name.upper()), None)
            out[name] = spec_to_avro(f["type"], spec[key], names, unions) if key is not None else f.get("default")
        return out
    raise ValueError(f"unsupported Avro schema {s!r}")


def _union_member(union: list[Any], spec: Any, names: dict[str, Any]) -> tuple[int, Any] | None:
    """(branch index, value) when ``spec`` is a union written as the STRUCT ksqlDB reads it as (one object whose
    keys are the union's member names, e.g. ``{"INT": 5, "STRING": null}``: the first non-null one)."""
    from ksqlpy.serde import avro_unions as U

    if not isinstance(spec, dict) or not spec or not U.is_union_struct(union):
        return None
    by_name = {name.upper(): i for i, name, _ in U.members(union)}
    if any(str(k).upper() not in by_name for k in spec):
        return None
    for k, v in spec.items():
        if v is not None:
            return by_name[str(k).upper()], v
    return None


def avro_to_spec(schema: Any, datum: Any, names: dict[str, Any]) -> Any:
    """A decoded datum as a QTT spec (what expected values are compared with)."""
    if datum is None:
        return None
    s = _node(schema, names)
    if isinstance(s, list):
        branches = [_node(b, names) for b in s if _kind(_node(b, names)) != "null"]
        return avro_to_spec(_branch(branches, datum), datum, names)
    kind = _kind(s)
    if kind in ("bytes", "fixed") and logical_type(s) == "decimal":
        return Decimal(int.from_bytes(datum, "big", signed=True)).scaleb(-decimal_scale(s), context=_WIDE)
    if kind == "array":
        if _is_map_entries(s, names):
            entry = _node(s["items"], names)
            types = {f["name"]: f["type"] for f in entry["fields"]}
            return {avro_to_spec(types["key"], e["key"], names): avro_to_spec(types["value"], e["value"], names)
                    for e in datum}
        return [avro_to_spec(s["items"], x, names) for x in datum]
    if kind == "map":
        return {k: avro_to_spec(s["values"], v, names) for k, v in datum.items()}
    if kind == "record":
        return {f["name"]: avro_to_spec(f["type"], datum.get(f["name"]), names) for f in s["fields"]}
    if kind == "long" and isinstance(datum, int) and not isinstance(datum, bool):
        return exactjson.JavaLong(datum)  # a Long in ksqlDB's harness whatever its size
    if kind == "float":
        return float(struct.unpack(">f", struct.pack(">f", datum))[0])
    return bytes(datum) if isinstance(datum, bytearray) else datum


def _branch(branches: list[Any], datum: Any) -> Any:
    if len(branches) == 1:
        return branches[0]
    want = {bool: ("boolean",), int: ("int", "long"), float: ("double", "float"), str: ("string", "enum"),
            bytes: ("bytes", "fixed"), dict: ("record", "map"), list: ("array",)}
    for typ, kinds in want.items():
        if isinstance(datum, typ):
            for b in branches:
                if _kind(b) in kinds:
                    return b
    return branches[0]


class AvroCodec:
    """Spec <-> Confluent-framed Avro through the engine's registry (schemas only, never its serdes)."""

    def __init__(self, registry: Any, subject: str) -> None:
        self.registry = registry
        self.subject = subject

    def encode(self, spec: Any) -> bytes | None:
        import fastavro

        if spec is None:
            return None
        rs = self.registry.latest(self.subject)
        if rs is None:
            raise ValueError(f"no schema registered for subject {self.subject}")
        from ksqlpy.serde import avro_unions as U
        from ksqlpy.serde.avro_references import inline_references, registry_lookup

        schema = inline_references(json.loads(rs.schema), registry_lookup(self.registry))
        names = _names(schema, {})
        wrapped = U.Wrapped(schema) if U.contains_union(schema) else None
        datum = spec_to_avro(schema, spec, names, wrapped.full_names if wrapped else None)
        out = io.BytesIO()
        out.write(_HEADER.pack(0, rs.id))
        fastavro.schemaless_writer(out, fastavro.parse_schema(_strip(wrapped.schema if wrapped else schema),
                                                              _write_hint=False), datum)
        return out.getvalue()

    def decode(self, data: bytes | None) -> Any:
        import fastavro

        from ksqlpy.testing.specserde import Undecodable

        if data is None:
            return None
        if len(data) < 5 or data[0] != 0:
            return Undecodable(data, "no Confluent magic byte")
        sid = _HEADER.unpack_from(data)[1]
        rs = self.registry.by_id(sid)
        if rs is None:
            return Undecodable(data, f"unknown schema id {sid}")
        from ksqlpy.serde.avro_references import inline_references, registry_lookup

        schema = inline_references(json.loads(rs.schema), registry_lookup(self.registry))
        try:
            datum = fastavro.schemaless_reader(io.BytesIO(data[5:]),
                                               fastavro.parse_schema(_strip(schema), _write_hint=False), None)
        except Exception as e:  # noqa: BLE001
            return Undecodable(data, f"not Avro of schema {sid}: {e}")
        return avro_to_spec(schema, datum, _names(schema, {}))


class JsonSrCodec:
    """JSON behind the Confluent header; inputs carry the subject's latest schema id (0 if none)."""

    def __init__(self, registry: Any, subject: str) -> None:
        self.registry = registry
        self.subject = subject

    def encode(self, spec: Any) -> bytes | None:
        if spec is None:
            return None
        rs = self.registry.latest(self.subject)
        return _HEADER.pack(0, rs.id if rs else 0) + exactjson.dumps(spec).encode("utf-8")

    def decode(self, data: bytes | None) -> Any:
        from ksqlpy.testing.specserde import Undecodable

        if data is None:
            return None
        if len(data) < 5 or data[0] != 0:
            return Undecodable(data, "no Confluent magic byte")
        try:
            return exactjson.loads(data[5:])
        except ValueError as e:
            return Undecodable(data, f"not JSON: {e}")
