"""The stateless operators over every operand type they take, one case per operator family - BETWEEN, IN,
LIKE (with ESCAPE), searched CASE, subscripts and dereferences, DECIMAL arithmetic (the result's precision and
scale, exact results, and the results that need rounding), comparisons of TIMESTAMP / DATE / TIME with each
other and with strings, BYTES comparisons, lambdas - each over a row of values and a row of NULLs, plus the
typing errors of each family. From memory of ksqlDB's SqlToJavaVisitor (BETWEEN as ``>=`` and ``<=`` of the
comparison code; a NULL operand compares false; DECIMAL ops computed with ``MathContext(precision,
RoundingMode.UNNECESSARY)`` then ``setScale(scale)``; array index 1-based, negative from the end, out of range
NULL), InListEvaluator (NULL value: IN false, NOT IN true), LikeEvaluator, ExpressionTypeManager (CASE branch
types identical; WHEN BOOLEAN) and SqlDecimal (result types).

Writes tests/cases/functions/operator-scope.json: ``python tests/cases/functions/gen_operator_scope.py``.
"""
from __future__ import annotations

import json
import pathlib
import re
from typing import Any

EXC = "io.confluent.ksql.util.KsqlStatementException"
COLUMNS = ("I INT, BI BIGINT, D DOUBLE, DC DECIMAL(4, 2), S STRING, B BOOLEAN, A ARRAY<INT>, "
           "M MAP<STRING, INT>, ST STRUCT<F1 INT, F2 STRING>, TS TIMESTAMP, DT DATE, TM TIME, BT BYTES")
SOURCE = f"CREATE STREAM S (K STRING KEY, {COLUMNS}) WITH (kafka_topic='s', value_format='JSON');"
VALUES = {"I": 5, "BI": 10, "D": 2.5, "DC": 12.34, "S": "abc", "B": True, "A": [1, 2, 3], "M": {"a": 1},
          "ST": {"F1": 1, "F2": "x"}, "TS": 1000, "DT": 1, "TM": 3723000, "BT": "AQI="}
NULLS = {c: None for c in VALUES}


def dec(text: str) -> str:
    """A DECIMAL expectation: written as a number with its scale ("13.00"), by _dump."""
    return "\u0000DEC" + text


def _dump(doc: object) -> str:
    return re.sub(r'"\\u0000DEC(-?[0-9.]+)"', r"\1", json.dumps(doc, indent=1))

# family: [(expression, over VALUES, over NULLS)]; a NULL operand of a comparison is false, never NULL
FAMILIES: dict[str, list[tuple[str, Any, Any]]] = {
    "BETWEEN over every comparable type, bounds of other numeric types, NOT BETWEEN": [
        ("I BETWEEN 1 AND 5", True, False),
        ("I NOT BETWEEN 1 AND 4", True, True),
        ("I BETWEEN 5 AND 1", False, False),
        ("BI BETWEEN I AND 10", True, False),
        ("I BETWEEN 2.5 AND 5.5", True, False),
        ("D BETWEEN 2 AND 3", True, False),
        ("DC BETWEEN 12 AND 12.34", True, False),
        ("DC BETWEEN D AND 13", True, False),
        ("S BETWEEN 'a' AND 'b'", True, False),
        ("S BETWEEN 'abd' AND 'z'", False, False),
        ("TS BETWEEN '1970-01-01T00:00:00' AND '1970-01-01T00:00:01'", True, False),
        ("DT BETWEEN '1970-01-02' AND '1970-01-03'", True, False),
        ("TM BETWEEN '01:00' AND '01:02:03'", True, False),
        ("A[2] BETWEEN 2 AND 2", True, False),
        ("ST->F1 BETWEEN 0 AND I", True, False),
        ("BT BETWEEN TO_BYTES('AQ==', 'base64') AND TO_BYTES('Ag==', 'base64')", True, False),
    ],
    "IN: NULL items never match, a NULL value is not IN and is NOT IN, numbers of other types": [
        ("I IN (1, 5)", True, False),
        ("I IN (NULL, 5)", True, False),
        ("I NOT IN (1, 2)", True, True),
        ("I IN (BI, 5)", True, False),
        ("D IN (2.5)", True, False),
        ("DC IN (12.34)", True, False),
        ("S IN ('x', 'abc')", True, False),
        ("S NOT IN ('abc')", False, True),
        ("A IN (ARRAY[1, 2, 3])", True, False),
        ("ST IN (STRUCT(F1 := 1, F2 := 'x'))", True, False),
        ("TS IN ('1970-01-01T00:00:01')", True, False),
    ],
    "IS [NOT] DISTINCT FROM: NULL is not distinct from NULL, distinct from a value": [
        ("I IS DISTINCT FROM 5", False, True),
        ("I IS NOT DISTINCT FROM 5", True, False),
        ("I IS NOT DISTINCT FROM BI - 5", True, None),  # NULL - 5 fails the expression
        ("S IS DISTINCT FROM 'x'", True, True),
        ("A IS NOT DISTINCT FROM ARRAY[1, 2, 3]", True, False),
        ("NOT I IS DISTINCT FROM 5", True, False),
    ],
    "LIKE: % and _ over the whole value, regex characters literal, ESCAPE": [
        ("S LIKE 'a%'", True, None),
        ("S LIKE '_b_'", True, None),
        ("S LIKE 'AB%'", False, None),
        ("S NOT LIKE 'x%'", True, None),
        ("S LIKE 'b'", False, None),
        ("'a.c' LIKE 'a.c'", True, True),
        ("S LIKE 'a.c'", False, None),
        ("'[x]+' LIKE '[x]+'", True, True),
        ("'a_c' LIKE 'a!_c' ESCAPE '!'", True, True),
        ("S LIKE 'a!_c' ESCAPE '!'", False, None),
        ("'50%' LIKE '50!%' ESCAPE '!'", True, True),
        ("'a!c' LIKE 'a!!c' ESCAPE '!'", True, True),
    ],
    "searched CASE: the first true WHEN wins, no match and no ELSE is NULL, other branches not evaluated": [
        ("CASE WHEN I > 3 THEN 'big' ELSE 'small' END", "big", "small"),
        ("CASE WHEN I > 10 THEN 1 END", None, None),
        ("CASE WHEN I < 0 THEN NULL WHEN I = 5 THEN 'five' END", "five", None),
        ("CASE WHEN I IS NULL THEN 0 ELSE 10 / (I - 5) END", None, 0),
        ("CASE WHEN I = 5 THEN 0 ELSE 10 / (I - 5) END", 0, None),
        ("CASE WHEN B THEN ST->F2 ELSE S END", "x", None),
        ("CASE WHEN S = 'abc' THEN ARRAY[I] ELSE A END", [5], None),
    ],
    "subscripts and dereferences: 1-based, negative from the end, out of range and NULL bases are NULL": [
        ("A[1]", 1, None),
        ("A[3]", 3, None),
        ("A[-1]", 3, None),
        ("A[-3]", 1, None),
        ("A[0]", None, None),
        ("A[4]", None, None),
        ("A[-4]", None, None),
        ("A[I - 3]", 2, None),
        ("A[BI - 9]", 1, None),
        ("M['a']", 1, None),
        ("M['b']", None, None),
        ("M[S]", None, None),
        ("ST->F1", 1, None),
        ("ST->F2", "x", None),
        ("ARRAY[ARRAY[1], ARRAY[2, 3]][2][-1]", 3, 3),
        ("MAP('k' := ST)['k']->F2", "x", None),
        ("STRUCT(X := A)->X[2]", 2, None),
    ],
    "DECIMAL arithmetic: exact results at the result's scale; a result that needs rounding or divides by zero "
    "is NULL": [
        ("DC + DC", dec("24.68"), None),
        ("DC - 12", dec("0.34"), None),
        ("DC * DC", dec("152.2756"), None),
        ("DC * 2", dec("24.68"), None),
        ("DC / 2", dec("6.1700000000000"), None),
        ("DC / 3", None, None),
        ("DC / 0", None, None),
        ("DC % 5", dec("2.34"), None),
        ("-DC", dec("-12.34"), None),
        ("DC + 1.5", dec("13.84"), None),
        ("DC + D", 14.84, None),
        ("DC * BI", dec("123.40"), None),
        ("1.00 / 3.00", None, None),
        ("DC > 12.339", True, False),
        ("DC = 12.340", True, False),
    ],
    "TIMESTAMP, DATE and TIME compared with each other and with strings (partial timestamps)": [
        ("TS > '1970-01-01'", True, False),
        ("TS = '1970-01-01T00:00:01.000'", True, False),
        ("TS < '1970'", False, False),
        ("DT = '1970-01-02'", True, False),
        ("DT > TS", True, False),
        ("TS >= DT", False, False),
        ("CAST(DT AS TIMESTAMP) = '1970-01-02T00:00'", True, False),
        ("TM < '02:00'", True, False),
        ("TM = '01:02:03'", True, False),
        ("TM = '01:02:03.000'", True, False),
    ],
    "BYTES compared byte by byte, in constructors and CASE": [
        ("BT = TO_BYTES('AQI=', 'base64')", True, False),
        ("BT < TO_BYTES('AQM=', 'base64')", True, False),
        ("BT > TO_BYTES('AQ==', 'base64')", True, False),
        ("BT <> TO_BYTES('AQI=', 'base64')", False, False),
        ("BT IN (TO_BYTES('AQI=', 'base64'))", True, False),
        ("ARRAY[BT]", ["AQI="], [None]),
        ("CASE WHEN B THEN BT END", "AQI=", None),
    ],
    "lambdas: columns inside the body, nested lambdas over the outer argument, maps": [
        ("TRANSFORM(A, x => x + I)", [6, 7, 8], None),
        ("FILTER(A, x => x > I - 4)", [2, 3], None),
        ("REDUCE(A, 0, (acc, x) => acc + x)", 6, 0),
        ("TRANSFORM(A, x => TRANSFORM(A, y => x * y))", [[1, 2, 3], [2, 4, 6], [3, 6, 9]], None),
        ("TRANSFORM(M, (mk, mv) => CONCAT(mk, S), (mk, mv) => mv + I)", {"aabc": 6}, None),
        ("FILTER(M, (mk, mv) => mv > 1)", {}, None),
        ("REDUCE(M, 10, (acc, mk, mv) => acc - mv)", 9, 10),
    ],
}


def family_case(name: str, probes: list[tuple[str, Any, Any]]) -> dict[str, Any]:
    select = ", ".join(f"{e} AS C{i}" for i, (e, _, _) in enumerate(probes))
    return {
        "name": name,
        "statements": [SOURCE, f"CREATE STREAM O AS SELECT K, {select} FROM S;"],
        "inputs": [{"topic": "s", "key": "v", "value": VALUES}, {"topic": "s", "key": "n", "value": NULLS}],
        "outputs": [{"topic": "O", "key": key, "value": {f"C{i}": p[at] for i, p in enumerate(probes)}}
                    for key, at in (("v", 1), ("n", 2))],
    }


# result types of DECIMAL arithmetic (SqlDecimal): + - max(s1,s2) + max(p1-s1, p2-s2) + 1, max(s1,s2);
# * p1+p2+1, s1+s2; / p1-s1+s2+max(6, s1+p2+1), max(6, s1+p2+1); % min(p1-s1, p2-s2)+max(s1,s2), max(s1,s2);
# INTEGER is DECIMAL(10, 0) and BIGINT DECIMAL(19, 0) beside a DECIMAL; DOUBLE wins over DECIMAL
DECIMAL_TYPES = [
    ("DC + DC2", "DECIMAL(5, 2)"),
    ("DC - DC2", "DECIMAL(5, 2)"),
    ("DC * DC2", "DECIMAL(8, 3)"),
    ("DC / DC2", "DECIMAL(9, 6)"),
    ("DC % DC2", "DECIMAL(4, 2)"),
    ("DC + I", "DECIMAL(13, 2)"),
    ("DC * BI", "DECIMAL(24, 2)"),
    ("DC / I", "DECIMAL(15, 13)"),
    ("DC + D", "DOUBLE"),
    ("-DC", "DECIMAL(4, 2)"),
    ("DC + 1.5", "DECIMAL(5, 2)"),
    ("DC * 0.05", "DECIMAL(8, 4)"),
]


def decimal_types_case() -> dict[str, Any]:
    select = ", ".join(f"{e} AS C{i}" for i, (e, _) in enumerate(DECIMAL_TYPES))
    schema = ", ".join(f"C{i} {t}" for i, (_, t) in enumerate(DECIMAL_TYPES))
    return {
        "name": "DECIMAL arithmetic result types",
        "statements": [
            "CREATE STREAM S (K STRING KEY, DC DECIMAL(4, 2), DC2 DECIMAL(3, 1), I INT, BI BIGINT, D DOUBLE) "
            "WITH (kafka_topic='s', value_format='JSON');",
            f"CREATE STREAM O AS SELECT K, {select} FROM S;",
        ],
        "inputs": [{"topic": "s", "key": "k", "value": {"DC": 10.5, "DC2": 2.5, "I": 2, "BI": 3, "D": 0.5}}],
        "outputs": [{"topic": "O", "key": "k", "value": {
            "C0": dec("13.00"), "C1": dec("8.00"), "C2": dec("26.250"), "C3": dec("4.200000"), "C4": dec("0.50"),
            "C5": dec("12.50"), "C6": dec("31.50"), "C7": dec("5.2500000000000"), "C8": 11.0, "C9": dec("-10.50"),
            "C10": dec("12.00"), "C11": dec("0.5250")}}],
        "post": {"sources": [{"name": "O", "type": "stream", "schema": f"K STRING KEY, {schema}"}]},
    }


# (select item, the refusal) - typing errors of each family, in ksqlDB's words
ERRORS: list[tuple[str, str]] = [
    ("I BETWEEN 'a' AND 'b'",
     "Invalid Select: Cannot compare I (INTEGER) to 'a' (STRING) with GREATER_THAN_OR_EQUAL."),
    ("I IN ('a')", "Invalid Select: invalid input syntax for type INTEGER: \"a\"."),
    ("I LIKE 'a'", "Invalid Select: The column type for Like condition must be VARCHAR. The column type is INTEGER."),
    ("CASE WHEN I THEN 'a' END", "WHEN operand type should be boolean.\nType for 'I' is INTEGER"),
    ("CASE WHEN I = 1 THEN 'a' WHEN I = 2 THEN 1 END",
     "Invalid Case expression. Type for all 'THEN' clauses should be the same.\n"
     "THEN expression 'WHEN (I = 2) THEN 1' has type: INTEGER.\nPrevious THEN expression(s) type: STRING."),
    ("CASE WHEN I = 1 THEN 1 ELSE BI END",
     "Invalid Case expression. Type for the default clause should be the same as for 'THEN' clauses.\n"
     "THEN type: INTEGER.\nDEFAULT type: BIGINT."),
    ("CASE WHEN I = 1 THEN 1.5 ELSE 10.25 END",
     "Invalid Case expression. Type for the default clause should be the same as for 'THEN' clauses.\n"
     "THEN type: DECIMAL(2, 1).\nDEFAULT type: DECIMAL(4, 2)."),
    ("CASE WHEN I = 1 THEN NULL ELSE NULL END", "Invalid Case expression. All case branches have NULL type"),
    ("A['x']", "Invalid Select: Array index must be INTEGER or BIGINT, got STRING: A['x']."),
    ("I[1]", "Subscript expression (I[1]) do not apply to INTEGER."),
    ("ST->F9", "Could not find field 'F9' in 'ST'."),
    ("I->F1", "Expected STRUCT type, got: INTEGER"),
    ("ST->F1->X", "Expected STRUCT type, got: INTEGER"),
    ("TS + 1", "Error processing expression: (TS + 1). Unsupported arithmetic types. TIMESTAMP INTEGER"),
    ("B + B", "Error processing expression: (B + B). Unsupported arithmetic types. BOOLEAN BOOLEAN"),
    ("TM = DT", "Cannot compare TM (TIME) to DT (DATE) with EQUAL."),
    ("BT = S", "Cannot compare BT (BYTES) to S (STRING) with EQUAL."),
    ("B > B", "Cannot compare B (BOOLEAN) to B (BOOLEAN) with GREATER_THAN."),
]


def error_cases() -> list[dict[str, Any]]:
    return [{
        "name": f"refused: {item}",
        "statements": [SOURCE, f"CREATE STREAM O AS SELECT K, {item} AS X FROM S;"],
        "expectedException": {"type": EXC, "message": message},
    } for item, message in ERRORS]


# ``a || b`` is the call CONCAT(a, b) from parsing on (AstBuilder.visitConcatenation) and ``a IS NOT DISTINCT
# FROM b`` is NOT (a IS DISTINCT FROM b) (visitDistinctFrom): printed so wherever ksqlDB prints the expression as
# written; a GROUP BY of one matches the other written out. Numbers print as their literal nodes do (Integer,
# BigDecimal and Double toString), not as written; a minus before a minus is set apart (``- -I``)
CONCAT_ERRORS: list[tuple[str, str]] = [
    ("CREATE TABLE O AS SELECT K, COUNT(*) AS C, S || 'x' AS X FROM S GROUP BY K;",
     "Non-aggregate SELECT expression(s) not part of GROUP BY: CONCAT(S, 'x')\n"
     "Either add the column(s) to the GROUP BY or remove them from the SELECT."),
    ("CREATE TABLE O AS SELECT K, COUNT(*) AS C, S || 'x' || S AS X FROM S GROUP BY K;",
     "Non-aggregate SELECT expression(s) not part of GROUP BY: CONCAT(CONCAT(S, 'x'), S)\n"
     "Either add the column(s) to the GROUP BY or remove them from the SELECT."),
    ("CREATE TABLE O AS SELECT S || 'y' AS Y, COUNT(*) AS C FROM S GROUP BY S || 'x';",
     "Non-aggregate SELECT expression(s) not part of GROUP BY: CONCAT(S, 'y')\n"
     "Either add the column(s) to the GROUP BY or remove them from the SELECT."),
    ("CREATE TABLE O AS SELECT K, COUNT(*) AS C, I IS NOT DISTINCT FROM 2 AS X FROM S GROUP BY K;",
     "Non-aggregate SELECT expression(s) not part of GROUP BY: (NOT (I IS DISTINCT FROM 2))\n"
     "Either add the column(s) to the GROUP BY or remove them from the SELECT."),
    ("CREATE TABLE O AS SELECT K, COUNT(*) AS C, I * 1E3 AS X1, D * 1.5E-7 AS X2, I * 0.0000001 AS X3, "
     "I * 1e10 AS X4, I * 00012 AS X5, DC * 0012.50 AS X6, D + .5 AS X7 FROM S GROUP BY K;",
     "Non-aggregate SELECT expression(s) not part of GROUP BY: (I * 1000.0), (D * 1.5E-7), (I * 1E-7), "
     "(I * 1.0E10), (I * 12), (DC * 12.50), (D + 0.5)\n"
     "Either add the column(s) to the GROUP BY or remove them from the SELECT."),
    ("CREATE TABLE O AS SELECT K, COUNT(*) AS C, - -I AS X1, -(I + 1) AS X2, +I AS X3 FROM S GROUP BY K;",
     "Non-aggregate SELECT expression(s) not part of GROUP BY: - -I, -(I + 1), +I\n"
     "Either add the column(s) to the GROUP BY or remove them from the SELECT."),
    ("CREATE STREAM O AS SELECT K, - -I + 'a' AS X FROM S;",
     "Error processing expression: (- -I + 'a'). Unsupported arithmetic types. INTEGER STRING"),
    ("CREATE STREAM O AS SELECT K, I FROM S PARTITION BY S || 'y';",
     "Key missing from projection (ie, SELECT). \nThe query used to build `O` must include the partitioning "
     "expression CONCAT(S.S, 'y') in its projection (eg, SELECT CONCAT(S.S, 'y')...)."),
]


# names printed in an expression are quoted when they would not parse back as the same identifier
# (IdentifierUtil.needsQuotes): not upper case, not a plain name, or a reserved word; struct fields too
QUOTED_SOURCE = ("CREATE STREAM `q` (`some.key` STRING KEY, `SELECT` INT, `Mixed` STRUCT<`a.b` INT, `Sel` INT, "
                 "`FROM` INT, KEY INT>, `x y` ARRAY<INT>) WITH (kafka_topic='q', value_format='JSON');")
QUOTED_ERRORS: list[tuple[str, str]] = [
    ("CREATE TABLE O AS SELECT `some.key`, COUNT(*) AS C, `SELECT` + 1 AS X1, `q`.`SELECT` * 2 AS X2, "
     "`Mixed`->`a.b` AS X3, `Mixed`->`Sel` AS X4, `Mixed`->`FROM` AS X5, `Mixed`->KEY AS X6, `x y`[1] AS X7, "
     "STRUCT(`SELECT` := 1, `lower` := `SELECT`) AS X8 FROM `q` GROUP BY `some.key`;",
     "Non-aggregate SELECT expression(s) not part of GROUP BY: (`SELECT` + 1), (`q`.`SELECT` * 2), `Mixed`->`a.b`, "
     "`Mixed`->`Sel`, `Mixed`->`FROM`, `Mixed`->KEY, `x y`[1], STRUCT(`SELECT`:=1, `lower`:=`SELECT`)\n"
     "Either add the column(s) to the GROUP BY or remove them from the SELECT."),
    ("CREATE STREAM O AS SELECT `some.key`, `SELECT` + 'a' AS X FROM `q`;",
     "Error processing expression: (`SELECT` + 'a'). Unsupported arithmetic types. INTEGER STRING"),
    ("CREATE STREAM O AS SELECT `some.key`, `Mixed`->`FROM` + 'a' AS X FROM `q`;",
     "Error processing expression: (`Mixed`->`FROM` + 'a'). Unsupported arithmetic types. INTEGER STRING"),
]


def concat_cases() -> list[dict[str, Any]]:
    refused = [{"name": f"as parsed: {sql}", "statements": [SOURCE, sql],
                "expectedException": {"type": EXC, "message": message}} for sql, message in CONCAT_ERRORS]
    grouped = {
        "name": "|| is CONCAT: GROUP BY a || b matches CONCAT(a, b) in the projection and the other way round",
        "statements": [SOURCE,
                       "CREATE TABLE O AS SELECT CONCAT(S, '!') AS G, COUNT(*) AS C FROM S GROUP BY S || '!';",
                       "CREATE TABLE P AS SELECT S || '?' AS G, COUNT(*) AS C FROM S GROUP BY CONCAT(S, '?');"],
        "inputs": [{"topic": "s", "key": "v", "value": VALUES}],
        "outputs": [{"topic": "O", "key": "abc!", "value": {"C": 1}}, {"topic": "P", "key": "abc?", "value": {"C": 1}}],
    }
    quoted = [{"name": f"as parsed, names quoted: {sql}", "statements": [QUOTED_SOURCE, sql],
               "expectedException": {"type": EXC, "message": message}} for sql, message in QUOTED_ERRORS]
    return refused + [grouped] + quoted


def _doc() -> dict[str, Any]:
    return {"comments": [__doc__.split("\n\n")[0].replace("\n", " ")],
            "tests": [family_case(n, p) for n, p in FAMILIES.items()] + [decimal_types_case()] + error_cases()
            + concat_cases()}


def cases() -> list[dict[str, Any]]:
    """The cases as the file holds them once read (DECIMAL expectations as numbers)."""
    return json.loads(_dump(_doc()))["tests"]


if __name__ == "__main__":
    (pathlib.Path(__file__).parent / "operator-scope.json").write_text(_dump(_doc()) + "\n")
