"""JSON Schema compatibility as Confluent's registry judges it (from memory of its JSON ``SchemaDiff``).

An original schema is compared with its update and each difference is compatible or not:

- types: the same type, or ``integer`` widened to ``number`` (TYPE_EXTENDED); any other change is
  TYPE_CHANGED (``number`` to ``integer`` is TYPE_NARROWED);
- objects: a property removed is compatible only from an open content model (no ``additionalProperties:
  false``); a property added to an *open* original is PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL - data the
  original allowed may hold that name with any value - unless its schema is empty; added to a closed one it
  is compatible unless required; a property made required (REQUIRED_ATTRIBUTE_ADDED) is not; a closed model
  opened is compatible, an open one closed is not; ``additionalProperties`` schemas (maps) compare as
  schemas;
- arrays compare their ``items``;
- ``oneOf``/``anyOf``: every original branch needs a compatible branch of the update (branches added are
  COMBINED_TYPE_EXTENDED); a plain schema that becomes a union including it is SUM_TYPE_EXTENDED, a union
  narrowed to one of its branches SUM_TYPE_NARROWED;
- ``enum`` values removed (ENUM_ARRAY_NARROWED) are incompatible.

``$ref`` to ``#/definitions/...`` (or ``$defs``) is followed; annotations (``title``, ``connect.*``) are
not compared. BACKWARD compares the previous schema (original) with the new one; FORWARD the other way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Difference:
    kind: str
    path: str


INCOMPATIBLE = frozenset({"TYPE_CHANGED", "TYPE_NARROWED", "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
                          "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
                          "REQUIRED_ATTRIBUTE_ADDED", "ADDITIONAL_PROPERTIES_REMOVED", "ADDITIONAL_PROPERTIES_NARROWED",
                          "COMBINED_TYPE_SUBSCHEMAS_CHANGED", "SUM_TYPE_NARROWED", "ENUM_ARRAY_NARROWED",
                          "ITEMS_REMOVED"})

_UNIONS = ("oneOf", "anyOf")


def _types(schema: dict[str, Any]) -> set[str]:
    t = schema.get("type")
    if isinstance(t, list):
        return {str(x) for x in t}
    if t is not None:
        return {str(t)}
    if "properties" in schema or "additionalProperties" in schema:
        return {"object"}
    if "items" in schema:
        return {"array"}
    return set()


def _is_empty(schema: Any) -> bool:
    return schema is True or (isinstance(schema, dict) and not any(
        k in schema for k in ("type", "properties", "items", "oneOf", "anyOf", "allOf", "enum", "const", "$ref",
                              "not", "additionalProperties")))


def _open(schema: dict[str, Any]) -> bool:
    extra = schema.get("additionalProperties", True)
    return extra is not False


class _Diff:
    def __init__(self, original_root: Any, update_root: Any) -> None:
        self.roots = (original_root, update_root)
        self.found: list[Difference] = []
        self._seen: set[tuple[int, int]] = set()

    def _deref(self, schema: Any, root: Any) -> Any:
        for _ in range(32):
            if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str)
                    and schema["$ref"].startswith("#/")):
                return schema
            node = root
            for part in schema["$ref"][2:].split("/"):
                node = node.get(part) if isinstance(node, dict) else None
            if node is None:
                return schema
            schema = node
        return schema

    def compare(self, original: Any, update: Any, path: str) -> None:
        original, update = self._deref(original, self.roots[0]), self._deref(update, self.roots[1])
        if original is True:
            original = {}
        if update is True:
            update = {}
        if not isinstance(original, dict) or not isinstance(update, dict):
            if original != update:
                self.found.append(Difference("TYPE_CHANGED", path))
            return
        pair = (id(original), id(update))
        if pair in self._seen:
            return
        self._seen.add(pair)
        if _is_empty(update):
            return  # an empty schema accepts anything the original allowed
        ou, uu = next((k for k in _UNIONS if k in original), None), next((k for k in _UNIONS if k in update), None)
        if ou or uu:
            self._unions(original, ou, update, uu, path)
            return
        ot, ut = _types(original), _types(update)
        if ot and ut and ot != ut:
            if ot == {"integer"} and ut == {"number"} or ot <= ut:
                pass  # TYPE_EXTENDED
            elif ot == {"number"} and ut == {"integer"}:
                self.found.append(Difference("TYPE_NARROWED", path))
                return
            else:
                self.found.append(Difference("TYPE_CHANGED", path))
                return
        if "enum" in original and "enum" in update:
            if not set(map(repr, original["enum"])) <= set(map(repr, update["enum"])):
                self.found.append(Difference("ENUM_ARRAY_NARROWED", f"{path}/enum"))
        if "object" in ot | ut:
            self._objects(original, update, path)
        if "array" in ot | ut:
            oi, ui = original.get("items"), update.get("items")
            if oi is not None and ui is not None:
                self.compare(oi, ui, f"{path}/items")

    def _unions(self, original: dict[str, Any], ou: str | None, update: dict[str, Any], uu: str | None,
                path: str) -> None:
        obranches = original[ou] if ou else [original]
        ubranches = update[uu] if uu else [update]
        for i, ob in enumerate(obranches):
            if not any(not self._trial(ob, ub) for ub in ubranches):
                kind = "SUM_TYPE_NARROWED" if ou and not uu else "COMBINED_TYPE_SUBSCHEMAS_CHANGED"
                self.found.append(Difference(kind, f"{path}/{ou or 'type'}/{i}"))
                return

    def _trial(self, original: Any, update: Any) -> list[Difference]:
        sub = _Diff(*self.roots)
        sub._seen = set(self._seen)
        sub.compare(original, update, "")
        return [d for d in sub.found if d.kind in INCOMPATIBLE]

    def _objects(self, original: dict[str, Any], update: dict[str, Any], path: str) -> None:
        oprops, uprops = original.get("properties") or {}, update.get("properties") or {}
        ureq, oreq = set(update.get("required") or []), set(original.get("required") or [])
        for name, sub in oprops.items():
            if name in uprops:
                self.compare(sub, uprops[name], f"{path}/properties/{name}")
            elif not _open(update):
                self.found.append(Difference("PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", f"{path}/properties/{name}"))
        for name, sub in uprops.items():
            if name in oprops:
                continue
            if _open(original):
                extra = original.get("additionalProperties", True)
                if isinstance(extra, dict) and not _is_empty(extra):
                    if self._trial(extra, sub):
                        self.found.append(Difference("PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
                                                     f"{path}/properties/{name}"))
                elif not _is_empty(sub):
                    self.found.append(Difference("PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", f"{path}/properties/{name}"))
            elif name in ureq:
                self.found.append(Difference("REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
                                             f"{path}/properties/{name}"))
        if any(n in oprops for n in ureq - oreq):
            self.found.append(Difference("REQUIRED_ATTRIBUTE_ADDED", f"{path}/required"))
        oextra, uextra = original.get("additionalProperties", True), update.get("additionalProperties", True)
        if uextra is False and oextra is not False:
            self.found.append(Difference("ADDITIONAL_PROPERTIES_REMOVED", f"{path}/additionalProperties"))
        elif isinstance(oextra, dict) and isinstance(uextra, dict):
            self.compare(oextra, uextra, f"{path}/additionalProperties")
        elif oextra in (True, None) and isinstance(uextra, dict) and not _is_empty(uextra):
            self.found.append(Difference("ADDITIONAL_PROPERTIES_NARROWED", f"{path}/additionalProperties"))


def incompatibilities(original: Any, update: Any) -> list[Difference]:
    """The incompatible differences from ``original`` to ``update`` (parsed JSON Schemas); [] if none."""
    diff = _Diff(original, update)
    diff.compare(original, update, "#")
    return [d for d in diff.found if d.kind in INCOMPATIBLE]
