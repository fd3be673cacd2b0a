"""Literal texts the AST builder reads with a Java parser, and how that parser refuses them.

``DECIMAL '1.50'`` (a type constructor) is ``new BigDecimal(text)``: the value keeps the written scale, an
exponent moves it, and text BigDecimal does not read fails the statement with the NumberFormatException's
message (from memory of the JDK's BigDecimal(char[], int, int)).
"""

from __future__ import annotations

from decimal import Decimal

from sqlglot import exp

BIG_DECIMAL = "big_decimal"
"""The ``meta`` key of a number literal built by ``DECIMAL '<text>'``: the ``new BigDecimal(text)`` value itself,
exponent and all, which the literal prints as (``BigDecimal.toString``: ``DECIMAL '1e3'`` prints ``1E+3``)
while its text (``1000.``) types and evaluates it."""


def big_decimal_literal(text: str) -> exp.Literal:
    """The literal node of ``DECIMAL '<text>'`` (text BigDecimal reads; see ``java_big_decimal``)."""
    node = exp.Literal(this=java_big_decimal(text), is_string=False)
    value = Decimal(text)
    node.meta[BIG_DECIMAL] = value.copy_abs() if value.is_zero() else value
    return node


def big_decimal_of(node: exp.Literal) -> Decimal | None:
    """The BigDecimal a ``DECIMAL '<text>'`` literal prints as, None for any other literal."""
    value = node.meta.get(BIG_DECIMAL) if node.meta else None
    return value if isinstance(value, Decimal) else None


class BigDecimalError(ValueError):
    """``new BigDecimal(text)`` throws; the message is the NumberFormatException's (``None`` prints null)."""


def java_big_decimal(text: str) -> str:
    """The literal text of ``new BigDecimal(text)``: plain digits with a point and no exponent, so it reads as
    a DECIMAL of the same digits and scale (a negative scale made 0, as ksqlDB's DecimalUtil types it)."""
    if not text:
        raise BigDecimalError("null")
    body = text[1:] if text[0] in "+-" else text
    digits = 0
    dot = False
    for i, ch in enumerate(body):
        if "0" <= ch <= "9":
            digits += 1
        elif ch == ".":
            if dot:
                raise BigDecimalError("Character array contains more than one decimal point.")
            dot = True
        elif ch in "eE":
            exponent = body[i + 1:]
            exponent_digits = exponent[1:] if exponent[:1] in ("+", "-") else exponent
            if not exponent_digits:
                raise BigDecimalError("No exponent digits.")
            if not exponent_digits.isascii() or not exponent_digits.isdigit():
                raise BigDecimalError("Not a digit.")
            break
        else:
            raise BigDecimalError(f'Character {ch} is neither a decimal digit number, decimal point, nor "e" '
                                  "notation exponential mark.")
    if digits == 0:
        raise BigDecimalError("No digits found.")
    value = Decimal(text)
    exponent = int(value.as_tuple().exponent)  # type: ignore[arg-type]
    if exponent > 0:
        value = value.quantize(Decimal(1))
    plain = format(value, "f")
    return plain if "." in plain else plain + "."
