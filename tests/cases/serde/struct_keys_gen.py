"""STRUCT keys written from STRUCT constructors, in every key format. A constructor's type is its fields in
the order written (``STRUCT(B:=.., A:=..)`` is ``STRUCT<B, A>``): a PARTITION BY on one keys the sink by that
type, fields in that order. INSERT VALUES coerces the constructor to the column's declared STRUCT by field
name (ksqlDB's DefaultSqlValueCoercer.STRICT, from memory): another order, a missing field (NULL) and nested
STRUCTs in another order all write the declared layout, read back the same through a query. A field of
another type is refused. DELIMITED and KAFKA keys cannot hold a STRUCT, declared or computed.

Writes tests/cases/serde/struct-keys.json: ``python tests/cases/serde/struct_keys_gen.py
tests/cases/serde/struct-keys.json`` after changing this file.
"""
import json
import sys

FORMATS = ["JSON", "AVRO", "PROTOBUF", "JSON_SR", "PROTOBUF_NOSR"]
REFUSED = ["DELIMITED", "KAFKA"]
KEY_TYPE = "STRUCT<A INT, B STRING, S STRUCT<X INT, Y INT>>"


def shown(fmt: str, name: str, v):  # type: ignore[no-untyped-def]
    """How the harness shows a single STRUCT key: a PROTOBUF key as its one-field message; PROTOBUF_NOSR
    unwraps a single key, so the STRUCT is the root message itself (shown bare, as JSON/AVRO show it)."""
    return {name: v} if fmt == "PROTOBUF" else v


def nulls(fmt: str, s: dict) -> dict:
    """proto3 writes no NULL: a NULL INT field of a key message reads as 0, a STRUCT as unset (NULL)."""
    if not fmt.startswith("PROTOBUF"):
        return s
    return {k: (0 if v is None and k in ("A", "X", "Y") else v) for k, v in s.items()}


tests = []
for f in FORMATS:
    rows = [
        ("STRUCT(S:=STRUCT(Y:=2, X:=1), B:='x', A:=1)", {"A": 1, "B": "x", "S": {"X": 1, "Y": 2}}),
        ("STRUCT(B:='y')", nulls(f, {"A": None, "B": "y", "S": None})),
        ("STRUCT(A:=3, S:=STRUCT(Y:=4))", {"A": 3, "B": None if not f.startswith("PROTOBUF") else "",
                                           "S": nulls(f, {"X": None, "Y": 4})}),
    ]
    tests.append({
        "name": f"{f} key: INSERT VALUES takes a STRUCT constructor's fields by name, at every level",
        "statements": [
            f"CREATE STREAM S (K {KEY_TYPE} KEY, V INT) WITH (kafka_topic='s', key_format='{f}', "
            "value_format='JSON', partitions=1);",
            *[f"INSERT INTO S (K, V, ROWTIME) VALUES ({lit}, {i}, {i});" for i, (lit, _) in enumerate(rows)],
            "CREATE STREAM O AS SELECT K, K->A AS A, K->S->Y AS Y, V FROM S;",
        ],
        "inputs": [],
        "outputs": [
            *[{"topic": "s", "key": shown(f, "K", k), "value": {"V": i}, "timestamp": i}
              for i, (_, k) in enumerate(rows)],
            *[{"topic": "O", "key": shown(f, "K", k), "value": {"A": k["A"], "Y": (k["S"] or {}).get("Y"), "V": i},
               "timestamp": i} for i, (_, k) in enumerate(rows)],
        ],
    })
    tests.append({
        "name": f"{f} key: INSERT VALUES refuses a STRUCT constructor whose field has another type",
        "statements": [
            f"CREATE STREAM S (K {KEY_TYPE} KEY, V INT) WITH (kafka_topic='s', key_format='{f}', "
            "value_format='JSON', partitions=1);",
            "INSERT INTO S (K, V) VALUES (STRUCT(B:=1, A:=1), 1);",
        ],
        "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                              "message": "Failed to insert values into 'S'. Expected type STRUCT<`A` INTEGER, "
                                         "`B` STRING, `S` STRUCT<`X` INTEGER, `Y` INTEGER>> for field `K`"},
    })
    tests.append({
        "name": f"{f} key: PARTITION BY a STRUCT constructor keys the sink by its fields in the order written",
        "statements": [
            "CREATE STREAM S (ID INT KEY, A INT, B STRING) WITH (kafka_topic='s', format='JSON', partitions=1);",
            f"CREATE STREAM O WITH (key_format='{f}') AS SELECT * FROM S PARTITION BY STRUCT(B:=B, A:=A);",
            # R names O's count: the harness creates O for it at that count before the CSAS meets it
            f"CREATE STREAM R (K STRUCT<B STRING, A INT> KEY, ID INT) WITH (kafka_topic='O', key_format='{f}', "
            "value_format='JSON', partitions=1);",
            "CREATE STREAM RO WITH (key_format='JSON') AS SELECT K, K->A AS KA, ID FROM R;",
        ],
        "inputs": [{"topic": "s", "key": 1, "value": {"A": 5, "B": "x"}, "timestamp": 0}],
        "outputs": [
            {"topic": "O", "key": shown(f, "KSQL_COL_0", {"B": "x", "A": 5}), "value": {"A": 5, "B": "x", "ID": 1},
             "timestamp": 0},
            {"topic": "RO", "key": {"B": "x", "A": 5}, "value": {"KA": 5, "ID": 1}, "timestamp": 0},
        ],
        "post": {"sources": [{"name": "O", "type": "stream",
                              "schema": "KSQL_COL_0 STRUCT<B STRING, A INTEGER> KEY, A INTEGER, B STRING, ID INTEGER"}]},
    })
for f in REFUSED:
    reason = f"The '{f}' format does not support type 'STRUCT'"
    tests.append({
        "name": f"{f} key: a declared STRUCT key is refused",
        "statements": [f"CREATE STREAM S (K STRUCT<A INT> KEY, V INT) WITH (kafka_topic='s', key_format='{f}', "
                       "value_format='JSON', partitions=1);"],
        "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException", "message": reason},
    })
    tests.append({
        "name": f"{f} key: PARTITION BY a STRUCT constructor is refused",
        "statements": [
            "CREATE STREAM S (ID INT KEY, A INT, B STRING) WITH (kafka_topic='s', format='JSON', partitions=1);",
            f"CREATE STREAM O WITH (key_format='{f}') AS SELECT * FROM S PARTITION BY STRUCT(B:=B, A:=A);",
        ],
        "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException", "message": reason},
    })

if __name__ == "__main__":
    with open(sys.argv[1], "w") as out:
        json.dump({"comments": ["Generated by struct_keys_gen.py - do not edit."], "tests": tests}, out, indent=2)
        out.write("\n")
