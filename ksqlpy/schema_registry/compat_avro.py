"""Avro schema resolution as a compatibility rule: can data written with one schema be read with another?

From memory of Avro's ``SchemaCompatibility.ReaderWriterCompatibilityChecker``, which Confluent's
``AvroSchema.isCompatible`` applies: a record reads a record of the same (unqualified) name or of a name in
its aliases; each reader field takes the writer field of its name (or an alias) and needs a ``default``
when the writer has none; an enum needs every writer symbol unless it has a default; a fixed its size;
arrays and maps compare their items and values; a writer union must be readable branch by branch, a reader
union needs one branch that reads the writer; and the promotions int -> long -> float -> double and
string <-> bytes are allowed. Logical types are not compared (Avro does not). Each incompatibility is
``(error type, path, detail)``, the path a JSON pointer into the reader schema as Avro reports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
# reader type -> writer types it may read besides its own (Avro's type promotion)
PROMOTIONS = {"long": {"int"}, "float": {"int", "long"}, "double": {"int", "long", "float"},
              "string": {"bytes"}, "bytes": {"string"}}


@dataclass(frozen=True)
class Incompatibility:
    kind: str  # Avro's SchemaIncompatibilityType: TYPE_MISMATCH, NAME_MISMATCH, ...
    path: str
    detail: str = ""


class _Names:
    """The named types (record, enum, fixed) of one schema by full name, so a reference by name resolves."""

    def __init__(self, schema: Any) -> None:
        self.types: dict[str, dict[str, Any]] = {}
        self._collect(schema, "")

    def _collect(self, node: Any, ns: str) -> None:
        if isinstance(node, list):
            for branch in node:
                self._collect(branch, ns)
        elif isinstance(node, dict):
            kind = node.get("type")
            if kind in ("record", "error", "enum", "fixed"):
                full = full_name(node, ns)
                self.types.setdefault(full, node)
                ns = full.rpartition(".")[0]
                for f in node.get("fields") or []:
                    self._collect(f.get("type"), ns)
            elif kind == "array":
                self._collect(node.get("items"), ns)
            elif kind == "map":
                self._collect(node.get("values"), ns)
            elif isinstance(kind, dict | list):
                self._collect(kind, ns)

    def resolve(self, node: Any, ns: str) -> tuple[Any, str]:
        """``node`` with a name reference replaced by its definition; the namespace names inside it take."""
        if isinstance(node, dict) and isinstance(node.get("type"), dict | list) and len(node) == 1:
            return self.resolve(node["type"], ns)
        if isinstance(node, dict) and node.get("type") in PRIMITIVES and "logicalType" not in node:
            return node["type"], ns
        if isinstance(node, str) and node not in PRIMITIVES:
            full = node if "." in node else (f"{ns}.{node}" if ns else node)
            got = self.types.get(full) or self.types.get(node)
            if got is None:
                return node, ns
            node = got
        if isinstance(node, dict) and node.get("type") in ("record", "error", "enum", "fixed"):
            return node, full_name(node, ns).rpartition(".")[0]
        return node, ns


def full_name(node: dict[str, Any], ns: str) -> str:
    name = str(node.get("name") or "")
    if "." in name:
        return name
    space = node.get("namespace", ns)
    return f"{space}.{name}" if space else name


def kind_of(node: Any) -> str:
    if isinstance(node, list):
        return "union"
    if isinstance(node, str):
        return node
    if isinstance(node, dict):
        kind = node.get("type")
        return "record" if kind == "error" else str(kind)
    return "unknown"


def _short(node: dict[str, Any]) -> str:
    return str(node.get("name") or "").rpartition(".")[2]


class Checker:
    """One reader schema against one writer schema; ``check`` lists every incompatibility found."""

    def __init__(self, reader: Any, writer: Any) -> None:
        self.reader, self.writer = reader, writer
        self.rnames, self.wnames = _Names(reader), _Names(writer)
        self._seen: set[tuple[int, int]] = set()
        self.found: list[Incompatibility] = []

    def _sub(self) -> Checker:
        """A checker of the same schemas that collects its own findings (a union branch tried on its own)."""
        sub = Checker(self.reader, self.writer)
        sub._seen = set(self._seen)
        return sub

    def check(self) -> list[Incompatibility]:
        self._compare(self.reader, "", self.writer, "", "")
        return self.found

    def _add(self, kind: str, path: str, detail: str = "") -> None:
        self.found.append(Incompatibility(kind, path or "/", detail))

    def _compare(self, reader: Any, rns: str, writer: Any, wns: str, path: str) -> None:
        reader, rns = self.rnames.resolve(reader, rns)
        writer, wns = self.wnames.resolve(writer, wns)
        rk, wk = kind_of(reader), kind_of(writer)
        if rk in ("record", "enum", "fixed") and wk == rk:
            pair = (id(reader), id(writer))
            if pair in self._seen:  # a recursive type: assumed compatible while it is being compared
                return
            self._seen.add(pair)
        if rk == wk:
            if rk == "record":
                self._records(reader, rns, writer, wns, path)
            elif rk == "enum":
                self._enums(reader, rns, writer, wns, path)
            elif rk == "fixed":
                if not self._names_match(reader, rns, writer, wns, path):
                    return
                if reader.get("size") != writer.get("size"):
                    self._add("FIXED_SIZE_MISMATCH", f"{path}/size",
                              f"expected: {writer.get('size')}, found: {reader.get('size')}")
            elif rk == "array":
                self._compare(reader.get("items"), rns, writer.get("items"), wns, f"{path}/items")
            elif rk == "map":
                self._compare(reader.get("values"), rns, writer.get("values"), wns, f"{path}/values")
            elif rk == "union":
                for i, branch in enumerate(writer):
                    if not self._readable_by_union(reader, rns, branch, wns):
                        self._add("MISSING_UNION_BRANCH", f"{path}/{i}",
                                  f"reader union lacking writer type: {kind_of(self.wnames.resolve(branch, wns)[0]).upper()}")
            return
        if wk == "union":
            # every branch the writer may have written must be readable
            for i, branch in enumerate(writer):
                sub = self._sub()
                sub._compare(reader, rns, branch, wns, path)
                if sub.found:
                    self._add("MISSING_UNION_BRANCH", f"{path}/{i}",
                              f"reader union lacking writer type: {kind_of(self.wnames.resolve(branch, wns)[0]).upper()}")
            return
        if rk == "union":
            if not self._readable_by_union(reader, rns, writer, wns):
                self._add("MISSING_UNION_BRANCH", path, f"reader union lacking writer type: {wk.upper()}")
            return
        if wk in PROMOTIONS.get(rk, ()):
            return
        self._add("TYPE_MISMATCH", path, f"reader type: {rk.upper()} not compatible with writer type: {wk.upper()}")

    def _readable_by_union(self, union: list[Any], rns: str, writer: Any, wns: str) -> bool:
        for branch in union:
            sub = self._sub()
            sub._compare(branch, rns, writer, wns, "")
            if not sub.found:
                return True
        return False

    def _names_match(self, reader: dict[str, Any], rns: str, writer: dict[str, Any], wns: str, path: str) -> bool:
        if _short(reader) == _short(writer) or full_name(writer, wns) in (reader.get("aliases") or []):
            return True
        self._add("NAME_MISMATCH", f"{path}/name",
                  f"expected: {full_name(writer, wns)}")
        return False

    def _records(self, reader: dict[str, Any], rns: str, writer: dict[str, Any], wns: str, path: str) -> None:
        if not self._names_match(reader, rns, writer, wns, path):
            return
        wfields = {str(f.get("name")): f for f in writer.get("fields") or []}
        for i, rf in enumerate(reader.get("fields") or []):
            name = str(rf.get("name"))
            wf = wfields.get(name) or next((wfields[a] for a in rf.get("aliases") or [] if a in wfields), None)
            if wf is None:
                if "default" not in rf:
                    self._add("READER_FIELD_MISSING_DEFAULT_VALUE", f"{path}/fields/{i}", name)
                continue
            self._compare(rf.get("type"), rns, wf.get("type"), wns, f"{path}/fields/{i}/type")

    def _enums(self, reader: dict[str, Any], rns: str, writer: dict[str, Any], wns: str, path: str) -> None:
        if not self._names_match(reader, rns, writer, wns, path):
            return
        if "default" in reader:
            return
        missing = [s for s in writer.get("symbols") or [] if s not in (reader.get("symbols") or [])]
        if missing:
            self._add("MISSING_ENUM_SYMBOLS", f"{path}/symbols", "[" + ", ".join(missing) + "]")


def incompatibilities(reader: Any, writer: Any) -> list[Incompatibility]:
    """Why data written with ``writer`` cannot be read with ``reader`` (parsed Avro schemas); [] if it can."""
    return Checker(reader, writer).check()
