"""A registered schema whose type contains itself - an Avro record, a protobuf message or a JSON Schema
``$ref`` that leads back into itself, directly, through an array or a map, or through another type - has no
SQL type (SQL types are finite). As ksqlDB's ``SchemaRegistryTopicSchemaSupplier`` reports any schema its
format's ``SchemaTranslator`` cannot read, the statement fails 'Unable to verify if the <key|value> schema
for topic: ... is compatible with ksqlDB.' with the reason (ours; ksqlDB's reason text is the translator's);
before, the inference recursed until the process crashed (a segfault under the QTT runner). Formats x key
/ value x cycle shapes x by subject / by ``*_SCHEMA_ID``, and sinks by ``VALUE_SCHEMA_ID``.

Writes tests/cases/serde/recursive-schemas.json: ``python tests/cases/serde/recursive_schemas_gen.py
tests/cases/serde/recursive-schemas.json`` after changing this file.
"""
import json
import sys

OK_VALUE = {"AVRO": {"type": "record", "name": "V", "fields": [{"name": "a", "type": "int"}]},
            "PROTOBUF": 'syntax = "proto3"; message V { int32 a = 1; }',
            "JSON_SR": {"type": "object", "properties": {"a": {"type": "integer"}}}}

SHAPES = {
    "AVRO": {
        "directly": {"type": "record", "name": "Node", "fields": [
            {"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Node"], "default": None}]},
        "through an array": {"type": "record", "name": "Node", "fields": [
            {"name": "v", "type": "int"}, {"name": "kids", "type": {"type": "array", "items": "Node"}}]},
        "through a map": {"type": "record", "name": "Node", "fields": [
            {"name": "v", "type": "int"}, {"name": "kids", "type": {"type": "map", "values": "Node"}}]},
        "through another record": {"type": "record", "name": "A", "namespace": "ns", "fields": [
            {"name": "b", "type": ["null", {"type": "record", "name": "B", "fields": [
                {"name": "a", "type": ["null", "ns.A"], "default": None}]}], "default": None}]},
    },
    "PROTOBUF": {
        "directly": 'syntax = "proto3"; message Node { int32 v = 1; Node next = 2; }',
        "through an array": 'syntax = "proto3"; message Node { int32 v = 1; repeated Node kids = 2; }',
        "through a map": 'syntax = "proto3"; message Node { int32 v = 1; map<string, Node> kids = 2; }',
        "through another record": ('syntax = "proto3"; message A { message B { A a = 1; int32 v = 2; } '
                                   'B b = 1; }'),  # one definition: B nested
    },
    "JSON_SR": {
        "directly": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#"}}},
        "through an array": {"type": "object", "properties": {
            "v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#"}}}},
        "through a map": {"type": "object", "properties": {
            "v": {"type": "integer"},
            "kids": {"type": "object", "connect.type": "map", "additionalProperties": {"$ref": "#"}}}},
        "through another record": {"type": "object", "properties": {"b": {"$ref": "#/definitions/B"}},
                                   "definitions": {"B": {"type": "object", "properties": {"a": {"$ref": "#"}}}}},
    },
}

tests = []
for fmt, shapes in SHAPES.items():
    for shape, schema in shapes.items():
        for side in ("key", "value"):
            for by_id in (False, True):
                topic = {"name": "input", "keyFormat": fmt if side == "key" else "KAFKA", "valueFormat": fmt,
                         "valueSchema": schema if side == "value" else OK_VALUE[fmt]}
                if side == "key":
                    topic["keySchema"] = schema
                props = f"key_format='{fmt}', value_format='{fmt}'" if side == "key" else f"value_format='{fmt}'"
                if by_id:
                    topic[f"{side}SchemaId"] = 100
                    props += f", {side.upper()}_SCHEMA_ID=100"
                tests.append({
                    "name": f"{fmt} {side} schema whose type contains itself {shape}"
                            f"{' (by schema id)' if by_id else ''} has no SQL type",
                    "statements": [f"CREATE STREAM INPUT WITH (kafka_topic='input', {props});"],
                    "topics": [topic],
                    "expectedException": {
                        "type": "io.confluent.ksql.util.KsqlStatementException",
                        "message": f"Unable to verify if the {side} schema for topic: input is compatible with "
                                   "ksqlDB.\nReason: Recursive schema: "},
                })

# a sink whose VALUE_SCHEMA_ID names such a schema: its columns come from the registry the same way
for fmt, shapes in SHAPES.items():
    schema = shapes["directly"]
    tests.append({
        "name": f"{fmt} sink whose VALUE_SCHEMA_ID names a schema that contains itself is refused",
        "statements": [
            "CREATE STREAM INPUT (V INT) WITH (kafka_topic='input', value_format='JSON');",
            f"CREATE STREAM OUTPUT WITH (kafka_topic='out', value_format='{fmt}', VALUE_SCHEMA_ID=100) AS "
            "SELECT * FROM INPUT;",
        ],
        "topics": [{"name": "out", "valueSchema": schema, "valueSchemaId": 100, "valueFormat": fmt}],
        "expectedException": {
            "type": "io.confluent.ksql.util.KsqlStatementException",
            "message": "Unable to verify if the value schema for topic: out is compatible with ksqlDB.\n"
                       "Reason: Recursive schema: "},
    })

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, f, indent=2)
        f.write("\n")
