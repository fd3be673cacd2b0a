"""Numbers as Java writes them (DELIMITED output is compared as text)."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from ksqlpy.javatext import decimal_to_plain, decimal_to_string, double_to_string


@pytest.mark.parametrize("x,text", [
    (0.0, "0.0"), (-0.0, "-0.0"), (1.0, "1.0"), (100.0, "100.0"), (0.1, "0.1"), (1234.589, "1234.589"),
    (0.001, "0.001"), (0.0001, "1.0E-4"), (9999999.0, "9999999.0"), (1e7, "1.0E7"), (1e10, "1.0E10"),
    (12345678.9, "1.23456789E7"), (4.9e-324, "4.9E-324"), (-4.9e-324, "-4.9E-324"),
    (2.2250738585072014e-308, "2.2250738585072014E-308"), (1.7976931348623157e308, "1.7976931348623157E308"),
    (1e23, "1.0E23"), (math.inf, "Infinity"), (-math.inf, "-Infinity"), (math.nan, "NaN"),
])
def test_double_to_string(x: float, text: str) -> None:
    assert double_to_string(x) == text
    if math.isfinite(x):
        assert float(text) == x


def test_decimals() -> None:
    assert decimal_to_plain(Decimal("1E-9")) == "0.000000001"
    assert decimal_to_plain(Decimal("1.10")) == "1.10"
    assert decimal_to_string(Decimal("0.00000010")) == "1.0E-7"
