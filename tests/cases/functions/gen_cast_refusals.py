"""CASTs ksqlDB refuses, over every pair of types its CastEvaluator has no conversion for (from memory of
CastEvaluator's table: numbers among themselves, everything but BYTES to STRING, STRING to the primitives,
TIMESTAMP to DATE/TIME, DATE to TIMESTAMP, containers of one kind element-wise): the cast is typed as its target and
refused only when the expression is compiled - ``Invalid Select: Cast of BOOLEAN to INTEGER is not supported.``
(``Invalid Predicate`` in WHERE), after every logical-planning error of the statement (a WHERE that is no
BOOLEAN reads as such first). Columns and literals alike: the source type decides. BYTES to and from STRING
are left out: unsure.

Writes tests/cases/functions/cast-refusals.json: ``python tests/cases/functions/gen_cast_refusals.py
tests/cases/functions/cast-refusals.json`` after changing this file.
"""
import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import write_cases  # noqa: E402

EXC = "io.confluent.ksql.util.KsqlStatementException"
# column, its SQL type, the type as ksqlDB prints it
TYPES: list[tuple[str, str, str]] = [
    ("BO", "BOOLEAN", "BOOLEAN"),
    ("I", "INT", "INTEGER"),
    ("B", "BIGINT", "BIGINT"),
    ("D", "DOUBLE", "DOUBLE"),
    ("DC", "DECIMAL(4, 2)", "DECIMAL(4, 2)"),
    ("S", "STRING", "STRING"),
    ("DT", "DATE", "DATE"),
    ("TM", "TIME", "TIME"),
    ("TS", "TIMESTAMP", "TIMESTAMP"),
    ("BT", "BYTES", "BYTES"),
    ("AI", "ARRAY<INT>", "ARRAY<INTEGER>"),
    ("MI", "MAP<STRING, INT>", "MAP<STRING, INTEGER>"),
    ("SI", "STRUCT<F INT>", "STRUCT<`F` INTEGER>"),
]
# literal, the SQL type it has (as TYPES names it), the type as ksqlDB prints it
LITERALS: list[tuple[str, str, str]] = [
    ("TRUE", "BOOLEAN", "BOOLEAN"),
    ("7", "INT", "INTEGER"),
    ("12345678901", "BIGINT", "BIGINT"),
    ("1.5E0", "DOUBLE", "DOUBLE"),
    ("12.25", "DECIMAL(4, 2)", "DECIMAL(4, 2)"),
    ("'abc'", "STRING", "STRING"),
    ("ARRAY[1, 2]", "ARRAY<INT>", "ARRAY<INTEGER>"),
    ("MAP('a' := 1)", "MAP<STRING, INT>", "MAP<STRING, INTEGER>"),
    ("STRUCT(F := 1)", "STRUCT<F INT>", "STRUCT<`F` INTEGER>"),
]
NUMBERS = {"INT", "BIGINT", "DOUBLE", "DECIMAL(4, 2)"}
PRIMITIVES = NUMBERS | {"BOOLEAN", "STRING", "DATE", "TIME", "TIMESTAMP"}
UNSURE = {("BYTES", "STRING"), ("STRING", "BYTES")}


def accepted(src: str, dst: str) -> bool:
    if src == dst or (src in NUMBERS and dst in NUMBERS):
        return True
    if dst == "STRING":
        return src != "BYTES"
    if src == "STRING":
        return dst in PRIMITIVES
    return (src, dst) in {("TIMESTAMP", "DATE"), ("TIMESTAMP", "TIME"), ("DATE", "TIMESTAMP")}


STREAM = ("CREATE STREAM S (K STRING KEY, " + ", ".join(f"{c} {t}" for c, t, _ in TYPES)
          + ") WITH (kafka_topic='s', value_format='JSON');")


def _refused(name: str, sql: str, message: str) -> dict[str, Any]:
    return {"name": name, "statements": [STREAM, sql], "expectedException": {"type": EXC, "message": message}}


def cases() -> list[dict[str, Any]]:
    tests: list[dict[str, Any]] = []
    for col, src, shown in TYPES:
        for _, dst, dst_shown in TYPES:
            if accepted(src, dst) or (src, dst) in UNSURE:
                continue
            tests.append(_refused(f"CAST of {shown} to {dst_shown}",
                                  f"CREATE STREAM O AS SELECT K, CAST({col} AS {dst}) AS X FROM S;",
                                  f"Invalid Select: Cast of {shown} to {dst_shown} is not supported."))
    # the same table over literals (no DATE/TIME/TIMESTAMP/BYTES literal syntax): the literal's type decides
    for lit, src, shown in LITERALS:
        for _, dst, dst_shown in TYPES:
            if accepted(src, dst) or (src, dst) in UNSURE:
                continue
            tests.append(_refused(f"CAST of the literal {lit} ({shown}) to {dst_shown}",
                                  f"CREATE STREAM O AS SELECT K, CAST({lit} AS {dst}) AS X FROM S;",
                                  f"Invalid Select: Cast of {shown} to {dst_shown} is not supported."))
    tests += [
        _refused("CAST of a container's elements it cannot convert: ARRAY<INTEGER> to ARRAY<BOOLEAN>",
                 "CREATE STREAM O AS SELECT K, CAST(AI AS ARRAY<BOOLEAN>) AS X FROM S;",
                 "Cast of ARRAY<INTEGER> to ARRAY<BOOLEAN> is not supported"),
        _refused("CAST of a map's values it cannot convert: MAP<STRING, INTEGER> to MAP<STRING, DATE>",
                 "CREATE STREAM O AS SELECT K, CAST(MI AS MAP<STRING, DATE>) AS X FROM S;",
                 "Cast of MAP<STRING, INTEGER> to MAP<STRING, DATE> is not supported"),
        _refused("an unsupported CAST in WHERE is the predicate's",
                 "CREATE STREAM O AS SELECT K, I FROM S WHERE CAST(BO AS INT) = 1;",
                 "Invalid Predicate: Cast of BOOLEAN to INTEGER is not supported."),
        _refused("a WHERE that is no BOOLEAN is refused before an unsupported CAST in SELECT",
                 "CREATE STREAM O AS SELECT K, CAST(BO AS INT) AS X FROM S WHERE I;",
                 "Type error in WHERE expression: Should evaluate to boolean but is I (INTEGER) instead."),
        _refused("a type error in SELECT is refused before an unsupported CAST before it",
                 "CREATE STREAM O AS SELECT K, CAST(BO AS INT) AS X, I + S AS Y FROM S;",
                 "Unsupported arithmetic types. INTEGER STRING"),
    ]
    return tests


if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, cases())
