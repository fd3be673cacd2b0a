"""KEY_SCHEMA_FULL_NAME / VALUE_SCHEMA_FULL_NAME (ksqlDB's format property ``fullSchemaName``) over every
format, as a key and as a value property, in a CREATE and in a CREATE ... AS SELECT: the schema-registry
formats AVRO, PROTOBUF and JSON_SR accept it (JsonSchemaProperties lists FULL_SCHEMA_NAME beside SCHEMA_ID,
with no default name); KAFKA, JSON, DELIMITED, PROTOBUF_NOSR and NONE refuse it with
Format.validateProperties' '<FORMAT> does not support the following configs: [fullSchemaName]' (from memory of
ksqlDB's *Properties.SUPPORTED_PROPERTIES and FormatProperties.validateProperties). Where accepted, the source's
format holds the name as its fullSchemaName property (a post condition on the topic's format checks it), JSON_SR's
too; an AVRO C*AS key's format holds ``<Sink>Key`` whatever the key's type.

Writes tests/cases/serde/full-name-by-format.json:
``python tests/cases/serde/full_name_by_format_gen.py tests/cases/serde/full-name-by-format.json``
"""

from __future__ import annotations

import json
import sys
from typing import Any

ACCEPTING = ["AVRO", "PROTOBUF", "JSON_SR"]
REFUSING = ["KAFKA", "JSON", "DELIMITED", "PROTOBUF_NOSR"]
ERROR = "io.confluent.ksql.util.KsqlStatementException"
NAME = "com.example.Thing"


def create(side: str, fmt: str) -> str:
    formats = (f"key_format='{fmt}', value_format='JSON'" if side == "KEY"
               else f"key_format='KAFKA', value_format='{fmt}'")
    return (f"CREATE STREAM S (K INT KEY, V INT) WITH (kafka_topic='s', partitions=1, {formats}, "
            f"{side}_SCHEMA_FULL_NAME='{NAME}');")


def csas(side: str, fmt: str) -> list[str]:
    formats = f"key_format='{fmt}'" if side == "KEY" else f"value_format='{fmt}'"
    return ["CREATE STREAM I (K INT KEY, V INT) WITH (kafka_topic='i', partitions=1, format='JSON');",
            f"CREATE STREAM S WITH ({formats}, {side}_SCHEMA_FULL_NAME='{NAME}') AS SELECT * FROM I;"]


def named(side: str, fmt: str, topic: str, name: str = NAME) -> dict[str, Any]:
    """The post condition on the topic's format: its fullSchemaName property, as ksqlDB's harness compares the
    format's properties - JSON_SR's too, though its JSON Schema carries no name."""
    return {"topics": [{"name": topic, f"{side.lower()}Format": {"format": fmt, "properties": {
        "fullSchemaName": name}}}]}


tests: list[dict[str, Any]] = []
for side in ("KEY", "VALUE"):
    for fmt in ACCEPTING:
        tests.append({"name": f"{fmt} {side.lower()}: CREATE with {side}_SCHEMA_FULL_NAME is accepted",
                      "statements": [create(side, fmt)],
                      "post": {"sources": [{"name": "S", "type": "stream", "schema": "K INT KEY, V INT"}],
                               "topics": named(side, fmt, "s")}})
        tests.append({"name": f"{fmt} {side.lower()}: C*AS with {side}_SCHEMA_FULL_NAME is accepted",
                      "statements": csas(side, fmt),
                      "inputs": [{"topic": "i", "key": 1, "value": {"V": 2}, "timestamp": 0}],
                      # a PROTOBUF key is a message, its columns fields, whatever their count
                      "outputs": [{"topic": "S", "key": {"K": 1} if fmt == "PROTOBUF" and side == "KEY" else 1,
                                   "value": {"V": 2}, "timestamp": 0}],
                      "post": {"sources": [{"name": "S", "type": "stream", "schema": "K INT KEY, V INT"}],
                               "topics": named(side, fmt, "S")}})
for key_type, key in (("INT", 1), ("STRING", "a"), ("DECIMAL(4,2)", 1.25)):
    tests.append({"name": f"AVRO {key_type} key of a C*AS sink: its format's fullSchemaName is <Sink>Key though "
                          "a primitive's schema has no name to carry it",
                  "statements": [f"CREATE STREAM I (K {key_type} KEY, V INT) WITH (kafka_topic='i', partitions=1, "
                                 "format='JSON');",
                                 "CREATE STREAM OUT_STREAM WITH (format='AVRO') AS SELECT * FROM I;"],
                  "inputs": [{"topic": "i", "key": key, "value": {"V": 2}, "timestamp": 0}],
                  "outputs": [{"topic": "OUT_STREAM", "key": key, "value": {"V": 2}, "timestamp": 0}],
                  "post": {"topics": named("KEY", "AVRO", "OUT_STREAM",
                                           "io.confluent.ksql.avro_schemas.OutStreamKey")}})
    for fmt in REFUSING:
        message = f"{fmt} does not support the following configs: [fullSchemaName]"
        tests.append({"name": f"{fmt} {side.lower()}: CREATE with {side}_SCHEMA_FULL_NAME is refused",
                      "statements": [create(side, fmt)],
                      "expectedException": {"type": ERROR, "message": message}})
        tests.append({"name": f"{fmt} {side.lower()}: C*AS with {side}_SCHEMA_FULL_NAME is refused",
                      "statements": csas(side, fmt),
                      "expectedException": {"type": ERROR, "message": message}})
tests.append({"name": "NONE key: KEY_SCHEMA_FULL_NAME is refused",
              "statements": ["CREATE STREAM S (V INT) WITH (kafka_topic='s', partitions=1, key_format='NONE', "
                             f"value_format='JSON', KEY_SCHEMA_FULL_NAME='{NAME}');"],
              "expectedException": {"type": ERROR,
                                    "message": "NONE does not support the following configs: [fullSchemaName]"}})

if __name__ == "__main__":
    with open(sys.argv[1], "w") as out:
        json.dump({"comments": ["ksqlpy's own cases, generated by full_name_by_format_gen.py - do not edit."],
                   "tests": tests}, out, indent=1)
        out.write("\n")
    print(len(tests))
