"""The result types of ROUND, TRUNC, CEIL and FLOOR over DECIMAL, as ksqlDB's schema providers give them (from
memory of ksqlDB's Round/Trunc provideDecimalSchema and provideDecimalSchemaWithDecimalPlaces, Ceil/Floor's
providers): ROUND(d) and TRUNC(d) are DECIMAL(precision - scale, 0); with decimal places, and CEIL/FLOOR, the
argument's own type (the value keeps its scale, so CEIL of 0.55 in DECIMAL(2,2) is 1.00). A DECIMAL without
integer digits (precision == scale, literals such as 0.5 included) has no whole type: DECIMAL(0,0) is refused
by DecimalUtil and the provider's failure is the statement's error.

Writes tests/cases/functions/decimal-rounding-types.json: ``python tests/cases/functions/gen_decimal_rounding_types.py``.
"""
from __future__ import annotations

import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import write_cases  # noqa: E402

EXC = "io.confluent.ksql.util.KsqlStatementException"

# (precision, scale, a value of that type, ROUND's result, TRUNC's result): ROUND is HALF_UP above zero and
# HALF_DOWN below (-123.45 is -123, -0.500 is 0: BigDecimal has no negative zero)
TYPES = [(1, 0, "7", "7", "7"), (5, 2, "-123.45", "-123", "-123"), (4, 1, "999.5", "1000", "999"),
         (38, 0, "1" * 38, "1" * 38, "1" * 38), (38, 37, "1." + "2" * 37, "1", "1"),
         (10, 3, "-0.500", "0", "0"), (3, 2, "9.99", "10", "9")]


def whole_types() -> dict[str, Any]:
    cols = ", ".join(f"D{i} DECIMAL({p},{s})" for i, (p, s, *_) in enumerate(TYPES))
    sel = ", ".join(f"ROUND(D{i}) AS R{i}, TRUNC(D{i}) AS T{i}" for i in range(len(TYPES)))
    schema = ", ".join(f"R{i} DECIMAL({p - s},0), T{i} DECIMAL({p - s},0)" for i, (p, s, *_) in enumerate(TYPES))
    return {
        "name": "ROUND(d) and TRUNC(d) are DECIMAL(precision - scale, 0) for every precision and scale",
        "statements": [f"CREATE STREAM S (K STRING KEY, {cols}) WITH (kafka_topic='s', value_format='DELIMITED');",
                       f"CREATE STREAM O AS SELECT K, {sel} FROM S;"],
        "inputs": [{"topic": "s", "key": "k", "value": ",".join(t[2] for t in TYPES)}],
        "outputs": [{"topic": "O", "key": "k", "value": ",".join(f"{t[3]},{t[4]}" for t in TYPES)}],
        "post": {"sources": [{"name": "O", "type": "stream", "schema": "K STRING KEY, " + schema}]},
    }


def same_types() -> dict[str, Any]:
    """With decimal places (any sign) and CEIL/FLOOR, the type is the argument's, precision == scale too."""
    stmt = ("CREATE STREAM S (K STRING KEY, A DECIMAL(2,2), B DECIMAL(4,1), C DECIMAL(6,3)) "
            "WITH (kafka_topic='s', value_format='JSON');")
    sel = ("ROUND(A, 1) AS RA, ROUND(A, -1) AS RAN, TRUNC(A, 1) AS TA, CEIL(A) AS CA, FLOOR(A) AS FA, "
           "ROUND(B, -1) AS RB, TRUNC(B, -2) AS TB, CEIL(B) AS CB, FLOOR(B) AS FB, ROUND(C, 5) AS RC, "
           "TRUNC(C, 2) AS TC, CEIL(C) AS CC, FLOOR(C) AS FC")
    return {
        "name": "ROUND/TRUNC with places and CEIL/FLOOR keep the argument's DECIMAL type, values keep its scale",
        "statements": [stmt, f"CREATE STREAM O WITH (value_format='DELIMITED') AS SELECT K, {sel} FROM S;"],
        "inputs": [{"topic": "s", "key": "k", "value": {"A": 0.55, "B": 999.5, "C": -2.345}}],
        "outputs": [{"topic": "O", "key": "k", "value":
                     "0.60,0.00,0.50,1.00,0.00,1000.0,900.0,1000.0,999.0,-2.345,-2.340,-2.000,-3.000"}],
        "post": {"sources": [{"name": "O", "type": "stream", "schema":
                              "K STRING KEY, RA DECIMAL(2,2), RAN DECIMAL(2,2), TA DECIMAL(2,2), CA DECIMAL(2,2), "
                              "FA DECIMAL(2,2), RB DECIMAL(4,1), TB DECIMAL(4,1), CB DECIMAL(4,1), FB DECIMAL(4,1), "
                              "RC DECIMAL(6,3), TC DECIMAL(6,3), CC DECIMAL(6,3), FC DECIMAL(6,3)"}]},
    }


def refused(fn: str, expr: str, p: int) -> dict[str, Any]:
    return {
        "name": f"{fn}({expr}) of DECIMAL({p},{p}) has no whole type: the schema provider fails",
        "statements": ["CREATE STREAM S (K STRING KEY, A DECIMAL(2,2), Z DECIMAL(38,38)) "
                       "WITH (kafka_topic='s', value_format='JSON');",
                       f"CREATE STREAM O AS SELECT K, {fn}({expr}) AS X FROM S;"],
        "expectedException": {"type": EXC, "message":
                              f"Cannot invoke the schema provider method provideDecimalSchema for UDF {fn}. "
                              "\nCaused by: DECIMAL precision must be >= 1: DECIMAL(0,0)"},
    }


def cases() -> list[dict[str, Any]]:
    out = [whole_types(), same_types()]
    for fn in ("ROUND", "TRUNC"):
        out += [refused(fn, "A", 2), refused(fn, "Z", 38)]
    out.append({
        "name": "ROUND of a DECIMAL(p,p) in WHERE is refused the same way",
        "statements": ["CREATE STREAM S (K STRING KEY, A DECIMAL(3,3)) WITH (kafka_topic='s', value_format='JSON');",
                       "CREATE STREAM O AS SELECT K FROM S WHERE ROUND(A) > 0;"],
        "expectedException": {"type": EXC, "message": "Cannot invoke the schema provider method "
                              "provideDecimalSchema for UDF ROUND."}})
    out.append({
        "name": "ROUND of a literal is DECIMAL(p-s,0); a literal in (-1, 1) is DECIMAL(scale+1, scale), so 0.5 has a "
                "whole type",
        "statements": ["CREATE STREAM S (K STRING KEY, A INT) WITH (kafka_topic='s', value_format='JSON');",
                       "CREATE STREAM O AS SELECT K, ROUND(1.5) AS X, ROUND(-2.5) AS Y, TRUNC(-12.99) AS Z, "
                       "ROUND(0.5) AS U, TRUNC(-0.05) AS V FROM S;"],
        "inputs": [{"topic": "s", "key": "k", "value": {"A": 1}}],
        "outputs": [{"topic": "O", "key": "k", "value": {"X": 2, "Y": -2, "Z": -12, "U": 1, "V": 0}}],
        "post": {"sources": [{"name": "O", "type": "stream", "schema": "K STRING KEY, X DECIMAL(1,0), "
                              "Y DECIMAL(1,0), Z DECIMAL(2,0), U DECIMAL(1,0), V DECIMAL(1,0)"}]}})
    return out


if __name__ == "__main__":
    write_cases(str(pathlib.Path(__file__).with_name("decimal-rounding-types.json")), __doc__ or "", cases())
