"""DOUBLE equality in ksqlDB is three rules, by the operator that compares: an IN list is ``value.equals(item)``
on Doubles after the operand and the items are coerced to one type (InListEvaluator over CoercionUtil's common
type), so NaN is IN a list holding NaN and -0.0 is not IN (0.0), element by element inside ARRAY, MAP and STRUCT
values too (a string item is read through BigDecimal, which has no negative zero: '-0.0' is the DOUBLE 0.0);
``=``, ``<>``, ``<``... and IS [NOT] DISTINCT FROM between DOUBLEs (or a DOUBLE and an INT/BIGINT) are Java's
operators on the unboxed values (SqlToJavaVisitor's scalar comparison: ``(a <= b) && (a >= b)``,
``(a < b) || (a > b)``), so -0.0 = 0.0 and NaN equals nothing, not even NaN, and is distinct from nothing; a DOUBLE
against a DECIMAL is compared as ``BigDecimal.valueOf(double).compareTo(decimal)`` (SqlToJavaVisitor.toDecimal),
so the DOUBLE counts by the digits Double.toString prints (0.1 is the DECIMAL 0.1, not a DECIMAL of more digits
near it) and a NaN or infinite DOUBLE fails the expression (NumberFormatException: the column NULL, a WHERE drops
the row), in =, <, BETWEEN's bounds and IS DISTINCT FROM alike. A searched CASE's WHEN is the comparison it
holds. From memory of ksqlDB's InListEvaluator.matches, SqlToJavaVisitor.visitComparisonExpression /
visitBetweenPredicate and Java's Double.equals / BigDecimal.valueOf.

Writes tests/cases/functions/double-equality.json: ``python tests/cases/functions/gen_double_equality.py``.
"""
from __future__ import annotations

import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

COLUMNS = ("NZ DOUBLE, PZ DOUBLE, NAN DOUBLE, INF DOUBLE, ONE DOUBLE, TENTH DOUBLE, I INT, L BIGINT, "
           "E DECIMAL(20, 18), E2 DECIMAL(20, 18), BIG BIGINT, BIG2 BIGINT, AD ARRAY<DOUBLE>, MD MAP<STRING, DOUBLE>, "
           "SD STRUCT<X DOUBLE>")
# a negative zero is the string "-0.0" (Double.parseDouble keeps its sign; the JSON number -0.0 is a BigDecimal,
# which has none, and reads as 0.0)
ROW = {"NZ": "-0.0", "PZ": 0.0, "NAN": "NaN", "INF": "Infinity", "ONE": 1.0, "TENTH": 0.1, "I": 0, "L": 1,
       "E": "0.100000000000000001", "E2": "0.1", "BIG": 9007199254740993, "BIG2": 9007199254740992, "AD": ["-0.0", "NaN"], "MD": {"a": "NaN", "b": "-0.0"}, "SD": {"X": "NaN"}}

IN_PROBES: list[tuple[str, object]] = [
    # -0.0 and 0.0 are two Doubles, whatever the item's written type (coerced to DOUBLE first)
    ("NZ IN (PZ)", False),
    ("PZ IN (NZ)", False),
    ("NZ IN (NZ)", True),
    ("NZ IN (0.0)", False),        # a DECIMAL literal: BigDecimal has no negative zero
    ("NZ IN (-0.0)", False),
    ("PZ IN (-0.0)", True),
    ("NZ IN (0)", False),          # an INT literal, coerced to 0.0
    ("NZ IN (I)", False),          # an INT column, cast to DOUBLE
    ("I IN (NZ)", False),
    ("NZ IN (-0.0E0)", True),      # a DOUBLE literal keeps its sign
    ("PZ IN (-0.0E0)", False),
    ("NZ IN (PZ, 1, NZ)", True),
    ("NZ NOT IN (PZ, 0.0)", True),
    ("NZ IN (NULL, PZ)", False),
    # NaN is NaN
    ("NAN IN (NAN)", True),
    ("NAN IN (SQRT(-1))", True),
    ("SQRT(-1) IN (PZ, NAN)", True),
    ("NAN IN (ONE, NULL)", False),
    ("NAN NOT IN (NAN)", False),
    ("INF IN (INF, NAN)", True),
    ("INF IN (LN(0))", False),
    ("-INF IN (LN(0))", True),
    # other values as before: numbers by value in the common type
    ("ONE IN (1)", True),
    ("ONE IN (1.00)", True),
    ("L IN (ONE)", True),
    ("TENTH IN (0.1)", True),
    ("TENTH IN (0.100000000000000001)", True),  # the DECIMAL becomes the DOUBLE 0.1
    ("TENTH IN (E)", True),
    # a DOUBLE anywhere in the list makes every number a DOUBLE, the operand too: other pairs then match
    # as the doubles they become (2^53 + 1 is 2^53, 0.100000000000000001 is 0.1)
    ("BIG IN (BIG2)", False),
    ("BIG IN (BIG2, ONE)", True),
    ("BIG IN (ONE, BIG2)", True),
    ("BIG IN (9007199254740992, 0.5E0)", True),
    ("BIG IN (9007199254740992, 0.5)", False),  # a DECIMAL list stays exact
    ("E IN (E2)", False),
    ("E IN (E2, ONE)", True),
    # a string item is read as a number through BigDecimal, which has no negative zero: '-0.0' is 0.0
    ("NZ IN ('-0.0')", False),
    ("PZ IN ('-0.0')", True),
    ("NZ IN (' -0.0E0 ')", False),
    ("ARRAY[NZ] IN (ARRAY['-0.0'])", False),
    ("ARRAY[PZ] IN (ARRAY['-0.0'])", True),
    # inside ARRAY, MAP and STRUCT values: the elements' Double.equals
    ("AD IN (ARRAY[NZ, NAN])", True),
    ("AD IN (ARRAY[PZ, NAN])", False),
    ("AD IN (ARRAY[0.0, NAN])", False),
    ("AD IN (ARRAY[-0.0E0, SQRT(-1)])", True),
    ("ARRAY[PZ] IN (ARRAY[ONE])", False),
    ("ARRAY[PZ] IN (ARRAY[0])", True),
    ("MD IN (MAP('a' := NAN, 'b' := NZ))", True),
    ("MD IN (MAP('b' := NZ, 'a' := SQRT(-1)))", True),
    ("MD IN (MAP('a' := NAN, 'b' := PZ))", False),
    ("SD IN (STRUCT(X := SQRT(-1)))", True),
    ("STRUCT(X := NZ) IN (STRUCT(X := PZ))", False),
    ("STRUCT(X := PZ) IN (STRUCT(X := ONE))", False),
]

OPERATOR_PROBES: list[tuple[str, object]] = [
    ("NZ = PZ", True),
    ("NZ <> PZ", False),
    ("NZ IS DISTINCT FROM PZ", False),
    ("NZ IS NOT DISTINCT FROM PZ", True),
    ("NZ < PZ", False),
    ("NZ = I", True),
    ("NZ = -0.0E0", True),
    ("NAN = NAN", False),
    ("NAN <> NAN", False),
    ("NAN <> ONE", False),
    ("NAN IS DISTINCT FROM NAN", False),
    ("NAN IS DISTINCT FROM ONE", False),
    ("NAN IS NOT DISTINCT FROM ONE", True),
    ("NAN > ONE", False),
    ("NAN <= ONE", False),
    ("NAN = L", False),
    ("NAN BETWEEN 0 AND 2", False),
    ("NAN BETWEEN NAN AND NAN", False),
    ("INF = INF", True),
    ("INF > L", True),
    ("CASE WHEN NZ = PZ THEN 'equal' ELSE 'not' END", "equal"),
    ("CASE WHEN NAN = NAN THEN 'equal' WHEN NAN <> NAN THEN 'unequal' ELSE 'neither' END", "neither"),
    ("ARRAY[NZ] = ARRAY[PZ]", False),   # an ARRAY's equals is the elements' Double.equals
    ("ARRAY[NAN] = ARRAY[SQRT(-1)]", True),
    ("ARRAY[PZ] = ARRAY[1.0E0]", False),
    ("ARRAY[NZ] = ARRAY[-1.0E0]", False),
    ("MAP('k' := PZ) = MAP('k' := ONE)", False),
    ("STRUCT(X := PZ) IS DISTINCT FROM STRUCT(X := ONE)", True),
    ("ARRAY[1.5E0, '-0.0']", [1.5, 0.0]),   # the constructor reads the string as IN does
    ("ARRAY[NZ, '-0']", [-0.0, 0.0]),
]

DECIMAL_PROBES: list[tuple[str, object]] = [
    ("TENTH = 0.1", True),
    ("TENTH = 0.10", True),
    ("TENTH = E", False),                    # 0.1 against 0.100000000000000001
    ("TENTH < E", True),
    ("E > TENTH", True),
    ("TENTH = 0.100000000000000001", False),
    ("TENTH <> 0.100000000000000001", True),
    ("TENTH IS DISTINCT FROM E", True),
    ("TENTH BETWEEN 0.1 AND 0.1", True),
    ("TENTH BETWEEN E AND 1", False),
    ("NZ = 0.0", True),                      # BigDecimal.valueOf(-0.0) is 0.0
    ("NZ < 0.0", False),
    ("ONE + TENTH = 1.1", True),
    ("CASE WHEN TENTH = 0.1 THEN 'tenth' ELSE 'other' END", "tenth"),
    # no BigDecimal for NaN or an infinity: the expression fails (NULL and the processing log)
    ("NAN = 0.0", None),
    ("NAN <> 1.5", None),
    ("NAN IS DISTINCT FROM E", None),
    ("1.5 > NAN", None),
    ("INF > 1.0", None),
    ("LN(0) < E", None),
    ("NAN BETWEEN 0.0 AND 1", None),
    ("ONE BETWEEN 0 AND INF", True),         # DOUBLE bounds compare as doubles
    ("NAN BETWEEN 0 AND 1", False),
    ("CAST(NULL AS DOUBLE) = 0.0", False),   # the NULL test comes first
    ("CAST(NULL AS DOUBLE) IS DISTINCT FROM E", True),
]


def where_case() -> dict[str, Any]:
    """WHERE keeps a row where the predicate holds and drops one whose predicate fails."""
    rows = [(1, 0.0), (2, "-0.0"), (3, "NaN"), (4, 0.5), (5, "Infinity")]
    return {
        "name": "WHERE over DOUBLE values: IN is Double.equals, = the unboxed operator, a DECIMAL operand needs a "
                "finite DOUBLE",
        "statements": [
            "CREATE STREAM S (ID INT KEY, D DOUBLE) WITH (kafka_topic='s', value_format='JSON');",
            "CREATE STREAM IN_ZERO AS SELECT ID, D FROM S WHERE D IN (0.0, SQRT(-1));",
            "CREATE STREAM EQ_ZERO AS SELECT ID, D FROM S WHERE D = CAST(0 AS DOUBLE);",
            "CREATE STREAM BELOW_ONE AS SELECT ID, D FROM S WHERE D < 1.0;",
        ],
        "inputs": [{"topic": "s", "key": k, "value": {"D": d}} for k, d in rows],
        "outputs": [
            {"topic": "IN_ZERO", "key": 1, "value": {"D": 0.0}},
            {"topic": "IN_ZERO", "key": 3, "value": {"D": "NaN"}},
            {"topic": "EQ_ZERO", "key": 1, "value": {"D": 0.0}},
            {"topic": "EQ_ZERO", "key": 2, "value": {"D": -0.0}},
            {"topic": "BELOW_ONE", "key": 1, "value": {"D": 0.0}},
            {"topic": "BELOW_ONE", "key": 2, "value": {"D": -0.0}},
            {"topic": "BELOW_ONE", "key": 4, "value": {"D": 0.5}},
        ],
    }


def main() -> None:
    tests = [
        probe_case("IN over DOUBLE is Double.equals after coercion: NaN matches NaN, -0.0 does not match 0.0, "
                   "inside ARRAY, MAP and STRUCT values too", IN_PROBES, COLUMNS, ROW),
        probe_case("=, <>, <, BETWEEN and IS DISTINCT FROM over DOUBLEs are Java's operators on the unboxed values: "
                   "-0.0 = 0.0, NaN equals and differs from nothing", OPERATOR_PROBES, COLUMNS, ROW),
        probe_case("a DOUBLE compared with a DECIMAL is BigDecimal.valueOf(double): Double.toString's digits, and a "
                   "NaN or infinity fails the expression", DECIMAL_PROBES, COLUMNS, ROW),
        where_case(),
    ]
    write_cases(str(pathlib.Path(__file__).with_name("double-equality.json")), __doc__ or "", tests)


if __name__ == "__main__":
    main()
