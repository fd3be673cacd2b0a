"""Header columns in every value format: ``ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS`` holds every header of
the record in order (``[]`` when it has none, a header without value as ``VALUE`` NULL); ``BYTES HEADER('k')`` the
last header named ``k`` (NULL when there is none or its value is null). They are read from the record, never
from the value, whatever the value format - the value schema a schema-registry format registers holds the value
columns only, and a value format that carries one column (KAFKA) still takes header columns beside it.
``SELECT *`` lists them after the value columns even when declared between them (ksqlDB's source row is the
value columns with the header columns appended; from memory of SourceBuilderUtils.AddKeyAndPseudoColumns and
DataSourceNode.resolveSelectStar), in a CREATE ... AS SELECT, a join (each side's) and a pull query alike; the
sink's copies are plain value columns. A query's output record carries its input record's headers.
Declaration rules: one HEADERS column, HEADERS of exactly that type, HEADER('k') BYTES; INSERT VALUES cannot
write them, INSERT INTO ... SELECT cannot target a source that has them (ksqlDB's texts).

Writes tests/cases/serde/header-columns.json:
``python tests/cases/serde/header_columns_gen.py tests/cases/serde/header-columns.json``
"""

from __future__ import annotations

import json
import sys
from typing import Any

FORMATS = ["JSON", "AVRO", "PROTOBUF", "JSON_SR", "PROTOBUF_NOSR", "DELIMITED", "KAFKA"]
ERROR = "io.confluent.ksql.util.KsqlStatementException"
HEADERS_TYPE = "ARRAY<STRUCT<key STRING, value BYTES>>"
HEADERS_TEXT = "ARRAY<STRUCT<`KEY` STRING, `VALUE` BYTES>>"
X, Y, Z = "IQ==", "Iw==", "JA=="  # base64 of '!', '#', '$'


def value(fmt: str, v: int | None) -> Any:
    if fmt == "KAFKA":
        return v
    if fmt == "DELIMITED":
        return "" if v is None else str(v)
    return {"V": v}


def source(fmt: str, kind: str = "STREAM") -> str:
    key = "K STRING PRIMARY KEY" if kind == "TABLE" else "K STRING KEY"
    return (f"CREATE {kind} S ({key}, A BYTES HEADER('a'), V INT, H {HEADERS_TYPE} HEADERS) "
            f"WITH (kafka_topic='s', key_format='KAFKA', value_format='{fmt}', partitions=1);")


def hdr(*pairs: tuple[str, str | None]) -> list[dict[str, Any]]:
    return [{"KEY": k, "VALUE": v} for k, v in pairs]


RECORDS = [  # (headers, A, H)
    (hdr(("a", X), ("b", Y), ("a", Z)), Z, hdr(("a", X), ("b", Y), ("a", Z))),
    ([], None, []),
    (hdr(("a", None)), None, hdr(("a", None))),
    (hdr(("b", X)), None, hdr(("b", X))),
]

tests: list[dict[str, Any]] = []
for fmt in FORMATS:
    case: dict[str, Any] = {
        "name": f"{fmt} value: header columns read from the record, after the value columns in SELECT *",
        "statements": [source(fmt), "CREATE STREAM O WITH (value_format='JSON') AS SELECT * FROM S;"],
        "inputs": [{"topic": "s", "key": f"k{i}", "value": value(fmt, i), "timestamp": i, "headers": h}
                   for i, (h, _, _) in enumerate(RECORDS)],
        "outputs": [{"topic": "O", "key": f"k{i}", "value": {"V": i, "A": a, "H": hs}, "timestamp": i,
                     "headers": h} for i, (h, a, hs) in enumerate(RECORDS)],
        "post": {"sources": [
            {"name": "S", "type": "stream", "schema": f"K STRING KEY, A BYTES HEADER('a'), V INT, H {HEADERS_TEXT} "
                                                      "HEADERS"},
            {"name": "O", "type": "stream", "schema": f"K STRING KEY, V INT, A BYTES, H {HEADERS_TEXT}"}]},
    }
    if fmt in ("AVRO", "PROTOBUF", "JSON_SR"):
        registered = {
            "AVRO": {"type": "record", "name": "KsqlDataSourceSchema", "namespace": "io.confluent.ksql.avro_schemas",
                     "fields": [{"name": "V", "type": ["null", "int"], "default": None}],
                     "connect.name": "io.confluent.ksql.avro_schemas.KsqlDataSourceSchema"},
            "PROTOBUF": 'syntax = "proto3"; message ConnectDefault1 { int32 V = 1; }',
            "JSON_SR": {"type": "object", "properties": {"V": {"connect.index": 0, "oneOf": [
                {"type": "null"}, {"type": "integer", "connect.type": "int32"}]}}},
        }[fmt]
        case["post"]["topics"] = {"topics": [{"name": "s", "valueSchema": registered}]}
    tests.append(case)

# a sink in the source's format: the header copies are value columns of its schema
for fmt in ("AVRO", "PROTOBUF", "JSON_SR"):
    tests.append({
        "name": f"{fmt} sink of a source with header columns: they are value columns of its schema, after the values",
        "statements": [source(fmt), "CREATE STREAM O AS SELECT * FROM S;"],
        "inputs": [{"topic": "s", "key": "k", "value": {"V": 1}, "timestamp": 0, "headers": hdr(("a", X))}],
        "outputs": [{"topic": "O", "key": "k", "value": {"V": 1, "A": X, "H": hdr(("a", X))}, "timestamp": 0,
                     "headers": hdr(("a", X))}],
        "post": {"sources": [{"name": "O", "type": "stream",
                              "schema": f"K STRING KEY, V INT, A BYTES, H {HEADERS_TEXT}"}]},
    })

# tables, joins, inference
tests.append({
    "name": "table with header columns: a CTAS of it lists them after the value columns, its records keep their headers",
    "statements": [source("JSON", "TABLE"), "CREATE TABLE O AS SELECT * FROM S;"],
    "inputs": [{"topic": "s", "key": "k", "value": {"V": 1}, "timestamp": 0, "headers": hdr(("a", X))},
               {"topic": "s", "key": "k", "value": {"V": 2}, "timestamp": 1, "headers": []}],
    "outputs": [{"topic": "O", "key": "k", "value": {"V": 1, "A": X, "H": hdr(("a", X))}, "timestamp": 0,
                 "headers": hdr(("a", X))},
                {"topic": "O", "key": "k", "value": {"V": 2, "A": None, "H": []}, "timestamp": 1, "headers": []}],
    "post": {"sources": [{"name": "O", "type": "table", "schema": f"K STRING PRIMARY KEY, V INT, A BYTES, H {HEADERS_TEXT}"}]},
})
tests.append({
    "name": "join of sources with header columns: each side's SELECT * lists them after its value columns",
    "statements": [
        "CREATE STREAM L (K INT KEY, LH BYTES HEADER('x'), LV INT) WITH (kafka_topic='l', format='JSON', partitions=1);",
        f"CREATE STREAM R (K INT KEY, RH {HEADERS_TYPE} HEADERS, RV INT) WITH (kafka_topic='r', format='JSON', "
        "partitions=1);",
        "CREATE STREAM O AS SELECT * FROM L JOIN R WITHIN 10 SECONDS ON L.K = R.K;"],
    "inputs": [{"topic": "l", "key": 1, "value": {"LV": 10}, "timestamp": 0, "headers": hdr(("x", X))},
               {"topic": "r", "key": 1, "value": {"RV": 20}, "timestamp": 1, "headers": hdr(("y", Y))}],
    "outputs": [{"topic": "O", "key": 1, "value": {"L_LV": 10, "L_LH": X, "R_K": 1, "R_RV": 20,
                                                   "R_RH": hdr(("y", Y))}, "timestamp": 1,
                 "headers": hdr(("y", Y))}],
    "post": {"sources": [{"name": "O", "type": "stream",
                          "schema": f"L_K INT KEY, L_LV INT, L_LH BYTES, R_K INT, R_RV INT, R_RH {HEADERS_TEXT}"}]},
})
INFERRED = {
    "PROTOBUF": 'syntax = "proto3"; message Thing { int32 a = 1; string b = 2; }',
    "JSON_SR": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}},
    "AVRO": {"type": "record", "name": "Thing", "fields": [{"name": "a", "type": "int"},
                                                          {"name": "b", "type": "string"}]},
}
for fmt, schema in INFERRED.items():
    a_type = "BIGINT" if fmt == "JSON_SR" else "INT"
    tests.append({
        "name": f"{fmt} value columns inferred beside declared header columns: the headers come after them",
        "statements": [f"CREATE STREAM S (K STRING KEY, HS {HEADERS_TYPE} HEADERS, H1 BYTES HEADER('one')) "
                       f"WITH (kafka_topic='s', key_format='KAFKA', value_format='{fmt}');",
                       "CREATE STREAM O WITH (value_format='JSON') AS SELECT * FROM S;"],
        "topics": [{"name": "s", "valueSchema": schema, "valueFormat": fmt, "partitions": 1}],
        "inputs": [{"topic": "s", "key": "k", "value": {"a": 1, "b": "x"}, "timestamp": 0,
                    "headers": hdr(("one", X))}],
        "outputs": [{"topic": "O", "key": "k", "value": {"A": 1, "B": "x", "HS": hdr(("one", X)), "H1": X},
                     "timestamp": 0, "headers": hdr(("one", X))}],
        "post": {"sources": [
            {"name": "S", "type": "stream", "schema": f"K STRING KEY, HS {HEADERS_TEXT} HEADERS, H1 BYTES "
                                                      f"HEADER('one'), A {a_type}, B STRING"},
            {"name": "O", "type": "stream", "schema": f"K STRING KEY, A {a_type}, B STRING, HS {HEADERS_TEXT}, "
                                                      "H1 BYTES"}]},
    })

# declaration and write rules
for name, cols, message in [
    ("two HEADERS columns", f"K INT KEY, H1 {HEADERS_TYPE} HEADERS, H2 {HEADERS_TYPE} HEADERS",
     "Schema already contains a HEADERS column."),
    ("a HEADERS column of another array type", "K INT KEY, H ARRAY<STRUCT<key STRING, value STRING>> HEADERS",
     "Invalid type for HEADERS column: expected ARRAY<STRUCT<`KEY` STRING, `VALUE` BYTES>>, got "
     "ARRAY<STRUCT<`KEY` STRING, `VALUE` STRING>>"),
    ("a HEADER('k') column of type STRING", "K INT KEY, H STRING HEADER('k')",
     "Invalid type for HEADER('k') column: expected BYTES, got STRING"),
    ("a HEADER('k') column of type ARRAY", f"K INT KEY, H {HEADERS_TYPE} HEADER('k')",
     "Invalid type for HEADER('k') column: expected BYTES, got ARRAY<STRUCT<`KEY` STRING, `VALUE` BYTES>>"),
]:
    tests.append({
        "name": f"refused: {name}",
        "statements": [f"CREATE STREAM S ({cols}, V INT) WITH (kafka_topic='s', format='JSON', partitions=1);"],
        "expectedException": {"type": ERROR, "message": message},
    })
for name, insert in [("the columns named", "INSERT INTO S (K, V, H) VALUES ('k', 1, NULL);"),
                     ("no column list", "INSERT INTO S VALUES ('k', NULL, 1, NULL);")]:
    for fmt in ("JSON", "AVRO"):
        tests.append({
            "name": f"{fmt} INSERT VALUES into a source with header columns, {name}: refused",
            "statements": [source(fmt), insert],
            "expectedException": {"type": "io.confluent.ksql.util.KsqlException", "message": (
                "Cannot insert into HEADER columns: H" if "(K, V, H)" in insert
                else "Cannot insert into HEADER columns: A, H")},
        })
tests.append({
    "name": "INSERT VALUES naming only value columns of a source with header columns: the headers read empty",
    "statements": [source("JSON"), "INSERT INTO S (K, V) VALUES ('k', 5);",
                   "CREATE STREAM O AS SELECT * FROM S;"],
    "inputs": [],
    "outputs": [{"topic": "O", "key": "k", "value": {"V": 5, "A": None, "H": []}, "headers": []}],
})
tests.append({
    "name": "INSERT INTO ... SELECT into a source with header columns: refused",
    "statements": [source("JSON"),
                   "CREATE STREAM I (K STRING KEY, A BYTES, V INT, H ARRAY<STRUCT<key STRING, value BYTES>>) "
                   "WITH (kafka_topic='i', format='JSON', partitions=1);",
                   "INSERT INTO S SELECT * FROM I;"],
    "expectedException": {"type": ERROR, "message": "Cannot insert into S because it has header columns"},
})

if __name__ == "__main__":
    json.dump({"comments": ["ksqlpy's own cases, generated by tests/cases/serde/header_columns_gen.py (edit that): "
                            "header columns in every value format"], "tests": tests},
              open(sys.argv[1], "w"), indent=1)
    print(len(tests))
