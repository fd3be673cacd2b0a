"""MATHEMATICAL functions: Java floating point edges, ksqlDB rounding, result types, GREATEST/LEAST."""

from __future__ import annotations

import math
from decimal import Decimal as D

import pytest
from function_family import family_registry, scalar_caller

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions import math as math_fns
from ksqlpy.types import BIGINT, BYTES, DATE, DOUBLE, INTEGER, NULL, STRING, Decimal

REG = family_registry(math_fns)
call = scalar_caller(REG)


def rtype(name, *types):
    return REG.scalars[name].resolve(list(types)).return_type


def test_result_types():
    assert rtype("ABS", INTEGER) == INTEGER
    assert rtype("ABS", Decimal(6, 3)) == Decimal(6, 3)
    assert rtype("SQRT", INTEGER) == DOUBLE
    assert rtype("SQRT", Decimal(4, 1)) == DOUBLE  # only DOUBLE accepts a DECIMAL
    assert rtype("SIGN", DOUBLE) == INTEGER
    assert rtype("ROUND", DOUBLE) == BIGINT
    assert rtype("ROUND", DOUBLE, INTEGER) == DOUBLE
    assert rtype("ROUND", Decimal(10, 4)) == Decimal(6, 0)
    assert rtype("ROUND", Decimal(10, 4), INTEGER) == Decimal(10, 4)
    assert rtype("TRUNC", DOUBLE) == BIGINT
    assert rtype("FLOOR", Decimal(3, 2)) == Decimal(3, 2)
    assert rtype("CEIL", BIGINT) == BIGINT
    assert rtype("PI") == DOUBLE


def test_null_inputs_give_null():
    for name in ("ABS", "EXP", "LN", "SIGN", "CEIL", "ROUND", "COT"):
        assert call(name, [DOUBLE], None) is None
    assert call("POWER", [DOUBLE, DOUBLE], 2.0, None) is None
    assert call("ROUND", [DOUBLE, INTEGER], 1.25, None) is None


def test_java_special_values_instead_of_errors():
    assert math.isnan(call("LN", [DOUBLE], -2.0))
    assert call("LN", [INTEGER], 0) == -math.inf
    assert math.isnan(call("SQRT", [BIGINT], -4))
    assert call("LOG", [DOUBLE], 0.0) == -math.inf
    assert call("LOG", [INTEGER], 13) == 2.5649493574615367  # one argument: the natural logarithm, as ksqlDB
    assert math.isnan(call("ACOS", [DOUBLE], 1.5))
    assert math.isnan(call("ASIN", [INTEGER], -3))
    assert call("COT", [INTEGER], 0) == math.inf
    assert call("EXP", [DOUBLE], 1000.0) == math.inf
    assert call("COSH", [DOUBLE], 1000.0) == math.inf
    assert call("SINH", [DOUBLE], -1000.0) == -math.inf
    assert call("POWER", [DOUBLE, DOUBLE], 0.0, -2.0) == math.inf
    assert math.isnan(call("POWER", [DOUBLE, DOUBLE], -27.0, 1 / 3))
    assert call("POWER", [INTEGER, INTEGER], 2, 10) == 1024.0
    assert call("POWER", [INTEGER, INTEGER], 0, 0) == 1.0
    assert call("CBRT", [INTEGER], -27) == -3.0


def test_log_with_base():
    assert call("LOG", [INTEGER, INTEGER], 2, 8) == pytest.approx(3.0)
    assert call("LOG", [DOUBLE, DOUBLE], 10.0, 1.0) == 0.0
    assert call("LOG", [DOUBLE, DOUBLE], 3.0, 0.0) == -math.inf
    for base in (1.0, 0.0, -2.0):
        assert math.isnan(call("LOG", [DOUBLE, DOUBLE], base, 5.0))
    assert math.isnan(call("LOG", [DOUBLE, DOUBLE], 2.0, -5.0))


def test_sign():
    assert [call("SIGN", [INTEGER], v) for v in (-7, 0, 9)] == [-1, 0, 1]
    assert call("SIGN", [DOUBLE], -0.5) == -1
    assert call("SIGN", [DOUBLE], math.nan) == 0
    assert call("SIGN", [Decimal(3, 1)], D("-0.0")) == 0
    assert call("SIGN", [Decimal(3, 1)], D("2.5")) == 1


def test_round_double_half_up_towards_positive_infinity():
    assert [call("ROUND", [DOUBLE], v) for v in (2.5, -2.5, -2.51, 0.49999999999999994, 7.0)] == [
        3,
        -2,
        -3,
        0,
        7,
    ]
    assert call("ROUND", [DOUBLE], math.nan) == 0
    assert call("ROUND", [DOUBLE], math.inf) == 2**63 - 1
    assert call("ROUND", [DOUBLE, INTEGER], 2.345, 2) == 2.35
    assert call("ROUND", [DOUBLE, INTEGER], -2.345, 2) == -2.34
    assert call("ROUND", [DOUBLE, INTEGER], 1234.5, -2) == 1200.0
    assert call("ROUND", [DOUBLE, INTEGER], 1250.0, -2) == 1300.0
    r = call("ROUND", [DOUBLE, INTEGER], -4.0, -1)
    assert r == 0.0 and math.copysign(1.0, r) == 1.0  # no negative zero
    assert call("ROUND", [INTEGER], 5) == 5


def test_round_decimal_keeps_or_drops_scale():
    v = D("98765.4550")
    assert call("ROUND", [Decimal(9, 4)], v) == D("98765")
    assert str(call("ROUND", [Decimal(9, 4), INTEGER], v, 2)) == "98765.4600"
    assert str(call("ROUND", [Decimal(9, 4), INTEGER], D("-98765.4550"), 2)) == "-98765.4500"
    assert str(call("ROUND", [Decimal(9, 4), INTEGER], v, -3)) == "99000.0000"
    # 33 significant digits do not overflow the decimal context
    big = D("12345678987654321.2345678987654321")
    assert str(call("ROUND", [Decimal(33, 16), INTEGER], big, 10)) == "12345678987654321.2345678988000000"


def test_trunc():
    assert [call("TRUNC", [DOUBLE], v) for v in (3.9, -3.9, 0.2)] == [3, -3, 0]
    assert call("TRUNC", [DOUBLE, INTEGER], 9.8765, 3) == 9.876
    assert call("TRUNC", [DOUBLE, INTEGER], -987.6, -2) == -900.0
    assert call("TRUNC", [Decimal(6, 3)], D("-123.999")) == D("-123")
    assert str(call("TRUNC", [Decimal(6, 3), INTEGER], D("123.456"), 1)) == "123.400"
    assert call("TRUNC", [BIGINT], 2**40) == 2**40


def test_floor_ceil():
    assert call("FLOOR", [DOUBLE], -0.5) == -1.0
    assert call("CEIL", [DOUBLE], -0.5) == 0.0
    assert call("CEIL", [DOUBLE], 4.0001) == 5.0
    assert str(call("FLOOR", [Decimal(4, 2)], D("-1.01"))) == "-2.00"
    assert str(call("CEIL", [Decimal(4, 2)], D("1.01"))) == "2.00"
    assert call("FLOOR", [INTEGER], -3) == -3


def test_trigonometry_and_conversions():
    assert call("ATAN2", [INTEGER, INTEGER], 0, -1) == pytest.approx(math.pi)
    assert call("DEGREES", [DOUBLE], math.pi) == pytest.approx(180.0)
    assert call("RADIANS", [INTEGER], 180) == pytest.approx(math.pi)
    assert call("TANH", [INTEGER], 0) == 0.0
    assert call("PI", []) == math.pi
    r = call("RANDOM", [])
    assert 0.0 <= r < 1.0
    assert REG.scalars["RANDOM"].resolve([]).deterministic is False


def test_greatest_and_least_skip_nulls():
    assert call("GREATEST", [INTEGER, INTEGER, NULL], 3, 9, None) == 9
    assert call("LEAST", [STRING, STRING, STRING], "pear", None, "apple") == "apple"
    assert call("GREATEST", [BIGINT, BIGINT], None, None) is None
    assert call("LEAST", [DATE, DATE], 19000, 18000) == 18000


def test_greatest_decimal_widens_the_type_but_keeps_the_value():
    r = REG.scalars["GREATEST"].resolve([Decimal(5, 1), Decimal(4, 3)])
    assert r.return_type == Decimal(7, 3)
    assert str(r.impl(D("1234.5"), D("1.234"))) == "1234.5"
    with pytest.raises(KsqlTypeError, match=r"ambiguous method parameters \(null, null\)"):
        REG.scalars["GREATEST"].resolve([NULL, NULL])


def test_greatest_bytes_compare_signed_like_java():
    assert call("GREATEST", [BYTES, BYTES], b"\x7f", b"\x80") == b"\x7f"


def test_greatest_resolution_errors():
    with pytest.raises(KsqlTypeError, match=r"ambiguous method parameters \(INTEGER, BIGINT\)"):
        REG.scalars["GREATEST"].resolve([INTEGER, BIGINT])
    with pytest.raises(KsqlTypeError, match=r"does not accept parameters \(STRING, INTEGER\)"):
        REG.scalars["GREATEST"].resolve([STRING, INTEGER])
    with pytest.raises(KsqlTypeError, match=r"does not accept parameters \(\)"):
        REG.scalars["LEAST"].resolve([])
    r = REG.scalars["GREATEST"].resolve([INTEGER, BIGINT, Decimal(8, 2), DOUBLE])
    assert r.return_type == DOUBLE and r.param_types == [DOUBLE] * 4
    assert REG.scalars["GREATEST"].resolve([DATE, STRING]).param_types == [DATE, DATE]


def test_abs_of_string_is_rejected():
    with pytest.raises(KsqlTypeError, match=r"Function 'abs' does not accept parameters \(STRING\)"):
        REG.scalars["ABS"].resolve([STRING])


def test_greatest_and_least_order_doubles_as_double_compare_to():
    # Stream.max/min(Double::compareTo): NaN above everything, -0.0 below 0.0, the first of equals kept
    nan = float("nan")
    assert math.isnan(call("GREATEST", [DOUBLE, DOUBLE], 1.0, nan))
    assert call("LEAST", [DOUBLE, DOUBLE, DOUBLE], nan, 2.0, 1.0) == 1.0
    assert math.copysign(1.0, call("LEAST", [DOUBLE, DOUBLE], 0.0, -0.0)) == -1.0
    assert math.copysign(1.0, call("GREATEST", [DOUBLE, DOUBLE], -0.0, 0.0)) == 1.0
