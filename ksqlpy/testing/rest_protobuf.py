"""REST cases with ``testPullWithProtoFormat``: pull queries asked again as ``application/vnd.ksql.v1+protobuf``.

ksqlDB's REST harness decodes each ``protobufBytes`` row with the header's ``protoSchema`` and prints it in
protobuf's text format (Java ``TextFormat``): fields in number order, proto3 defaults left out, nested
messages as ``NAME {`` ... ``}`` indented by two, strings and bytes quoted with C-style escapes. The
``queryProto`` responses hold those texts. Here rows are decoded with our own reading of the schema
(``protobuf_schema``/``protobuf_wire``, not the engine's serdes) and printed the same way; texts are
compared after putting the entries of map fields (``ConnectDefault<n>Entry`` messages) in one order, since
the order of a map's entries is the producing JVM's hash order, which no SQL result defines.
"""

from __future__ import annotations

import base64
import re
from typing import Any

_INTS = ("int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64", "sfixed32", "sfixed64")


def element_of(raw: Any, schemas: dict[str, Any]) -> Any:
    """One StreamedRow element of a protobuf response as the harness shows it (row -> its text format);
    ``schemas`` keeps the parsed protoSchema of the header for the rows after it."""
    if isinstance(raw, dict) and isinstance(raw.get("header"), dict) and "protoSchema" in raw["header"]:
        from ksqlpy.serde.protobuf_schema import parse_proto

        file = parse_proto(raw["header"]["protoSchema"])
        schemas["file"], schemas["message"] = file, file.messages[0]
        return raw
    row = raw.get("row") if isinstance(raw, dict) else None
    if isinstance(row, dict) and "protobufBytes" in row and "file" in schemas:
        from ksqlpy.serde.protobuf_wire import decode

        file, msg = schemas["file"], schemas["message"]
        return {"row": to_text(file, msg, decode(file, msg, base64.b64decode(row["protobufBytes"])))}
    return raw


def to_text(file: Any, msg: Any, values: dict[str, Any], indent: str = "") -> str:
    """``values`` (a decoded message of type ``msg``) in protobuf's text format."""
    out: list[str] = []
    for f in sorted(msg.fields, key=lambda f: f.number):
        v = values.get(f.name)
        items = v if f.is_repeated and isinstance(v, list) else [v] if v is not None else []
        if f.is_map and isinstance(v, dict):
            items = [{"key": k, "value": x} for k, x in v.items()]
        for item in items:
            target = _type(file, f.type) if not f.is_map else None
            if f.is_map or hasattr(target, "fields"):
                inner_msg = target if target is not None else _entry(f)
                out.append(f"{indent}{f.name} {{\n{to_text(file, inner_msg, item, indent + '  ')}{indent}}}\n")
            elif not _is_default(item) or f.is_repeated or f.label == "optional":
                out.append(f"{indent}{f.name}: {_scalar(f.type, item)}\n")
    return "".join(out)


def _type(file: Any, name: str) -> Any:
    """The message or enum ``name`` names: the schema's own, else a well-known one it imports (a DECIMAL's
    ``confluent.type.Decimal``, ``google.type.Date``/``TimeOfDay``, ``google.protobuf.Timestamp``, the
    wrappers), which TextFormat prints as the messages they are (``D {`` ``value: "..."`` ... ``}``)."""
    from ksqlpy.serde.protobuf_schema import BUILTINS

    found = file.types.get(name)
    return found if found is not None or BUILTINS is None else BUILTINS.types.get(name)


def _entry(f: Any) -> Any:
    from ksqlpy.serde.protobuf_schema import ProtoField, ProtoMessage

    return ProtoMessage("Entry", [ProtoField("key", 1, f.key_type or "string"), ProtoField("value", 2, f.type)])


def _is_default(v: Any) -> bool:
    return v is None or v is False or v == 0 and not isinstance(v, bool) or v in ("", b"")


def _scalar(kind: str, v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if kind == "string":
        return '"' + _escape(str(v).encode("utf-8")) + '"'
    if kind == "bytes":
        return '"' + _escape(bytes(v)) + '"'
    if kind in ("double", "float"):
        from ksqlpy.javatext import double_to_string

        return double_to_string(float(v))
    if kind in _INTS:
        return str(int(v))
    return str(v)  # an enum's name


def _escape(data: bytes) -> str:
    """Java TextFormat.escapeBytes: C escapes, printable ASCII as is, other bytes as three octal digits."""
    special = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v", 92: "\\\\", 39: "\\'",
               34: '\\"'}
    return "".join(special.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in data)


# --------------------------------------------------------------------------- comparing texts
_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|([{}:])|([^\s{}:"]+))')


def canonical(text: str, file: Any, msg: Any) -> str:
    """``text`` re-printed with the entries of each map field in one order (sorted by their text)."""
    tokens = [m.group(1) or m.group(2) or m.group(3) for m in _TOKEN.finditer(text) if m.group(0).strip()]
    pos = 0

    def parse(message: Any) -> list[tuple[str, Any]]:
        nonlocal pos
        fields = {f.name: f for f in message.fields} if message is not None else {}
        out: list[tuple[str, Any]] = []
        while pos < len(tokens) and tokens[pos] != "}":
            name = tokens[pos]
            pos += 1
            if pos < len(tokens) and tokens[pos] == ":":
                pos += 1
            if pos < len(tokens) and tokens[pos] == "{":
                pos += 1
                f = fields.get(name)
                inner = _type(file, f.type) if f is not None else None
                out.append((name, parse(inner)))
                pos += 1  # the closing brace
            else:
                out.append((name, tokens[pos] if pos < len(tokens) else ""))
                pos += 1
        return sort_entries(out, fields)

    def sort_entries(items: list[tuple[str, Any]], fields: dict[str, Any]) -> list[tuple[str, Any]]:
        def is_entry(name: str) -> bool:
            f = fields.get(name)
            return f is not None and (f.is_map or str(f.type).rpartition(".")[2].endswith("Entry"))

        entries: dict[str, list[tuple[str, Any]]] = {}
        for name, v in items:
            if is_entry(name):
                entries.setdefault(name, []).append((name, v))
        if not entries:
            return items
        for group in entries.values():
            group.sort(key=lambda nv: repr(nv[1]))
        out, taken = [], {n: iter(g) for n, g in entries.items()}
        for name, v in items:
            out.append(next(taken[name]) if name in taken else (name, v))
        return out

    return repr(parse(msg))


def text_diff(expected: str, actual: str, schemas: dict[str, Any]) -> str | None:
    """None if two text-format rows are the same message (map entries in any order)."""
    if expected == actual:
        return None
    file, msg = schemas.get("file"), schemas.get("message")
    if file is not None and canonical(expected, file, msg) == canonical(actual, file, msg):
        return None
    return f"expected {expected!r}, got {actual!r}"
