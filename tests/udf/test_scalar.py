"""@udf end to end: overloads and widening, variadics, generics, return-type providers, value conversion,
errors (NULL + processing log, the query goes on), lazy CASE, DESCRIBE FUNCTION / SHOW FUNCTIONS, push and
pull queries."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from ksqlpy.errors import KsqlError
from tests.udf.conftest import Extensions, plog_errors, values

FUNCTIONS = '''
from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal
from typing import Annotated, TypeVar

from ksqlpy.udf import sql, udf

T = TypeVar("T")


@udf("MULTIPLY", description="The product of two numbers.", params={"b": "the second factor"})
def multiply(a: Annotated[int, "the first factor"], b: int) -> int:
    return a * b


@udf("MULTIPLY")
def multiply_strings(s: str, n: int) -> str:
    return s * n


@udf("TOTAL", description="Sum of any number of BIGINTs, plus a label.")
def total(label: str, *xs: int) -> str:
    return f"{label}={sum(x for x in xs if x is not None)}"


@udf("FIRST_OF")
def first_of(xs: list[T]) -> T:
    return xs[0] if xs else None


@udf("SCALED", returns=lambda types: f"DECIMAL({types[0].precision + 2}, {types[0].scale})")
def scaled(d: Decimal, k: sql.INT) -> Decimal:
    return d * k


@udf("SHIFT")
def shift(ts: dt.datetime, d: dt.date, t: dt.time) -> dt.datetime:
    return dt.datetime.combine(d, t, tzinfo=dt.UTC) + (ts - dt.datetime(1970, 1, 1, tzinfo=dt.UTC))


@dataclasses.dataclass
class Point:
    x: int
    y: int


@udf("SWAP")
def swap(p: Point) -> Point:
    return Point(p.y, p.x)


@udf("HALF")
def half(x: sql.INT) -> sql.DECIMAL(12, 1):
    return Decimal(x) / 2


@udf("RATIO")
def ratio(a: int, b: int) -> float:
    return a // b


@udf("CHECKED", description="Fails for non-positive input.")
def checked(x: int) -> int:
    if x <= 0:
        raise ValueError(f"not positive: {x}")
    return x
'''

STREAM = ("CREATE STREAM S (K STRING KEY, I INT, B BIGINT, S STRING, XS ARRAY<STRING>, DEC DECIMAL(5, 2), "
          "TS TIMESTAMP, D DATE, TM TIME, P STRUCT<X BIGINT, Y BIGINT>) "
          "WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
ROW = ("INSERT INTO S (K, I, B, S, XS, DEC, TS, D, TM, P) VALUES ('a', 3, 4, 'ab', ARRAY['x', 'y'], 1.25, "
       "'1970-01-01T00:00:02', '2024-01-31', '10:00:00', STRUCT(X:=1, Y:=2));")


@pytest.fixture
def engine(ext: Extensions):  # type: ignore[no-untyped-def]
    ext.write("functions.py", FUNCTIONS)
    e = ext.engine()
    e.execute(STREAM)
    e.execute(ROW)
    return e


def test_every_kind_of_argument_in_a_persistent_query(engine) -> None:  # type: ignore[no-untyped-def]
    engine.execute("CREATE STREAM OUT AS SELECT K, MULTIPLY(I, B) AS M, MULTIPLY(S, 2) AS MS, TOTAL(S) AS T0, "
                   "TOTAL(S, I, B, 5) AS T3, FIRST_OF(XS) AS F, SCALED(DEC, 3) AS SC, SHIFT(TS, D, TM) AS SH, "
                   "SWAP(P) AS SW, HALF(I) AS H FROM S;")
    engine.drain(10)
    src = engine.catalog.source("OUT")
    assert src.schema_string() == (
        "K STRING KEY, M BIGINT, MS STRING, T0 STRING, T3 STRING, F STRING, SC DECIMAL(7, 2), SH TIMESTAMP, "
        "SW STRUCT<`X` BIGINT, `Y` BIGINT>, H DECIMAL(12, 1)")
    shifted = int((dt.datetime(2024, 1, 31, 10, 0, 2, tzinfo=dt.UTC) - dt.datetime(1970, 1, 1, tzinfo=dt.UTC))
                  .total_seconds() * 1000)
    assert values(engine, "OUT") == [
        (12, "abab", "ab=0", "ab=12", "x", Decimal("3.75"), shifted, {"X": 2, "Y": 1}, Decimal("1.5"))]


def test_int_arguments_widen_to_bigint_and_no_match_lists_the_overloads(engine) -> None:  # type: ignore[no-untyped-def]
    engine.execute("CREATE STREAM OUT AS SELECT K, MULTIPLY(I, I) AS M FROM S;")  # (INT, INT) -> (BIGINT, BIGINT)
    with pytest.raises(KsqlError) as e:
        engine.execute("CREATE STREAM BAD AS SELECT K, MULTIPLY(XS, I) AS M FROM S;")
    assert str(e.value).endswith(
        "Function 'MULTIPLY' does not accept parameters (ARRAY<STRING>, INTEGER).\n"
        "Valid alternatives are:\n"
        "MULTIPLY(BIGINT a, BIGINT b)\n"
        "MULTIPLY(STRING s, BIGINT n)\n"
        "For detailed information on a function run: DESCRIBE FUNCTION <Function-Name>;")


def test_a_result_is_made_its_sql_type(engine) -> None:  # type: ignore[no-untyped-def]
    engine.execute("CREATE STREAM OUT AS SELECT K, RATIO(B, I) AS R FROM S;")
    engine.drain(10)
    (row,) = values(engine, "OUT")
    assert row == (1.0,) and isinstance(row[0], float)


def test_an_error_is_null_and_a_processing_log_entry_and_the_query_goes_on(engine) -> None:  # type: ignore[no-untyped-def]
    engine.execute("INSERT INTO S (K, I, B) VALUES ('b', -1, 1);")
    engine.execute("INSERT INTO S (K, I, B) VALUES ('c', 7, 1);")
    engine.execute("CREATE STREAM OUT AS SELECT K, CHECKED(I) AS C, I FROM S;")
    engine.drain(10)
    assert values(engine, "OUT") == [(3, 3), (None, -1), (7, 7)]
    assert plog_errors(engine) == [{"errorMessage": "Error processing CHECKED", "record": None,
                                    "cause": ["not positive: -1"]}]


def test_case_evaluates_only_the_chosen_branch_also_on_the_slow_path(engine) -> None:  # type: ignore[no-untyped-def]
    engine.execute("INSERT INTO S (K, I, B) VALUES ('b', -1, 0);")
    # the record of 'b' also fails in another column (B / B divides by zero): it takes the per-column path,
    # where the CASE must still not call CHECKED for the branch it does not choose
    engine.execute("CREATE STREAM OUT AS SELECT K, CASE WHEN I > 0 THEN CHECKED(I) ELSE CAST(0 AS BIGINT) END AS C, "
                   "I / B AS Q FROM S;")
    engine.drain(10)
    assert values(engine, "OUT") == [(3, 0), (0, None)]
    assert [e["errorMessage"] for e in plog_errors(engine)] == [
        "Error computing expression (I / B) for column Q with index 1"]


def test_push_and_pull_queries_use_the_engine_functions(engine) -> None:  # type: ignore[no-untyped-def]
    engine.execute("CREATE TABLE T AS SELECT K, LATEST_BY_OFFSET(I) AS I FROM S GROUP BY K;")
    engine.drain(10)
    rows = engine.execute("SELECT K, MULTIPLY(I, 10) AS M FROM T WHERE K = 'a';")[0].data["rows"]
    assert [tuple(r) for r in rows] == [("a", 30)]
    q = engine.push_query("SELECT K, MULTIPLY(I, 2) AS M FROM S EMIT CHANGES LIMIT 1;",
                          {"auto.offset.reset": "earliest"})
    engine.drain(10)
    assert list(q) == [("a", 6)]


def test_describe_and_show_functions(engine) -> None:  # type: ignore[no-untyped-def]
    d = engine.execute("DESCRIBE FUNCTION multiply;")[0].data
    assert d["name"] == "MULTIPLY" and d["description"] == "The product of two numbers."
    assert d["type"] == "SCALAR" and d["path"].endswith("functions.py") and d["author"] == ""
    first = d["functions"][0]
    assert first["arguments"] == [
        {"name": "a", "type": "BIGINT", "description": "the first factor", "isVariadic": False},
        {"name": "b", "type": "BIGINT", "description": "the second factor", "isVariadic": False}]
    assert first["returnType"] == "BIGINT"
    total = engine.execute("DESCRIBE FUNCTION TOTAL;")[0].data["functions"][0]
    assert total["arguments"][1]["isVariadic"] and total["arguments"][1]["type"] == "BIGINT"
    assert engine.execute("DESCRIBE FUNCTION SCALED;")[0].data["functions"][0]["returnType"] == \
        "provided by the function"
    shown = {f["name"]: f for f in engine.execute("SHOW FUNCTIONS;")[0].data}
    assert shown["MULTIPLY"] == {"name": "MULTIPLY", "type": "SCALAR", "category": "OTHER"}
    assert shown["ABS"]["category"] == "MATHEMATICAL"
