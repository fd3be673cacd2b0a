"""The name a source created from a registered schema by id takes (ksqlDB's DefaultSchemaInjector, from memory
of addSchemaFields: 'Only populate key and value schema names when schema ids are explicitly provided'). A side
whose columns come from ``KEY_SCHEMA_ID`` / ``VALUE_SCHEMA_ID`` gets the schema's name (``ParsedSchema.name()``:
an AVRO record's full name, a PROTOBUF schema's first message with its package, a JSON schema's title) as its
``*_SCHEMA_FULL_NAME`` unless the statement names one; a side inferred from the subject's latest schema (no id)
gets none. Being a format property of the source, the name is inherited as any full name is (an AVRO or
PROTOBUF value, the sink's value format unchanged; never a key): the C*AS sink writes the registered record's
or message's name instead of ``KsqlDataSourceSchema`` / ``ConnectDefault1``.

Writes tests/cases/serde/schema-id-names.json: ``python tests/cases/serde/schema_id_names_gen.py
tests/cases/serde/schema-id-names.json`` after changing this file.
"""
import json
import sys

AVRO_RECORD = {"type": "record", "name": "Reading", "namespace": "src.ns",
               "fields": [{"name": "V", "type": "int"}, {"name": "W", "type": ["null", "string"], "default": None}]}
PROTO = 'syntax = "proto3"; package src.ns; message Reading { int32 V = 1; string W = 2; }'
PROTO_TWO = PROTO + ' message Other { int32 X = 1; }'  # two definitions: a full name must pick one
JSON_TITLED = {"type": "object", "title": "Reading", "properties": {"V": {"type": "integer"}, "W": {"type": "string"}}}
JSON_UNTITLED = {"type": "object", "properties": {"V": {"type": "integer"}, "W": {"type": "string"}}}
SCHEMAS = {"AVRO": AVRO_RECORD, "PROTOBUF": PROTO, "JSON_SR": JSON_TITLED}
VALUE = {"V": 1, "W": "a"}
NAMES = {"AVRO": "src.ns.Reading", "PROTOBUF": "src.ns.Reading", "JSON_SR": "Reading"}
DEFAULT_SINK_SCHEMAS = {
    "AVRO": {"type": "record", "name": "KsqlDataSourceSchema", "namespace": "io.confluent.ksql.avro_schemas",
             "fields": [{"name": "V", "type": ["null", "int"], "default": None},
                        {"name": "W", "type": ["null", "string"], "default": None}],
             "connect.name": "io.confluent.ksql.avro_schemas.KsqlDataSourceSchema"},
    "PROTOBUF": 'syntax = "proto3";\n\nmessage ConnectDefault1 {\n  int32 V = 1;\n  string W = 2;\n}\n',
}
NAMED_SINK_SCHEMAS = {
    "AVRO": {"type": "record", "name": "Reading", "namespace": "src.ns",
             "fields": [{"name": "V", "type": ["null", "int"], "default": None},
                        {"name": "W", "type": ["null", "string"], "default": None}],
             "connect.name": "src.ns.Reading"},
    "PROTOBUF": 'syntax = "proto3";\npackage src.ns;\n\nmessage Reading {\n  int32 V = 1;\n  string W = 2;\n}\n',
}


def topic(fmt: str, schema: object, with_id: bool) -> dict:
    t = {"name": "s", "valueFormat": fmt, "valueSchema": schema}
    if with_id:
        t["valueSchemaId"] = 7
    return t


def fmt_props(fmt: str, props: dict) -> dict:
    return {"format": fmt, "properties": props} if props else {"format": fmt}


tests = []
for fmt in ("AVRO", "PROTOBUF", "JSON_SR"):
    name = NAMES[fmt]
    inherits = fmt in NAMED_SINK_SCHEMAS
    sink_post: dict = {"name": "OUT", "type": "stream",
                       "valueFormat": fmt_props(fmt, {"fullSchemaName": name} if inherits else {})}
    post: dict = {"sources": [
        {"name": "S", "type": "stream", "schema": "V INTEGER, W STRING" if fmt != "JSON_SR" else "V BIGINT, W STRING",
         "valueFormat": fmt_props(fmt, {"fullSchemaName": name, "schemaId": "7"})},
        sink_post]}
    if inherits:
        post["topics"] = {"topics": [{"name": "OUT", "valueFormat": {"format": fmt},
                                      "valueSchema": NAMED_SINK_SCHEMAS[fmt]}]}
    tests.append({
        "name": f"{fmt} source from VALUE_SCHEMA_ID is named after the registered schema"
                + ("; its CSAS sink inherits the name" if inherits else "; a JSON_SR sink inherits nothing"),
        "statements": ["CREATE STREAM S WITH (kafka_topic='s', partitions=1, value_format='"
                       f"{fmt}', VALUE_SCHEMA_ID=7);", "CREATE STREAM OUT AS SELECT * FROM S;"],
        "topics": [topic(fmt, SCHEMAS[fmt], True)],
        "inputs": [{"topic": "s", "key": None, "value": VALUE}],
        "outputs": [{"topic": "OUT", "key": None, "value": VALUE}],
        "post": post,
    })
    # inferred from the latest schema: no name added, the sink writes the default name
    post = {"sources": [{"name": "S", "type": "stream", "valueFormat": fmt_props(fmt, {})},
                        {"name": "OUT", "type": "stream", "valueFormat": fmt_props(fmt, {})}]}
    if inherits:
        post["topics"] = {"topics": [{"name": "OUT", "valueFormat": {"format": fmt},
                                      "valueSchema": DEFAULT_SINK_SCHEMAS[fmt]}]}
    tests.append({
        "name": f"{fmt} source inferred without a schema id takes no name; its sink writes the default name",
        "statements": [f"CREATE STREAM S WITH (kafka_topic='s', partitions=1, value_format='{fmt}');",
                       "CREATE STREAM OUT AS SELECT * FROM S;"],
        "topics": [topic(fmt, SCHEMAS[fmt], False)],
        "inputs": [{"topic": "s", "key": None, "value": VALUE}],
        "outputs": [{"topic": "OUT", "key": None, "value": VALUE}],
        "post": post,
    })

# a name the statement gives is kept: the second message of a PROTOBUF schema
tests.append({
    "name": "PROTOBUF VALUE_SCHEMA_FULL_NAME given with VALUE_SCHEMA_ID is kept, not replaced by the first message",
    "statements": ["CREATE STREAM S WITH (kafka_topic='s', partitions=1, value_format='PROTOBUF', VALUE_SCHEMA_ID=7, "
                   "VALUE_SCHEMA_FULL_NAME='src.ns.Other');", "CREATE STREAM OUT AS SELECT * FROM S;"],
    "topics": [topic("PROTOBUF", PROTO_TWO, True)],
    "inputs": [{"topic": "s", "key": None, "value": {"X": 3}}],
    "outputs": [{"topic": "OUT", "key": None, "value": {"X": 3}}],
    "post": {"sources": [
        {"name": "S", "type": "stream", "schema": "X INTEGER",
         "valueFormat": fmt_props("PROTOBUF", {"fullSchemaName": "src.ns.Other", "schemaId": "7"})},
        {"name": "OUT", "type": "stream", "valueFormat": fmt_props("PROTOBUF", {"fullSchemaName": "src.ns.Other"})}]},
})
# a JSON schema without a title has no name
tests.append({
    "name": "JSON_SR schema without title given by VALUE_SCHEMA_ID: no name",
    "statements": ["CREATE STREAM S WITH (kafka_topic='s', partitions=1, value_format='JSON_SR', VALUE_SCHEMA_ID=7);"],
    "topics": [topic("JSON_SR", JSON_UNTITLED, True)],
    "inputs": [], "outputs": [],
    "post": {"sources": [{"name": "S", "type": "stream", "valueFormat": fmt_props("JSON_SR", {"schemaId": "7"})}]},
})
# keys: the source's key takes the name; a sink's key never inherits it
KEY_SCHEMAS = {"AVRO": {"type": "record", "name": "ReadingKey", "namespace": "src.ns",
                        "fields": [{"name": "ID", "type": "int"}]},
               "PROTOBUF": 'syntax = "proto3"; package src.ns; message ReadingKey { int32 ID = 1; }'}
KEY_NAME_OF_SINK = {"AVRO": "io.confluent.ksql.avro_schemas.OutKey", "PROTOBUF": None}
KEY_IN = {"AVRO": {"ID": 4}, "PROTOBUF": {"ID": 4}}
for fmt, key_schema in KEY_SCHEMAS.items():
    sink_key = KEY_NAME_OF_SINK[fmt]
    tests.append({
        "name": f"{fmt} key from KEY_SCHEMA_ID is named after the registered schema; the sink's key is not",
        "statements": ["CREATE STREAM S (V INT) WITH (kafka_topic='s', partitions=1, key_format='"
                       f"{fmt}', value_format='JSON', KEY_SCHEMA_ID=5);", "CREATE STREAM OUT AS SELECT * FROM S;"],
        "topics": [{"name": "s", "keyFormat": fmt, "keySchema": key_schema, "keySchemaId": 5, "valueFormat": "JSON"}],
        "inputs": [{"topic": "s", "key": KEY_IN[fmt], "value": {"V": 1}}],
        "outputs": [{"topic": "OUT", "key": KEY_IN[fmt], "value": {"V": 1}}],
        "post": {"sources": [
            {"name": "S", "type": "stream",
             "keyFormat": {"format": fmt, "properties": {"fullSchemaName": "src.ns.ReadingKey", "schemaId": "5"}}},
            {"name": "OUT", "type": "stream",
             "keyFormat": fmt_props(fmt, {"fullSchemaName": sink_key} if sink_key else {})}]},
    })

if __name__ == "__main__":  # (test_generated_cases runs this module for its ``tests``: write nothing then)
    with open(sys.argv[1], "w") as out:
        json.dump({"comments": [__doc__.split("\n\n")[0]], "tests": tests}, out, indent=2)
        out.write("\n")
