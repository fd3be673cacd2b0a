"""JSON_SR unions on the wire: a ``oneOf``/``anyOf`` of several types is a union STRUCT in SQL (``json_sr``:
Connect's ``io.confluent.connect.json.OneOf``, a field per non-null branch), but in the JSON document it is
just the branch's value. Connect's ``JsonSchemaData`` converts between the two:

- reading, the value goes to the first branch whose type it is (``toConnectData`` of a CombinedSchema):
  boolean -> BOOLEAN, a whole number -> INTEGER/BIGINT/DOUBLE/DECIMAL, a fraction -> DOUBLE/DECIMAL,
  text -> STRING/BYTES, array -> ARRAY, object -> STRUCT/MAP; the other fields are NULL. An object that
  already has the union's field names (what a sink without the registered schema writes) is the STRUCT.
- writing through a registered schema that has the union (``VALUE_SCHEMA_ID``/``KEY_SCHEMA_ID``), the value
  of the STRUCT's first non-NULL field is written (``fromConnectData``); all NULL writes null.

The same rule holds for keys and values, at any depth (struct fields, array elements, map values).

A MAP is read from either of the forms Connect's ``JsonSchemaData.toConnectData`` takes for STRING keys:
an object, or an array of ``{"key": k, "value": v}`` entries (the form a ``connect.type: map`` array
schema describes; ``json_sr`` infers such a schema as a MAP).
"""

from __future__ import annotations

from typing import Any

from ksqlpy import types as T

ONE_OF_FIELD = "io.confluent.connect.json.oneof.field."


def is_union(t: T.SqlType) -> bool:
    """Whether ``t`` is the STRUCT a JSON_SR union is read as (field names ``...OneOf.field.<i>``)."""
    return (isinstance(t, T.Struct) and bool(t.fields)
            and all(n.lower() == f"{ONE_OF_FIELD}{i}" for i, (n, _) in enumerate(t.fields)))


def has_union(t: T.SqlType) -> bool:
    if is_union(t):
        return True
    if isinstance(t, T.Struct):
        return any(has_union(ft) for _, ft in t.fields)
    if isinstance(t, T.Array):
        return has_union(t.element)
    if isinstance(t, T.Map):
        return has_union(t.value)
    return False


def reads_connect_forms(t: T.SqlType) -> bool:
    """Whether a value of ``t`` may be on the wire in a form ``read`` turns into the JSON serde's: it has a
    union, or a MAP (which may come as an array of entries)."""
    if is_union(t) or isinstance(t, T.Map):
        return True
    if isinstance(t, T.Struct):
        return any(reads_connect_forms(ft) for _, ft in t.fields)
    if isinstance(t, T.Array):
        return reads_connect_forms(t.element)
    return False


def _entries(v: list[Any]) -> dict[str, Any] | None:
    """An array of ``{"key": <text>, "value": v}`` objects as the map it stands for; None if it is not one."""
    out: dict[str, Any] = {}
    for e in v:
        if not isinstance(e, dict) or not isinstance(e.get("key"), str):
            return None
        out[e["key"]] = e.get("value")
    return out


def _is_type_of(v: Any, t: T.SqlType) -> bool:
    """Whether a parsed JSON value is of the JSON type ``t`` is written as."""
    if isinstance(v, bool):
        return t == T.BOOLEAN
    if isinstance(v, int):
        return t.name in ("INTEGER", "BIGINT", "DOUBLE", "DECIMAL", "DATE", "TIME", "TIMESTAMP")
    if isinstance(v, float) or v.__class__.__name__ == "Decimal":
        return t.name in ("DOUBLE", "DECIMAL")
    if isinstance(v, str):
        return t.name in ("STRING", "BYTES")
    if isinstance(v, list):
        return isinstance(t, T.Array)
    if isinstance(v, dict):
        return isinstance(t, (T.Struct, T.Map))
    return False


def field_key(obj: dict[str, Any], name: str) -> str | None:
    """The key of ``obj`` that is the field ``name`` (ksqlDB matches JSON keys case-insensitively)."""
    if name in obj:
        return name
    upper = name.upper()
    found = None
    for k in obj:
        if k.upper() == upper:
            found = k
    return found


def read(v: Any, t: T.SqlType) -> Any:
    """A parsed JSON value with every union in ``t`` turned into its STRUCT form."""
    if v is None:
        return None
    if is_union(t):
        assert isinstance(t, T.Struct)
        members = {n.upper() for n, _ in t.fields}
        if isinstance(v, dict) and v and all(k.upper() in members for k in v):  # already the STRUCT
            return {n: read(v[k], ft) for n, ft in t.fields if (k := field_key(v, n)) is not None}
        for name, ft in t.fields:
            if _is_type_of(v, ft):
                return {name: read(v, ft)}
        return v  # no branch takes it: the STRUCT conversion reports the mismatch
    if isinstance(t, T.Struct) and isinstance(v, dict):
        out = dict(v)
        for name, ft in t.fields:
            if reads_connect_forms(ft) and (k := field_key(v, name)) is not None:
                out[k] = read(v[k], ft)
        return out
    if isinstance(t, T.Array) and isinstance(v, list):
        return [read(x, t.element) for x in v]
    if isinstance(t, T.Map) and isinstance(v, list) and (m := _entries(v)) is not None:
        v = m
    if isinstance(t, T.Map) and isinstance(v, dict):
        return {k: read(x, t.value) for k, x in v.items()}
    return v


def _branches(schema: Any) -> list[Any] | None:
    """The non-null branches of a ``oneOf``/``anyOf`` schema node, None if it is not one."""
    if not isinstance(schema, dict):
        return None
    for key in ("oneOf", "anyOf"):
        if isinstance(schema.get(key), list):
            return [s for s in schema[key] if not (isinstance(s, dict) and s.get("type") == "null")]
    return None


def schema_has_union(schema: Any) -> bool:
    """Whether a registered JSON schema has a union of several types anywhere."""
    if isinstance(schema, dict):
        branches = _branches(schema)
        key = "oneOf" if "oneOf" in schema else "anyOf"
        if branches is not None and not (len(branches) == 1 and len(schema[key]) == 2):
            return True
        return any(schema_has_union(x) for x in schema.values() if isinstance(x, (dict, list)))
    if isinstance(schema, list):
        return any(schema_has_union(x) for x in schema)
    return False


def write(v: Any, t: T.SqlType, schema: Any) -> Any:
    """A value of SQL type ``t`` as the registered ``schema`` holds it: each union STRUCT becomes the value
    of its first non-NULL field, written through that branch's schema."""
    if v is None or not isinstance(schema, dict):
        return v
    branches = _branches(schema)
    if branches is not None:
        key = "oneOf" if "oneOf" in schema else "anyOf"
        if len(branches) == 1 and len(schema[key]) == 2:  # [null, T]: T, optional
            return write(v, t, branches[0])
        if is_union(t) and isinstance(v, dict):
            assert isinstance(t, T.Struct)
            for i, (name, ft) in enumerate(t.fields):
                if v.get(name) is not None and i < len(branches):
                    return write(v[name], ft, branches[i])
            return None
        return v
    if isinstance(t, T.Struct) and isinstance(v, dict) and isinstance(schema.get("properties"), dict):
        props = schema["properties"]
        out = dict(v)
        for name, ft in t.fields:
            if name in v and (k := field_key(props, name)) is not None:
                out[name] = write(v[name], ft, props[k])
        return out
    if isinstance(t, T.Array) and isinstance(v, list):
        return [write(x, t.element, schema.get("items")) for x in v]
    if isinstance(t, T.Map) and isinstance(v, dict):
        return {k: write(x, t.value, schema.get("additionalProperties")) for k, x in v.items()}
    return v
