"""ksqlDB's test-only scalar functions: lazy CASE evaluation probes, overload resolution, structs, errors."""

from __future__ import annotations

from typing import Any

from ksqlpy.udf import sql, udf

STRUCT_A = sql.of("STRUCT<A STRING>")


@udf("WHENCONDITION", description="Returns ret; fails when eval is false (only a chosen CASE branch may run).")
def when_condition(ret: bool, eval: bool) -> bool:
    if not eval:
        raise RuntimeError("WHENCONDITION was evaluated although its condition is false")
    return ret


@udf("WHENRESULT", description="Returns ret; fails when eval is false (only a chosen CASE branch may run).")
def when_result(ret: sql.INT, eval: bool) -> sql.INT:
    if not eval:
        raise RuntimeError("WHENRESULT was evaluated although its condition is false")
    return ret


@udf("TEST_UDF", description="Overload resolution probes.")
def do_stuff_int_string(i: sql.INT, s: str) -> str:
    return "doStuffIntString"


@udf("TEST_UDF")
def do_stuff_long_string(l: int, s: str) -> str:  # noqa: E741
    return "doStuffLongString"


@udf("TEST_UDF")
def do_stuff_long_long_string(l1: int, l2: int, s: str) -> str:
    return "doStuffLongLongString"


@udf("TEST_UDF")
def do_stuff_long_varargs(*longs: int) -> str:
    return "doStuffLongVarargs"


@udf("TEST_UDF")
def first_field(struct: STRUCT_A) -> str:
    return struct["A"]


@udf("TEST_UDF", returns=STRUCT_A)
def make_struct() -> dict[str, Any]:
    return {"A": "foo"}


@udf("TOSTRUCT", description="Wraps a string in STRUCT<A STRING>.")
def to_struct(s: str) -> STRUCT_A:
    return {"A": s}


@udf("BAD_UDF", description="NULL for 'd1' (else the string); fails for numbers; 0 for false, fails for true.")
def bad_string(s: str) -> str:
    return None if s == "d1" else s


@udf("BAD_UDF")
def bad_int(i: sql.INT) -> sql.INT:
    raise RuntimeError("boom")


@udf("BAD_UDF")
def bad_long(l: int) -> int:  # noqa: E741
    raise RuntimeError("boom")


@udf("BAD_UDF")
def might_throw(should_throw: bool) -> sql.INT:
    if should_throw:
        raise RuntimeError("You asked me to throw...")
    return 0
