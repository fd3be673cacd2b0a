"""Helpers that generated expression code calls: the operations whose SQL semantics differ from
Python's operators (Java integer division and remainder, DECIMAL scale rules, casts).

They are plain functions so generated code stays a flat chain of calls and conditionals.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal, Inexact, InvalidOperation

from ksqlpy import javatext, utf16
from ksqlpy.expr.java_equality import double_bits, java_distinct, java_equals  # noqa: F401 - called by generated code

# Exact for any DECIMAL ksqlDB holds (Java's BigDecimal keeps every digit); Python's default context keeps 28.
DCTX = Context(prec=1000)
_EXACT = Context(prec=1000, traps=[Inexact, InvalidOperation])
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


class NullOperandError(ArithmeticError):
    """Numeric arithmetic on a NULL operand: ksqlDB fails the whole expression (see ``null_operand``).

    Java's unboxing NullPointerException has no message, and ksqlDB's processing log (``ErrorMessageUtil``)
    names such an exception by its ``toString()``: the cause reads ``java.lang.NullPointerException``."""

    java_text = "java.lang.NullPointerException"

    def __str__(self) -> str:
        return self.java_text


def null_operand() -> None:
    """What numeric arithmetic (``+ - * / %``, unary ``-``/``+``) on a NULL operand evaluates to: an error,
    as the NullPointerException of ksqlDB's generated Java, which unboxes ``Integer``/``Long``/``Double``
    operands and calls ``BigDecimal`` methods. The whole expression fails, not just the operation:
    ``COALESCE(x + 1, 0)`` and ``(x + 1) IS NULL`` are NULL (logged), a WHERE drops the row."""
    raise NullOperandError()


def java_concat(a: str | None, b: str | None) -> str:
    """STRING ``+`` as Java's string concatenation, which ksqlDB compiles it to: a NULL side is the text
    ``null`` (``'x' + s`` is ``'xnull'`` when ``s`` is NULL), never an error and never NULL."""
    return ("null" if a is None else a) + ("null" if b is None else b)


def wrap_int(v: int) -> int:
    """Java 32-bit overflow semantics."""
    if _INT_MIN <= v <= _INT_MAX:
        return v
    return ((v + 2**31) % 2**32) - 2**31


def wrap_long(v: int) -> int:
    if _LONG_MIN <= v <= _LONG_MAX:
        return v
    return ((v + 2**63) % 2**64) - 2**63


def idiv(a: int, b: int) -> int:
    """Java integer division: truncates toward zero; division by zero is an error."""
    if b == 0:
        raise ArithmeticError("/ by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def idiv_int(a: int, b: int) -> int:
    """INT division: as ``idiv``; the one overflowing quotient (MIN / -1) wraps to MIN, as in Java."""
    q = idiv(a, b)
    return q if q != 2**31 else -(2**31)


def idiv_long(a: int, b: int) -> int:
    """BIGINT division: as ``idiv``; MIN / -1 wraps to MIN, as in Java."""
    q = idiv(a, b)
    return q if q != 2**63 else -(2**63)


def imod(a: int, b: int) -> int:
    """Java integer remainder: takes the sign of the dividend."""
    if b == 0:
        raise ArithmeticError("/ by zero")
    return a - b * idiv(a, b)


def ddiv(a: float, b: float) -> float:
    """Java double division: x/0.0 is +-Infinity or NaN, not an error."""
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return math.nan
        neg = (a < 0) != (math.copysign(1.0, b) < 0)
        return -math.inf if neg else math.inf


def dmod(a: float, b: float) -> float:
    if b == 0:
        return math.nan
    return math.fmod(a, b)


def _unsigned_zero(q: Decimal) -> Decimal:
    """Java's BigDecimal has no negative zero: ``0 * -1``, ``-0.04`` rounded to one digit or a DOUBLE -0.0
    cast to DECIMAL are ``0``, not Python's ``-0``."""
    return q.copy_abs() if q.is_zero() and q.is_signed() else q


def quantize(v: Decimal, scale: int, precision: int | None = None) -> Decimal:
    """Round half-up to ``scale`` digits; an overflow of ``precision`` is an error, as in ksqlDB."""
    q = _unsigned_zero(v.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP, context=DCTX))
    if precision is not None and len(q.as_tuple().digits) > precision and q != 0:
        digits = len(q.as_tuple().digits)
        if digits - scale > precision - scale:
            raise ArithmeticError(f"Numeric field overflow: A field with precision {precision} and scale "
                                  f"{scale} must round to an absolute value less than 10^{precision - scale}.")
    return q


def dec_neg(a: Decimal) -> Decimal:
    """``BigDecimal.negate()``: exact at any precision (Python's ``-a`` rounds to its context's 28 digits)
    and never a negative zero."""
    return a.copy_negate() if a else a


def dec_add(a: Decimal, b: Decimal, precision: int, scale: int) -> Decimal:
    return quantize(DCTX.add(a, b), scale)


def dec_sub(a: Decimal, b: Decimal, precision: int, scale: int) -> Decimal:
    return quantize(DCTX.subtract(a, b), scale)


def dec_mul(a: Decimal, b: Decimal, precision: int, scale: int) -> Decimal:
    return quantize(DCTX.multiply(a, b), scale)


def dec_div(a: Decimal, b: Decimal, precision: int, scale: int) -> Decimal:
    """ksqlDB's ``a.divide(b, new MathContext(p, UNNECESSARY)).setScale(s)``: a quotient that needs
    rounding to fit the result type (``1.0 / 3.0``) is an error, not a rounded value."""
    if b == 0:
        raise ArithmeticError("Division undefined" if a == 0 else "Division by zero")
    try:
        q = Context(prec=precision, traps=[Inexact, InvalidOperation]).divide(a, b)
        return _unsigned_zero(q.quantize(Decimal(1).scaleb(-scale), context=_EXACT))
    except (Inexact, InvalidOperation):
        raise ArithmeticError("Rounding necessary") from None


def dec_mod(a: Decimal, b: Decimal, precision: int, scale: int) -> Decimal:
    if b == 0:
        raise ArithmeticError("Division by zero")
    return quantize(DCTX.remainder(a, b), scale)


def to_decimal(v: int | float | Decimal | str, precision: int, scale: int) -> Decimal:
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise ArithmeticError(f"Cannot cast {v} to DECIMAL")
        v = Decimal(repr(v))
    elif isinstance(v, str):
        try:  # ksqlDB trims the text, then reads it as new BigDecimal(text) does
            v = javatext.parse_big_decimal(javatext.java_trim(v))
        except ValueError:
            raise ValueError(f"Cannot cast '{v}' to DECIMAL({precision}, {scale})") from None
    elif not isinstance(v, Decimal):
        v = Decimal(v)
    q = quantize(v, scale)
    if len(q.as_tuple().digits) - max(-q.as_tuple().exponent, 0) > precision - scale and q != 0:  # type: ignore[operator]
        raise ArithmeticError(f"Cannot fit decimal '{v}' into DECIMAL({precision}, {scale}) without rounding. "
                              f"(Requires {len(q.as_tuple().digits)},{scale})")
    return q


def cast_decimal(v: int | float | Decimal | str, precision: int, scale: int) -> Decimal:
    """An explicit ``CAST(x AS DECIMAL(p, s))``, as ksqlDB's ``DecimalUtil.cast`` overloads (from memory):

    * INT/BIGINT and DOUBLE: ``new BigDecimal(x, new MathContext(p))`` - the exact value (a DOUBLE's exact
      binary value, not its shortest text) rounded half-up to ``p`` significant digits - so a DOUBLE 2.675
      (binary 2.67499999...) cast to DECIMAL(20, 2) is 2.67, to DECIMAL(3, 2) 2.67 too, and 0.125 to
      DECIMAL(2, 2) 0.13; NaN/Infinity fail as that constructor does (``Infinite or NaN``);
    * STRING: ``new BigDecimal(text.trim())``, exact; DECIMAL: the value itself.

    Then ``ensureMax``: an absolute value of at least ``10^(p-s)`` fails with ``Numeric field overflow: ...``
    (checked before the scale is set, so 9.995 cast to DECIMAL(3, 2) passes it and rounds to 10.00), and
    finally ``setScale(s, HALF_UP)``. A failure here is a per-record CAST error (NULL, processing log)."""
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise ArithmeticError("Infinite or NaN")
        d = Context(prec=precision, rounding=ROUND_HALF_UP).create_decimal_from_float(v)
    elif isinstance(v, int):
        d = Context(prec=precision, rounding=ROUND_HALF_UP).create_decimal(v)
    elif isinstance(v, str):
        try:
            d = javatext.parse_big_decimal(javatext.java_trim(v))
        except ValueError:
            raise ValueError(f"Cannot cast '{v}' to DECIMAL({precision}, {scale})") from None
    else:
        d = v
    d = _unsigned_zero(d)
    digits = precision - scale
    if d.copy_abs() >= Decimal(1).scaleb(digits):
        raise ArithmeticError(f"Numeric field overflow: A field with precision {precision} and scale {scale} "
                              f"must round to an absolute value less than 10^{digits}. "
                              f"Got {javatext.decimal_to_plain(d)}")
    return _unsigned_zero(d.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP, context=DCTX))


def like_regex(pattern: str, escape: str | None = None) -> str:
    """SQL LIKE pattern -> anchored Python regex (``%`` any run, ``_`` one char).

    As ksqlDB's ``LikeEvaluator.likeToRegex`` (from memory): the escape character marks the next character
    literal (``%``, ``_``, itself or any other) and adds nothing itself, so a pattern ending in its escape
    character simply ends there - ``'ab' LIKE 'ab!' ESCAPE '!'`` is true; nothing fails."""
    import re

    out = []
    escaped = False
    for c in pattern:
        if escape is not None and c == escape and not escaped:
            escaped = True
            continue
        if c == "%" and not escaped:
            out.append(".*")
        elif c == "_" and not escaped:
            out.append(".")
        else:
            out.append(re.escape(c))
        escaped = False
    return "(?s)" + "".join(out) + r"\Z"


def array_index(arr: list, i: int):  # type: ignore[no-untyped-def]
    """ksqlDB array subscript: 1-based, negative counts from the end, out of range is NULL."""
    n = len(arr)
    if i > 0:
        return arr[i - 1] if i <= n else None
    if i < 0:
        return arr[n + i] if -i <= n else None
    return None


str_compare = utf16.compare  # String.compareTo: by UTF-16 unit


def signed_bytes(b: bytes) -> bytes:
    """``b`` with each byte's sign bit flipped: comparing the results as Python compares bytes (unsigned)
    orders the originals as Java's ``ByteBuffer.compareTo`` does (signed bytes, then length)."""
    return bytes(x ^ 0x80 for x in b)


def double_distinct(a: float | None, b: float | None) -> bool:
    """``a IS DISTINCT FROM b`` with a DOUBLE operand, as ksqlDB's generated Java: one NULL is distinct, two
    are not; otherwise ``(a < b) || (a > b)`` on the unboxed values, so a NaN is distinct from nothing (not
    even another number) and -0.0 is not distinct from 0.0."""
    if a is None or b is None:
        return (a is None) != (b is None)
    return a < b or a > b


def null_boolean() -> bool:
    """What a NULL BOOLEAN evaluates to where ksqlDB's generated Java unboxes it - an AND/OR/NOT operand, a
    CASE condition, a LIKE operand: an error, so the expression is NULL for the record (and logged) and a
    filter drops it."""
    raise NullBooleanError("a NULL BOOLEAN where a value is needed (AND, OR, NOT, CASE WHEN, LIKE)")


class NullBooleanError(ArithmeticError):
    """A NULL BOOLEAN unboxed (see ``null_boolean``)."""


def double_as_decimal(v: float | None) -> Decimal | None:
    """``BigDecimal.valueOf(double)``, how ksqlDB's generated Java compares a DOUBLE with a DECIMAL (its
    comparison code turns the DOUBLE side into a BigDecimal, from memory of SqlToJavaVisitor.toDecimal): the
    digits ``Double.toString`` prints, so 0.1 equals the DECIMAL 0.1; NaN and the infinities have no
    BigDecimal - the NumberFormatException fails the expression. NULL stays NULL (the comparison's own test)."""
    if v is None:
        return None
    if not math.isfinite(v):
        first = "I" if math.isinf(v) else "N"
        raise ValueError(f"Character {first} is neither a decimal digit number, decimal point, nor \"e\" "
                         "notation exponential mark.")
    return Decimal(repr(float(v)))



def double_equals(a: float, b: float | None) -> bool:
    """``Double.equals`` of a value and an IN-list item (NULL matches nothing): by bits, so NaN equals NaN and
    -0.0 is not 0.0 - ksqlDB's InListEvaluator calls ``value.equals(item)`` after coercing both to DOUBLE."""
    return b is not None and double_bits(a) == double_bits(b)
