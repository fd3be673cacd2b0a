"""Numeric operators and casts over many value pairs in one batch: a model of Java's and ksqlDB's rules
written here (never ours) checked against the engine for a few hundred records read at once, so every
evaluation tier (a row at a time, whole columns of a JSON or DELIMITED batch) meets the same values.

The rules modelled (/work/shared/reference/ksqldb-rules.md 2.2, 2.3, 2.6, 3; from memory of ksqlDB's
SqlToJavaVisitor, DecimalUtil and CastEvaluator):
* INT op INT stays INT and BIGINT op BIGINT (or INT) BIGINT, both wrapping as Java does (``MIN / -1``,
  ``-MIN``, ``ABS(MIN)`` are MIN); integer ``/`` truncates toward zero and ``%`` takes the dividend's sign;
  a zero divisor fails the expression (NULL, processing log);
* a NULL operand fails arithmetic (NULL) and makes a comparison false; IS DISTINCT FROM is NULL-safe;
* DECIMAL + - * % keep the exact value at the result scale (max(s1,s2) for + - %, s1+s2 for *); ``/`` is
  exact at scale max(6, s1+p2+1) or fails when the quotient needs rounding; DECIMAL op DOUBLE is DOUBLE;
* CAST DOUBLE to DECIMAL(p, s) (DecimalUtil.cast) takes the double's exact binary value rounded HALF_UP to
  p significant digits, fails when that is at least 10^(p-s) in magnitude, then rounds HALF_UP to scale s;
  CAST DECIMAL to DECIMAL applies the same bound to the value before rounding it to the scale; DECIMAL and DOUBLE to INT/BIGINT truncate toward zero (DOUBLE saturates); BIGINT to INT keeps
  the low 32 bits; a DECIMAL compares with a DOUBLE by value.

Writes tests/cases/stateless/numeric-sweep.json: ``python tests/cases/stateless/gen_numeric_sweep.py
tests/cases/stateless/numeric-sweep.json`` after changing this file.
"""
from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Callable
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, getcontext
from typing import Any

getcontext().prec = 100

INT_MIN, INT_MAX, LONG_MIN, LONG_MAX = -(2**31), 2**31 - 1, -(2**63), 2**63 - 1
RECORDS = 150


def wrap32(v: int) -> int:
    return (v - INT_MIN) % 2**32 + INT_MIN


def wrap64(v: int) -> int:
    return (v - LONG_MIN) % 2**64 + LONG_MIN


def jdiv(a: int, b: int) -> int:
    """Java's integer division: truncation toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def jmod(a: int, b: int) -> int:
    return a - jdiv(a, b) * b


def nn(*vs: Any) -> bool:
    return all(v is not None for v in vs)


Row = tuple[Any, ...]

# name -> (SQL, model over (A, B, C, D)); A, B INT and C, D BIGINT
INTEGRAL: dict[str, tuple[str, Callable[..., Any]]] = {
    "ADD": ("A + B", lambda a, b, c, d: wrap32(a + b) if nn(a, b) else None),
    "SUB": ("A - B", lambda a, b, c, d: wrap32(a - b) if nn(a, b) else None),
    "MUL": ("A * B", lambda a, b, c, d: wrap32(a * b) if nn(a, b) else None),
    "DIV": ("A / B", lambda a, b, c, d: wrap32(jdiv(a, b)) if nn(a, b) and b != 0 else None),
    "MODI": ("A % B", lambda a, b, c, d: jmod(a, b) if nn(a, b) and b != 0 else None),
    "NEG": ("-A", lambda a, b, c, d: wrap32(-a) if nn(a) else None),
    "ABSA": ("ABS(A)", lambda a, b, c, d: wrap32(abs(a)) if nn(a) else None),
    "LADD": ("C + D", lambda a, b, c, d: wrap64(c + d) if nn(c, d) else None),
    "LMUL": ("C * D", lambda a, b, c, d: wrap64(c * d) if nn(c, d) else None),
    "LDIV": ("C / D", lambda a, b, c, d: wrap64(jdiv(c, d)) if nn(c, d) and d != 0 else None),
    "LMOD": ("C % D", lambda a, b, c, d: jmod(c, d) if nn(c, d) and d != 0 else None),
    "MIXMUL": ("A * C", lambda a, b, c, d: wrap64(a * c) if nn(a, c) else None),
    "MIXSUB": ("A - D", lambda a, b, c, d: wrap64(a - d) if nn(a, d) else None),
    "TOINT": ("CAST(C AS INT)", lambda a, b, c, d: wrap32(c) if nn(c) else None),
    "TOSTR": ("CAST(A AS STRING)", lambda a, b, c, d: str(a) if nn(a) else None),
    "GT": ("A > B", lambda a, b, c, d: nn(a, b) and a > b),
    "EQ": ("A = C", lambda a, b, c, d: nn(a, c) and a == c),
    "NE": ("A <> B", lambda a, b, c, d: nn(a, b) and a != b),
    "BTW": ("A BETWEEN B AND 1000", lambda a, b, c, d: nn(a, b) and b <= a <= 1000),
    "DIST": ("A IS DISTINCT FROM B", lambda a, b, c, d: a != b),
    "PICK": ("CASE WHEN A > B THEN A WHEN A < B THEN B END",
             lambda a, b, c, d: max(a, b) if nn(a, b) and a != b else None),
}


def q(v: Decimal, scale: int) -> Decimal:
    return v.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)


def fits(v: Decimal, precision: int, scale: int) -> bool:
    return abs(q(v, scale)) < Decimal(10) ** (precision - scale)


def dec_div(x: Decimal, y: Decimal, precision: int, scale: int) -> Decimal | None:
    """ksqlDB's ``x.divide(y, new MathContext(p, UNNECESSARY)).setScale(s)``: exact or a failure."""
    if y == 0:
        return None
    r = x / y
    if q(r, scale) != r or not fits(r, precision, scale):
        return None
    return q(r, scale)


def dec_rem(x: Decimal, y: Decimal) -> Decimal | None:
    if y == 0:
        return None
    return q(x - y * (x / y).to_integral_value(rounding=ROUND_DOWN), 2)


def java_cast(v: Decimal, precision: int, scale: int) -> Decimal | None:
    """``ensureMax`` on the value as it is, then ``setScale(scale, HALF_UP)``."""
    return q(v, scale) if abs(v) < Decimal(10) ** (precision - scale) else None


def double_to_decimal(d: float, precision: int, scale: int) -> Decimal | None:
    """``new BigDecimal(d, new MathContext(precision))``: the exact double, ``precision`` digits, HALF_UP."""
    exact = Decimal(d)
    if exact == 0:
        return q(Decimal(0), scale)
    drop = exact.adjusted() + 1 - precision  # digits below the precision-th significant one
    return java_cast(exact.quantize(Decimal(1).scaleb(drop), rounding=ROUND_HALF_UP), precision, scale)


def saturate(d: float, lo: int, hi: int) -> int:
    return hi if d >= hi else lo if d <= lo else int(d)


# X DECIMAL(5,2), Y DECIMAL(4,1), E DOUBLE
DECIMAL: dict[str, tuple[str, Callable[..., Any]]] = {
    "XADD": ("X + Y", lambda x, y, e: q(x + y, 2) if nn(x, y) else None),
    "XSUB": ("X - Y", lambda x, y, e: q(x - y, 2) if nn(x, y) else None),
    "XMUL": ("X * Y", lambda x, y, e: q(x * y, 3) if nn(x, y) else None),
    # DECIMAL(5,2) / DECIMAL(4,1): scale max(6, 2 + 4 + 1) = 7, precision 5 - 2 + 1 + 7 = 11
    "XDIV": ("X / Y", lambda x, y, e: dec_div(x, y, 11, 7) if nn(x, y) else None),
    "XMOD": ("X % Y", lambda x, y, e: dec_rem(x, y) if nn(x, y) else None),
    "XNEG": ("-X", lambda x, y, e: q(-x, 2) if nn(x) else None),
    "XTWICE": ("X * 2", lambda x, y, e: q(x * 2, 2) if nn(x) else None),
    # DECIMAL(4,1) / DECIMAL(10,0): scale max(6, 1 + 10 + 1) = 12, precision 3 + 12 = 15
    "YHALF": ("Y / 2", lambda x, y, e: dec_div(y, Decimal(2), 15, 12) if nn(y) else None),
    "XDBL": ("X + E", lambda x, y, e: float(x) + e if nn(x, e) else None),
    "EDEC": ("CAST(E AS DECIMAL(6,2))", lambda x, y, e: double_to_decimal(e, 6, 2) if nn(e) else None),
    "XNARROW": ("CAST(X AS DECIMAL(4,1))", lambda x, y, e: java_cast(x, 4, 1) if nn(x) else None),
    "XINT": ("CAST(X AS INT)", lambda x, y, e: int(x.to_integral_value(rounding=ROUND_DOWN)) if nn(x) else None),
    "EBIG": ("CAST(E AS BIGINT)", lambda x, y, e: saturate(e, LONG_MIN, LONG_MAX) if nn(e) else None),
    "EINT": ("CAST(E AS INT)", lambda x, y, e: saturate(e, INT_MIN, INT_MAX) if nn(e) else None),
    "XGTE": ("X > E", lambda x, y, e: nn(x, e) and x > Decimal(repr(e))),
    "XEQY": ("X = Y", lambda x, y, e: nn(x, y) and x == y),
}

INTS = [0, 1, -1, 2, -2, 7, -7, INT_MAX, INT_MIN, 1000, -1000, 46341, 65536, None]
LONGS = [0, 1, -1, 3, -3, LONG_MAX, LONG_MIN, 2**32, 10**12, -(10**12), None]
DOUBLES = [None, 0.0, 1.5, -2.5, 0.125, 1e10, -1e10, 123.456, 2.675, -7.0, 99.995, 0.1, 1e-7, 3e9, -3e9,
           1e19, -1e19, 9999.994, -9999.995]


def text(v: Any) -> str:
    return "" if v is None else str(v)


def case(name: str, fmt: str, columns: str, model: dict[str, tuple[str, Callable[..., Any]]],
         rows: list[Row], names: tuple[str, ...]) -> dict[str, Any]:
    select = ", ".join(f"{sql} AS {n}" for n, (sql, _) in model.items())
    statements = [
        f"CREATE STREAM S (ID INT KEY, {columns}) WITH (kafka_topic='s', value_format='{fmt}');",
        f"CREATE STREAM O WITH (value_format='JSON') AS SELECT ID, {select} FROM S;",
    ]

    def value(row: Row) -> Any:
        if fmt == "JSON":
            return {c: (None if v is None else float(v) if isinstance(v, Decimal) else v) for c, v in zip(names, row, strict=True)}
        return ",".join(text(v) for v in row)

    inputs = [{"topic": "s", "key": i, "value": value(r)} for i, r in enumerate(rows)]
    outputs = [{"topic": "O", "key": i, "value": {n: f(*r) for n, (_, f) in model.items()}} for i, r in enumerate(rows)]
    return {"name": name, "statements": statements, "inputs": inputs, "outputs": outputs}


def _tests() -> list[dict[str, Any]]:
    rnd = random.Random(29)
    ints = [(rnd.choice(INTS), rnd.choice(INTS), rnd.choice(LONGS), rnd.choice(LONGS)) for _ in range(RECORDS)]
    xs = [None, Decimal("0.00"), Decimal("999.99"), Decimal("-999.99"), Decimal("0.01")] + \
        [Decimal(rnd.randint(-99999, 99999)) / 100 for _ in range(30)]
    ys = [None, Decimal("0.0"), Decimal("0.1"), Decimal("-0.3"), Decimal("2.0"), Decimal("4.0"), Decimal("0.5")] + \
        [Decimal(rnd.randint(-9999, 9999)) / 10 for _ in range(30)]
    decs = [(rnd.choice(xs), rnd.choice(ys), rnd.choice(DOUBLES)) for _ in range(RECORDS)]
    tests = []
    for fmt in ("JSON", "DELIMITED"):
        tests.append(case(f"INT and BIGINT operators wrap, truncate and fail as Java does - {fmt} batch", fmt,
                          "A INT, B INT, C BIGINT, D BIGINT", INTEGRAL, ints, ("A", "B", "C", "D")))
        tests.append(case(f"DECIMAL operators are exact at their result scale, casts round HALF_UP - {fmt} batch",
                          fmt, "X DECIMAL(5,2), Y DECIMAL(4,1), E DOUBLE", DECIMAL, decs, ("X", "Y", "E")))
    return tests


def _dump(v: Any) -> str:
    """JSON with each DECIMAL written as a number of its exact scale (``1.50``)."""
    return re.sub(r'"@@([^@]*)@@"', r"\1", json.dumps(v, default=lambda o: f"@@{o}@@"))


def render() -> str:
    """The case file's text: one record a line."""
    tests = _tests()
    comment = (__doc__ or "").split("\n\nWrites")[0].replace("\n", " ")
    lines = ["{", f' "comments": {_dump([comment])},', ' "tests": [']
    for n, t in enumerate(tests):
        lines.append(f'  {{"name": {_dump(t["name"])},')
        lines.append(f'   "statements": {_dump(t["statements"])},')
        for key in ("inputs", "outputs"):
            lines.append(f'   "{key}": [')
            lines.append(",\n".join(f"    {_dump(r)}" for r in t[key]))
            lines.append("   ]" + ("," if key == "inputs" else ""))
        lines.append("  }" + ("," if n < len(tests) - 1 else ""))
    lines += [" ]", "}"]
    return "\n".join(lines) + "\n"


def cases() -> list[dict[str, Any]]:
    """The tests as the file holds them once read back (tests/testing/test_generated_cases.py)."""
    return json.loads(render())["tests"]


def main(path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(render())


if __name__ == "__main__":
    main(sys.argv[1])
