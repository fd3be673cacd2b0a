"""A registry schema a source or sink takes its columns from is read by its format's translator (ksqlDB's
SchemaRegistryTopicSchemaSupplier): a schema of another kind than the format reads is refused naming the
format it is in ('<Key|Value> schema is not in the expected format. You may want to set <KEY|VALUE>_FORMAT to
...'), and one the translator cannot read - a PROTOBUF *_SCHEMA_FULL_NAME naming no message of the schema - is
'Unable to verify if the <key|value> schema for topic: <topic> is compatible with ksqlDB.' Both for CREATE
with inferred columns (latest schema or schema id) and for a C*AS with a schema id, keys and values alike.

Writes tests/cases/serde/registry-schema-checks.json: ``python tests/cases/serde/registry_schema_checks_gen.py
tests/cases/serde/registry-schema-checks.json`` after changing this file.
"""
import json
import sys

ERROR = "io.confluent.ksql.util.KsqlStatementException"
SCHEMAS = {  # one record/message/object of one INT field, per schema type
    "AVRO": {"type": "record", "name": "R", "fields": [{"name": "A", "type": "int"}]},
    "PROTOBUF": 'syntax = "proto3"; message R { int32 A = 1; }',
    "JSON": {"type": "object", "properties": {"A": {"type": "integer", "connect.type": "int32"}}},
}
FORMAT_OF = {"AVRO": "AVRO", "PROTOBUF": "PROTOBUF", "JSON": "JSON_SR"}
TWO_MESSAGES = 'syntax = "proto3"; message First { int32 A = 1; } message Second { string B = 1; }'


def wrong_format(which: str, fmt: str, actual: str) -> str:
    side, prop = ("Key", "KEY_FORMAT") if which == "key" else ("Value", "VALUE_FORMAT")
    expected = "JSON" if fmt == "JSON_SR" else fmt
    return (f"{side} schema is not in the expected format. You may want to set {prop} to '{actual}'.\n"
            f"topic: t\nexpected format: {expected}\nactual format from Schema Registry: {actual}")


def topic(which: str, schema_type: str, schema: object, schema_id: int | None = None) -> dict:
    t = {"name": "t", f"{which}Format": FORMAT_OF[schema_type], f"{which}Schema": schema}
    if schema_id is not None:
        t[f"{which}SchemaId"] = schema_id
    return t


tests = []
for fmt in ("AVRO", "PROTOBUF", "JSON_SR"):
    for actual in SCHEMAS:
        if FORMAT_OF[actual] == fmt:
            continue
        for which in ("key", "value"):
            other = "value_format='JSON'" if which == "key" else "key_format='KAFKA'"
            for by_id in (False, True):
                sid = f", {which}_schema_id=5" if by_id else ""
                extra = " (K INT KEY)" if which == "value" else " (V INT)"
                tests.append({
                    "name": f"{fmt} {which} over a registered {actual} schema is refused"
                            f" ({'schema id' if by_id else 'latest schema'})",
                    "statements": [f"CREATE STREAM S{extra} WITH (kafka_topic='t', {which}_format='{fmt}', "
                                   f"{other}{sid});"],
                    "topics": [topic(which, actual, SCHEMAS[actual], 5 if by_id else None)],
                    "expectedException": {"type": ERROR, "message": wrong_format(which, fmt, actual)},
                })
        tests.append({
            "name": f"{fmt} sink whose VALUE_SCHEMA_ID is a {actual} schema is refused",
            "statements": ["CREATE STREAM S (K INT KEY, A INT) WITH (kafka_topic='s', format='JSON', partitions=1);",
                           f"CREATE STREAM O WITH (kafka_topic='t', key_format='KAFKA', value_format='{fmt}', "
                           "value_schema_id=5) AS SELECT * FROM S;"],
            "topics": [topic("value", actual, SCHEMAS[actual], 5)],
            "expectedException": {"type": ERROR, "message": wrong_format("value", fmt, actual)},
        })
for which in ("key", "value"):
    other = "value_format='JSON'" if which == "key" else "key_format='KAFKA'"
    extra = " (K INT KEY)" if which == "value" else " (V INT)"
    for by_id in (False, True):
        sid = f", {which}_schema_id=5" if by_id else ""
        tests.append({
            "name": f"PROTOBUF {which} full name of no message in the schema is refused "
                    f"({'schema id' if by_id else 'latest schema'})",
            "statements": [f"CREATE STREAM S{extra} WITH (kafka_topic='t', {which}_format='PROTOBUF', {other}, "
                           f"{which}_schema_full_name='Third'{sid});"],
            "topics": [topic(which, "PROTOBUF", TWO_MESSAGES, 5 if by_id else None)],
            "expectedException": {"type": ERROR, "message": (
                f"Unable to verify if the {which} schema for topic: t is compatible with ksqlDB.\n"
                "Reason: Schema does not contain a message named Third")},
        })
tests.append({
    "name": "PROTOBUF sink whose VALUE_SCHEMA_FULL_NAME names no message of its VALUE_SCHEMA_ID is refused",
    "statements": ["CREATE STREAM S (K INT KEY, B STRING) WITH (kafka_topic='s', format='JSON', partitions=1);",
                   "CREATE STREAM O WITH (kafka_topic='t', key_format='KAFKA', value_format='PROTOBUF', "
                   "value_schema_id=5, value_schema_full_name='Third') AS SELECT * FROM S;"],
    "topics": [topic("value", "PROTOBUF", TWO_MESSAGES, 5)],
    "expectedException": {"type": ERROR, "message": (
        "Unable to verify if the value schema for topic: t is compatible with ksqlDB.")},
})

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.split("\n\n")[0]], "tests": tests}, f, indent=2)
        f.write("\n")
