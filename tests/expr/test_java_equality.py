"""expr/java_equality: Java's equals on ARRAY, MAP and STRUCT values by their SQL types."""

from decimal import Decimal

import pytest

from ksqlpy import types as T
from ksqlpy.expr.java_equality import java_distinct, java_equals

AI, AL, AD2, AD1 = T.Array(T.INTEGER), T.Array(T.BIGINT), T.Array(T.Decimal(3, 2)), T.Array(T.Decimal(2, 1))


@pytest.mark.parametrize(("a", "ta", "b", "tb", "equal"), [
    ([10], AI, [10], AI, True),
    ([10], AI, [10], AL, False),
    ([], AI, [], AL, True),  # no element to tell the classes apart
    ([None], AI, [None], AL, True),
    ([Decimal("1.50")], AD2, [Decimal("1.5")], AD1, False),
    ([Decimal("1.50")], AD2, [Decimal("1.50")], T.Array(T.Decimal(4, 2)), True),
    ([float("nan")], T.Array(T.DOUBLE), [float("nan")], T.Array(T.DOUBLE), True),
    ([-0.0], T.Array(T.DOUBLE), [0.0], T.Array(T.DOUBLE), False),
    ([0.0], T.Array(T.DOUBLE), [1.0], T.Array(T.DOUBLE), False),  # a zero is not the number its sign's 1.0
    ([-0.0], T.Array(T.DOUBLE), [-1.0], T.Array(T.DOUBLE), False),
    ({"k": 0.0}, T.Map(T.STRING, T.DOUBLE), {"k": 1.0}, T.Map(T.STRING, T.DOUBLE), False),
    ({"a": 1}, T.Map(T.STRING, T.INTEGER), {"a": 1}, T.Map(T.STRING, T.BIGINT), False),
    ({"a": None}, T.Map(T.STRING, T.INTEGER), {"b": None}, T.Map(T.STRING, T.INTEGER), False),
    ({"a": None}, T.Map(T.STRING, T.INTEGER), {"a": None}, T.Map(T.STRING, T.BIGINT), True),
    ({1: "x"}, T.Map(T.INTEGER, T.STRING), {1: "x"}, T.Map(T.BIGINT, T.STRING), False),
    ({"A": 1, "B": 2}, T.Struct((("A", T.INTEGER), ("B", T.INTEGER))),
     {"A": 1, "B": 2}, T.Struct((("B", T.INTEGER), ("A", T.INTEGER))), False),
    ({"A": 1}, T.Struct((("A", T.INTEGER),)), {"A": 1}, T.Struct((("A", T.INTEGER),)), True),
    ([1], T.Array(T.DATE), [86_400_000], T.Array(T.TIMESTAMP), True),  # java.util.Date.equals
    ([86_400_000], T.Array(T.TIMESTAMP), [1], T.Array(T.DATE), False),  # Timestamp.equals wants a Timestamp
    (["10"], T.Array(T.STRING), [10], AI, False),
])
def test_java_equals(a: object, ta: T.SqlType, b: object, tb: T.SqlType, equal: bool) -> None:
    assert java_equals(a, ta, b, tb) is equal
    assert java_distinct(a, ta, b, tb) is not equal


def test_nulls() -> None:
    assert java_equals(None, AI, None, AL) is True
    assert java_equals([1], AI, None, AI) is False
    assert java_distinct(None, AI, [1], AI) is True


def test_double_helpers() -> None:
    """The generated code's DOUBLE rules: IN's Double.equals, and BigDecimal.valueOf against a DECIMAL."""
    from ksqlpy.expr import runtime as rt
    assert rt.double_equals(float("nan"), float("nan")) is True
    assert rt.double_equals(-0.0, 0.0) is False
    assert rt.double_equals(0.0, 1.0) is False
    assert rt.double_equals(1.0, None) is False
    assert rt.double_as_decimal(0.1) == Decimal("0.1")
    assert rt.double_as_decimal(-0.0) == 0
    assert rt.double_as_decimal(1e-7) == Decimal("1E-7")
    assert rt.double_as_decimal(None) is None
    for bad in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(ValueError, match="is neither a decimal digit number"):
            rt.double_as_decimal(bad)
