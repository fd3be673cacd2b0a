"""A PROTOBUF registry schema that defines several top-level messages names no key or value by itself: read
without ``KEY_SCHEMA_FULL_NAME`` / ``VALUE_SCHEMA_FULL_NAME`` it is refused with '<Key|Value> schema has multiple
schema definitions. Please specify a schema full name in the WITH clause using <KEY|VALUE>_SCHEMA_FULL_NAME.'
(../reference/ksqldb-rules 1.5, ksqlDB's DefaultSchemaInjector / SchemaRegistryTopicSchemaSupplier). Scope: keys
and values; CREATE STREAM/TABLE inferring by subject or by schema id (a partial schema too); C*AS sinks with
KEY_SCHEMA_ID / VALUE_SCHEMA_ID; the key is checked before the value. A full name (short, or with the package)
picks its message; one that names no message is 'Unable to verify ...'. Nested messages, enums and the messages
of imported files (schema references) are no definitions of the schema; columns the statement declares read
nothing from the registry, so nothing is refused; AVRO and JSON_SR schemas have no such rule.

Writes tests/cases/serde/protobuf-multiple-messages.json: ``python
tests/cases/serde/protobuf_multiple_messages_gen.py tests/cases/serde/protobuf-multiple-messages.json``.
"""
import json
import sys

EXC = "io.confluent.ksql.util.KsqlStatementException"
KEY_TWO = 'syntax = "proto3"; message KFirst { int32 K = 1; } message KSecond { string J = 1; }'
VALUE_TWO = 'syntax = "proto3"; message First { int32 A = 1; string B = 2; } message Second { string C = 1; }'
KEY_ONE = 'syntax = "proto3"; message KOnly { int32 K = 1; }'
VALUE_ONE = 'syntax = "proto3"; message Only { int32 A = 1; string B = 2; }'
PKG_TWO = 'syntax = "proto3"; package a.b; message First { int32 A = 1; } message Second { string C = 1; }'


def refusal(which: str) -> dict:
    return {"type": EXC, "message": f"{which.capitalize()} schema has multiple schema definitions. Please specify a "
                                    f"schema full name in the WITH clause using {which}_SCHEMA_FULL_NAME."}


def topic(key: str | None, value: str | None, ids: bool = False, name: str = "s") -> dict:
    t: dict = {"name": name}
    if key is not None:
        t.update({"keyFormat": "PROTOBUF", "keySchema": key})
        if ids:
            t["keySchemaId"] = 11
    if value is not None:
        t.update({"valueFormat": "PROTOBUF", "valueSchema": value})
        if ids:
            t["valueSchemaId"] = 12
    return t


tests: list[dict] = []
SIDES = {"KEY": (KEY_TWO, VALUE_ONE), "VALUE": (KEY_ONE, VALUE_TWO)}
for which, (key, value) in SIDES.items():
    for kind in ("STREAM", "TABLE"):
        tests.append({
            "name": f"PROTOBUF {which.lower()} schema of two messages inferred by subject without a full name is "
                    f"refused ({kind})",
            "statements": [f"CREATE {kind} S WITH (kafka_topic='s', format='PROTOBUF');"],
            "topics": [topic(key, value)],
            "expectedException": refusal(which),
        })
    tests.append({
        "name": f"PROTOBUF {which.lower()} schema of two messages given by schema id without a full name is refused",
        "statements": ["CREATE STREAM S WITH (kafka_topic='s', format='PROTOBUF', key_schema_id=11, "
                       "value_schema_id=12);"],
        "topics": [topic(key, value, ids=True)],
        "expectedException": refusal(which),
    })
tests.append({
    "name": "PROTOBUF key and value schemas of two messages: the key is refused first",
    "statements": ["CREATE STREAM S WITH (kafka_topic='s', format='PROTOBUF');"],
    "topics": [topic(KEY_TWO, VALUE_TWO)],
    "expectedException": refusal("KEY"),
})
tests.append({
    "name": "PROTOBUF value of two messages with a KAFKA key is refused",
    "statements": ["CREATE STREAM S WITH (kafka_topic='s', key_format='KAFKA', value_format='PROTOBUF');"],
    "topics": [topic(None, VALUE_TWO)],
    "expectedException": refusal("VALUE"),
})
tests.append({
    "name": "PROTOBUF partial schema: a declared key, the value of two messages by VALUE_SCHEMA_ID is refused",
    "statements": ["CREATE TABLE T (ID INT PRIMARY KEY) WITH (kafka_topic='s', key_format='KAFKA', "
                   "value_format='PROTOBUF', value_schema_id=12);"],
    "topics": [topic(None, VALUE_TWO, ids=True)],
    "expectedException": refusal("VALUE"),
})
tests.append({
    "name": "PROTOBUF declared values, the key of two messages inferred by subject is refused",
    "statements": ["CREATE STREAM S (A INT) WITH (kafka_topic='s', format='PROTOBUF');"],
    "topics": [topic(KEY_TWO, VALUE_TWO)],
    "expectedException": refusal("KEY"),
})
tests.append({
    "name": "PROTOBUF declared key and value columns read nothing from a registry schema of two messages",
    "statements": ["CREATE STREAM S (K INT KEY, A INT, B STRING) WITH (kafka_topic='s', format='PROTOBUF');",
                   "CREATE STREAM O WITH (format='JSON') AS SELECT * FROM S;"],
    "topics": [topic(KEY_TWO, VALUE_TWO)],
    "inputs": [{"topic": "s", "key": {"K": 1}, "value": {"A": 2, "B": "x"}}],
    "outputs": [{"topic": "O", "key": 1, "value": {"A": 2, "B": "x"}}],  # a JSON key of one column: unwrapped
})
# a full name picks the message, by subject or by id, short or with the package
for ids in (False, True):
    how = "schema id" if ids else "subject"
    id_props = ", key_schema_id=11, value_schema_id=12" if ids else ""
    for key_name, value_name in (("KSecond", "Second"), ("KFirst", "First")):
        key_cols = "J STRING KEY" if key_name == "KSecond" else "K INT KEY"
        value_cols = "C STRING" if value_name == "Second" else "A INT, B STRING"
        key_in = {"J": "k"} if key_name == "KSecond" else {"K": 1}
        value_in = {"C": "c"} if value_name == "Second" else {"A": 2, "B": "x"}
        tests.append({
            "name": f"PROTOBUF full names pick messages {key_name} and {value_name} of two-message schemas "
                    f"(by {how})",
            "statements": [f"CREATE STREAM S WITH (kafka_topic='s', format='PROTOBUF'{id_props}, "
                           f"key_schema_full_name='{key_name}', value_schema_full_name='{value_name}');",
                           "CREATE STREAM O WITH (format='JSON') AS SELECT * FROM S;"],
            "topics": [topic(KEY_TWO, VALUE_TWO, ids=ids)],
            "inputs": [{"topic": "s", "key": key_in, "value": value_in}],
            "outputs": [{"topic": "O", "key": next(iter(key_in.values())), "value": value_in}],
            "post": {"sources": [{"name": "S", "type": "stream", "schema": f"{key_cols}, {value_cols}"}]},
        })
for name in ("a.b.Second", "Second"):
    tests.append({
        "name": f"PROTOBUF value full name {name} picks a message of a schema with a package",
        "statements": ["CREATE STREAM S WITH (kafka_topic='s', key_format='KAFKA', value_format='PROTOBUF', "
                       f"value_schema_full_name='{name}');"],
        "topics": [topic(None, PKG_TWO)],
        "post": {"sources": [{"name": "S", "type": "stream", "schema": "C STRING"}]},
    })
tests.append({
    "name": "PROTOBUF value full name that names no message of a two-message schema cannot be verified",
    "statements": ["CREATE STREAM S WITH (kafka_topic='s', key_format='KAFKA', value_format='PROTOBUF', "
                   "value_schema_full_name='Third');"],
    "topics": [topic(None, VALUE_TWO)],
    "expectedException": {"type": EXC, "message": "Unable to verify if the value schema for topic: s is compatible "
                                                  "with ksqlDB.\nReason: Schema does not contain a message named Third"},
})
# what is no second definition
ONE_DEFINITION = {
    "nested messages": 'syntax = "proto3"; message Outer { message Inner { int32 X = 1; } Inner I = 1; string S = 2; }',
    "a top-level enum": 'syntax = "proto3"; enum Color { RED = 0; BLUE = 1; } message Outer { Color C = 1; string S = 2; }',
}
SCHEMAS_OF = {"nested messages": "I STRUCT<X INT>, S STRING", "a top-level enum": "C STRING, S STRING"}
for what, schema in ONE_DEFINITION.items():
    tests.append({
        "name": f"PROTOBUF value schema of one message with {what} needs no full name",
        "statements": ["CREATE STREAM S WITH (kafka_topic='s', key_format='KAFKA', value_format='PROTOBUF');"],
        "topics": [topic(None, schema)],
        "post": {"sources": [{"name": "S", "type": "stream", "schema": SCHEMAS_OF[what]}]},
    })
for which in ("key", "value"):
    main = 'syntax = "proto3"; import "p/parts.proto"; message M { com.p.Part P = 1; string S = 2; }'
    refs = [{"name": "p/parts.proto", "format": "PROTOBUF",
             "schema": 'syntax = "proto3"; package com.p; message Part { int32 N = 1; } message Spare { int32 Z = 1; }'}]
    t = {"name": "s", "keyFormat": "PROTOBUF", "valueFormat": "PROTOBUF", "keySchemaId": 3, "valueSchemaId": 4,
         "keySchema": KEY_ONE if which == "value" else main, "valueSchema": VALUE_ONE if which == "key" else main,
         f"{which}SchemaReferences": refs}
    tests.append({
        "name": f"PROTOBUF {which} schema of one message importing a file of two messages needs no full name",
        "statements": ["CREATE STREAM S WITH (kafka_topic='s', format='PROTOBUF');"],
        "topics": [t],
        "post": {"sources": [{"name": "S", "type": "stream", "schema": (
            "P STRUCT<N INT> KEY, S STRING KEY, A INT, B STRING" if which == "key"
            else "K INT KEY, P STRUCT<N INT>, S STRING")}]},
    })
# C*AS sinks with schema ids
SOURCE = "CREATE STREAM I (K INT KEY, C STRING) WITH (kafka_topic='i', format='JSON', partitions=1);"
for which, sink_topic in (("KEY", topic(KEY_TWO, VALUE_ONE, ids=True, name="o")),
                          ("VALUE", topic(KEY_ONE, VALUE_TWO, ids=True, name="o"))):
    tests.append({
        "name": f"PROTOBUF sink with {which}_SCHEMA_ID of two messages and no full name is refused",
        "statements": [SOURCE, f"CREATE STREAM O WITH (kafka_topic='o', format='PROTOBUF', {which}_SCHEMA_ID="
                               f"{11 if which == 'KEY' else 12}) AS SELECT * FROM I;"],
        "topics": [sink_topic],
        "expectedException": refusal(which),
    })
tests.append({
    "name": "PROTOBUF sink with both schema ids of two messages and no full names: the key is refused first",
    "statements": [SOURCE, "CREATE STREAM O WITH (kafka_topic='o', format='PROTOBUF', KEY_SCHEMA_ID=11, "
                           "VALUE_SCHEMA_ID=12) AS SELECT * FROM I;"],
    "topics": [topic(KEY_TWO, VALUE_TWO, ids=True, name="o")],
    "expectedException": refusal("KEY"),
})
tests.append({
    "name": "PROTOBUF sink with VALUE_SCHEMA_ID and VALUE_SCHEMA_FULL_NAME writes with the named message",
    "statements": [SOURCE, "CREATE STREAM O WITH (kafka_topic='o', key_format='KAFKA', value_format='PROTOBUF', "
                           "value_schema_id=12, value_schema_full_name='Second') AS SELECT * FROM I;"],
    "topics": [{"name": "o", "partitions": 1, "valueFormat": "PROTOBUF", "valueSchemaId": 12,
                "valueSchema": VALUE_TWO}],
    "inputs": [{"topic": "i", "key": 1, "value": {"C": "c"}}],
    "outputs": [{"topic": "o", "key": 1, "value": {"C": "c"}}],
})
tests.append({
    "name": "PROTOBUF sink with KEY_SCHEMA_ID and KEY_SCHEMA_FULL_NAME checks the named message",
    "statements": ["CREATE STREAM I (J STRING KEY, C STRING) WITH (kafka_topic='i', format='JSON', partitions=1);",
                   "CREATE STREAM O WITH (kafka_topic='o', key_format='PROTOBUF', value_format='JSON', "
                   "key_schema_id=11, key_schema_full_name='KSecond') AS SELECT * FROM I;"],
    "topics": [{"name": "o", "partitions": 1, "keyFormat": "PROTOBUF", "keySchemaId": 11, "keySchema": KEY_TWO}],
    "inputs": [{"topic": "i", "key": "k", "value": {"C": "c"}}],
    "outputs": [{"topic": "o", "key": {"J": "k"}, "value": {"C": "c"}}],
})
# no such rule for the other schema-registry formats
tests.append({
    "name": "JSON_SR value schema with several definitions is one schema: its root object",
    "statements": ["CREATE STREAM S WITH (kafka_topic='s', key_format='KAFKA', value_format='JSON_SR');"],
    "topics": [{"name": "s", "valueFormat": "JSON_SR", "valueSchema": {
        "type": "object", "properties": {"A": {"$ref": "#/definitions/X"}, "B": {"type": "string"}},
        "definitions": {"X": {"type": "integer"}, "Y": {"type": "object", "properties": {"Z": {"type": "string"}}}}}}],
    "post": {"sources": [{"name": "S", "type": "stream", "schema": "A BIGINT, B STRING"}]},
})
tests.append({
    "name": "AVRO value schema that is a union of two records is one schema: a column per branch",
    "statements": ["CREATE STREAM S WITH (kafka_topic='s', key_format='KAFKA', value_format='AVRO');"],
    "topics": [{"name": "s", "valueFormat": "AVRO", "valueSchema": [
        {"type": "record", "name": "A", "namespace": "n", "fields": [{"name": "x", "type": "int"}]},
        {"type": "record", "name": "B", "namespace": "n", "fields": [{"name": "y", "type": "string"}]}]}],
    "post": {"sources": [{"name": "S", "type": "stream", "schema": "A STRUCT<X INT>, B STRUCT<Y STRING>"}]},
})

if __name__ == "__main__":
    with open(sys.argv[1] if len(sys.argv) > 1 else __file__.replace("_gen.py", ".json").replace("_", "-"), "w") as f:
        json.dump({"comments": [__doc__.split("\n\n")[0]], "tests": tests}, f, indent=2)
        f.write("\n")
