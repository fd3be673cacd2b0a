"""PROTOBUF and PROTOBUF_NOSR keys with KEY_PROTOBUF_NULLABLE_REPRESENTATION, single and multi-column. A
PROTOBUF key is always a message (the format never unwraps), so key columns that are NULL are a message with
the fields unset - not a null record key; PROTOBUF_NOSR unwraps a single key, whose NULL is a null record key
(``unwrapped-nulls``), while its multi-column keys are messages. Read back, an unset field is NULL under
OPTIONAL or WRAPPER and the proto3 default (0, '') without a representation, exactly as for values. INSERT
VALUES checks the registered key schema (ksqlDB's InsertValuesExecutor.ensureKeySchemasMatch) read through
the key format with its representation: under WRAPPER the ``google.protobuf.*Value`` fields ksqlDB
registered for the columns are those columns (it refused every insert before: 'generated schema would
overwrite existing key schema', reading them as STRUCT<value ...>).

Writes tests/cases/serde/protobuf-keys.json: ``python tests/cases/serde/protobuf_keys_gen.py
tests/cases/serde/protobuf-keys.json`` after changing this file.
"""
import json
import sys


def read(fmt: str, multi: bool, nullable: bool, k, k2):  # type: ignore[no-untyped-def]
    """What a query reads of key columns written as (k, k2)."""
    if fmt == "PROTOBUF_NOSR" and not multi and k is None:  # unwrapped: a null record key
        return (None, None)
    k = k if k is not None or nullable else 0
    k2 = k2 if k2 is not None or nullable else ""
    return (k, k2)


tests = []
for fmt in ("PROTOBUF", "PROTOBUF_NOSR"):
    for rep in (None, "OPTIONAL", "WRAPPER"):
        with_rep = f", KEY_PROTOBUF_NULLABLE_REPRESENTATION='{rep}'" if rep else ""
        nullable = rep is not None
        for multi in (False, True):
            keys = "K INT KEY, K2 STRING KEY" if multi else "K INT KEY"
            names = "K, K2" if multi else "K"
            rows = [("NULL, NULL" if multi else "NULL", None, None), ("0, ''" if multi else "0", 0, ""),
                    ("5, 'a'" if multi else "5", 5, "a")]


            outputs = []
            for i, (_, k, k2) in enumerate(rows):
                rk, rk2 = read(fmt, multi, nullable, k, k2)
                key = {"K": rk, "K2": rk2} if multi else rk
                value = {"V": i, "KN": rk is None, **({"K2N": rk2 is None} if multi else {})}
                outputs.append({"topic": "O", "key": key, "value": value, "timestamp": i})
            tests.append({
                "name": f"{fmt} {'two-column' if multi else 'single'} key, nullable representation {rep or 'unset'}: "
                        "NULL key columns are unset fields",
                "statements": [
                    f"CREATE STREAM S ({keys}, V INT) WITH (kafka_topic='s', key_format='{fmt}', value_format='JSON', "
                    f"partitions=1{with_rep});",
                    *[f"INSERT INTO S ({names}, V, ROWTIME) VALUES ({lit}, {i}, {i});" for i, (lit, _, _) in enumerate(rows)],
                    "CREATE STREAM O WITH (key_format='JSON') AS SELECT *, K IS NULL AS KN"
                    + (", K2 IS NULL AS K2N" if multi else "") + " FROM S;",
                ],
                "inputs": [],
                "outputs": outputs,
            })

# a PROTOBUF sink's own KEY_PROTOBUF_NULLABLE_REPRESENTATION: the key schema it registers, and NULL key columns
# written as unset fields that read back NULL (the JSON source's key columns are NULL, the record key is not)
SINK_KEY_SCHEMAS = {
    "OPTIONAL": 'syntax = "proto3"; message ConnectDefault1 { optional int32 K = 1; optional string K2 = 2; }',
    "WRAPPER": 'syntax = "proto3"; import "google/protobuf/wrappers.proto"; message ConnectDefault1 { '
               'google.protobuf.Int32Value K = 1; google.protobuf.StringValue K2 = 2; }',
    None: 'syntax = "proto3"; message ConnectDefault1 { int32 K = 1; string K2 = 2; }',
}
for rep, key_schema in SINK_KEY_SCHEMAS.items():
    with_rep = f" WITH (key_format='PROTOBUF', KEY_PROTOBUF_NULLABLE_REPRESENTATION='{rep}')" if rep else \
        " WITH (key_format='PROTOBUF')"
    null_k = None if rep else 0
    tests.append({
        "name": f"PROTOBUF sink with its own key nullable representation {rep or 'unset'}: registered key schema, "
                "NULL key columns read back",
        "statements": [
            "CREATE STREAM J (K INT KEY, K2 STRING KEY, V INT) WITH (kafka_topic='j', format='JSON', partitions=1);",
            f"CREATE STREAM P{with_rep} AS SELECT * FROM J;",
            "CREATE STREAM R (K INT KEY, K2 STRING KEY, V INT) WITH (kafka_topic='P', key_format='PROTOBUF', "
            # R names P's count (J's): the harness creates P at it before the CSAS meets it
            f"value_format='JSON', partitions=1{f', KEY_PROTOBUF_NULLABLE_REPRESENTATION={chr(39)}{rep}{chr(39)}' if rep else ''});",
            "CREATE STREAM RO WITH (key_format='JSON') AS SELECT *, K IS NULL AS KN FROM R;",
        ],
        "inputs": [{"topic": "j", "key": {"K": None, "K2": "a"}, "value": {"V": 1}, "timestamp": 0},
                   {"topic": "j", "key": {"K": 2, "K2": "b"}, "value": {"V": 2}, "timestamp": 1}],
        "outputs": [{"topic": "RO", "key": {"K": null_k, "K2": "a"}, "value": {"V": 1, "KN": rep is not None},
                     "timestamp": 0},
                    {"topic": "RO", "key": {"K": 2, "K2": "b"}, "value": {"V": 2, "KN": False}, "timestamp": 1}],
        "post": {"topics": {"topics": [{"name": "P", "keyFormat": "PROTOBUF", "keySchema": key_schema}]}},
    })

if __name__ == "__main__":
    with open(sys.argv[1], "w") as out:
        json.dump({"comments": ["Generated by protobuf_keys_gen.py - do not edit."], "tests": tests}, out, indent=2)
        out.write("\n")
