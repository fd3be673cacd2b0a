"""*_PROTOBUF_NULLABLE_REPRESENTATION for PROTOBUF and PROTOBUF_NOSR values: WRAPPER (google.protobuf.*Value
messages) and OPTIONAL (proto3 optional) keep a NULL primitive apart from its default on read and on write,
for every primitive type and inside STRUCTs; a C*AS sink does not inherit the representation (ksqlDB's
PROTOBUF inherits only the full schema name), so without its own it writes NULL as proto3's default.

Writes tests/cases/serde/protobuf-nullable-formats.json: ``python tests/cases/serde/protobuf_nullable_gen.py
tests/cases/serde/protobuf-nullable-formats.json`` after changing this file.
"""
import json
import sys

COLUMNS = [("I", "INT", 0), ("B", "BIGINT", 0), ("D", "DOUBLE", 0.0), ("S", "STRING", ""), ("BO", "BOOLEAN", False),
           ("BT", "BYTES", ""), ("ST", "STRUCT<X INT, Y STRING>", {"X": 0, "Y": ""})]
NULLS = {"ST": {"X": None, "Y": None}}


def plain(n, d):  # type: ignore[no-untyped-def]
    """Without a representation a NULL or default primitive is not written: it reads back as its default,
    but an unset bytes field reads NULL."""
    return None if n == "BT" else d


def row(pick):  # type: ignore[no-untyped-def]
    return {n: pick(n, d) for n, _, d in COLUMNS}


tests = []
for fmt in ("PROTOBUF", "PROTOBUF_NOSR"):
    for rep in ("WRAPPER", "OPTIONAL"):
        cols = ", ".join(f"{n} {t}" for n, t, _ in COLUMNS)
        tests.append({
            "name": f"{fmt} {rep}: NULL and default primitives stay apart on read and write, in STRUCTs too",
            "statements": [
                f"CREATE STREAM S (K STRING KEY, {cols}) WITH (kafka_topic='s', key_format='KAFKA', "
                f"value_format='{fmt}', VALUE_PROTOBUF_NULLABLE_REPRESENTATION='{rep}');",
                "CREATE STREAM NULLS WITH (value_format='JSON') AS SELECT K, "
                + ", ".join(f"{n} IS NULL AS {n}_N" for n, _, _ in COLUMNS) + ", ST->X IS NULL AS X_N FROM S;",
                f"CREATE STREAM SAME WITH (VALUE_PROTOBUF_NULLABLE_REPRESENTATION='{rep}') AS SELECT * FROM S;",
                "CREATE STREAM PLAIN AS SELECT * FROM S;",
            ],
            "inputs": [{"topic": "s", "key": "null", "value": row(lambda n, d: NULLS.get(n))},
                       {"topic": "s", "key": "default", "value": row(lambda n, d: d)}],
            "outputs": [
                {"topic": "NULLS", "key": "null",
                 "value": {**{f"{n}_N": n != "ST" for n, _, _ in COLUMNS}, "X_N": True}},
                {"topic": "NULLS", "key": "default", "value": {**{f"{n}_N": False for n, _, _ in COLUMNS}, "X_N": False}},
                {"topic": "SAME", "key": "null", "value": row(lambda n, d: NULLS.get(n))},
                {"topic": "SAME", "key": "default", "value": row(lambda n, d: d)},
                {"topic": "PLAIN", "key": "null", "value": row(plain)},
                {"topic": "PLAIN", "key": "default", "value": row(plain)},
            ],
        })

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.split("\n\n")[0]], "tests": tests}, f, indent=2)
        f.write("\n")
