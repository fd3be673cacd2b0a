"""PROTOBUF schemas as users register them, read the way Connect's ProtobufData gives them to ksqlDB:

- each ``oneof`` group is one STRUCT column ``<oneof>_<i>`` (i: the group's index among the message's
  oneofs) holding only the field that is set (the others NULL); a group with nothing set is NULL; a oneof
  inside a nested message the same;
- numbers: ``uint64`` is BIGINT by its bits (2^64-1 reads -1), ``uint32``/``fixed32`` are BIGINT unsigned
  (Integer.toUnsignedLong), a ``float`` widens to DOUBLE as Java's (double) cast (1.1f = 1.100000023841858);
- enums read as their value's name: negative numbers, and with ``allow_alias`` the first name of a number;
- proto2: absent ``optional`` fields are NULL (Connect skips unset fields with the optional keyword; a
  ``[default = ...]`` is not applied), a message missing a ``required`` field fails to parse (dropped);
- syntax a parser must skip: comments, file/message/field options, ``reserved``, ``json_name``;
- ``package`` and nested messages named by ``VALUE_SCHEMA_FULL_NAME`` (``pkg.Outer.Inner``); a schema ksqlDB
  generates under a full name names its nested messages after their path (``Val_S``, ``Val_S_Y``);
- the other well-known types (Duration, Any, FieldMask, google.type.LatLng, Money, DayOfWeek) are ordinary
  messages and enums, imported without a reference; ``google.protobuf.Struct`` contains itself;
- sinks whose ``VALUE_SCHEMA_ID`` has an enum field write STRING columns into it, and BIGINTs into
  ``uint64``/``fixed64`` by their bits (-1 is 2^64-1 on the wire, read back as -1); wrapper fields:
  ``protobuf_wrappers_gen.py``.

Sources are read through a JSON sink, so what is compared is what the PROTOBUF reader produced.

Writes tests/cases/serde/protobuf-schema-corners.json: ``python tests/cases/serde/protobuf_schema_corners_gen.py
tests/cases/serde/protobuf-schema-corners.json`` after changing this file.
"""
import json
import sys


def read_case(name: str, schema: str, select: str, inputs: list, outputs: list, columns: str,
              full_name: str | None = None) -> dict:
    with_full = f", VALUE_SCHEMA_FULL_NAME='{full_name}'" if full_name else ""
    return {
        "name": f"PROTOBUF {name}",
        "statements": [
            f"CREATE STREAM INPUT WITH (kafka_topic='input', value_format='PROTOBUF'{with_full});",
            f"CREATE STREAM OUTPUT WITH (value_format='JSON') AS SELECT {select} FROM INPUT;",
        ],
        "topics": [{"name": "input", "valueSchema": schema, "valueFormat": "PROTOBUF", "partitions": 1}],
        "inputs": [{"topic": "input", "key": None, "value": v, "timestamp": i} for i, v in enumerate(inputs)],
        "outputs": [{"topic": "OUTPUT", "key": None, "value": v, "timestamp": i} for i, v in enumerate(outputs)],
        "post": {"sources": [{"name": "INPUT", "type": "stream", "schema": columns}]},
    }


tests = [
    read_case(
        "oneof groups are STRUCTs holding the field that is set; an unset group is NULL",
        'syntax = "proto3"; message V { oneof choice { string a = 1; int32 b = 2; } int32 c = 3; '
        'oneof other { bool d = 4; Inner e = 5; } message Inner { oneof pick { string x = 1; int64 y = 2; } } }',
        "CHOICE_0->A AS A, CHOICE_0->B AS B, C, OTHER_1 AS O",
        [{"a": "x", "c": 1}, {"b": 5, "c": 2, "d": True}, {"c": 3, "e": {"y": 7}}, {"c": 4}],
        [{"A": "x", "B": None, "C": 1, "O": None},
         {"A": None, "B": 5, "C": 2, "O": {"D": True, "E": None}},
         {"A": None, "B": None, "C": 3, "O": {"D": None, "E": {"PICK_0": {"X": None, "Y": 7}}}},
         {"A": None, "B": None, "C": 4, "O": None}],
        "CHOICE_0 STRUCT<A STRING, B INTEGER>, C INTEGER, "
        "OTHER_1 STRUCT<D BOOLEAN, E STRUCT<PICK_0 STRUCT<X STRING, Y BIGINT>>>"),
    read_case(
        "unsigned and float fields read as Connect gives them",
        'syntax = "proto3"; message V { uint64 u = 1; uint32 u32 = 2; fixed32 f32 = 3; fixed64 f64 = 4; '
        'float f = 5; sint64 s = 6; sfixed32 sf = 7; }',
        "*",
        [{"u": 18446744073709551615, "u32": 4294967295, "f32": 4294967295, "f64": 18446744073709551614,
          "f": 1.1, "s": -3, "sf": -2}],
        [{"U": -1, "U32": 4294967295, "F32": 4294967295, "F64": -2, "F": 1.100000023841858, "S": -3, "SF": -2}],
        "U BIGINT, U32 BIGINT, F32 BIGINT, F64 BIGINT, F DOUBLE, S BIGINT, SF INTEGER"),
    read_case(
        "enums read as names: negative numbers, aliases read as the number's first name",
        'syntax = "proto3"; message V { enum E { option allow_alias = true; Z = 0; NEG = -1; ONE = 1; UNO = 1; } '
        'E e = 1; repeated E es = 2; map<string, E> m = 3; }',
        "*",
        [{"e": "NEG", "es": ["UNO", "Z"], "m": {"k": "ONE"}}, {}],
        [{"E": "NEG", "ES": ["ONE", "Z"], "M": {"k": "ONE"}}, {"E": "Z", "ES": [], "M": {}}],
        "E STRING, ES ARRAY<STRING>, M MAP<STRING, STRING>"),
    read_case(
        "comments, options, reserved ranges and json_name are skipped",
        '// leading comment\nsyntax = "proto3";\n/* block\n comment */ option java_package = "x.y";\n'
        'import "google/protobuf/timestamp.proto";\nmessage V {\n  reserved 2, 15 to 20;\n  reserved "foo";\n'
        '  option deprecated = true;\n  int32 a = 1 [deprecated = true, json_name = "aa"]; // trailing\n'
        '  repeated google.protobuf.Timestamp ts = 3;\n}\n',
        "*",
        [{"a": 1, "ts": [1000, 2000]}],
        [{"A": 1, "TS": [1000, 2000]}],
        "A INTEGER, TS ARRAY<TIMESTAMP>"),
    read_case(
        "a package's message named by VALUE_SCHEMA_FULL_NAME",
        'syntax = "proto3"; package com.acme; message V1 { int32 a = 1; } message V2 { string b = 1; int32 c = 2; }',
        "*", [{"b": "x", "c": 1}], [{"B": "x", "C": 1}], "B STRING, C INTEGER", full_name="com.acme.V2"),
    read_case(
        "a nested message named by VALUE_SCHEMA_FULL_NAME",
        'syntax = "proto3"; package com.acme; message Outer { int32 a = 1; message Inner { string b = 1; } }',
        "*", [{"b": "x"}], [{"B": "x"}], "B STRING", full_name="com.acme.Outer.Inner"),
]

tests.append(read_case(
    "proto2: an absent optional field is NULL (its declared default not applied), a repeated one empty; a "
    "record missing a required field, at any depth, is dropped",
    'syntax = "proto2"; message V { required int32 a = 1; optional int32 b = 2 [default = 5]; '
    'optional string c = 3; repeated int32 d = 4; optional N e = 5; message N { required int32 x = 1; } }',
    "*",
    [{"a": 1}, {"b": 2}, {"a": 2, "e": {}}, {"a": 3, "b": 0, "c": "", "d": [1], "e": {"x": 0}}],
    [{"A": 1, "B": None, "C": None, "D": [], "E": None},
     {"A": 3, "B": 0, "C": "", "D": [1], "E": {"X": 0}}],
    "A INTEGER, B INTEGER, C STRING, D ARRAY<INTEGER>, E STRUCT<X INTEGER>"))
tests[-1]["outputs"][1]["timestamp"] = 3  # (the two dropped records in between)

tests.append(read_case(
    "well-known types without a special mapping are the messages and enums they are",
    'syntax = "proto3"; import "google/protobuf/duration.proto"; import "google/protobuf/any.proto"; '
    'import "google/protobuf/field_mask.proto"; import "google/type/latlng.proto"; import "google/type/money.proto"; '
    'import "google/type/dayofweek.proto"; message V { google.protobuf.Duration d = 1; int32 n = 2; '
    'google.protobuf.Any a = 3; google.protobuf.FieldMask fm = 4; google.type.LatLng ll = 5; google.type.Money m = 6; '
    'google.type.DayOfWeek dw = 7; }',
    "*",
    [{"d": {"seconds": 5, "nanos": 7}, "n": 1, "a": {"type_url": "t", "value": "AQ=="}, "fm": {"paths": ["a.b"]},
      "ll": {"latitude": 1.5, "longitude": -2.5}, "m": {"currency_code": "EUR", "units": 3, "nanos": 5},
      "dw": "FRIDAY"},
     {"n": 2}],
    [{"D": {"SECONDS": 5, "NANOS": 7}, "N": 1, "A": {"TYPE_URL": "t", "VALUE": "AQ=="}, "FM": {"PATHS": ["a.b"]},
      "LL": {"LATITUDE": 1.5, "LONGITUDE": -2.5}, "M": {"CURRENCY_CODE": "EUR", "UNITS": 3, "NANOS": 5},
      "DW": "FRIDAY"},
     {"D": None, "N": 2, "A": None, "FM": None, "LL": None, "M": None, "DW": "DAY_OF_WEEK_UNSPECIFIED"}],
    "D STRUCT<`SECONDS` BIGINT, NANOS INTEGER>, N INTEGER, A STRUCT<TYPE_URL STRING, VALUE BYTES>, "
    "FM STRUCT<PATHS ARRAY<STRING>>, LL STRUCT<LATITUDE DOUBLE, LONGITUDE DOUBLE>, "
    "M STRUCT<CURRENCY_CODE STRING, UNITS BIGINT, NANOS INTEGER>, DW STRING"))
tests.append({
    "name": "PROTOBUF google.protobuf.Struct contains itself (Value -> Struct): no SQL type",
    "statements": ["CREATE STREAM INPUT WITH (kafka_topic='input', value_format='PROTOBUF');"],
    "topics": [{"name": "input", "valueFormat": "PROTOBUF",
                "valueSchema": 'syntax = "proto3"; import "google/protobuf/struct.proto"; '
                               'message V { google.protobuf.Struct s = 1; int32 n = 2; }'}],
    "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                          "message": "Unable to verify if the value schema for topic: input is compatible with "
                                     "ksqlDB.\nReason: Recursive schema: message Struct contains itself"},
})

SINKS = [
    ("enum field", 'syntax = "proto3"; message R { enum En { A = 0; B = 1; } En E = 1; int32 N = 2; }',
     "E STRING, N INT", [{"E": "B", "N": 1}], [{"E": "B", "N": 1}]),
    ("unsigned fields", 'syntax = "proto3"; message R { uint64 U = 1; fixed64 F = 2; fixed32 F32 = 3; }',
     "U BIGINT, F BIGINT, F32 BIGINT", [{"U": -1, "F": -2, "F32": 4294967295}, {"U": 5, "F": 6, "F32": 7}],
     [{"U": -1, "F": -2, "F32": 4294967295}, {"U": 5, "F": 6, "F32": 7}]),
]
for what, schema, columns, inputs, outputs in SINKS:
    tests.append({
        "name": f"PROTOBUF sink whose VALUE_SCHEMA_ID has {what} writes the columns into them",
        "statements": [
            f"CREATE STREAM INPUT ({columns}) WITH (kafka_topic='input', value_format='JSON', partitions=1);",
            "CREATE STREAM OUTPUT WITH (kafka_topic='out', value_format='PROTOBUF', VALUE_SCHEMA_ID=100) AS "
            "SELECT * FROM INPUT;",
        ],
        # the sink topic exists (its schema is registered) at INPUT's count, as the CSAS expects of it
        "topics": [{"name": "out", "valueSchema": schema, "valueSchemaId": 100, "valueFormat": "PROTOBUF",
                    "partitions": 1}],
        "inputs": [{"topic": "input", "value": v, "timestamp": i} for i, v in enumerate(inputs)],
        "outputs": [{"topic": "out", "value": v, "timestamp": i} for i, v in enumerate(outputs)],
    })

# with a full schema name ksqlDB names every STRUCT after its path before ProtobufData sees it
# (ProtobufSchemaTranslator's SchemaFullNameAppender, from memory): nested messages <Root>_<field>, an ARRAY's
# or MAP's STRUCT named as the ARRAY or MAP; without one they are ConnectDefault<n>
NAMED_VALUE = ('syntax = "proto3"; package com.acme; message Val { int32 A = 1; Val_S S = 2; repeated Val_L L = 3; '
               'repeated ConnectDefault1Entry M = 4; message Val_S { int32 X = 1; Val_S_Y Y = 2; '
               'message Val_S_Y { string Z = 1; } } message Val_L { int32 X = 1; } '
               'message ConnectDefault1Entry { string key = 1; Val_M value = 2; message Val_M { int32 X = 1; } } }')
NAMED_KEY = 'syntax = "proto3"; package com.acme; message Key { Key_K K = 1; message Key_K { string ID = 1; } }'
tests.append({
    "name": "PROTOBUF schemas named by *_SCHEMA_FULL_NAME name their nested messages after the path",
    "statements": [
        "CREATE STREAM INPUT (K STRUCT<ID STRING> KEY, A INT, S STRUCT<X INT, Y STRUCT<Z STRING>>, "
        "L ARRAY<STRUCT<X INT>>, M MAP<STRING, STRUCT<X INT>>) WITH (kafka_topic='input', format='JSON', partitions=1);",
        "CREATE STREAM OUTPUT WITH (format='PROTOBUF', KEY_SCHEMA_FULL_NAME='com.acme.Key', "
        "VALUE_SCHEMA_FULL_NAME='com.acme.Val') AS SELECT * FROM INPUT;",
        "CREATE STREAM BACK WITH (format='JSON') AS SELECT * FROM OUTPUT;",
    ],
    "inputs": [{"topic": "input", "key": {"ID": "k"}, "value": {
        "A": 1, "S": {"X": 2, "Y": {"Z": "z"}}, "L": [{"X": 3}], "M": {"m": {"X": 4}}}}],
    "outputs": [
        {"topic": "OUTPUT", "key": {"K": {"ID": "k"}}, "value": {
            "A": 1, "S": {"X": 2, "Y": {"Z": "z"}}, "L": [{"X": 3}], "M": {"m": {"X": 4}}}},
        {"topic": "BACK", "key": {"ID": "k"}, "value": {
            "A": 1, "S": {"X": 2, "Y": {"Z": "z"}}, "L": [{"X": 3}], "M": {"m": {"X": 4}}}},
    ],
    "post": {"topics": {"topics": [{"name": "OUTPUT", "keyFormat": "PROTOBUF", "valueFormat": "PROTOBUF",
                                    "keySchema": NAMED_KEY, "valueSchema": NAMED_VALUE}]}},
})

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, f, indent=2)
        f.write("\n")
