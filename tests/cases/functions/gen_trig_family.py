"""The trigonometric and hyperbolic functions over their whole scope: each of ACOS, ASIN, ATAN, COS, COT, SIN,
TAN, COSH, SINH, TANH, DEGREES and RADIANS takes INT, BIGINT and DOUBLE (and a DECIMAL through its implicit cast
to DOUBLE) and returns DOUBLE; a NULL argument is NULL, never an error; outside a function's domain the result
is Java's NaN or infinity, not a failure; ATAN2(y, x) takes the quadrant from both signs; PI() is Math.PI.

Expected values are written from ksqlDB's UDFs (from memory of Acos, Asin, Atan, Atan2, Cos, Cot, Sin, Tan,
Cosh, Sinh, Tanh, Degrees, Radians, Pi: each Math.<fn>(value) after a null check, COT as 1.0 / Math.tan,
DEGREES/RADIANS as Math.toDegrees/toRadians), computed with Python's math module (the same IEEE functions,
compared within the harness's DOUBLE tolerance), never by ours. Writes tests/cases/functions/trig-family.json:
``python tests/cases/functions/gen_trig_family.py tests/cases/functions/trig-family.json``.
"""
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

COLUMNS = "I INT, BI BIGINT, D DOUBLE, DC DECIMAL(4, 2), NI INT, NB BIGINT, ND DOUBLE, NDC DECIMAL(4, 2)"
ROW = {"I": 1, "BI": -1, "D": 0.5, "DC": 0.25, "NI": None, "NB": None, "ND": None, "NDC": None}


def java(x: float) -> object:
    """A DOUBLE result as the harness writes it: NaN and the infinities as their Java texts."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def cot(x: float) -> float:
    t = math.tan(x)
    return math.copysign(math.inf, t) if t == 0 else 1.0 / t


def domain(fn, x: float) -> float:  # type: ignore[no-untyped-def]
    try:
        return fn(x)
    except ValueError:
        return math.nan
    except OverflowError:
        return math.inf


FUNCTIONS = {"ACOS": math.acos, "ASIN": math.asin, "ATAN": math.atan, "COS": math.cos, "COT": cot,
             "SIN": math.sin, "TAN": math.tan, "COSH": math.cosh, "SINH": math.sinh, "TANH": math.tanh,
             "DEGREES": math.degrees, "RADIANS": math.radians}
ARGS = {"I": 1.0, "BI": -1.0, "D": 0.5, "DC": 0.25}


def per_type() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for name, fn in FUNCTIONS.items():
        for col, x in ARGS.items():
            out.append((f"{name}({col})", java(domain(fn, x))))
        for col in ("NI", "NB", "ND", "NDC"):
            out.append((f"{name}({col})", None))
    return out


def sinh_overflow(x: float) -> float:
    return math.copysign(math.inf, x) if abs(x) > 710 else math.sinh(x)


FAMILIES: dict[str, list[tuple[str, object]]] = {
    "every trigonometric and hyperbolic function on INT, BIGINT, DOUBLE and DECIMAL columns; NULL of each type "
    "is NULL": per_type(),
    "outside the domain: NaN or infinity, not an error; COT(0) is infinity (1.0 / tan 0), -0.0 keeps its sign": [
        ("ACOS(2)", "NaN"),
        ("ASIN(CAST(-1.5 AS DOUBLE))", "NaN"),
        ("ACOS(CAST(-1 AS BIGINT))", java(math.pi)),
        ("ASIN(-1)", java(-math.pi / 2)),
        ("COT(0)", "Infinity"),
        ("COT(-0.0E0)", "-Infinity"),
        ("COSH(1000)", "Infinity"),
        ("SINH(-1000)", java(sinh_overflow(-1000.0))),
        ("TANH(1000)", 1.0),
        ("TANH(-1000)", -1.0),
        ("ATAN(1.0E308 * 10)", java(math.pi / 2)),
        ("SIN(0.0E0 / 0)", "NaN"),
        ("DEGREES(CAST(9223372036854775807 AS BIGINT))", java(math.degrees(9223372036854775807.0))),
        ("RADIANS(-180)", java(-math.pi)),
    ],
    "ATAN2(y, x): the quadrant from both signs, the signed zeros, NULL on either side; PI() is Math.PI": [
        ("ATAN2(1, 1)", java(math.atan2(1, 1))),
        ("ATAN2(1, -1)", java(math.atan2(1, -1))),
        ("ATAN2(-1, -1)", java(math.atan2(-1, -1))),
        ("ATAN2(-1, 1)", java(math.atan2(-1, 1))),
        ("ATAN2(0, 0)", 0.0),
        ("ATAN2(0.0E0, -1)", java(math.pi)),
        ("ATAN2(-0.0E0, -1)", java(-math.pi)),
        ("ATAN2(I, -2)", java(math.atan2(1, -2))),
        ("ATAN2(BI, CAST(0 AS BIGINT))", java(math.atan2(-1, 0))),
        ("ATAN2(D, DC)", java(math.atan2(0.5, 0.25))),
        ("ATAN2(NI, 1)", None),
        ("ATAN2(1, ND)", None),
        ("PI()", java(math.pi)),
        ("PI() * 2", java(math.pi * 2)),
    ],
}


def main() -> None:
    tests = [probe_case(title, probes, COLUMNS, ROW) for title, probes in FAMILIES.items()]
    write_cases(sys.argv[1], __doc__ or "", tests)


if __name__ == "__main__":
    main()
