"""INSERT VALUES of a STRUCT value into a STRUCT column, over every format that holds STRUCTs (DELIMITED and
KAFKA refuse STRUCT columns), as a value column and as a key column.

ksqlDB's DefaultSqlValueCoercer (STRICT, from memory) walks the *value's* fields: each must be a field of the
target (exact name), else the value cannot be coerced - "if there was a field in the struct that wasn't in the
schema we cannot coerce" - and the statement fails with GenericExpressionResolver's 'Expected type ... for field
... but got STRUCT(Struct{...})'. A target field the value lacks stays NULL; field order does not matter; the
rule holds at every nesting level (a STRUCT in a STRUCT, in an ARRAY, in a MAP). Names compare exactly: a
quoted lower-case target field is not the value's upper-case one.

Writes tests/cases/serde/insert-values-struct-fields.json:
``python tests/cases/serde/insert_values_struct_fields_gen.py tests/cases/serde/insert-values-struct-fields.json``
"""

from __future__ import annotations

import json
import sys
from typing import Any

FORMATS = ["JSON", "AVRO", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR"]
ERROR = "io.confluent.ksql.util.KsqlStatementException"
ST = "STRUCT<`A` INTEGER, `B` STRING>"


def proto(fmt: str) -> bool:
    return fmt.startswith("PROTOBUF")


def refusal(column: str, col_type: str, fmt: str, value: str, got: str, *, key: bool = False) -> dict[str, Any]:
    where = f"key_format='{fmt}', value_format='JSON'" if key else f"value_format='{fmt}'"
    cols = f"K {col_type} KEY, V INT" if key else f"K STRING KEY, V {col_type}"
    values = f"({value}, 1)" if key else f"('k', {value})"
    return {
        "statements": [
            f"CREATE STREAM S ({cols}) WITH (kafka_topic='s', {where}, partitions=1);",
            f"INSERT INTO S (K, V) VALUES {values};",
        ],
        "expectedException": {"type": ERROR,
                              "message": f"Failed to insert values into 'S'. Expected type {got} for field `{column}`"},
    }


def full_refusal(case: dict[str, Any], text: str) -> dict[str, Any]:
    case["expectedException"]["message"] += f" but got {text}"
    return case


tests: list[dict[str, Any]] = []
for fmt in FORMATS:
    zero: Any = 0 if proto(fmt) else None
    empty: Any = "" if proto(fmt) else None
    # -- accepted: missing fields NULL, any order, nested
    tests.append({
        "name": f"{fmt} value: a STRUCT value lacking a field of the column's STRUCT writes that field NULL, fields by name",
        "statements": [
            f"CREATE STREAM S (K STRING KEY, V STRUCT<A INT, B STRING, N STRUCT<X INT, Y STRING>>) WITH (kafka_topic='s', value_format='{fmt}', partitions=1);",
            "INSERT INTO S (K, V) VALUES ('k1', STRUCT(B:='x'));",
            "INSERT INTO S (K, V) VALUES ('k2', STRUCT(N:=STRUCT(Y:='y'), A:=2));",
            "INSERT INTO S (K, V) VALUES ('k3', STRUCT(N:=STRUCT(X:=3, Y:='z'), B:='w', A:=1));",
        ],
        "inputs": [],
        "outputs": [
            {"topic": "s", "key": "k1", "value": {"V": {"A": zero, "B": "x", "N": None}}, "timestamp": 0},
            {"topic": "s", "key": "k2", "value": {"V": {"A": 2, "B": empty, "N": {"X": zero, "Y": "y"}}}, "timestamp": 0},
            {"topic": "s", "key": "k3", "value": {"V": {"A": 1, "B": "w", "N": {"X": 3, "Y": "z"}}}, "timestamp": 0},
        ],
    })
    # -- refused: a field the target lacks, at each level and container
    tests.append({"name": f"{fmt} value: a STRUCT value with a field the column's STRUCT lacks is refused",
                  **full_refusal(refusal("V", "STRUCT<A INT, B STRING>", fmt, "STRUCT(A:=1, C:=2)", ST),
                                 "STRUCT(Struct{A=1,C=2})")})
    tests.append({"name": f"{fmt} value: an extra STRUCT field is refused even when it is NULL",
                  **full_refusal(refusal("V", "STRUCT<A INT, B STRING>", fmt,
                                         "STRUCT(A:=1, B:='b', C:=CAST(NULL AS INT))", ST),
                                 "STRUCT(Struct{A=1,B=b})")})
    tests.append({"name": f"{fmt} value: a nested STRUCT with a field the column's nested STRUCT lacks is refused",
                  **full_refusal(refusal("V", "STRUCT<A INT, N STRUCT<X INT>>", fmt,
                                         "STRUCT(A:=1, N:=STRUCT(X:=1, Z:=2))",
                                         "STRUCT<`A` INTEGER, `N` STRUCT<`X` INTEGER>>"),
                                 "STRUCT(Struct{A=1,N=Struct{X=1,Z=2}})")})
    tests.append({"name": f"{fmt} value: an ARRAY element STRUCT with an extra field is refused",
                  **full_refusal(refusal("V", "ARRAY<STRUCT<A INT>>", fmt,
                                         "ARRAY[STRUCT(A:=1), STRUCT(A:=2, B:='x')]",
                                         "ARRAY<STRUCT<`A` INTEGER>>"),
                                 "ARRAY([Struct{A=1}, Struct{A=2,B=x}])")})
    tests.append({"name": f"{fmt} value: a MAP value STRUCT with an extra field is refused",
                  **refusal("V", "MAP<STRING, STRUCT<A INT>>", fmt, "MAP('m':=STRUCT(A:=1, B:=2))",
                            "MAP<STRING, STRUCT<`A` INTEGER>>")})
    tests.append({"name": f"{fmt} value: STRUCT field names compare exactly - B is not the column's quoted `b`",
                  **full_refusal(refusal("V", "STRUCT<A INT, `b` STRING>", fmt, "STRUCT(A:=1, B:='x')",
                                         "STRUCT<`A` INTEGER, `b` STRING>"),
                                 "STRUCT(Struct{A=1,B=x})")})
    tests.append({"name": f"{fmt} key: a STRUCT key value with a field the key's STRUCT lacks is refused",
                  **full_refusal(refusal("K", "STRUCT<A INT, B STRING>", fmt, "STRUCT(A:=1, C:=2)", ST, key=True),
                                 "STRUCT(Struct{A=1,C=2})")})

if __name__ == "__main__":
    with open(sys.argv[1], "w") as out:
        json.dump({"comments": ["ksqlpy's own cases, generated by insert_values_struct_fields_gen.py - do not edit."],
                   "tests": tests}, out, indent=1)
        out.write("\n")
    print(len(tests))
