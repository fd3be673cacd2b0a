"""A CREATE ... AS SELECT that names registered schemas (KEY_SCHEMA_ID, VALUE_SCHEMA_ID) checks its key and its
value columns against them alike (ksqlDB's DefaultSchemaInjector): same names, types and order, else
'The following key|value columns are changed, missing or reordered: ...'; keys are checked first. A registry
key schema is read unwrapped (one column ROWKEY) except by PROTOBUF, whose message fields are the key columns.

Writes tests/cases/serde/sink-schema-ids.json: ``python tests/cases/serde/sink_schema_ids_gen.py
tests/cases/serde/sink-schema-ids.json`` after changing this file.
"""
import json
import sys

ERROR = "io.confluent.ksql.util.KsqlStatementException"

# per format: the registered key schema of one INT key column, its column name, a record value schema
# of one INT field V
KEY_SCHEMAS = {
    "AVRO": ("int", "ROWKEY"),
    "JSON_SR": ({"type": "integer", "connect.type": "int32"}, "ROWKEY"),
    "PROTOBUF": ('syntax = "proto3"; message SinkKey { int32 ID = 1; }', "ID"),
}
VALUE_SCHEMAS = {
    "AVRO": {"type": "record", "name": "SinkValue", "fields": [{"name": "V", "type": ["null", "int"]}]},
    "JSON_SR": {"type": "object", "properties": {"V": {"connect.index": 0, "oneOf": [
        {"type": "null"}, {"type": "integer", "connect.type": "int32"}]}}},
    "PROTOBUF": 'syntax = "proto3"; message SinkValue { int32 V = 1; }',
}


def key_value(fmt: str, name: str, v: int):  # type: ignore[no-untyped-def]
    return {name: v} if fmt == "PROTOBUF" else v


def source(kind: str, key_name: str, key_type: str = "INT", value_type: str = "INT") -> str:
    key = "PRIMARY KEY" if kind == "TABLE" else "KEY"
    return (f"CREATE {kind} SRC ({key_name} {key_type} {key}, V {value_type}) WITH (kafka_topic='src', "
            "format='JSON', partitions=1);")


tests = []
for fmt, (key_schema, key_col) in KEY_SCHEMAS.items():
    for kind in ("STREAM", "TABLE"):
        # the sink topic exists (its schemas are registered) at the source topic's one partition: the count
        # a CREATE ... AS SELECT naming none expects of an existing sink topic
        topics = [{"name": "sink", "keyFormat": fmt, "keySchemaId": 41, "keySchema": key_schema,
                   "valueFormat": fmt, "valueSchemaId": 42, "valueSchema": VALUE_SCHEMAS[fmt], "partitions": 1}]
        sink = f"CREATE {kind} SINK WITH (kafka_topic='sink', format='{fmt}', key_schema_id=41, value_schema_id=42)"
        tests.append({
            "name": f"{fmt} {kind} sink: key and value columns equal to the registered schemas' are written with them",
            "statements": [source(kind, key_col), f"{sink} AS SELECT * FROM SRC;"],
            "topics": topics,
            "inputs": [{"topic": "src", "key": 1, "value": {"V": 5}}],
            "outputs": [{"topic": "sink", "key": key_value(fmt, key_col, 1), "value": {"V": 5}}],
            "post": {"sources": [{"name": "SINK", "type": kind.lower(), "schema": f"{key_col} INT KEY, V INT"}]},
        })
        shown = "`ROWKEY` INTEGER" if fmt != "PROTOBUF" else "`ID` INTEGER"
        for what, stmt_key, key_type, got in (
                ("renamed", "OTHER", "INT", "`OTHER` INTEGER KEY"),
                ("retyped", key_col, "STRING", f"`{key_col}` STRING KEY")):
            tests.append({
                "name": f"{fmt} {kind} sink: a key column {what} against KEY_SCHEMA_ID is refused",
                "statements": [source(kind, stmt_key, key_type), f"{sink} AS SELECT * FROM SRC;"],
                "topics": topics,
                "expectedException": {"type": ERROR, "message": (
                    f"The following key columns are changed, missing or reordered: [{got}]. "
                    f"Schema from schema registry is [{shown}]")},
            })
        tests.append({
            "name": f"{fmt} {kind} sink: key and value both differ - the key is reported (checked first)",
            "statements": [source(kind, "OTHER", "INT", "STRING"), f"{sink} AS SELECT * FROM SRC;"],
            "topics": topics,
            "expectedException": {"type": ERROR, "message": (
                "The following key columns are changed, missing or reordered: [`OTHER` INTEGER KEY]. "
                f"Schema from schema registry is [{shown}]")},
        })
        tests.append({
            "name": f"{fmt} {kind} sink: a value column retyped against VALUE_SCHEMA_ID is refused",
            "statements": [source(kind, key_col, "INT", "STRING"), f"{sink} AS SELECT * FROM SRC;"],
            "topics": topics,
            "expectedException": {"type": ERROR, "message": (
                "The following value columns are changed, missing or reordered: [`V` STRING]. "
                "Schema from schema registry is [`V` INTEGER]")},
        })
        tests.append({
            "name": f"{fmt} {kind} sink: only KEY_SCHEMA_ID - the key is checked, the value schema generated",
            "statements": [source(kind, key_col, "INT", "STRING"),
                           f"CREATE {kind} SINK WITH (kafka_topic='sink', format='{fmt}', key_schema_id=41) "
                           "AS SELECT * FROM SRC;"],
            "topics": [{"name": "sink", "keyFormat": fmt, "keySchemaId": 41, "keySchema": key_schema, "partitions": 1}],
            "inputs": [{"topic": "src", "key": 1, "value": {"V": "a"}}],
            "outputs": [{"topic": "sink", "key": key_value(fmt, key_col, 1), "value": {"V": "a"}}],
        })

# the plan ksqlDB makes to learn the columns to compare (DefaultSchemaInjector) words its failures
WRAPPED = "Could not determine output schema for query due to error: "
for which in ("KEY", "VALUE"):
    for fmt in ("JSON", "KAFKA", "DELIMITED", "PROTOBUF_NOSR"):
        if which == "VALUE" and fmt == "KAFKA":
            continue
        tests.append({
            "name": f"{which}_SCHEMA_ID on a {fmt} sink: the plan fails on the format's properties",
            "statements": [source("STREAM", "K"),
                           f"CREATE STREAM SINK WITH (kafka_topic='sink', {which.lower()}_format='{fmt}', "
                           f"{which.lower()}_schema_id=41) AS SELECT * FROM SRC;"],
            "expectedException": {"type": ERROR, "message": (
                f"{WRAPPED}{fmt} does not support the following configs: [schemaId]")},
        })
for fmt in KEY_SCHEMAS:
    csas = (f"CREATE STREAM SINK WITH (kafka_topic='sink', format='{fmt}', value_schema_id=42) AS "
            "SELECT K, NOPE FROM SRC;")
    tests.append({
        "name": f"{fmt} sink with VALUE_SCHEMA_ID: an unknown column fails the plan",
        "statements": [source("STREAM", "K"), csas],
        "topics": [{"name": "sink", "valueFormat": fmt, "valueSchemaId": 42, "valueSchema": VALUE_SCHEMAS[fmt]}],
        "expectedException": {"type": ERROR, "message": (
            f"{WRAPPED}Line: 2, Col: {csas.index('NOPE') + 1}: SELECT column 'NOPE' cannot be resolved.")},
    })

if __name__ == "__main__":
    json.dump({"comments": ["ksqlpy's own cases, generated by tests/cases/serde/sink_schema_ids_gen.py (edit that): "
                            "C*AS sinks with KEY_SCHEMA_ID/VALUE_SCHEMA_ID are checked against the registered "
                            "schemas for keys as for values"], "tests": tests}, open(sys.argv[1], "w"), indent=1)
    print(len(tests))
