"""Avro unions of several types, as Confluent's ``AvroData`` hands them to ksqlDB: a STRUCT of optional fields.

A union of ``null`` and one other type is that type, optional. Every other union (two or more non-null
branches, or a lone branch) becomes a Connect struct named ``io.confluent.connect.avro.Union`` with one
optional field per non-null branch, in branch order, named after the branch: the type's name for a
primitive, array or map (``int``, ``string``, ``array``...; a logical type keeps its underlying name, a
``date`` is ``int``), the short name for a record, enum or fixed. A ``null`` branch makes the struct itself
optional. ksqlDB upper-cases the names of inferred struct fields, so ``["null", "int", "string"]`` is
``STRUCT<INT INTEGER, STRING STRING>``. A value reads as the struct with only its branch's field set;
writing to such a schema picks the branch of the first non-NULL field.

fastavro returns a union's value without saying which branch it came from (``int`` and ``long`` are both
Python ints), so the schema fastavro sees wraps each branch of such a union in a one-field record: a record
has no framing in Avro's binary encoding, the bytes are the same, and with ``return_record_name`` the reader
returns ``(wrapper name, {"v": value})``, which names the branch. Writing passes the same tuple.
"""

from __future__ import annotations

from typing import Any

UNION_NAME = "io.confluent.connect.avro.Union"
_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
_WRAPPER = "ksqlpyUnion"
_VALUE = "v"


def _kind(schema: Any) -> str:
    if isinstance(schema, str):
        return schema if schema in _PRIMITIVES else "named"
    if isinstance(schema, list):
        return "union"
    t = schema.get("type")
    return _kind(t) if isinstance(t, dict | list) else str(t)


def is_union_struct(schema: Any) -> bool:
    """Whether Connect reads this (resolved) schema node as a union struct rather than an optional type."""
    if not isinstance(schema, list):
        return False
    return not (len(schema) == 2 and any(_kind(b) == "null" for b in schema))


def member_name(branch: Any) -> str:
    """The Connect field name of a union branch (``AvroData.unionMemberFieldName``, without enhanced
    schema support): a named type's short name, else the Avro type name."""
    if isinstance(branch, str):
        return branch if branch in _PRIMITIVES else branch.rpartition(".")[2]
    t = branch.get("type")
    if isinstance(t, dict | list):
        return member_name(t)
    if t in ("record", "enum", "fixed", "error"):
        return str(branch.get("name", "")).rpartition(".")[2]
    return str(t)


def members(schema: list[Any]) -> list[tuple[int, str, Any]]:
    """(branch index, field name, branch schema) of each non-null branch of a union struct."""
    out = [(i, member_name(b), b) for i, b in enumerate(schema) if _kind(b) != "null"]
    names = [n for _, n, _ in out]
    if len(set(names)) != len(names):
        from ksqlpy.errors import KsqlStatementError

        raise KsqlStatementError("Multiple union schemas map to the Connect union field name")
    return out


def contains_union(schema: Any) -> bool:
    """Whether a union struct occurs anywhere in ``schema`` (only then is the wrapped reader needed)."""
    if isinstance(schema, list):
        return is_union_struct(schema) or any(contains_union(b) for b in schema)
    if isinstance(schema, dict):
        t = schema.get("type")
        if isinstance(t, dict | list):
            return contains_union(t)
        if t in ("record", "error"):
            return any(contains_union(f.get("type")) for f in schema.get("fields") or [])
        if t == "array":
            return contains_union(schema.get("items"))
        if t == "map":
            return contains_union(schema.get("values"))
    return False


class Wrapped:
    """A schema with every union struct's branches wrapped in records, and the wrappers' full names by the
    identity of the original union node (the reader and writer walk the original schema)."""

    def __init__(self, schema: Any) -> None:
        self._count = 0
        self.full_names: dict[int, list[str | None]] = {}
        self.schema = self._wrap(schema, "")

    def _wrap(self, schema: Any, ns: str) -> Any:
        if isinstance(schema, list):
            if not is_union_struct(schema):
                return [self._wrap(b, ns) for b in schema]
            self._count += 1
            names: list[str | None] = []
            out = []
            for i, b in enumerate(schema):
                if _kind(b) == "null":
                    names.append(None)
                    out.append(b)
                    continue
                short = f"{_WRAPPER}{self._count}B{i}"
                names.append(f"{ns}.{short}" if ns else short)
                out.append({"type": "record", "name": short,
                            "fields": [{"name": _VALUE, "type": self._wrap(b, ns)}]})
            self.full_names[id(schema)] = names
            return out
        if not isinstance(schema, dict):
            return schema
        t = schema.get("type")
        if isinstance(t, dict | list):
            return {**schema, "type": self._wrap(t, ns)}
        if t in ("record", "error"):
            name = str(schema.get("name", ""))
            inner = name.rpartition(".")[0] if "." in name else str(schema.get("namespace", ns) or "")
            return {**schema, "fields": [{**f, "type": self._wrap(f.get("type"), inner)}
                                         for f in schema.get("fields") or []]}
        if t == "array":
            return {**schema, "items": self._wrap(schema.get("items"), ns)}
        if t == "map":
            return {**schema, "values": self._wrap(schema.get("values"), ns)}
        return schema


def branch_of(datum: Any) -> tuple[int, Any] | None:
    """(branch index, value) of a datum the wrapped reader returned for a union struct, None if it is not
    one (a NULL)."""
    if not isinstance(datum, tuple) or len(datum) != 2:
        return None
    name, inner = datum
    short = str(name).rpartition(".")[2]
    if not short.startswith(_WRAPPER) or not isinstance(inner, dict):
        return None
    return int(short.rpartition("B")[2]), inner.get(_VALUE)


def unwrap_record(datum: Any) -> Any:
    """A record the wrapped reader returned as ``(name, record)`` (any record inside a union is) as the
    record itself."""
    if isinstance(datum, tuple) and len(datum) == 2 and isinstance(datum[1], dict) and isinstance(datum[0], str):
        return datum[1]
    return datum


def written(full_names: list[str | None], index: int, value: Any) -> tuple[str, dict[str, Any]]:
    """The datum the wrapped writer takes for ``value`` in branch ``index``."""
    name = full_names[index]
    assert name is not None
    return name, {_VALUE: value}
