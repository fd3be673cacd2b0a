"""``google.protobuf.*Value`` wrapper fields in PROTOBUF schemas, as ksqlDB reads them through Connect's
ProtobufData (from memory: ``toUnwrappedSchema`` only under ``wrapper.for.nullables``, which ksqlDB's
ProtobufSchemaTranslator sets for ``*_PROTOBUF_NULLABLE_REPRESENTATION='WRAPPER'``):

- by default (and under OPTIONAL) a wrapper is the message it is: a STRUCT column with one field ``VALUE`` of
  the wrapped type (inferred, upper-cased as every inferred field); an absent wrapper is a NULL struct, a
  present one without its value holds the type's default (bytes: NULL, as an unset bytes field anywhere);
- under WRAPPER it is the wrapped type, nullable: absent is NULL, present without a value the default;
- every wrapper kind: Double, Float (DOUBLE), Int64, UInt64, UInt32 (BIGINT), Int32 (INT), Bool, String, Bytes;
- wrappers as repeated elements, map values and fields of nested messages alike;
- declared primitive columns over wrapper fields read only under WRAPPER (else the record is dropped: a
  struct is no primitive), keys as values (``KEY_PROTOBUF_NULLABLE_REPRESENTATION``);
- a sink whose ``VALUE_SCHEMA_ID`` has wrapper fields takes primitive columns only under WRAPPER; without it
  the schema's columns are STRUCTs and the sink is refused;
- what a WRAPPER sink writes reads back as STRUCTs by a source without the property.

Sources are read through a JSON sink, so what is compared is what the PROTOBUF reader produced.

Writes tests/cases/serde/protobuf-wrappers.json: ``python tests/cases/serde/protobuf_wrappers_gen.py
tests/cases/serde/protobuf-wrappers.json`` after changing this file.
"""
import json
import sys

ERROR = "io.confluent.ksql.util.KsqlStatementException"
IMPORT = 'syntax = "proto3"; import "google/protobuf/wrappers.proto"; '
# wrapper, SQL type, a value (as the harness writes it: the proto3 JSON form), the type's default
KINDS = [
    ("DoubleValue", "DOUBLE", 1.5, 0.0),
    ("FloatValue", "DOUBLE", 1.5, 0.0),
    ("Int64Value", "BIGINT", 1234567890123, 0),
    ("UInt64Value", "BIGINT", 5, 0),
    ("Int32Value", "INT", -7, 0),
    ("UInt32Value", "BIGINT", 4294967295, 0),
    ("BoolValue", "BOOLEAN", True, False),
    ("StringValue", "STRING", "x", ""),
    ("BytesValue", "BYTES", "AQI=", ""),
]
REPRESENTATIONS = [None, "OPTIONAL", "WRAPPER"]


def with_nullable(rep, which="VALUE"):  # type: ignore[no-untyped-def]
    return f", {which}_PROTOBUF_NULLABLE_REPRESENTATION='{rep}'" if rep else ""


def read(rep, v, is_bytes=False):  # type: ignore[no-untyped-def]
    """What the JSON sink holds for a wrapper read as ``v`` (None: absent). Inside a struct an unset bytes
    field reads NULL, as at the top level; the WRAPPER reading takes the wrapper's value, empty bytes."""
    if v is None:
        return None
    return v if rep == "WRAPPER" else {"VALUE": None if is_bytes and v == "" else v}


tests = []
for wrapper, sql, value, dflt in KINDS:
    for rep in REPRESENTATIONS:
        column = sql if rep == "WRAPPER" else f"STRUCT<VALUE {sql}>"
        tests.append({
            "name": f"PROTOBUF {wrapper} field, {rep or 'no'} nullable representation: inferred as {column}",
            "statements": [
                f"CREATE STREAM INPUT WITH (kafka_topic='input', value_format='PROTOBUF'{with_nullable(rep)});",
                "CREATE STREAM OUTPUT WITH (value_format='JSON') AS SELECT * FROM INPUT;",
            ],
            "topics": [{"name": "input", "valueFormat": "PROTOBUF",
                        "valueSchema": f"{IMPORT}message Row {{ google.protobuf.{wrapper} w = 1; int32 n = 2; }}"}],
            "inputs": [{"topic": "input", "value": {"w": value, "n": 1}},
                       {"topic": "input", "value": {"w": dflt, "n": 2}},
                       {"topic": "input", "value": {"n": 3}}],
            "outputs": [{"topic": "OUTPUT", "value": {"W": read(rep, value), "N": 1}},
                        {"topic": "OUTPUT", "value": {"W": read(rep, dflt, sql == "BYTES"), "N": 2}},
                        {"topic": "OUTPUT", "value": {"W": None, "N": 3}}],
            "post": {"sources": [{"name": "INPUT", "type": "stream", "schema": f"W {column}, N INT"}]},
        })

for wrapper, sql, value, _ in KINDS[4:8]:
    for rep in REPRESENTATIONS:
        case = {
            "name": f"PROTOBUF declared {sql} column over a {wrapper} field, {rep or 'no'} nullable representation",
            "statements": [
                f"CREATE STREAM INPUT (W {sql}, N INT) WITH (kafka_topic='input', value_format='PROTOBUF'"
                f"{with_nullable(rep)});",
                "CREATE STREAM OUTPUT WITH (value_format='JSON') AS SELECT * FROM INPUT;",
            ],
            "topics": [{"name": "input", "valueFormat": "PROTOBUF",
                        "valueSchema": f"{IMPORT}message Row {{ google.protobuf.{wrapper} w = 1; int32 n = 2; }}"}],
            "inputs": [{"topic": "input", "value": {"w": value, "n": 1}}, {"topic": "input", "value": {"n": 2}}],
            # without WRAPPER the field is a struct, no primitive: both records fail to deserialize (dropped)
            "outputs": [{"topic": "OUTPUT", "value": {"W": value, "N": 1}},
                        {"topic": "OUTPUT", "value": {"W": None, "N": 2}}] if rep == "WRAPPER" else [],
        }
        if rep != "WRAPPER":
            case["post"] = {"sources": [{"name": "OUTPUT", "type": "stream"}]}
        tests.append(case)

for rep in REPRESENTATIONS:
    column = "INT" if rep == "WRAPPER" else "STRUCT<VALUE INT>"
    tests.append({
        "name": f"PROTOBUF key message with a wrapper field, {rep or 'no'} key nullable representation",
        "statements": [
            f"CREATE STREAM INPUT (V INT) WITH (kafka_topic='input', key_format='PROTOBUF', value_format='JSON'"
            f"{with_nullable(rep, 'KEY')});",
            "CREATE STREAM OUTPUT WITH (key_format='JSON') AS SELECT * FROM INPUT;",
        ],
        "topics": [{"name": "input", "keyFormat": "PROTOBUF",
                    "keySchema": f"{IMPORT}message Key {{ google.protobuf.Int32Value id = 1; }}"}],
        "inputs": [{"topic": "input", "key": {"id": 4}, "value": {"V": 1}}],
        "outputs": [{"topic": "OUTPUT", "key": read(rep, 4), "value": {"V": 1}}],
        "post": {"sources": [{"name": "INPUT", "type": "stream", "schema": f"ID {column} KEY, V INT"}]},
    })

NESTED = (f"{IMPORT}message Row {{ repeated google.protobuf.Int32Value r = 1; "
          "map<string, google.protobuf.StringValue> m = 2; Inner i = 3; "
          "message Inner { google.protobuf.BoolValue b = 1; } }")
for rep in REPRESENTATIONS:
    unwrapped = rep == "WRAPPER"
    columns = ("R ARRAY<INT>, M MAP<STRING, STRING>, I STRUCT<B BOOLEAN>" if unwrapped else
               "R ARRAY<STRUCT<VALUE INT>>, M MAP<STRING, STRUCT<VALUE STRING>>, I STRUCT<B STRUCT<VALUE BOOLEAN>>")
    tests.append({
        "name": f"PROTOBUF repeated, map-value and nested wrapper fields, {rep or 'no'} nullable representation",
        "statements": [
            f"CREATE STREAM INPUT WITH (kafka_topic='input', value_format='PROTOBUF'{with_nullable(rep)});",
            "CREATE STREAM OUTPUT WITH (value_format='JSON') AS SELECT * FROM INPUT;",
        ],
        "topics": [{"name": "input", "valueFormat": "PROTOBUF", "valueSchema": NESTED}],
        "inputs": [{"topic": "input", "value": {"r": [1, 0], "m": {"k": "v"}, "i": {"b": True}}},
                   {"topic": "input", "value": {"i": {}}}],
        "outputs": [{"topic": "OUTPUT", "value": {"R": [read(rep, 1), read(rep, 0)], "M": {"k": read(rep, "v")},
                                                  "I": {"B": read(rep, True)}}},
                    {"topic": "OUTPUT", "value": {"R": [], "M": {}, "I": {"B": None}}}],
        "post": {"sources": [{"name": "INPUT", "type": "stream", "schema": columns}]},
    })

SINK_SCHEMA = f"{IMPORT}message R {{ google.protobuf.StringValue S = 1; google.protobuf.Int32Value N = 2; }}"
for rep in REPRESENTATIONS:
    sink = ("CREATE STREAM OUTPUT WITH (kafka_topic='out', value_format='PROTOBUF', VALUE_SCHEMA_ID=100"
            f"{with_nullable(rep)}) AS SELECT * FROM INPUT;")
    case = {
        "name": f"PROTOBUF sink whose VALUE_SCHEMA_ID has wrapper fields, {rep or 'no'} nullable representation",
        "statements": ["CREATE STREAM INPUT (S STRING, N INT) WITH (kafka_topic='input', value_format='JSON', "
                       "partitions=1);", sink],
        # the sink topic exists (its schema is registered) at INPUT's count, as the CSAS expects of it
        "topics": [{"name": "out", "valueSchema": SINK_SCHEMA, "valueSchemaId": 100, "valueFormat": "PROTOBUF",
                    "partitions": 1}],
    }
    if rep == "WRAPPER":
        case["inputs"] = [{"topic": "input", "value": {"S": "x", "N": 1}, "timestamp": 0},
                          {"topic": "input", "value": {"S": None, "N": None}, "timestamp": 1}]
        case["outputs"] = [{"topic": "out", "value": {"S": "x", "N": 1}, "timestamp": 0},
                           {"topic": "out", "value": {"S": None, "N": None}, "timestamp": 1}]
    else:
        case["expectedException"] = {"type": ERROR, "message": (
            "The following value columns are changed, missing or reordered: [`S` STRING, `N` INTEGER]. "
            "Schema from schema registry is [`S` STRUCT<`value` STRING>, `N` STRUCT<`value` INTEGER>]")}
    tests.append(case)

tests.append({
    "name": "PROTOBUF what a WRAPPER sink writes reads back as STRUCTs without the representation",
    "statements": [
        "CREATE STREAM INPUT (K STRING KEY, S STRING, N INT) WITH (kafka_topic='input', format='JSON', "
        "partitions=1);",
        "CREATE STREAM MID WITH (kafka_topic='mid', format='PROTOBUF', "
        "VALUE_PROTOBUF_NULLABLE_REPRESENTATION='WRAPPER') AS SELECT * FROM INPUT;",
        "CREATE STREAM BACK WITH (kafka_topic='mid', format='PROTOBUF', partitions=1);",  # mid at INPUT's count
        "CREATE STREAM OUTPUT WITH (format='JSON') AS SELECT * FROM BACK;",
    ],
    "inputs": [{"topic": "input", "key": "k", "value": {"S": "x", "N": 0}},
               {"topic": "input", "key": "k", "value": {"S": None, "N": None}}],
    "outputs": [{"topic": "OUTPUT", "key": "k", "value": {"S": {"VALUE": "x"}, "N": {"VALUE": 0}}},
                {"topic": "OUTPUT", "key": "k", "value": {"S": None, "N": None}}],
    "post": {"sources": [{"name": "BACK", "type": "stream",
                          "schema": "K STRING KEY, S STRUCT<VALUE STRING>, N STRUCT<VALUE INT>"}]},
})

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, f, indent=1)
        f.write("\n")
    print(len(tests))
