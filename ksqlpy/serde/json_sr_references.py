"""``$ref`` in registered JSON Schemas, resolved as Connect's JsonSchemaData reads them.

JsonSchemaData converts a reference schema by converting the schema it refers to, so a ``$ref`` is its
target in place: a JSON pointer into the same document (``#/definitions/Point``, ``#/$defs/Point``,
``#``) or a schema registered under another subject (Confluent's schema references: the reference's name,
e.g. ``point.json``, optionally followed by a pointer into it). As for AVRO references, the test harness
registers every reference under a subject named after it, so an external name is looked up as a subject.

A reference that leads back into itself cannot be a SQL type (ksqlDB's types are finite trees): refused.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from ksqlpy.errors import KsqlStatementError
from ksqlpy.serde.base import UnreadableSchemaError

Lookup = Callable[[str], Any]


def registry_lookup(registry: Any) -> Lookup:
    """A document registered as a JSON Schema under the subject ``name`` (None if there is none)."""
    def lookup(name: str) -> Any:
        rs = registry.latest(name) if registry is not None else None
        if rs is None or rs.schema_type != "JSON":
            return None
        return json.loads(rs.schema)
    return lookup


def _pointer(doc: Any, fragment: str, ref: str) -> Any:
    """The node ``fragment`` (a JSON pointer, RFC 6901, without its ``#``) names in ``doc``."""
    node = doc
    for raw in unquote(fragment).split("/")[1:] if fragment else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KsqlStatementError(f"Unsupported: JSON schema reference {ref!r} names nothing")
    return node


def resolve_references(schema: Any, lookup: Lookup | None = None) -> Any:
    """``schema`` with every ``$ref`` replaced by the schema it names (recursively)."""
    def walk(node: Any, doc: Any, doc_name: str, seen: frozenset[tuple[str, str]]) -> Any:
        if isinstance(node, list):
            return [walk(n, doc, doc_name, seen) for n in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            name, _, fragment = ref.partition("#")
            if name:
                found_doc = lookup(name) if lookup is not None else None
                if found_doc is None:
                    raise KsqlStatementError(f"Unsupported: JSON schema reference {ref!r} names nothing")
                doc, doc_name = found_doc, name
            key = (doc_name, fragment.rstrip("/"))
            if key in seen:
                raise UnreadableSchemaError(f"Recursive schema: JSON schema reference {ref!r} leads back into itself, which no "
                                            "SQL type can hold")
            target = walk(_pointer(doc, fragment, ref), doc, doc_name, seen | {key})
            # a property's connect.index stays with the reference (the reference schema's own unprocessed
            # property, which JsonSchemaData reads its position from)
            if isinstance(target, dict):
                target = {k: v for k, v in target.items() if k != "connect.index"}
                if "connect.index" in node:
                    target["connect.index"] = node["connect.index"]
            return target
        return {k: (v if k in ("definitions", "$defs") else walk(v, doc, doc_name, seen)) for k, v in node.items()}

    return walk(schema, schema, "", frozenset())
