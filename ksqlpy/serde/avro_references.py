"""AVRO schemas that reference named types registered under other subjects (schema references).

A registered Avro schema may use a record, enum or fixed it does not define: Confluent's registry resolves
the name through the schema's references, each a subject holding the schema that defines it. ksqlpy's
registry keeps no reference list; as ksqlDB's test harness registers every reference under a subject named
after it (the type's name), a name the schema does not define is looked up as a subject, by full and
then by short name. Its definition is put in place of the first use, which Avro allows (a named type may
be defined where it is first used), so the rest of the serde reads one self-contained schema.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
_NAMED = ("record", "enum", "fixed", "error")

Lookup = Callable[[str], Any]


def registry_lookup(registry: Any) -> Lookup:
    """Resolve a type name to the schema the subject of that name holds (None if there is none)."""
    def lookup(name: str) -> Any:
        for subject in dict.fromkeys((name, name.rpartition(".")[2])):
            rs = registry.latest(subject) if registry is not None else None
            if rs is not None and rs.schema_type == "AVRO":
                return json.loads(rs.schema)
        return None
    return lookup


def inline_references(schema: Any, lookup: Lookup) -> Any:
    """``schema`` with every named type it uses but does not define replaced, at its first use, by the
    definition ``lookup`` finds (recursively: a referenced schema may reference others)."""
    defined: set[str] = set()

    def full(name: str, ns: str) -> str:
        return name if "." in name or not ns else f"{ns}.{name}"

    def walk(node: Any, ns: str) -> Any:
        if isinstance(node, str):
            if node in _PRIMITIVES or full(node, ns) in defined or node in defined:
                return node
            found = lookup(full(node, ns)) or (lookup(node) if full(node, ns) != node else None)
            if found is None:
                return node  # left for the Avro parser to report
            return walk(found, ns)
        if isinstance(node, list):
            return [walk(b, ns) for b in node]
        if not isinstance(node, dict):
            return node
        t = node.get("type")
        if t in _NAMED:
            name = str(node.get("name", ""))
            space = name.rpartition(".")[0] if "." in name else str(node.get("namespace", ns) or "")
            defined.add(full(name, space))
            defined.add(name.rpartition(".")[2])
            if t in ("record", "error"):
                return {**node, "fields": [{**f, "type": walk(f.get("type"), space)} for f in node.get("fields") or []]}
            return node
        if t == "array":
            return {**node, "items": walk(node.get("items"), ns)}
        if t == "map":
            return {**node, "values": walk(node.get("values"), ns)}
        if isinstance(t, str | dict | list):
            return {**node, "type": walk(t, ns)}
        return node

    return walk(schema, "")
