"""A small parser for the ``.proto`` text a schema registry holds (schemaType PROTOBUF).

It reads what ksqlDB and Confluent's serializers register: ``syntax``, ``package``, ``import``,
``option``, messages (nested), enums, fields with ``repeated``/``optional`` labels, ``map<K, V>``,
``oneof`` groups, ``reserved`` ranges and field options (only the ``key``/``value`` pairs of
``(confluent.field_meta)`` params are kept: DECIMAL's precision and scale). Services and extensions are
skipped. Type names are resolved with protobuf's scoping rules (innermost scope first); the
well-known types ksqlDB uses (``google.protobuf.Timestamp`` and the wrappers, ``google.type.Date`` and
``TimeOfDay``, ``confluent.type.Decimal``) are built in, so their imports need no text; so are the other
well-known types Confluent's ProtobufSchema resolves without a reference (``Duration``, ``Any``, ``Empty``,
``FieldMask``, ``Struct``/``Value``/``ListValue``, ``google.type.LatLng``, ``Money``, ``DayOfWeek``,
``Month``), which ProtobufData reads as the ordinary messages and enums they are (``Struct`` contains itself).

The result is a ``ProtoFile``: its top-level messages in order (a message's *indexes* - its position
path among nested messages - are what the Confluent wire format writes before the payload) and every
message and enum by full name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

SCALARS = frozenset({"double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32",
                     "fixed64", "sfixed32", "sfixed64", "bool", "string", "bytes"})


class ProtoSchemaError(ValueError):
    """The text is not a proto schema this parser understands."""


class MissingMessageError(ProtoSchemaError):
    """The schema parses but has no message of the name asked for (a ``*_SCHEMA_FULL_NAME`` it lacks)."""


@dataclass
class ProtoField:
    name: str
    number: int
    type: str  # a scalar name, or the full name of a message or enum (after ``resolve``)
    label: str = ""  # "" | "repeated" | "optional" | "required" (proto2's: parsing fails without it)
    key_type: str | None = None  # set for map<K, V> fields (then ``type`` is V)
    oneof: str | None = None
    params: dict[str, str] = field(default_factory=dict)

    @property
    def is_map(self) -> bool:
        return self.key_type is not None

    @property
    def is_repeated(self) -> bool:
        return self.label == "repeated"


@dataclass
class ProtoEnum:
    """``values``: each number's name - the first declared, as protobuf-java's ``findValueByNumber`` gives
    it when ``allow_alias`` lets several names share a number; ``names``: every name's number, aliases too."""

    full_name: str
    values: dict[int, str] = field(default_factory=dict)
    names: dict[str, int] = field(default_factory=dict)
    # a proto2 file's enums are closed: an undeclared number is kept as an unknown field, not as the value
    closed: bool = False

    def number(self, name: str) -> int:
        if name in self.names:
            return self.names[name]
        for n, v in self.values.items():
            if v == name:
                return n
        raise ValueError(f"{name!r} is not a value of enum {self.full_name}")


@dataclass
class ProtoMessage:
    full_name: str
    fields: list[ProtoField] = field(default_factory=list)
    nested: list[ProtoMessage] = field(default_factory=list)
    enums: list[ProtoEnum] = field(default_factory=list)
    oneofs: list[str] = field(default_factory=list)
    map_entry: bool = False

    @property
    def name(self) -> str:
        return self.full_name.rpartition(".")[2]

    def by_number(self) -> dict[int, ProtoField]:
        return {f.number: f for f in self.fields}


@dataclass
class ProtoFile:
    package: str = ""
    messages: list[ProtoMessage] = field(default_factory=list)
    types: dict[str, ProtoMessage | ProtoEnum] = field(default_factory=dict)
    imports: list[str] = field(default_factory=list)
    # read ``google.protobuf.*Value`` fields as their nullable primitive (ProtobufData's wrapper.for.nullables:
    # ksqlDB sets it for ``*_PROTOBUF_NULLABLE_REPRESENTATION='WRAPPER'``); else they are the messages they are
    unwrap_wrappers: bool = False

    def message(self, name: str | None = None) -> ProtoMessage:
        """The message ``name`` names (full or short name), else the first one: what a serde writes."""
        if not self.messages:
            raise ProtoSchemaError("The protobuf schema has no message")
        if not name:
            return self.messages[0]
        got = self.types.get(name) or self.types.get(f"{self.package}.{name}" if self.package else name)
        if got is None:
            got = next((t for n, t in self.types.items() if n.rpartition(".")[2] == name
                        and isinstance(t, ProtoMessage) and not n.startswith(_BUILTIN_PREFIXES)), None)
        if not isinstance(got, ProtoMessage):
            raise MissingMessageError(f"Schema does not contain a message named {name}")
        return got

    def indexes(self, msg: ProtoMessage) -> list[int]:
        """The position path of ``msg`` among the file's (nested) messages."""
        def walk(level: list[ProtoMessage], path: list[int]) -> list[int] | None:
            for i, m in enumerate(level):
                if m is msg:
                    return [*path, i]
                found = walk(m.nested, [*path, i])
                if found is not None:
                    return found
            return None

        got = walk(self.messages, [])
        if got is None:
            raise ProtoSchemaError(f"{msg.full_name} is not a message of this schema")
        return got

    def by_indexes(self, indexes: list[int]) -> ProtoMessage:
        level, msg = self.messages, None
        for i in indexes or [0]:
            if not 0 <= i < len(level):
                raise ProtoSchemaError(f"No message at indexes {indexes}")
            msg = level[i]
            level = msg.nested
        assert msg is not None
        return msg

    def lookup(self, full_name: str) -> ProtoMessage | ProtoEnum:
        got = self.types.get(full_name)
        if got is None and BUILTINS is not None:
            got = BUILTINS.types.get(full_name)
        if got is None:
            raise ProtoSchemaError(f"Unknown protobuf type {full_name}")
        return got


# --------------------------------------------------------------------------- tokens
_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<word>\.?[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<num>[-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?))
  | (?P<sym>[{}\[\]()<>;,=:])
""", re.VERBOSE | re.DOTALL)


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ProtoSchemaError(f"Unexpected character {text[pos]!r} in protobuf schema at offset {pos}")
        pos = m.end()
        if m.lastgroup != "ws":
            out.append(m.group())
    return out


def tokens(text: str) -> list[str]:
    """The tokens of a .proto text, without whitespace and comments (ProtoSchemaError if it has a character no
    token holds) - what the registry compares to tell two texts of one schema apart from two schemas."""
    return _tokens(text)


def _unquote(tok: str) -> str:
    return tok[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")


Loader = Callable[[str], "str | None"]
_BUILTIN_IMPORTS = ("google/protobuf/", "google/type/", "confluent/")


class _Parser:
    def __init__(self, text: str, load: Loader | None = None, seen: frozenset[str] = frozenset()) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.file = ProtoFile()
        self.load = load
        self.seen = seen
        self.pending: list[tuple[ProtoField, str]] = []  # (field, scope) whose type names need resolving
        self.syntax = "proto2"  # protoc's default for a file without a syntax statement

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def next(self) -> str:
        if self.i >= len(self.toks):
            raise ProtoSchemaError("Unexpected end of protobuf schema")
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, tok: str) -> None:
        got = self.next()
        if got != tok:
            raise ProtoSchemaError(f"Expected {tok!r} in protobuf schema, got {got!r}")

    def skip_statement(self) -> None:
        """Skip to the end of the current statement (``;``), or over a ``{...}`` block."""
        depth = 0
        while True:
            tok = self.next()
            if tok in "{[(" and len(tok) == 1:
                depth += 1
            elif tok in "}])" and len(tok) == 1:
                depth -= 1
                if depth == 0 and tok == "}" and (self.peek() != ";"):
                    return
            elif tok == ";" and depth == 0:
                return

    # -- file
    def parse(self) -> ProtoFile:
        while self.peek() is not None:
            tok = self.next()
            if tok == "syntax" and self.peek() == "=":
                self.next()
                self.syntax = _unquote(self.next())
                self.skip_statement()
            elif tok == "syntax" or tok == "edition":
                self.skip_statement()
            elif tok == "package":
                self.file.package = self.next()
                self.expect(";")
            elif tok == "import":
                name = self.next()
                if name in ("public", "weak"):
                    name = self.next()
                self.file.imports.append(_unquote(name))
                self.expect(";")
                self.import_types(_unquote(name))
            elif tok == "option":
                self.skip_statement()
            elif tok == "message":
                self.file.messages.append(self.message(self.file.package))
            elif tok == "enum":
                self.enum(self.file.package)
            elif tok in ("service", "extend"):
                self.next()
                self.skip_statement()
            elif tok == ";":
                continue
            else:
                raise ProtoSchemaError(f"Unexpected {tok!r} in protobuf schema")
        for f, scope in self.pending:
            f.type = self.resolve(f.type, scope)
            if f.key_type is not None:
                f.key_type = self.resolve(f.key_type, scope)
        return self.file

    def import_types(self, name: str) -> None:
        """Make an imported file's types visible (a schema reference: its text comes from ``load``)."""
        if name.startswith(_BUILTIN_IMPORTS) or self.load is None or name in self.seen:
            return
        text = self.load(name)
        if text is None:
            raise ProtoSchemaError(f"Cannot resolve import {name!r}: no schema reference of that name")
        imported = _Parser(text, self.load, self.seen | {name}).parse()
        for full, t in imported.types.items():
            self.file.types.setdefault(full, t)

    def resolve(self, name: str, scope: str) -> str:
        if name in SCALARS:
            return name
        if name.startswith("."):
            return name[1:]
        parts = scope.split(".") if scope else []
        while True:
            candidate = ".".join([*parts, name])
            if candidate in self.file.types or (BUILTINS is not None and candidate in BUILTINS.types):
                return candidate
            if not parts:
                break
            parts.pop()
        raise ProtoSchemaError(f"Unknown protobuf type {name} (in {scope or 'the file'})")

    # -- declarations
    def message(self, scope: str) -> ProtoMessage:
        name = self.next()
        full = f"{scope}.{name}" if scope else name
        msg = ProtoMessage(full)
        self.file.types[full] = msg
        self.expect("{")
        while (tok := self.next()) != "}":
            if tok == ";":
                continue
            if tok == "message":
                msg.nested.append(self.message(full))
            elif tok == "enum":
                msg.enums.append(self.enum(full))
            elif tok == "option":
                if self.peek() == "map_entry":
                    self.next()
                    self.expect("=")
                    msg.map_entry = self.next() == "true"
                    self.expect(";")
                else:
                    self.skip_statement()
            elif tok in ("reserved", "extensions"):
                self.skip_statement()
            elif tok == "extend":
                self.next()
                self.skip_statement()
            elif tok == "oneof":
                group = self.next()
                msg.oneofs.append(group)
                self.expect("{")
                while (inner := self.next()) != "}":
                    if inner == "option":
                        self.skip_statement()
                    elif inner != ";":
                        msg.fields.append(self.field(inner, "", full, oneof=group))
            elif tok in ("repeated", "optional", "required"):
                msg.fields.append(self.field(self.next(), tok, full))
            else:
                msg.fields.append(self.field(tok, "", full))
        return msg

    def field(self, type_tok: str, label: str, scope: str, oneof: str | None = None) -> ProtoField:
        key_type = None
        if type_tok == "map":
            self.expect("<")
            key_type = self.next()
            self.expect(",")
            type_tok = self.next()
            self.expect(">")
        name = self.next()
        self.expect("=")
        number = int(self.next(), 0)
        f = ProtoField(name, number, type_tok, label, key_type, oneof)
        if self.peek() == "[":
            f.params = self.field_options()
        self.expect(";")
        self.pending.append((f, scope))
        return f

    def field_options(self) -> dict[str, str]:
        """The ``key``/``value`` pairs inside ``[...]`` (confluent.field_meta params), whichever order the
        options, the params and each param's ``key``/``value`` are written in."""
        self.expect("[")
        depth, params = 1, {}
        entries: list[dict[str, str]] = []  # the ``{...}`` being read, innermost last
        while depth:
            tok = self.next()
            if tok == "[":
                depth += 1
            elif tok == "]":
                depth -= 1
            elif tok == "{":
                entries.append({})
            elif tok == "}" and entries:
                entry = entries.pop()
                if "key" in entry and "value" in entry:
                    params[entry["key"]] = entry["value"]
            elif tok in ("key", "value") and self.peek() == ":" and entries:
                self.next()
                val = self.next()
                entries[-1][tok] = _unquote(val) if val[0] in "\"'" else val
        return params

    def enum(self, scope: str) -> ProtoEnum:
        name = self.next()
        full = f"{scope}.{name}" if scope else name
        en = ProtoEnum(full, closed=self.syntax == "proto2")
        self.file.types[full] = en
        self.expect("{")
        while (tok := self.next()) != "}":
            if tok == ";":
                continue
            if tok in ("option", "reserved"):
                self.skip_statement()
                continue
            self.expect("=")
            number = int(self.next(), 0)
            if self.peek() == "[":
                self.field_options()
            self.expect(";")
            en.values.setdefault(number, tok)
            en.names.setdefault(tok, number)
        return en


def parse_proto(text: str, load: Loader | None = None) -> ProtoFile:
    """Parse ``.proto`` text; ProtoSchemaError if it is not one. ``load`` gives the text of an imported file
    (a schema reference) by its import name; the well-known types need none."""
    return _Parser(text, load).parse()


_BUILTIN_TEXTS = (
    """syntax = "proto3"; package google.protobuf;
    message Timestamp { int64 seconds = 1; int32 nanos = 2; }
    message DoubleValue { double value = 1; } message FloatValue { float value = 1; }
    message Int64Value { int64 value = 1; } message UInt64Value { uint64 value = 1; }
    message Int32Value { int32 value = 1; } message UInt32Value { uint32 value = 1; }
    message BoolValue { bool value = 1; } message StringValue { string value = 1; }
    message BytesValue { bytes value = 1; }
    message Duration { int64 seconds = 1; int32 nanos = 2; }
    message Any { string type_url = 1; bytes value = 2; }
    message Empty { }
    message FieldMask { repeated string paths = 1; }
    message Struct { map<string, Value> fields = 1; }
    message Value { oneof kind { NullValue null_value = 1; double number_value = 2; string string_value = 3;
      bool bool_value = 4; Struct struct_value = 5; ListValue list_value = 6; } }
    enum NullValue { NULL_VALUE = 0; }
    message ListValue { repeated Value values = 1; }""",
    """syntax = "proto3"; package google.type;
    message Date { int32 year = 1; int32 month = 2; int32 day = 3; }
    message TimeOfDay { int32 hours = 1; int32 minutes = 2; int32 seconds = 3; int32 nanos = 4; }
    message LatLng { double latitude = 1; double longitude = 2; }
    message Money { string currency_code = 1; int64 units = 2; int32 nanos = 3; }
    enum DayOfWeek { DAY_OF_WEEK_UNSPECIFIED = 0; MONDAY = 1; TUESDAY = 2; WEDNESDAY = 3; THURSDAY = 4;
      FRIDAY = 5; SATURDAY = 6; SUNDAY = 7; }
    enum Month { MONTH_UNSPECIFIED = 0; JANUARY = 1; FEBRUARY = 2; MARCH = 3; APRIL = 4; MAY = 5; JUNE = 6;
      JULY = 7; AUGUST = 8; SEPTEMBER = 9; OCTOBER = 10; NOVEMBER = 11; DECEMBER = 12; }""",
    """syntax = "proto3"; package confluent.type;
    message Decimal { bytes value = 1; uint32 precision = 2; int32 scale = 3; }""",
)
_BUILTIN_PREFIXES = ("google.protobuf.", "google.type.", "confluent.type.")
BUILTINS: ProtoFile | None = None


def _builtins() -> ProtoFile:
    merged = ProtoFile()
    for text in _BUILTIN_TEXTS:
        merged.types.update(parse_proto(text).types)
    return merged


BUILTINS = _builtins()
