"""Each schema type's compatibility notion, and the levels: what a registry accepts as a subject's next version."""

from __future__ import annotations

import json

import pytest

from ksqlpy.schema_registry import RegisteredSchema
from ksqlpy.schema_registry.compat_avro import incompatibilities as avro_problems
from ksqlpy.schema_registry.compat_json import incompatibilities as json_problems
from ksqlpy.schema_registry.compat_protobuf import incompatibilities as proto_problems
from ksqlpy.schema_registry.compatibility import (
    IncompatibleSchemaError,
    InvalidLevelError,
    Level,
    check,
    parse_level,
)
from ksqlpy.serde.protobuf_schema import parse_proto


def record(*fields: dict, name: str = "R", **extra) -> dict:
    return {"type": "record", "name": name, "fields": list(fields), **extra}


def opt(name: str, t: object) -> dict:
    return {"name": name, "type": ["null", t], "default": None}


def req(name: str, t: object) -> dict:
    return {"name": name, "type": t}


# -- Avro: reader (new in BACKWARD) against writer (old)
AVRO_CASES = [
    ("optional field added", record(opt("A", "int"), opt("B", "string")), record(opt("A", "int")), []),
    ("field without default added", record(opt("A", "int"), req("B", "string")), record(opt("A", "int")),
     ["READER_FIELD_MISSING_DEFAULT_VALUE"]),
    ("required field with default added", record(req("A", "int"), {"name": "B", "type": "long", "default": 0}),
     record(req("A", "int")), []),
    ("field removed", record(opt("A", "int")), record(opt("A", "int"), opt("B", "string")), []),
    ("int read as long", record(req("A", "long")), record(req("A", "int")), []),
    ("int read as float and double", record(req("A", "float"), req("B", "double")),
     record(req("A", "int"), req("B", "long")), []),
    ("long read as int", record(req("A", "int")), record(req("A", "long")), ["TYPE_MISMATCH"]),
    ("bytes and string", record(req("A", "string"), req("B", "bytes")), record(req("A", "bytes"), req("B", "string")),
     []),
    ("int read as string", record(req("A", "string")), record(req("A", "int")), ["TYPE_MISMATCH"]),
    ("nullable int read as nullable string", record(opt("A", "string")), record(opt("A", "int")),
     ["MISSING_UNION_BRANCH"]),
    ("nullable widened", record(opt("A", "long")), record(opt("A", "int")), []),
    ("required made nullable", record(opt("A", "int")), record(req("A", "int")), []),
    ("nullable made required", record(req("A", "int")), record(opt("A", "int")), ["MISSING_UNION_BRANCH"]),
    ("record renamed", record(opt("A", "int"), name="Other"), record(opt("A", "int")), ["NAME_MISMATCH"]),
    ("namespace changed only", record(opt("A", "int"), namespace="x.y"), record(opt("A", "int"), namespace="a"),
     []),
    ("renamed with an alias", record(opt("A", "int"), name="Other", aliases=["R"]), record(opt("A", "int")), []),
    ("field renamed with an alias", record({"name": "B", "type": "int", "aliases": ["A"]}), record(req("A", "int")),
     []),
    ("enum symbol removed", {"type": "enum", "name": "E", "symbols": ["X"]},
     {"type": "enum", "name": "E", "symbols": ["X", "Y"]}, ["MISSING_ENUM_SYMBOLS"]),
    ("enum symbol removed, reader default", {"type": "enum", "name": "E", "symbols": ["X"], "default": "X"},
     {"type": "enum", "name": "E", "symbols": ["X", "Y"]}, []),
    ("enum symbol added", {"type": "enum", "name": "E", "symbols": ["X", "Y"]},
     {"type": "enum", "name": "E", "symbols": ["X"]}, []),
    ("fixed resized", {"type": "fixed", "name": "F", "size": 8}, {"type": "fixed", "name": "F", "size": 4},
     ["FIXED_SIZE_MISMATCH"]),
    ("map values widened", {"type": "map", "values": "long"}, {"type": "map", "values": "int"}, []),
    ("array items narrowed", {"type": "array", "items": "int"}, {"type": "array", "items": "long"},
     ["TYPE_MISMATCH"]),
    ("map read as array", {"type": "map", "values": "int"}, {"type": "array", "items": "int"}, ["TYPE_MISMATCH"]),
    ("nested record field without default", record(req("S", record(req("X", "int"), req("Y", "int"), name="S"))),
     record(req("S", record(req("X", "int"), name="S"))), ["READER_FIELD_MISSING_DEFAULT_VALUE"]),
    # inside a union the branch that cannot be read is what Avro reports
    ("nullable nested record field without default",
     record(opt("S", record(req("X", "int"), req("Y", "int"), name="S"))),
     record(opt("S", record(req("X", "int"), name="S"))), ["MISSING_UNION_BRANCH"]),
    ("logical types are not compared", record(req("T", {"type": "long", "logicalType": "timestamp-millis"})),
     record(req("T", "long")), []),
    ("named type referenced by name", record(req("A", record(req("X", "int"), name="S")), req("B", "S")),
     record(req("A", record(req("X", "int"), name="S")), req("B", "S")), []),
]


@pytest.mark.parametrize(("reader", "writer", "kinds"), [c[1:] for c in AVRO_CASES], ids=[c[0] for c in AVRO_CASES])
def test_avro_schema_resolution(reader: dict, writer: dict, kinds: list[str]) -> None:
    assert [i.kind for i in avro_problems(reader, writer)] == kinds


def test_avro_recursive_records_terminate() -> None:
    node = record(req("V", "int"), opt("NEXT", "R"))
    assert avro_problems(node, json.loads(json.dumps(node))) == []


# -- Protobuf: original (old) to update (new)
def proto(body: str, package: str = "") -> str:
    return 'syntax = "proto3";' + (f" package {package};" if package else "") + body


PROTO_CASES = [
    ("field added", "message M { int32 A = 1; }", "message M { int32 A = 1; string B = 2; }", []),
    ("field removed", "message M { int32 A = 1; string B = 2; }", "message M { int32 A = 1; }", []),
    ("field renamed", "message M { int32 A = 1; }", "message M { int32 Z = 1; }", []),
    ("int32 to int64", "message M { int32 A = 1; }", "message M { int64 A = 1; }", []),
    ("sint32 to sint64", "message M { sint32 A = 1; }", "message M { sint64 A = 1; }", []),
    ("string to bytes", "message M { string A = 1; }", "message M { bytes A = 1; }", []),
    ("int32 to string", "message M { int32 A = 1; }", "message M { string A = 1; }", ["FIELD_SCALAR_KIND_CHANGED"]),
    ("int32 to sint32", "message M { int32 A = 1; }", "message M { sint32 A = 1; }", ["FIELD_SCALAR_KIND_CHANGED"]),
    ("double to float", "message M { double A = 1; }", "message M { float A = 1; }", ["FIELD_SCALAR_KIND_CHANGED"]),
    ("scalar to message", "message M { int32 A = 1; } message N { int32 X = 1; }",
     "message M { N A = 1; } message N { int32 X = 1; }", ["FIELD_KIND_CHANGED"]),
    # a field's message type is compared by its definition: nested names are not on the wire
    ("field type renamed, same fields", "message M { N A = 1; } message N { int32 X = 1; }",
     "message M { O A = 1; } message N { int32 X = 1; } message O { int32 X = 1; }", []),
    ("field type renamed, a field changed", "message M { N A = 1; } message N { int32 X = 1; }",
     "message M { O A = 1; } message N { int32 X = 1; } message O { string X = 1; }", ["FIELD_SCALAR_KIND_CHANGED"]),
    ("ksqlDB's nested names with and without a full name",
     "message ConnectDefault1 { ConnectDefault2 V = 1; message ConnectDefault2 { int32 A = 1; } }",
     "message ConnectDefault1 { ConnectDefault1_V V = 1; message ConnectDefault1_V { int32 A = 1; } }", []),
    ("message type made an enum", "message M { N A = 1; } message N { int32 X = 1; }",
     "message M { E A = 1; } message N { int32 X = 1; } enum E { X = 0; }", ["FIELD_KIND_CHANGED"]),
    ("nested field changed", "message M { N A = 1; } message N { int32 X = 1; }",
     "message M { N A = 1; } message N { string X = 1; }", ["FIELD_SCALAR_KIND_CHANGED"]),
    ("made repeated", "message M { int32 A = 1; }", "message M { repeated int32 A = 1; }",
     ["FIELD_NUMERIC_LABEL_CHANGED"]),
    ("message removed", "message M { int32 A = 1; } message N { int32 X = 1; }", "message M { int32 A = 1; }",
     ["MESSAGE_REMOVED"]),
    ("message renamed", "message M { int32 A = 1; }", "message Other { int32 A = 1; }", ["MESSAGE_REMOVED"]),
    ("message added", "message M { int32 A = 1; }", "message M { int32 A = 1; } message N { int32 X = 1; }", []),
    ("map value changed", "message M { map<string, int32> A = 1; }", "message M { map<string, string> A = 1; }",
     ["FIELD_SCALAR_KIND_CHANGED"]),
    ("enum value added", "message M { E A = 1; } enum E { X = 0; }", "message M { E A = 1; } enum E { X = 0; Y = 1; }",
     []),
    ("oneof field removed", "message M { oneof o { int32 A = 1; string B = 2; } }",
     "message M { oneof o { int32 A = 1; } }", ["ONEOF_FIELD_REMOVED"]),
    ("fields moved into a oneof", "message M { int32 A = 1; string B = 2; }",
     "message M { oneof o { int32 A = 1; string B = 2; } }", ["MULTIPLE_FIELDS_MOVED_TO_ONEOF"]),
]


@pytest.mark.parametrize(("original", "update", "kinds"), [c[1:] for c in PROTO_CASES],
                         ids=[c[0] for c in PROTO_CASES])
def test_protobuf_schema_diff(original: str, update: str, kinds: list[str]) -> None:
    got = proto_problems(parse_proto(proto(original)), parse_proto(proto(update)))
    assert [d.kind for d in got] == kinds


def test_protobuf_package_change_is_incompatible() -> None:
    body = "message M { int32 A = 1; }"
    got = proto_problems(parse_proto(proto(body, "a")), parse_proto(proto(body, "b")))
    assert "PACKAGE_CHANGED" in [d.kind for d in got]


# -- JSON Schema: original (old) to update (new)
def obj(props: dict, **extra) -> dict:
    return {"type": "object", "properties": props, **extra}


def nullable(t: dict) -> dict:
    return {"oneOf": [{"type": "null"}, t]}


INT, NUM, STR = {"type": "integer"}, {"type": "number"}, {"type": "string"}
JSON_CASES = [
    ("property added to an open model", obj({"A": INT}), obj({"A": INT, "B": STR}),
     ["PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"]),
    ("property with an empty schema added", obj({"A": INT}), obj({"A": INT, "B": {}}), []),
    ("property removed from an open model", obj({"A": INT, "B": STR}), obj({"A": INT}), []),
    ("optional property added to a closed model", obj({"A": INT}, additionalProperties=False),
     obj({"A": INT, "B": STR}, additionalProperties=False), []),
    ("required property added to a closed model", obj({"A": INT}, additionalProperties=False),
     obj({"A": INT, "B": STR}, additionalProperties=False, required=["B"]),
     ["REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL"]),
    ("property removed from a closed model", obj({"A": INT, "B": STR}, additionalProperties=False),
     obj({"A": INT}, additionalProperties=False), ["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"]),
    ("property made required", obj({"A": INT}), obj({"A": INT}, required=["A"]), ["REQUIRED_ATTRIBUTE_ADDED"]),
    ("model closed", obj({"A": INT}), obj({"A": INT}, additionalProperties=False), ["ADDITIONAL_PROPERTIES_REMOVED"]),
    ("model opened", obj({"A": INT}, additionalProperties=False), obj({"A": INT}), []),
    ("integer widened to number", obj({"A": INT}), obj({"A": NUM}), []),
    ("number narrowed to integer", obj({"A": NUM}), obj({"A": INT}), ["TYPE_NARROWED"]),
    ("integer to string", obj({"A": INT}), obj({"A": STR}), ["TYPE_CHANGED"]),
    ("nullable integer to nullable string", obj({"A": nullable(INT)}), obj({"A": nullable(STR)}),
     ["COMBINED_TYPE_SUBSCHEMAS_CHANGED"]),
    ("made nullable", obj({"A": INT}), obj({"A": nullable(INT)}), []),
    ("nullable made plain", obj({"A": nullable(INT)}), obj({"A": INT}), ["SUM_TYPE_NARROWED"]),
    ("map values changed", {"type": "object", "additionalProperties": INT},
     {"type": "object", "additionalProperties": STR}, ["TYPE_CHANGED"]),
    ("array items widened", {"type": "array", "items": INT}, {"type": "array", "items": NUM}, []),
    ("enum narrowed", {"type": "string", "enum": ["a", "b"]}, {"type": "string", "enum": ["a"]},
     ["ENUM_ARRAY_NARROWED"]),
    ("enum extended", {"type": "string", "enum": ["a"]}, {"type": "string", "enum": ["a", "b"]}, []),
    ("annotations ignored", obj({"A": {**INT, "connect.index": 0}}), obj({"A": {**INT, "connect.index": 3},
                                                                          }, title="x"), []),
    ("references followed", {"definitions": {"S": obj({"X": INT})}, **obj({"A": {"$ref": "#/definitions/S"}})},
     {"definitions": {"S": obj({"X": STR})}, **obj({"A": {"$ref": "#/definitions/S"}})}, ["TYPE_CHANGED"]),
]


@pytest.mark.parametrize(("original", "update", "kinds"), [c[1:] for c in JSON_CASES], ids=[c[0] for c in JSON_CASES])
def test_json_schema_diff(original: dict, update: dict, kinds: list[str]) -> None:
    assert [d.kind for d in json_problems(original, update)] == kinds


# -- levels
def rs(schema: object, version: int, schema_type: str = "AVRO") -> RegisteredSchema:
    return RegisteredSchema(version, json.dumps(schema) if not isinstance(schema, str) else schema, schema_type,
                            "s-value", version)


V1 = record(req("A", "int"))
V2 = record(req("A", "int"), {"name": "B", "type": "int", "default": 0})  # a field with a default added
V3 = record(req("A", "long"), {"name": "B", "type": "int", "default": 0})  # A widened: old readers cannot read it


@pytest.mark.parametrize(("level", "earlier", "new", "ok"), [
    (Level.NONE, [V1], record(req("A", "string")), True),
    (Level.BACKWARD, [V1], V2, True),
    (Level.BACKWARD, [V2], V3, True),
    (Level.FORWARD, [V2], V3, False),       # V2 cannot read V3's long
    (Level.FORWARD, [V1], V2, True),        # V1 ignores B
    (Level.FULL, [V1], V2, True),
    (Level.FULL, [V2], V3, False),
    (Level.BACKWARD, [V1], record(req("A", "int"), req("B", "int")), False),
    (Level.FORWARD, [V1], record(req("A", "int"), req("B", "int")), True),
    # non-transitive levels compare with the latest version only; transitive ones with all of them
    (Level.FORWARD, [V1, V3], record(req("A", "long")), True),
    (Level.FORWARD_TRANSITIVE, [V1, V3], record(req("A", "long")), False),
    (Level.BACKWARD, [record(req("A", "int"), req("C", "int")), V1], record(req("A", "int")), True),
    (Level.BACKWARD_TRANSITIVE, [record(req("C", "int")), V1], record(req("A", "int"), req("C", "int")), False),
    (Level.FULL_TRANSITIVE, [V1, V2], V2, True),
])
def test_levels(level: Level, earlier: list[dict], new: dict, ok: bool) -> None:
    history = [rs(s, i + 1) for i, s in enumerate(earlier)]
    if ok:
        check("s-value", rs(new, len(history) + 1), history, level)
    else:
        with pytest.raises(IncompatibleSchemaError):
            check("s-value", rs(new, len(history) + 1), history, level)


def test_another_schema_type_is_incompatible() -> None:
    with pytest.raises(IncompatibleSchemaError, match="different schema type"):
        check("s-value", rs(proto("message M { int32 A = 1; }"), 2, "PROTOBUF"), [rs(V1, 1)], Level.BACKWARD)


def test_the_refusal_reads_as_confluents_409() -> None:
    with pytest.raises(IncompatibleSchemaError) as info:
        check("t-value", rs(record(req("A", "string")), 2), [rs(V1, 1)], Level.BACKWARD)
    e = info.value
    assert e.error_code == 409 and e.message.startswith(
        'Schema being registered is incompatible with an earlier schema for subject "t-value", details: [')
    assert "{errorType:'TYPE_MISMATCH'" in e.message and "{oldSchemaVersion: 1}" in e.message
    assert "{compatibility: 'BACKWARD'}" in e.message and str(e).endswith("; error code: 409")


def test_level_names() -> None:
    assert parse_level(" full_transitive ") is Level.FULL_TRANSITIVE
    with pytest.raises(InvalidLevelError, match="Invalid compatibility level"):
        parse_level("SIDEWAYS")
