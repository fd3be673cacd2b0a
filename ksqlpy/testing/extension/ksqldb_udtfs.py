"""ksqlDB's test-only table functions: one row per argument of several types, single-value lists, a DECIMAL
result through a return-type provider, and one that fails on request."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ksqlpy.javatext import java_str, struct_str
from ksqlpy.udf import sql, udtf

STRUCT_AB = sql.of("STRUCT<A INT, B STRING>")


def _value(v: Any) -> Any:
    """ksqlDB's versions build immutable lists, which refuse NULL elements (the call fails)."""
    if v is None:
        raise TypeError("a NULL value cannot be returned in the list")
    return v


def _texts(i: Any, l: Any, d: Any, b: Any, s: Any, bd: Any, struct: Any) -> list[str]:  # noqa: E741
    return [java_str(_value(i)), java_str(_value(l)), java_str(_value(d)), java_str(_value(b)), _value(s),
            java_str(_value(bd)), struct_str(_value(struct))]


@udtf("TEST_UDTF", description="One row per argument, as text; single values as one row; DECIMAL(30, 10).")
def standard_params(i: sql.INT, l: int, d: float, b: bool, s: str, bd: Decimal,  # noqa: E741
                    struct: STRUCT_AB) -> list[str]:
    return _texts(i, l, d, b, s, bd, struct)


@udtf("TEST_UDTF")
def list_params(i: list[sql.INT], l: list[int], d: list[float], b: list[bool], s: list[str],  # noqa: E741
                bd: list[Decimal], struct: list[STRUCT_AB]) -> list[str]:
    return _texts(*(x[0] for x in (i, l, d, b, s, bd, struct)))


@udtf("TEST_UDTF")
def map_params(i: dict[str, sql.INT], l: dict[str, int], d: dict[str, float], b: dict[str, bool],  # noqa: E741
               s: dict[str, str], bd: dict[str, Decimal], struct: dict[str, STRUCT_AB]) -> list[str]:
    return _texts(*(next(iter(x.values())) for x in (i, l, d, b, s, bd, struct)))


@udtf("TEST_UDTF")
def int_row(i: sql.INT) -> list[sql.INT]:
    return [_value(i)]


@udtf("TEST_UDTF")
def long_row(l: int) -> list[int]:  # noqa: E741
    return [_value(l)]


@udtf("TEST_UDTF")
def double_row(d: float) -> list[float]:
    return [_value(d)]


@udtf("TEST_UDTF")
def boolean_row(b: bool) -> list[bool]:
    return [_value(b)]


@udtf("TEST_UDTF")
def string_row(s: str) -> list[str]:
    return [_value(s)]


@udtf("TEST_UDTF", returns=lambda types: "DECIMAL(30, 10)")
def decimal_row(bd: Decimal) -> list[Decimal]:
    return [_value(bd)]


@udtf("TEST_UDTF")
def struct_row(struct: STRUCT_AB) -> list[STRUCT_AB]:
    return [_value(struct)]


@udtf("THROWING_UDTF", description="One row holding b; fails when b is true.")
def throwing(b: bool) -> list[bool]:
    if b:
        raise RuntimeError("You asked me to throw...")
    return [b]
