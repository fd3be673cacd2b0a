"""INSERT VALUES into a schema-registry source serializes with the name of the latest schema registered for the
topic when the source's format has none of its own (from memory of ksqlDB's
InsertValuesExecutor.addSerializerMissingFormatFields: FULL_SCHEMA_NAME := the latest ParsedSchema.name()):
an AVRO value is written as that record, a PROTOBUF key or value as that message (the schema's first, with its
package); an AVRO key keeps its own name (<Source>Key, which every AVRO key format has) and JSON_SR writes no
name. Whether the columns came from the registry or were declared over a subject that already held a schema
does not matter. A source created with KEY_SCHEMA_ID / VALUE_SCHEMA_ID writes with those schemas and registers
nothing; a persistent query (INSERT INTO ... SELECT) writes with the sink's own format, the default names.

Writes tests/cases/serde/insert-values-schema-names.json:
``python tests/cases/serde/insert_values_schema_names_gen.py tests/cases/serde/insert-values-schema-names.json``
"""

from __future__ import annotations

import json
import sys
from typing import Any

FORMATS = ["AVRO", "PROTOBUF", "JSON_SR"]

# the registered key (one INT column) and value (one INT field A) of topic 's', each named where it can be
KEY = {
    "AVRO": "int",
    "PROTOBUF": 'syntax = "proto3"; package my.ns; message K { int32 ID = 1; }',
    "JSON_SR": {"type": "integer", "connect.type": "int32"},
}
VALUE = {
    "AVRO": {"type": "record", "name": "V", "namespace": "my.ns",
             "fields": [{"name": "A", "type": ["null", "int"], "default": None}]},
    "PROTOBUF": 'syntax = "proto3"; package my.ns; message V { int32 A = 1; }',
    "JSON_SR": {"type": "object", "title": "my.ns.V",
                "properties": {"A": {"connect.index": 0, "oneOf": [{"type": "null"},
                                                                   {"type": "integer", "connect.type": "int32"}]}}},
}
KEY_COLUMN = {"AVRO": "ROWKEY", "PROTOBUF": "ID", "JSON_SR": "ROWKEY"}

# what INSERT VALUES registers: the generated schemas, named after the registered ones
WRITTEN_VALUE = {
    "AVRO": {"type": "record", "name": "V", "namespace": "my.ns",
             "fields": [{"name": "A", "type": ["null", "int"], "default": None}], "connect.name": "my.ns.V"},
    "PROTOBUF": 'syntax = "proto3"; package my.ns; message V { int32 A = 1; }',
    "JSON_SR": {"type": "object", "properties": {"A": {"connect.index": 0, "oneOf": [
        {"type": "null"}, {"type": "integer", "connect.type": "int32"}]}}},
}
WRITTEN_KEY = {
    "AVRO": "int",
    "PROTOBUF": 'syntax = "proto3"; package my.ns; message K { int32 ID = 1; }',
    "JSON_SR": {"oneOf": [{"type": "null"}, {"type": "integer", "connect.type": "int32"}]},
}
# what a persistent query registers: the sink format's default names
DEFAULT_VALUE = {
    "AVRO": {"type": "record", "name": "KsqlDataSourceSchema", "namespace": "io.confluent.ksql.avro_schemas",
             "fields": [{"name": "A", "type": ["null", "int"], "default": None}],
             "connect.name": "io.confluent.ksql.avro_schemas.KsqlDataSourceSchema"},
    "PROTOBUF": 'syntax = "proto3"; message ConnectDefault1 { int32 A = 1; }',
    "JSON_SR": WRITTEN_VALUE["JSON_SR"],
}


def topic(fmt: str, **ids: int) -> dict[str, Any]:
    t: dict[str, Any] = {"name": "s", "keySchema": KEY[fmt], "keyFormat": fmt, "valueSchema": VALUE[fmt],
                         "valueFormat": fmt, "partitions": 1}
    if "key" in ids:
        t["keySchemaId"] = ids["key"]
    if "value" in ids:
        t["valueSchemaId"] = ids["value"]
    return t


def read_back(fmt: str) -> list[str]:
    return ["CREATE STREAM O WITH (kafka_topic='o', format='JSON') AS SELECT * FROM S;"]


def out(fmt: str, k: int, a: int) -> dict[str, Any]:
    return {"topic": "o", "key": k, "value": {"A": a}}


def post(key: Any, value: Any) -> dict[str, Any]:
    return {"topics": {"topics": [{"name": "s", "keySchema": key, "valueSchema": value}]}}


tests: list[dict[str, Any]] = []
for fmt in FORMATS:
    k = KEY_COLUMN[fmt]
    tests.append({
        "name": f"{fmt} source inferred from the registry: INSERT VALUES writes the registered schema's name",
        "statements": ["CREATE STREAM S WITH (kafka_topic='s', format='" + fmt + "');",
                       f"INSERT INTO S ({k}, A) VALUES (5, 1);", *read_back(fmt)],
        "topics": [topic(fmt)],
        "inputs": [],
        "outputs": [out(fmt, 5, 1)],
        "post": post(WRITTEN_KEY[fmt], WRITTEN_VALUE[fmt]),
    })
    tests.append({
        "name": f"{fmt} source declared over a subject that holds a schema: INSERT VALUES writes that schema's name",
        "statements": [f"CREATE STREAM S ({k} INT KEY, A INT) WITH (kafka_topic='s', format='{fmt}');",
                       f"INSERT INTO S ({k}, A) VALUES (6, 2);", *read_back(fmt)],
        "topics": [topic(fmt)],
        "inputs": [],
        "outputs": [out(fmt, 6, 2)],
        "post": post(WRITTEN_KEY[fmt], WRITTEN_VALUE[fmt]),
    })
    tests.append({
        "name": f"{fmt} source with KEY_SCHEMA_ID and VALUE_SCHEMA_ID: INSERT VALUES registers nothing",
        "statements": [f"CREATE STREAM S WITH (kafka_topic='s', format='{fmt}', key_schema_id=11, "
                       "value_schema_id=12);",
                       f"INSERT INTO S ({k}, A) VALUES (7, 3);", *read_back(fmt)],
        "topics": [topic(fmt, key=11, value=12)],
        "inputs": [],
        "outputs": [out(fmt, 7, 3)],
        "post": post(KEY[fmt], VALUE[fmt]),
    })
    tests.append({
        "name": f"{fmt} source inferred from the registry: INSERT INTO ... SELECT writes the sink format's own names",
        "statements": ["CREATE STREAM S WITH (kafka_topic='s', format='" + fmt + "');",
                       f"CREATE STREAM I ({k} INT KEY, A INT) WITH (kafka_topic='i', format='JSON', partitions=1);",
                       "INSERT INTO S SELECT * FROM I;", *read_back(fmt)],
        "topics": [topic(fmt)],
        "inputs": [{"topic": "i", "key": 8, "value": {"A": 4}}],
        "outputs": [out(fmt, 8, 4)],
        "post": post(WRITTEN_KEY[fmt] if fmt != "PROTOBUF"
                     else 'syntax = "proto3"; message ConnectDefault1 { int32 ID = 1; }', DEFAULT_VALUE[fmt]),
    })

# PROTOBUF: the name is the schema's first message, with its package; a name of the source's own wins
TWO = ('syntax = "proto3"; package my.ns; message First { int32 A = 1; } '
       'message Second { string B = 1; }')
tests.append({
    "name": "PROTOBUF value subject with two messages: INSERT VALUES writes the first one's name",
    "statements": ["CREATE STREAM S (ID INT KEY, A INT) WITH (kafka_topic='s', format='PROTOBUF');",
                   "INSERT INTO S (ID, A) VALUES (1, 9);", *read_back("PROTOBUF")],
    "topics": [{"name": "s", "keySchema": KEY["PROTOBUF"], "keyFormat": "PROTOBUF", "valueSchema": TWO,
                "valueFormat": "PROTOBUF", "partitions": 1}],
    "inputs": [],
    "outputs": [out("PROTOBUF", 1, 9)],
    "post": post(KEY["PROTOBUF"], 'syntax = "proto3"; package my.ns; message First { int32 A = 1; }'),
})
for fmt in ("AVRO", "PROTOBUF"):
    name = "other.pkg.Mine"
    written = ({"type": "record", "name": "Mine", "namespace": "other.pkg",
                "fields": [{"name": "A", "type": ["null", "int"], "default": None}], "connect.name": name}
               if fmt == "AVRO" else 'syntax = "proto3"; package other.pkg; message Mine { int32 A = 1; }')
    tests.append({
        "name": f"{fmt} source with VALUE_SCHEMA_FULL_NAME: INSERT VALUES writes its own name",
        "statements": [f"CREATE STREAM S ({KEY_COLUMN[fmt]} INT KEY, A INT) WITH (kafka_topic='s', format='{fmt}', "
                       f"value_schema_full_name='{name}');",
                       f"INSERT INTO S ({KEY_COLUMN[fmt]}, A) VALUES (2, 8);", *read_back(fmt)],
        "topics": [topic(fmt)],
        "inputs": [],
        "outputs": [out(fmt, 2, 8)],
        "post": post(WRITTEN_KEY[fmt], written),
    })
# PROTOBUF under a nullable representation: the named message is generated in that representation
for rep, fields in (("WRAPPER", "google.protobuf.Int32Value a = 1; google.protobuf.StringValue b = 2;"),
                    ("OPTIONAL", "optional int32 a = 1; optional string b = 2;")):
    imports = 'import "google/protobuf/wrappers.proto"; ' if rep == "WRAPPER" else ""
    written = fields.replace(" a =", " A =").replace(" b =", " B =")
    tests.append({
        "name": f"PROTOBUF value inferred under the {rep} nullable representation: INSERT VALUES writes that "
                "representation under the registered message's name",
        "statements": ["CREATE STREAM S WITH (kafka_topic='s', key_format='KAFKA', value_format='PROTOBUF', "
                       f"value_protobuf_nullable_representation='{rep}');",
                       "INSERT INTO S (A, B) VALUES (1, NULL);",
                       "CREATE STREAM O WITH (kafka_topic='o', value_format='JSON') AS SELECT * FROM S;"],
        "topics": [{"name": "s", "valueSchema": f'syntax = "proto3"; package p.q; {imports}message V {{ {fields} }}',
                    "valueFormat": "PROTOBUF", "partitions": 1}],
        "inputs": [],
        "outputs": [{"topic": "o", "key": None, "value": {"A": 1, "B": None}}],
        "post": {"topics": {"topics": [{"name": "s", "valueSchema": (
            f'syntax = "proto3"; package p.q; {imports}message V {{ {written} }}')}]}},
    })
# a subject holding an unnamed AVRO schema (a primitive value, read unwrapped) gives no name
tests.append({
    "name": "AVRO unwrapped value over a primitive schema: INSERT VALUES writes the bare type",
    "statements": ["CREATE STREAM S WITH (kafka_topic='s', key_format='KAFKA', value_format='AVRO', "
                   "wrap_single_value=false);",
                   "INSERT INTO S (ROWVAL) VALUES (3);",
                   "CREATE STREAM O WITH (kafka_topic='o', value_format='JSON') AS SELECT * FROM S;"],
    "topics": [{"name": "s", "valueSchema": "long", "valueFormat": "AVRO", "partitions": 1}],
    "inputs": [],
    "outputs": [{"topic": "o", "key": None, "value": {"ROWVAL": 3}}],
    "post": {"topics": {"topics": [{"name": "s", "valueSchema": "long"}]}},
})

if __name__ == "__main__":
    json.dump({"comments": ["ksqlpy's own cases, generated by tests/cases/serde/insert_values_schema_names_gen.py "
                            "(edit that): the schema name INSERT VALUES serializes with in each schema-registry "
                            "format"], "tests": tests}, open(sys.argv[1], "w"), indent=1)
    print(len(tests))
