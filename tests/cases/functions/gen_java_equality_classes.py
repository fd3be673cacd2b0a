"""ARRAY, MAP and STRUCT comparisons are Java's ``equals`` in ksqlDB (from memory of SqlToJavaVisitor
.visitComparisonExpression, ``((Object) a).equals(b)``, and of the pull-query interpreter's ComparisonInterpreter,
which does the same), and ComparisonUtil asks only for the same base type on both sides: so the Java class each
element is held in counts - an INT is an Integer, never equal to a BIGINT's Long (an ARRAY literal of whole numbers
holds Integers), a DECIMAL is a BigDecimal, equal only at the same scale (ARRAY[1.50] is not ARRAY[1.5]; the
precision does not count), a DOUBLE a Double; Map.equals ignores entry order and matches a NULL value only to a
present key; Struct.equals compares the Connect schemas (field names, order and types, a DECIMAL's precision
included) before the values; java.sql.Date and Time equal any java.util.Date of the same millis while a Timestamp
equals only a Timestamp. Scope: =, <>, IS DISTINCT FROM, IS NOT DISTINCT FROM over element types INT, BIGINT,
DOUBLE, DECIMAL at several scales and precisions, STRING, BOOLEAN, DATE, TIME, TIMESTAMP, nested; NULL elements and
NULL operands; WHERE. An IN list is coerced to one type first (CoercionUtil), so its arrays match across
INT/BIGINT/DECIMAL scales; a top-level DECIMAL comparison is compareTo (by value).

Writes tests/cases/functions/java-equality-classes.json: ``python tests/cases/functions/gen_java_equality_classes.py``.
"""
from __future__ import annotations

import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

COLUMNS = ("I INT, L BIGINT, DB DOUBLE, D2 DECIMAL(3, 2), D1 DECIMAL(2, 1), D42 DECIMAL(4, 2), S STRING, B BOOLEAN, "
           "AI ARRAY<INT>, AL ARRAY<BIGINT>, MI MAP<STRING, INT>, ML MAP<STRING, BIGINT>, SI STRUCT<A INT>, "
           "SL STRUCT<A BIGINT>, DT DATE, TM TIME, TS TIMESTAMP, TS2 TIMESTAMP")
ROW = {"I": 10, "L": 10, "DB": 10.0, "D2": 1.50, "D1": 1.5, "D42": 1.50, "S": "10", "B": True,
       "AI": [10], "AL": [10], "MI": {"a": 10}, "ML": {"a": 10}, "SI": {"A": 10}, "SL": {"A": 10},
       "DT": 1, "TM": 1000, "TS": 86_400_000, "TS2": 1000}

# (left, right, Java's a.equals(b)) - neither side NULL
PAIRS: dict[str, list[tuple[str, str, bool]]] = {
    "element classes: INT (Integer), BIGINT (Long), DOUBLE, STRING and BOOLEAN elements equal only their own class": [
        ("AI", "AL", False),
        ("AI", "ARRAY[10]", True),
        ("AL", "ARRAY[10]", False),  # whole-number literals are Integers
        ("AL", "ARRAY[CAST(10 AS BIGINT)]", True),
        ("ARRAY[I]", "ARRAY[L]", False),
        ("ARRAY[L]", "ARRAY[I]", False),
        ("ARRAY[I]", "ARRAY[DB]", False),
        ("ARRAY[S]", "ARRAY[I]", False),
        ("ARRAY[B]", "ARRAY[B]", True),
        ("ARRAY[B]", "ARRAY[NOT B]", False),
        ("ARRAY[ARRAY[I]]", "ARRAY[ARRAY[L]]", False),
        ("ARRAY[ARRAY[I]]", "ARRAY[ARRAY[I]]", True),
        ("ARRAY[CAST(NULL AS INT)]", "ARRAY[CAST(NULL AS BIGINT)]", True),  # null equals null, whatever the type
        ("ARRAY[I, CAST(NULL AS INT)]", "ARRAY[I, CAST(NULL AS INT)]", True),
        ("ARRAY[I, CAST(NULL AS INT)]", "ARRAY[CAST(NULL AS INT), I]", False),
    ],
    "DECIMAL elements are BigDecimals: equal at the same scale and value, the precision aside": [
        ("ARRAY[1.50]", "ARRAY[1.5]", False),
        ("ARRAY[D2]", "ARRAY[D1]", False),
        ("ARRAY[D2]", "ARRAY[D42]", True),
        ("ARRAY[D2]", "ARRAY[1.50]", True),
        ("ARRAY[1.5, 1.50]", "ARRAY[1.50, 1.5]", True),  # one array's elements share its type's scale
        ("ARRAY[D2]", "ARRAY[DB / 10 + 0.5]", False),
        ("ARRAY[ARRAY[D2]]", "ARRAY[ARRAY[D1]]", False),
        ("D2", "D1", True),  # a top-level DECIMAL comparison is compareTo
    ],
    "MAP equality: value classes and scales count, entry order does not, a NULL value needs its key": [
        ("MAP('a' := I)", "MAP('a' := L)", False),
        ("MI", "MAP('a' := 10)", True),
        ("ML", "MAP('a' := 10)", False),
        ("MI", "ML", False),
        ("MAP('a' := 1.0)", "MAP('a' := 1.00)", False),
        ("MAP('a' := D2)", "MAP('a' := D42)", True),
        ("MAP('a' := CAST(NULL AS INT))", "MAP('a' := CAST(NULL AS BIGINT))", True),
        ("MAP('a' := CAST(NULL AS INT))", "MAP('b' := CAST(NULL AS INT))", False),
        ("MAP('a' := I, 'b' := I)", "MAP('b' := I, 'a' := I)", True),
        ("MAP('a' := ARRAY[I])", "MAP('a' := ARRAY[L])", False),
    ],
    "STRUCT equality compares the schemas first: field names, order and types (a DECIMAL's precision too)": [
        ("STRUCT(A := I, B := S)", "STRUCT(B := S, A := I)", False),
        ("STRUCT(A := I, B := S)", "STRUCT(A := I, B := S)", True),
        ("STRUCT(A := I)", "STRUCT(A := L)", False),
        ("SI", "STRUCT(A := 10)", True),
        ("SL", "STRUCT(A := 10)", False),
        ("SI", "SL", False),
        ("STRUCT(A := D2)", "STRUCT(A := D42)", False),
        ("STRUCT(A := CAST(NULL AS INT))", "STRUCT(A := CAST(NULL AS BIGINT))", False),
        ("STRUCT(A := CAST(NULL AS INT))", "STRUCT(A := CAST(NULL AS INT))", True),
        ("STRUCT(A := I)", "STRUCT(B := I)", False),
        ("STRUCT(A := ARRAY[I])", "STRUCT(A := ARRAY[I])", True),
        ("ARRAY[STRUCT(A := I)]", "ARRAY[SI]", True),
        ("ARRAY[STRUCT(A := I)]", "ARRAY[SL]", False),
    ],
    "DATE and TIME elements (java.util.Date.equals) equal any date-time of the same millis; TIMESTAMP only its own": [
        ("ARRAY[DT]", "ARRAY[TS]", True),
        ("ARRAY[TS]", "ARRAY[DT]", False),
        ("ARRAY[TM]", "ARRAY[TS2]", True),
        ("ARRAY[TS2]", "ARRAY[TM]", False),
        ("ARRAY[DT]", "ARRAY[DT]", True),
        ("ARRAY[TS]", "ARRAY[TS]", True),
        ("ARRAY[DT]", "ARRAY[TS2]", False),
    ],
}

# IN lists are coerced to the common type first (CoercionUtil.coerceUserList), then matched with equals
IN_PROBES: list[tuple[str, object]] = [
    ("AI IN (ARRAY[CAST(10 AS BIGINT)])", True),
    ("AL IN (ARRAY[10])", True),
    ("ARRAY[D2] IN (ARRAY[1.5])", True),
    ("ARRAY[1.5] IN (ARRAY[D2])", True),
    ("AI IN (ARRAY[11], ARRAY[10])", True),
    ("AL IN (ARRAY[11])", False),
    ("MI IN (MAP('a' := CAST(10 AS BIGINT)))", True),
]

NULL_PROBES: list[tuple[str, object]] = [
    ("AI = CAST(NULL AS ARRAY<INT>)", False),
    ("AI <> CAST(NULL AS ARRAY<BIGINT>)", False),
    ("AI IS DISTINCT FROM CAST(NULL AS ARRAY<INT>)", True),
    ("AI IS NOT DISTINCT FROM CAST(NULL AS ARRAY<INT>)", False),
    ("CAST(NULL AS ARRAY<INT>) IS NOT DISTINCT FROM CAST(NULL AS ARRAY<BIGINT>)", True),
    ("CAST(NULL AS MAP<STRING, INT>) IS DISTINCT FROM CAST(NULL AS MAP<STRING, BIGINT>)", False),
    ("SI IS DISTINCT FROM CAST(NULL AS STRUCT<A INT>)", True),
    ("CAST(NULL AS STRUCT<A INT>) = CAST(NULL AS STRUCT<A INT>)", False),
]


def pair_probes(pairs: list[tuple[str, str, bool]]) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for left, right, equal in pairs:
        out += [(f"{left} = {right}", equal), (f"{left} <> {right}", not equal),
                (f"{left} IS DISTINCT FROM {right}", not equal), (f"{left} IS NOT DISTINCT FROM {right}", equal)]
    return out


def where_case() -> dict[str, Any]:
    """WHERE keeps a row only where the equality holds: ARRAY[10] (Integers) never equals an ARRAY<BIGINT>."""
    return {
        "name": "WHERE on an ARRAY<BIGINT>: a literal of whole numbers never matches, one of BIGINTs does",
        "statements": [
            "CREATE STREAM S (ID INT KEY, AL ARRAY<BIGINT>) WITH (kafka_topic='s', value_format='JSON');",
            "CREATE STREAM O AS SELECT ID, AL = ARRAY[CAST(10 AS BIGINT)] AS HIT FROM S WHERE AL <> ARRAY[10];",
        ],
        "inputs": [{"topic": "s", "key": k, "value": {"AL": a}} for k, a in ((1, [10]), (2, [11]), (3, None))],
        "outputs": [{"topic": "O", "key": 1, "value": {"HIT": True}}, {"topic": "O", "key": 2, "value": {"HIT": False}}],
    }


def main() -> None:
    tests = [probe_case(title, pair_probes(pairs), COLUMNS, ROW) for title, pairs in PAIRS.items()]
    tests.append(probe_case("IN lists are coerced to one type before equals: arrays and maps match across INT, "
                            "BIGINT and DECIMAL scales", IN_PROBES, COLUMNS, ROW))
    tests.append(probe_case("a NULL ARRAY, MAP or STRUCT operand: = and <> are FALSE, IS DISTINCT FROM tells one NULL "
                            "from a value and two NULLs alike, whatever their element types", NULL_PROBES, COLUMNS,
                            ROW))
    tests.append(where_case())
    write_cases(str(pathlib.Path(__file__).with_name("java-equality-classes.json")), __doc__ or "", tests)


if __name__ == "__main__":
    main()
