"""The SQL types ksqlDB infers from JSON Schema kinds, as Connect's JsonSchemaData converts them (from memory of
its ``toConnectSchema``):

- ``integer`` and ``number`` are one kind (NumberSchema): ``connect.type`` decides (int8/int16/int32 INT,
  int64 BIGINT, float32/float64 DOUBLE, bytes BYTES); without it an integer is BIGINT, a number DOUBLE;
- an object is a MAP only when marked ``connect.type: map`` (values: ``additionalProperties``; absent or a
  boolean there is no value schema, which Connect's ``SchemaBuilder.map`` refuses: 'valueSchema cannot be
  null.'); otherwise the STRUCT of its ``properties`` in ``connect.index`` order (without one, see
  json_sr_field_order_gen.py) - ``additionalProperties`` ignored, no properties an empty STRUCT;
- ``allOf`` reads only as the JSON Schema library builds it for a typed ``const`` or ``enum`` (the typed
  schema); any other ``allOf`` is refused ('Unsupported criterion allOf for <schema>');
- ``$ref`` to ``definitions`` reads the referred schema;
- a schema of no kind JsonSchemaData converts - ``{}``, ``true``, ``false``, a bare ``const``, ``not``,
  ``{"type": "null"}`` - is refused as 'Unsupported schema type org.everit.json.schema.<Class>', reported as
  ksqlDB reports any schema it cannot translate.

Values are read through a JSON sink, so what is compared is what the JSON_SR reader produced.

Writes tests/cases/serde/json-sr-schema-kinds.json: ``python tests/cases/serde/json_sr_schema_kinds_gen.py
tests/cases/serde/json-sr-schema-kinds.json`` after changing this file.
"""
import json
import sys

ERROR = "io.confluent.ksql.util.KsqlStatementException"
UNVERIFIED = "Unable to verify if the value schema for topic: input is compatible with ksqlDB.\nReason: "


def schema_of(field):  # type: ignore[no-untyped-def]
    return {"type": "object", "properties": {"A": field, "N": {"type": "integer", "connect.index": 1}}}


def reading(name, field, column, value=None, read=None):  # type: ignore[no-untyped-def]
    """A source inferred over a schema whose field A is ``field``: column A is ``column``; ``value`` written
    reads as ``read`` through a JSON sink."""
    case = {
        "name": f"JSON_SR {name}: {column}",
        "statements": ["CREATE STREAM INPUT WITH (kafka_topic='input', value_format='JSON_SR');",
                       "CREATE STREAM OUTPUT WITH (value_format='JSON') AS SELECT * FROM INPUT;"],
        "topics": [{"name": "input", "valueFormat": "JSON_SR", "valueSchema": schema_of(field)}],
        "post": {"sources": [{"name": "INPUT", "type": "stream", "schema": f"A {column}, N BIGINT"}]},
    }
    if value is not None:
        case["inputs"] = [{"topic": "input", "value": {"A": value, "N": 1}},
                          {"topic": "input", "value": {"A": None, "N": 2}}]
        case["outputs"] = [{"topic": "OUTPUT", "value": {"A": read if read is not None else value, "N": 1}},
                           {"topic": "OUTPUT", "value": {"A": None, "N": 2}}]
    return case


def refused(name, field, reason):  # type: ignore[no-untyped-def]
    schema = schema_of(field)
    return {
        "name": f"JSON_SR {name}: refused",
        "statements": ["CREATE STREAM INPUT WITH (kafka_topic='input', value_format='JSON_SR');"],
        "topics": [{"name": "input", "valueFormat": "JSON_SR", "valueSchema": schema}],
        "expectedException": {"type": ERROR, "message": UNVERIFIED + reason},
    }


tests = []
NUMBERS = [("int8", "INT", 7), ("int16", "INT", -300), ("int32", "INT", 70000), ("int64", "BIGINT", 1234567890123),
           ("float32", "DOUBLE", 1.5), ("float64", "DOUBLE", 2.25)]
for kind in ("integer", "number"):
    for ctype, column, value in NUMBERS:
        tests.append(reading(f"{kind} with connect.type {ctype}", {"type": kind, "connect.type": ctype,
                                                                  "connect.index": 0}, column, value))
tests.append(reading("integer without connect.type", {"type": "integer"}, "BIGINT", 5))
tests.append(reading("number without connect.type", {"type": "number"}, "DOUBLE", 0.5))

tests.append(reading("object marked connect.type map", {"type": "object", "connect.type": "map",
                                                        "additionalProperties": {"type": "integer"}},
                     "MAP<STRING, BIGINT>", {"x": 1, "y": 2}))
tests.append(reading("object with additionalProperties but no connect.type", {
    "type": "object", "additionalProperties": {"type": "integer"}}, "STRUCT<>", {"x": 1}, {}))
tests.append(reading("object without properties", {"type": "object"}, "STRUCT<>", {"x": 1}, {}))
tests.append(reading("object with properties and additionalProperties", {
    "type": "object", "properties": {"B": {"type": "string"}}, "additionalProperties": {"type": "integer"}},
    "STRUCT<B STRING>", {"B": "b", "x": 1}, {"B": "b"}))
tests.append(reading("object properties in connect.index order", {
    "type": "object", "properties": {"Y": {"type": "string", "connect.index": 1},
                                     "X": {"type": "boolean", "connect.index": 0}}},
    "STRUCT<X BOOLEAN, Y STRING>", {"X": True, "Y": "y"}))

tests.append(reading("string with const (allOf of string and const)", {"type": "string", "const": "c"}, "STRING", "c"))
tests.append(reading("allOf of a string and a const", {"allOf": [{"type": "string"}, {"const": "c"}]}, "STRING", "c"))
tests.append(reading("allOf of an integer and an enum", {"allOf": [{"type": "integer"}, {"enum": [1, 2]}]},
                     "BIGINT", 2))
tests.append(reading("string with enum", {"type": "string", "enum": ["p", "q"]}, "STRING", "q"))
tests.append(reading("bare enum", {"enum": ["p", "q"]}, "STRING", "p"))
tests.append(reading("$ref to definitions", {"$ref": "#/definitions/Point"}, "STRUCT<X BIGINT>", {"X": 3}))
tests[-1]["topics"][0]["valueSchema"]["definitions"] = {
    "Point": {"type": "object", "properties": {"X": {"type": "integer"}}}}

EVERIT = "Unsupported schema type org.everit.json.schema."
tests.append(refused("empty schema {}", {}, EVERIT + "EmptySchema"))
tests.append(refused("true schema", True, EVERIT + "TrueSchema"))
tests.append(refused("false schema", False, EVERIT + "FalseSchema"))
tests.append(refused("bare const", {"const": "c"}, EVERIT + "ConstSchema"))
tests.append(refused("not", {"not": {"type": "string"}}, EVERIT + "NotSchema"))
tests.append(refused("null type", {"type": "null"}, EVERIT + "NullSchema"))
tests.append(refused("array of anything", {"type": "array", "items": {}}, EVERIT + "EmptySchema"))
ALL_OF = {"allOf": [{"type": "object", "properties": {"X": {"type": "integer"}}},
                    {"type": "object", "properties": {"Y": {"type": "string"}}}]}
tests.append(refused("allOf of two objects", ALL_OF,
                     "Unsupported criterion allOf for " + json.dumps(ALL_OF, separators=(",", ":"))))
for shape, extra, reason in (("without additionalProperties", {}, "valueSchema cannot be null."),
                              ("with additionalProperties true", {"additionalProperties": True},
                               "valueSchema cannot be null."),
                              ("with additionalProperties false", {"additionalProperties": False},
                               "valueSchema cannot be null."),
                              ("with additionalProperties {}", {"additionalProperties": {}}, EVERIT + "EmptySchema")):
    tests.append(refused(f"object marked connect.type map {shape}", {"type": "object", "connect.type": "map", **extra},
                         reason))
tests.append(refused("unknown connect.type on a number", {"type": "number", "connect.type": "int128"},
                     "Unsupported type int128"))

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, f, indent=1)
        f.write("\n")
    print(len(tests))
