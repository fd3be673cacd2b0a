"""MATHEMATICAL scalar functions, with Java's floating point behaviour (NaN and infinities instead of errors)
and ksqlDB's rounding rules (ROUND rounds half up towards positive infinity, also for negative numbers)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, ROUND_HALF_DOWN, ROUND_HALF_UP, Context
from decimal import Decimal as PyDecimal
from fractions import Fraction
from typing import Any

from ksqlpy import utf16
from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions.array import double_order
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, Overload, registrar
from ksqlpy.types import NULL, Decimal, SqlType, widen_numeric

CATEGORY = "MATHEMATICAL"
INF = math.inf
NAN = math.nan
LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)

# Wide enough for any DECIMAL ksqlDB allows (precision <= 1000 is generous); quantize must never trap.
DECIMAL_CONTEXT = Context(prec=1000)


# --------------------------------------------------------------------------------------------- helpers


def _java(
    fn: Callable[[float], float], on_domain: float = NAN, on_overflow: float = INF
) -> Callable[[Any], float]:
    """Wrap a math function so domain errors give NaN and overflows give infinity, as java.lang.Math does."""

    def call(x: Any) -> float:
        try:
            return fn(x)
        except ValueError:
            return on_domain
        except OverflowError:
            return on_overflow

    return call


def _ln(x: float) -> float:
    if x > 0:
        return math.log(x)
    if x == 0:
        return -INF
    return NAN


def _log(base: float, value: float) -> float:
    """ksqlDB LOG(base, value): NaN for a base <= 0 or == 1, otherwise ln(value) / ln(base)."""
    if base <= 0 or base == 1:
        return NAN
    lb = _ln(base)
    lv = _ln(value)
    try:
        return lv / lb
    except ZeroDivisionError:  # pragma: no cover - base == 1 handled above
        return NAN


def _sqrt(x: float) -> float:
    if x >= 0:
        return math.sqrt(x)
    return NAN


def _cbrt(x: float) -> float:
    """Cube root rounded like Java's (exact cubes stay exact): libm's result or a neighbour, whichever cubes
    closest to x."""
    r = math.cbrt(x)
    if r == 0 or not math.isfinite(r):
        return r
    fx = Fraction(x)
    best, err = r, abs(Fraction(r) ** 3 - fx)
    for c in (math.nextafter(r, INF), math.nextafter(r, -INF)):
        e = abs(Fraction(c) ** 3 - fx)
        if e < err:
            best, err = c, e
    return best


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def _sinh(x: float) -> float:
    try:
        return math.sinh(x)
    except OverflowError:
        return math.copysign(INF, x)


def _cosh(x: float) -> float:
    try:
        return math.cosh(x)
    except OverflowError:
        return INF


def _cot(x: float) -> float:
    t = _java(math.tan)(x)
    if t == 0:
        return math.copysign(INF, t)
    return 1.0 / t


def _ceil_double(x: float) -> float:
    """java.lang.Math.ceil: a whole double; infinities and NaN as they are, and a zero result keeps the
    argument's sign (-0.5 and -0.0 give -0.0), where Python's int-valued math.ceil gives 0.0."""
    if not math.isfinite(x):
        return x
    r = float(math.ceil(x))
    return math.copysign(0.0, x) if r == 0 else r


def _floor_double(x: float) -> float:
    """java.lang.Math.floor: as ``_ceil_double`` (FLOOR(-0.0) is -0.0)."""
    if not math.isfinite(x):
        return x
    r = float(math.floor(x))
    return math.copysign(0.0, x) if r == 0 else r


def _is_odd_integer(y: float) -> bool:
    return y == math.floor(y) and not math.isinf(y) and int(y) % 2 == 1


def _pow(x: float, y: float) -> float:
    """java.lang.Math.pow: infinities and NaN where Python raises."""
    try:
        return math.pow(x, y)
    except OverflowError:
        return -INF if x < 0 and _is_odd_integer(y) else INF
    except ValueError:
        if x == 0 and y < 0:
            return -INF if math.copysign(1.0, x) < 0 and _is_odd_integer(y) else INF
        return NAN


def _signum_double(x: float) -> int:
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0  # zero and NaN: (int) Math.signum(NaN) == 0


def _sign_int(x: int) -> int:
    return (x > 0) - (x < 0)


def _sign_decimal(x: PyDecimal) -> int:
    return 0 if x.is_zero() else (-1 if x.is_signed() else 1)


def _abs_int(x: int) -> int:
    """java.lang.Math.abs(int): the minimum INT is its own absolute value (it has no positive twin)."""
    return x if x == -(2**31) else abs(x)


def _abs_long(x: int) -> int:
    """java.lang.Math.abs(long): the minimum BIGINT is its own absolute value."""
    return x if x == LONG_MIN else abs(x)


def _java_round(x: float) -> int:
    """java.lang.Math.round(double): nearest long, ties towards positive infinity, NaN -> 0, clamped."""
    if x != x:
        return 0
    if math.isinf(x):
        return LONG_MAX if x > 0 else LONG_MIN
    f = math.floor(x)
    r = f + 1 if x - f >= 0.5 else f
    return max(LONG_MIN, min(LONG_MAX, int(r)))


def _java_long_cast(x: float) -> int:
    """``(long) x``: truncation towards zero, NaN -> 0, clamped to the long range."""
    if x != x:
        return 0
    if math.isinf(x):
        return LONG_MAX if x > 0 else LONG_MIN
    return max(LONG_MIN, min(LONG_MAX, int(x)))


def _half_up_mode(d: PyDecimal) -> str:
    # ksqlDB: HALF_UP for positive values, HALF_DOWN otherwise, so -1.5 rounds to -1 like Math.round.
    return ROUND_HALF_UP if d > 0 else ROUND_HALF_DOWN


_EXPONENTS: dict[int, PyDecimal] = {}


def _exponent(places: int) -> PyDecimal:
    e = _EXPONENTS.get(places)
    if e is None:
        e = PyDecimal(1).scaleb(-places)
        if -64 <= places <= 64:  # a column of places would grow the cache without bound
            _EXPONENTS[places] = e
    return e


# BigInteger holds at most 2^31 bits (Integer.MAX_VALUE / 32 + 1 ints): 10^n overflows it from this n on
_TEN_POW_LIMIT = int((2**31) / math.log2(10))
_INT_MAX = 2**31 - 1


def _set_scale(d: PyDecimal, places: int, rounding: str) -> PyDecimal:
    """Java's ``BigDecimal.setScale(places, rounding)``, numerically: a larger scale appends zeros (the value
    unchanged) unless 10^raise overflows BigInteger; a smaller one divides by 10^raise and rounds - zero once
    the raise passes every digit -, 'Underflow' where the scale difference overflows an int (checkScale)."""
    scale = -int(d.as_tuple().exponent)
    if places >= scale:
        if places - scale >= _TEN_POW_LIMIT:
            raise FunctionError("BigInteger would overflow supported range")
        return d
    raise_ = scale - places
    if raise_ > _INT_MAX:
        raise FunctionError("Underflow")
    if raise_ >= _TEN_POW_LIMIT:
        raise FunctionError("BigInteger would overflow supported range")
    if raise_ > len(d.as_tuple().digits):
        # |d| < 10^-places / 10: HALF_UP, HALF_DOWN and DOWN all give zero
        return PyDecimal(0)
    return d.quantize(_exponent(places), rounding=rounding, context=DECIMAL_CONTEXT)


def _double_to_decimal(x: float) -> PyDecimal:
    """BigDecimal.valueOf(double): the shortest decimal string of the double."""
    if x != x or math.isinf(x):
        raise FunctionError(f"Cannot round {'NaN' if x != x else 'Infinity'}")
    return PyDecimal(repr(x))


def _nz(d: PyDecimal) -> PyDecimal:
    """BigDecimal has no negative zero: -0.4 rounded is 0, not -0."""
    return d.copy_abs() if d.is_zero() and d.is_signed() else d


def _round_double_places(x: float, places: int) -> float:
    d = _double_to_decimal(x)
    return float(_nz(_set_scale(d, places, _half_up_mode(d))))


def _trunc_double_places(x: float, places: int) -> float:
    d = _double_to_decimal(x)
    return float(_nz(_set_scale(d, places, ROUND_DOWN)))


def _whole_decimal_of(name: str) -> Callable[[list[SqlType]], SqlType]:
    """ROUND(d) and TRUNC(d): ksqlDB's provideDecimalSchema, ``SqlDecimal.of(precision - scale, 0)`` (from
    memory of ksqlDB's Round/Trunc; DECIMAL(33,16) gives DECIMAL(17,0)). A DECIMAL with no integer digits
    (precision == scale) makes DECIMAL(0,0), which DecimalUtil.validateParameters refuses: the provider's
    failure, wrapped by the UDF loader, is the statement's error with its cause."""

    def provide(ts: list[SqlType]) -> SqlType:
        t = ts[0]
        assert isinstance(t, Decimal)
        p = t.precision - t.scale
        if p < 1:
            raise KsqlTypeError(
                f"Cannot invoke the schema provider method provideDecimalSchema for UDF {name}. "
                f"\nCaused by: DECIMAL precision must be >= 1: DECIMAL({p},0)")
        return Decimal(p, 0)

    return provide


def _same(ts: list[SqlType]) -> SqlType:
    return ts[0]


def _decimal_setter(scale: int, rounding: str) -> Callable[[PyDecimal], PyDecimal]:
    exp = _exponent(0)
    back = _exponent(scale)

    def impl(d: PyDecimal) -> PyDecimal:
        # (_nz: CEIL(-0.5) is 0.0, BigDecimal having no negative zero)
        return _nz(d.quantize(exp, rounding=rounding, context=DECIMAL_CONTEXT).quantize(back, context=DECIMAL_CONTEXT))

    return impl


def _make_round_decimal(params: list[SqlType], ret: SqlType) -> Callable[..., Any]:
    def impl(d: PyDecimal) -> PyDecimal:
        return _nz(d.quantize(_exponent(0), rounding=_half_up_mode(d), context=DECIMAL_CONTEXT))

    return impl


def _make_round_decimal_places(params: list[SqlType], ret: SqlType) -> Callable[..., Any]:
    assert isinstance(ret, Decimal)
    back = _exponent(ret.scale)

    def impl(d: PyDecimal, places: int) -> PyDecimal:
        r = _set_scale(d, places, _half_up_mode(d))
        return _nz(r.quantize(back, context=DECIMAL_CONTEXT))

    return impl


def _make_trunc_decimal(params: list[SqlType], ret: SqlType) -> Callable[..., Any]:
    def impl(d: PyDecimal) -> PyDecimal:
        return _nz(d.quantize(_exponent(0), rounding=ROUND_DOWN, context=DECIMAL_CONTEXT))

    return impl


def _make_trunc_decimal_places(params: list[SqlType], ret: SqlType) -> Callable[..., Any]:
    assert isinstance(ret, Decimal)
    back = _exponent(ret.scale)

    def impl(d: PyDecimal, places: int) -> PyDecimal:
        r = _set_scale(d, places, ROUND_DOWN)
        return _nz(r.quantize(back, context=DECIMAL_CONTEXT))

    return impl


def _make_floor_ceil(rounding: str) -> Callable[[list[SqlType], SqlType], Callable[..., Any]]:
    def make(params: list[SqlType], ret: SqlType) -> Callable[..., Any]:
        assert isinstance(ret, Decimal)
        return _decimal_setter(ret.scale, rounding)

    return make


def _double_fn(fn: Callable[..., float], arity: int = 1) -> list[Overload]:
    """INT, BIGINT and DOUBLE overloads of a function computed on doubles (ksqlDB's pattern)."""
    out = []
    for t in ("INT", "BIGINT", "DOUBLE"):
        params = ", ".join([t] * arity)
        if t == "DOUBLE":
            impl = fn
        elif arity == 1:
            impl = _on_float(fn)
        else:
            impl = _on_float2(fn)
        out.append(Overload(params, "DOUBLE", impl))
    return out


def _on_float(fn: Callable[[float], float]) -> Callable[[int], float]:
    def impl(x: int) -> float:
        return fn(float(x))

    return impl


def _on_float2(fn: Callable[[float, float], float]) -> Callable[[int, int], float]:
    def impl(x: int, y: int) -> float:
        return fn(float(x), float(y))

    return impl


# ---------------------------------------------------------------------------------- GREATEST / LEAST

_FLIP_SIGN = bytes((b ^ 0x80) for b in range(256))


def _signed_bytes_key(b: bytes) -> bytes:
    """ByteBuffer.compareTo compares signed bytes."""
    return b.translate(_FLIP_SIGN)


# Java's orders where Python's differ: Double.compareTo, String.compareTo (by UTF-16 unit)
_EXTREME_KEYS: dict[str, Callable[[Any], Any]] = {"DOUBLE": double_order, "STRING": utf16.order_key}


def _make_extreme(pick: Callable[..., Any], key: Callable[[Any], Any] | None = None):
    # A DECIMAL result keeps the scale of the argument it came from, as ksqlDB's does (no rescaling).
    def make(params: list[SqlType], ret: SqlType) -> Callable[..., Any]:
        if key is None:

            def impl(*args: Any) -> Any:
                vals = [a for a in args if a is not None]
                return pick(vals) if vals else None

        else:

            def impl(*args: Any) -> Any:
                vals = [a for a in args if a is not None]
                return pick(vals, key=key) if vals else None

        return impl

    return make


def _widened_decimal(ts: list[SqlType]) -> SqlType:
    out: SqlType = NULL
    for t in ts:
        if isinstance(t, Decimal):
            out = t if out is NULL else widen_numeric(out, t)
    return out


def _extreme_overloads(pick: Callable[..., Any]) -> list[Overload]:
    rows = [
        Overload(f"{t}, {t}...", t, make_impl=_make_extreme(pick, _EXTREME_KEYS.get(t)))
        for t in ("INT", "BIGINT", "DOUBLE", "STRING", "DATE", "TIME", "TIMESTAMP")
    ]
    rows.append(Overload("BYTES, BYTES...", "BYTES", make_impl=_make_extreme(pick, _signed_bytes_key)))
    rows.append(
        Overload(
            "DECIMAL, DECIMAL...", _widened_decimal, make_impl=_make_extreme(pick), returns_doc="DECIMAL"
        )
    )
    return rows


# ----------------------------------------------------------------------------------------- register


def register(registry: FunctionRegistry) -> None:
    add = registrar(registry, CATEGORY)

    add(
        "ABS",
        "The absolute value of a value.",
        [
            ("INT", "INT", _abs_int),
            ("BIGINT", "BIGINT", _abs_long),
            ("DOUBLE", "DOUBLE", abs),
            Overload("DECIMAL", _same, PyDecimal.copy_abs, returns_doc="DECIMAL"),  # exact; abs() rounds to 28 digits
        ],
    )
    add("ACOS", "The inverse cosine of a value.", _double_fn(_java(math.acos)))
    add("ASIN", "The inverse sine of a value.", _double_fn(_java(math.asin)))
    add("ATAN", "The inverse tangent of a value.", _double_fn(math.atan))
    add("ATAN2", "The inverse tangent of y / x (y first).", _double_fn(math.atan2, 2))
    add("CBRT", "The cube root of a value.", _double_fn(_cbrt))
    add(
        "CEIL",
        "The smallest integer value that is greater than or equal to a value.",
        [
            ("INT", "INT", lambda x: x),
            ("BIGINT", "BIGINT", lambda x: x),
            ("DOUBLE", "DOUBLE", _ceil_double),
            Overload("DECIMAL", _same, make_impl=_make_floor_ceil(ROUND_CEILING), returns_doc="DECIMAL"),
        ],
    )
    add("COS", "The cosine of a value in radians.", _double_fn(_java(math.cos)))
    add("COSH", "The hyperbolic cosine of a value.", _double_fn(_cosh))
    add("COT", "The cotangent of a value in radians.", _double_fn(_cot))
    add("DEGREES", "Converts radians to degrees.", _double_fn(math.degrees))
    add("EXP", "e raised to the power of a value.", _double_fn(_exp))
    add(
        "FLOOR",
        "The largest integer value that is less than or equal to a value.",
        [
            ("INT", "INT", lambda x: x),
            ("BIGINT", "BIGINT", lambda x: x),
            ("DOUBLE", "DOUBLE", _floor_double),
            Overload("DECIMAL", _same, make_impl=_make_floor_ceil(ROUND_FLOOR), returns_doc="DECIMAL"),
        ],
    )
    add(
        "GREATEST",
        "The highest non-null value among a variable number of comparable columns (doubles in Java's order: NaN "
        "above every number, -0.0 below 0.0).",
        _extreme_overloads(max),
        null_on_null=False,
    )
    add(
        "LEAST",
        "The lowest non-null value among a variable number of comparable columns (doubles in Java's order: NaN "
        "above every number, -0.0 below 0.0).",
        _extreme_overloads(min),
        null_on_null=False,
    )
    add("LN", "The natural logarithm of a value.", _double_fn(_ln))
    add(
        "LOG",
        "The natural logarithm of a value (as ksqlDB's one-argument LOG), or its logarithm in a given base "
        "(base first).",
        _double_fn(_ln) + _double_fn(_log, 2),
    )
    add("PI", "The value of pi.", [("", "DOUBLE", lambda: math.pi)])
    add("POWER", "A value raised to the power of another.", _double_fn(_pow, 2))
    add("RADIANS", "Converts degrees to radians.", _double_fn(math.radians))
    add("RANDOM", "A random DOUBLE in [0.0, 1.0).", [("", "DOUBLE", random.random)], deterministic=False)
    add(
        "ROUND",
        "Rounds a value to the nearest whole number or to a number of decimal places; halves round up. A DECIMAL "
        "rounded to a whole number is DECIMAL(p-s, 0).",
        [
            ("INT", "INT", lambda x: x),
            ("BIGINT", "BIGINT", lambda x: x),
            ("DOUBLE", "BIGINT", _java_round),
            ("DOUBLE, INT", "DOUBLE", _round_double_places),
            Overload(
                "DECIMAL",
                _whole_decimal_of("ROUND"),
                make_impl=_make_round_decimal,
                returns_doc="DECIMAL",  # the declared type: its DECIMAL(p-s, 0) is the provider's
            ),
            Overload("DECIMAL, INT", _same, make_impl=_make_round_decimal_places, returns_doc="DECIMAL"),
        ],
    )
    add(
        "SIGN",
        "The sign of a value: -1, 0 or 1.",
        [
            ("INT", "INT", _sign_int),
            ("BIGINT", "INT", _sign_int),
            ("DOUBLE", "INT", _signum_double),
            ("DECIMAL", "INT", _sign_decimal),
        ],
    )
    add("SIN", "The sine of a value in radians.", _double_fn(_java(math.sin)))
    add("SINH", "The hyperbolic sine of a value.", _double_fn(_sinh))
    add("SQRT", "The square root of a value.", _double_fn(_sqrt))
    add("TAN", "The tangent of a value in radians.", _double_fn(_java(math.tan)))
    add("TANH", "The hyperbolic tangent of a value.", _double_fn(math.tanh))
    add(
        "TRUNC",
        "Truncates a value towards zero, to a whole number or to a number of decimal places. A DECIMAL "
        "truncated to a whole number is DECIMAL(p-s, 0).",
        [
            ("INT", "INT", lambda x: x),
            ("BIGINT", "BIGINT", lambda x: x),
            ("DOUBLE", "BIGINT", _java_long_cast),
            ("DOUBLE, INT", "DOUBLE", _trunc_double_places),
            Overload(
                "DECIMAL",
                _whole_decimal_of("TRUNC"),
                make_impl=_make_trunc_decimal,
                returns_doc="DECIMAL",  # the declared type: its DECIMAL(p-s, 0) is the provider's
            ),
            Overload("DECIMAL, INT", _same, make_impl=_make_trunc_decimal_places, returns_doc="DECIMAL"),
        ],
    )


