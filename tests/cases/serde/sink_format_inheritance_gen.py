"""What a CREATE ... AS SELECT sink takes from its source's format properties (ksqlDB's Analyzer): the value
format's inheritable properties when the value format is unchanged - AVRO's and PROTOBUF's full schema name,
DELIMITED's delimiter; JSON_SR's nothing - and never the schema id, so a sink writes the schema of what its
query produces. The key format's properties come from the statement alone: an AVRO key is named
``io.confluent.ksql.avro_schemas.<Sink>Key``, a PROTOBUF key message keeps the generated name, a DELIMITED key
uses ',' unless KEY_DELIMITER says otherwise. A property the statement gives wins over an inherited one. A
PROTOBUF nullable representation (``*_PROTOBUF_NULLABLE_REPRESENTATION``) is inherited neither for the key
nor the value: the sink writes plain proto3 fields unless its own statement names one.

Writes tests/cases/serde/sink-format-inheritance.json: ``python tests/cases/serde/sink_format_inheritance_gen.py
tests/cases/serde/sink-format-inheritance.json`` after changing this file.
"""
import json
import sys

AVRO_NS = "io.confluent.ksql.avro_schemas"
# the sink queries, each with the sink's name, kind and key columns after it
QUERIES = (
    ("CREATE STREAM OUT AS SELECT * FROM S;", "OUT", "stream"),
    ("CREATE STREAM REKEYED AS SELECT K, K2, V FROM S PARTITION BY K, K2;", "REKEYED", "stream"),
    ("CREATE TABLE COUNTS AS SELECT K, K2, COUNT(*) AS V FROM S GROUP BY K, K2;", "COUNTS", "table"),
)
KEY_NAMES = {"AVRO": lambda sink: f"{AVRO_NS}.{sink.capitalize()}Key", "PROTOBUF": lambda sink: "ConnectDefault1"}


def source(fmt: str, extra: str = "") -> str:
    return ("CREATE STREAM S (K STRING KEY, K2 INT KEY, V INT) WITH (kafka_topic='s', partitions=1, "
            f"format='{fmt}'{extra});")


def key_of(fmt: str) -> object:
    return {"K": "a", "K2": 1} if fmt in ("AVRO", "PROTOBUF", "JSON_SR") else "a,1"


tests = []
for fmt, key_name in KEY_NAMES.items():
    for sql, sink, kind in QUERIES:
        tests.append({
            "name": f"{fmt} key of a {kind} sink ({sink}) is named by the sink, not by the source's KEY_SCHEMA_FULL_NAME",
            "statements": [source(fmt, ", KEY_SCHEMA_FULL_NAME='src.ns.SrcKey'"), sql],
            "inputs": [{"topic": "s", "key": key_of(fmt), "value": {"V": 1}}],
            "outputs": [{"topic": sink, "key": key_of(fmt), "value": {"V": 1}}],
            "post": {"sources": [{"name": sink, "type": kind,
                                  "keyFormat": {"format": fmt, "properties": {"fullSchemaName": key_name(sink)}}}]},
        })
        tests.append({
            "name": f"{fmt} value of a {kind} sink ({sink}) inherits the source's VALUE_SCHEMA_FULL_NAME",
            "statements": [source(fmt, ", VALUE_SCHEMA_FULL_NAME='src.ns.SrcValue'"), sql],
            "inputs": [{"topic": "s", "key": key_of(fmt), "value": {"V": 1}}],
            "outputs": [{"topic": sink, "key": key_of(fmt), "value": {"V": 1}}],
            "post": {"sources": [{"name": sink, "type": kind, "valueFormat": {
                "format": fmt, "properties": {"fullSchemaName": "src.ns.SrcValue"}}}]},
        })
    tests.append({
        "name": f"{fmt} value: the sink's own VALUE_SCHEMA_FULL_NAME wins over the source's",
        "statements": [source(fmt, ", VALUE_SCHEMA_FULL_NAME='src.ns.SrcValue'"),
                       "CREATE STREAM OUT WITH (VALUE_SCHEMA_FULL_NAME='sink.ns.Own') AS SELECT * FROM S;"],
        "inputs": [{"topic": "s", "key": key_of(fmt), "value": {"V": 1}}],
        "outputs": [{"topic": "OUT", "key": key_of(fmt), "value": {"V": 1}}],
        "post": {"sources": [{"name": "OUT", "type": "stream", "valueFormat": {
            "format": fmt, "properties": {"fullSchemaName": "sink.ns.Own"}}}]},
    })
tests.append({
    "name": "AVRO value of another value format inherits nothing: the default record name",
    "statements": [source("PROTOBUF", ", VALUE_SCHEMA_FULL_NAME='src.ns.SrcValue'"),
                   "CREATE STREAM OUT WITH (VALUE_FORMAT='AVRO') AS SELECT * FROM S;"],
    "inputs": [{"topic": "s", "key": {"K": "a", "K2": 1}, "value": {"V": 1}}],
    "outputs": [{"topic": "OUT", "key": {"K": "a", "K2": 1}, "value": {"V": 1}}],
    "post": {"sources": [{"name": "OUT", "type": "stream", "valueFormat": {
        "format": "AVRO", "properties": {"fullSchemaName": f"{AVRO_NS}.KsqlDataSourceSchema"}}}]},
})
# the schema id is not inherited: a projection the registered schema could not hold is written in the sink's
# own schema, for each schema-registry format (the registered value has a second, required field)
REGISTERED = {
    "AVRO": {"type": "record", "name": "Registered", "namespace": "src.ns",
             "fields": [{"name": "V", "type": "int"}, {"name": "W", "type": "int"}]},
    "PROTOBUF": 'syntax = "proto3"; package src.ns; message Registered { int32 V = 1; int32 W = 2; }',
    "JSON_SR": {"type": "object", "required": ["V", "W"], "properties": {
        "V": {"type": "integer", "connect.type": "int32", "connect.index": 0},
        "W": {"type": "integer", "connect.type": "int32", "connect.index": 1}}},
}
for fmt, schema in REGISTERED.items():
    tests.append({
        "name": f"{fmt} VALUE_SCHEMA_ID of the source is not inherited: the sink writes its own projection",
        "statements": [f"CREATE STREAM S WITH (kafka_topic='s', partitions=1, key_format='KAFKA', value_format='{fmt}', "
                       "VALUE_SCHEMA_ID=7);",
                       "CREATE STREAM OUT AS SELECT V FROM S;"],
        "topics": [{"name": "s", "valueFormat": fmt, "valueSchemaId": 7, "valueSchema": schema}],
        "inputs": [{"topic": "s", "key": None, "value": {"V": 1, "W": 2}}],
        "outputs": [{"topic": "OUT", "key": None, "value": {"V": 1}}],
        "post": {"sources": [{"name": "OUT", "type": "stream", "schema": "V INT"}]},
    })
# nor is the key's: a sink re-keyed to another key type writes it in its own schema, not the source's by id
# (ksqlDB's own cases rely on it: a GROUP BY / PARTITION BY / join over sources with KEY_SCHEMA_ID writes
# keys those schemas could not hold)
REGISTERED_KEYS = {
    "AVRO": ({"type": "record", "name": "Key", "namespace": "src.ns", "fields": [{"name": "ID", "type": "int"}]},
             {"ID": 1}, "a"),
    "PROTOBUF": ('syntax = "proto3"; package src.ns; message Key { int32 ID = 1; }', {"ID": 1}, {"V": "a"}),
    "JSON_SR": ({"type": "object", "required": ["ID"], "properties": {
        "ID": {"type": "integer", "connect.type": "int32"}}}, {"ID": 1}, "a"),
}
for fmt, (key_schema, key_in, key_out) in REGISTERED_KEYS.items():
    tests.append({
        "name": f"{fmt} KEY_SCHEMA_ID of the source is not inherited: a sink re-keyed by PARTITION BY writes its own key",
        "statements": [f"CREATE STREAM S (V STRING) WITH (kafka_topic='s', partitions=1, key_format='{fmt}', "
                       "value_format='JSON', KEY_SCHEMA_ID=8);",
                       "CREATE STREAM OUT AS SELECT V, AS_VALUE(V) AS W FROM S PARTITION BY V;"],
        "topics": [{"name": "s", "keyFormat": fmt, "keySchemaId": 8, "keySchema": key_schema, "valueFormat": "JSON"}],
        "inputs": [{"topic": "s", "key": key_in, "value": {"V": "a"}}],
        "outputs": [{"topic": "OUT", "key": key_out, "value": {"W": "a"}}],
        "post": {"sources": [{"name": "OUT", "type": "stream", "schema": "V STRING KEY, W STRING"}]},
    })
# a PROTOBUF nullable representation is no inheritable property (ProtobufProperties: fullSchemaName only):
# a sink writes plain proto3 fields unless its own statement names a representation
PLAIN = 'syntax = "proto3"; message ConnectDefault1 { int32 V = 1; string W = 2; }'
OPTIONAL = 'syntax = "proto3"; message ConnectDefault1 { optional int32 V = 1; optional string W = 2; }'
PLAIN_KEY = 'syntax = "proto3"; message ConnectDefault1 { string K = 1; }'
for rep in ("WRAPPER", "OPTIONAL"):
    for sql, sink, kind in (("CREATE STREAM OUT AS SELECT * FROM S;", "OUT", "stream"),
                            ("CREATE TABLE LATEST AS SELECT K, LATEST_BY_OFFSET(V) AS V, LATEST_BY_OFFSET(W) AS W "
                             "FROM S GROUP BY K;", "LATEST", "table")):
        tests.append({
            "name": f"PROTOBUF {kind} sink ({sink}) does not inherit the source's {rep} nullable representation",
            "statements": ["CREATE STREAM S (K STRING KEY, V INT, W STRING) WITH (kafka_topic='s', partitions=1, "
                           f"format='PROTOBUF', VALUE_PROTOBUF_NULLABLE_REPRESENTATION='{rep}', "
                           f"KEY_PROTOBUF_NULLABLE_REPRESENTATION='{rep}');", sql],
            "inputs": [{"topic": "s", "key": {"K": "a"}, "value": {"V": 1, "W": None}}],
            # (a NULL in a plain proto3 field is not written: it reads back as the default)
            "outputs": [{"topic": sink, "key": {"K": "a"}, "value": {"V": 1, "W": ""}}],
            "post": {"topics": {"topics": [{"name": sink, "keyFormat": "PROTOBUF", "valueFormat": "PROTOBUF",
                                            "keySchema": PLAIN_KEY, "valueSchema": PLAIN}]}},
        })
tests.append({
    "name": "PROTOBUF sink's own VALUE_PROTOBUF_NULLABLE_REPRESENTATION applies whatever the source's",
    "statements": ["CREATE STREAM S (K STRING KEY, V INT, W STRING) WITH (kafka_topic='s', partitions=1, "
                   "format='PROTOBUF', VALUE_PROTOBUF_NULLABLE_REPRESENTATION='WRAPPER');",
                   "CREATE STREAM OUT WITH (VALUE_PROTOBUF_NULLABLE_REPRESENTATION='OPTIONAL') AS SELECT * FROM S;"],
    "inputs": [{"topic": "s", "key": {"K": "a"}, "value": {"V": 1, "W": None}}],
    "outputs": [{"topic": "OUT", "key": {"K": "a"}, "value": {"V": 1, "W": None}}],
    "post": {"topics": {"topics": [{"name": "OUT", "valueFormat": "PROTOBUF", "valueSchema": OPTIONAL}]}},
})
tests.append({
    "name": "DELIMITED sink inherits the value delimiter, not the key delimiter",
    "statements": ["CREATE STREAM S (K STRING KEY, K2 INT KEY, V INT, W STRING) WITH (kafka_topic='s', partitions=1, "
                   "format='DELIMITED', KEY_DELIMITER='|', VALUE_DELIMITER='$');",
                   "CREATE STREAM OUT AS SELECT * FROM S;",
                   "CREATE STREAM OWN WITH (KEY_DELIMITER='TAB') AS SELECT * FROM S;"],
    "inputs": [{"topic": "s", "key": "a|1", "value": "1$x"}],
    "outputs": [{"topic": "OUT", "key": "a,1", "value": "1$x"}, {"topic": "OWN", "key": "a\t1", "value": "1$x"}],
})

if __name__ == "__main__":
    with open(sys.argv[1] if len(sys.argv) > 1 else __file__.replace("_gen.py", ".json").replace("_", "-"), "w") as f:
        json.dump({"comments": [__doc__.split("\n\n")[0]], "tests": tests}, f, indent=2)
        f.write("\n")
