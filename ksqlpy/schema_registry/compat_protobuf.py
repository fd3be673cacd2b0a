"""Protobuf schema compatibility as Confluent's registry judges it (from memory of its ``SchemaDiff``).

The two ``.proto`` files are compared by their top-level messages (by full name: the wire's message indexes
point at them) and field by field (by number, as the wire format identifies fields). Differences that keep
the wire readable - a field or message added, a field removed or renamed, a scalar changed within a
wire-compatible group (int32, uint32, int64, uint64, bool; sint32, sint64; fixed32, sfixed32; fixed64,
sfixed64; string, bytes), enum values added or removed - are compatible. A package change, a top-level
message removed (or renamed), a field whose kind (scalar, message, enum, map) or scalar kind changes, a
field moved into or out of a oneof, and a repeated field made singular (or the other way) are not.

A message- or enum-typed field compares the two types' definitions, whatever they are named: nested type
names are not on the wire, and ksqlDB names its generated nested messages after the schema's full name
(``ConnectDefault2`` without one, ``<Name>_<FIELD>`` with one - an INSERT VALUES writer takes the latest
schema's name), so a renamed nested type with the same fields is the same data. The same differences decide
BACKWARD and FORWARD: the check is symmetric up to which file is the original.
"""

from __future__ import annotations

from dataclasses import dataclass

from ksqlpy.serde.protobuf_schema import SCALARS, ProtoEnum, ProtoField, ProtoFile, ProtoMessage

# scalar kinds a reader decodes from one another's bytes (protobuf's wire compatibility)
_WIRE_GROUPS = ({"int32", "uint32", "int64", "uint64", "bool"}, {"sint32", "sint64"}, {"fixed32", "sfixed32"},
                {"fixed64", "sfixed64"}, {"string", "bytes"})


@dataclass(frozen=True)
class Difference:
    kind: str  # Confluent's Difference.Type, e.g. FIELD_SCALAR_KIND_CHANGED
    path: str


def _wire_compatible(a: str, b: str) -> bool:
    return a == b or any(a in g and b in g for g in _WIRE_GROUPS)


def _kind(file: ProtoFile, f: ProtoField) -> str:
    if f.is_map:
        return "map"
    if f.type in SCALARS:
        return "scalar"
    try:
        return "enum" if isinstance(file.lookup(f.type), ProtoEnum) else "message"
    except ValueError:
        return "message"


class _Diff:
    def __init__(self, original: ProtoFile, update: ProtoFile) -> None:
        self.original, self.update = original, update
        self.found: list[Difference] = []
        self._seen: set[tuple[str, str]] = set()

    def run(self) -> list[Difference]:
        if self.original.package != self.update.package:
            self.found.append(Difference("PACKAGE_CHANGED", "#/"))
        updated = {m.full_name: m for m in self.update.messages}
        for msg in self.original.messages:
            other = updated.get(msg.full_name)
            if other is None:
                self.found.append(Difference("MESSAGE_REMOVED", f"#/{msg.full_name}"))
            else:
                self.message(msg, other)
        return self.found

    def message(self, original: ProtoMessage, update: ProtoMessage) -> None:
        pair = (original.full_name, update.full_name)
        if pair in self._seen:
            return
        self._seen.add(pair)
        path = f"#/{original.full_name}"
        updated = update.by_number()
        for f in original.fields:
            g = updated.get(f.number)
            if g is None:
                if f.oneof is not None:
                    self.found.append(Difference("ONEOF_FIELD_REMOVED", f"{path}/{f.number}"))
                elif f.label == "required":
                    self.found.append(Difference("REQUIRED_FIELD_REMOVED", f"{path}/{f.number}"))
                continue
            self.field(f, g, f"{path}/{f.number}")
        originals = original.by_number()
        for g in update.fields:
            if g.number not in originals and g.label == "required":
                self.found.append(Difference("REQUIRED_FIELD_ADDED", f"{path}/{g.number}"))
        moved = [g for g in update.fields if g.oneof is not None and g.number in originals
                 and originals[g.number].oneof is None]
        if len(moved) > 1:
            self.found.append(Difference("MULTIPLE_FIELDS_MOVED_TO_ONEOF", path))
        elif moved and any(g.oneof == moved[0].oneof and g.number not in {m.number for m in moved}
                           and g.number in originals for g in update.fields):
            self.found.append(Difference("FIELD_MOVED_TO_EXISTING_ONEOF", f"{path}/{moved[0].number}"))

    def field(self, f: ProtoField, g: ProtoField, path: str) -> None:
        fk, gk = _kind(self.original, f), _kind(self.update, g)
        if fk != gk:
            self.found.append(Difference("FIELD_KIND_CHANGED", path))
            return
        if f.is_repeated != g.is_repeated:
            numeric = fk == "scalar" and f.type not in ("string", "bytes")
            self.found.append(Difference("FIELD_NUMERIC_LABEL_CHANGED" if numeric
                                         else "FIELD_STRING_OR_BYTES_LABEL_CHANGED" if fk == "scalar"
                                         else "FIELD_KIND_CHANGED", path))
            return
        if fk == "scalar":
            if not _wire_compatible(f.type, g.type):
                self.found.append(Difference("FIELD_SCALAR_KIND_CHANGED", path))
        elif fk == "map":
            if not _wire_compatible(str(f.key_type), str(g.key_type)):
                self.found.append(Difference("FIELD_SCALAR_KIND_CHANGED", f"{path}/key"))
            self._named_or_scalar(f.type, g.type, f"{path}/value")
        else:
            self._named_or_scalar(f.type, g.type, path)

    def _named_or_scalar(self, a: str, b: str, path: str) -> None:
        if a in SCALARS or b in SCALARS:
            if not (a in SCALARS and b in SCALARS):
                self.found.append(Difference("FIELD_KIND_CHANGED", path))
            elif not _wire_compatible(a, b):
                self.found.append(Difference("FIELD_SCALAR_KIND_CHANGED", path))
            return
        try:
            ta, tb = self.original.lookup(a), self.update.lookup(b)
        except ValueError:
            if a.rpartition(".")[2] != b.rpartition(".")[2]:
                self.found.append(Difference("FIELD_NAMED_TYPE_CHANGED", path))
            return
        if isinstance(ta, ProtoMessage) and isinstance(tb, ProtoMessage):
            self.message(ta, tb)
        elif isinstance(ta, ProtoMessage) != isinstance(tb, ProtoMessage):
            self.found.append(Difference("FIELD_KIND_CHANGED", path))


# the differences Confluent counts as compatible are every one not listed here
INCOMPATIBLE = frozenset({"PACKAGE_CHANGED", "MESSAGE_REMOVED", "FIELD_KIND_CHANGED", "FIELD_SCALAR_KIND_CHANGED",
                          "FIELD_NAMED_TYPE_CHANGED", "FIELD_NUMERIC_LABEL_CHANGED",
                          "FIELD_STRING_OR_BYTES_LABEL_CHANGED", "REQUIRED_FIELD_ADDED", "REQUIRED_FIELD_REMOVED",
                          "ONEOF_FIELD_REMOVED", "MULTIPLE_FIELDS_MOVED_TO_ONEOF", "FIELD_MOVED_TO_EXISTING_ONEOF"})


def incompatibilities(original: ProtoFile, update: ProtoFile) -> list[Difference]:
    """The incompatible differences from ``original`` to ``update``; [] if the update is compatible."""
    return [d for d in _Diff(original, update).run() if d.kind in INCOMPATIBLE]
