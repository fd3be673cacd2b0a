"""STDDEV_SAMP, STDDEV_SAMPLE and CORRELATION: running moments, merged for session windows."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ksqlpy.functions.aggregates.base import (
    ResolvedUdaf,
    Resolver,
    _is,
    _single,
    _wrap32,
    _wrap64,
    reject,
)
from ksqlpy.types import (
    BIGINT,
    DOUBLE,
    INTEGER,
    Decimal,
    SqlType,
    Struct,
)

# ---------------------------------------------------------------------------------------------------------
# STDDEV_SAMP (sample variance, as ksqlDB computes it), STDDEV_SAMPLE (its square root), CORRELATION


def _stddev_init() -> list[Any]:
    return [0, 0.0, 0.0]  # count, sum, sum of squared deviations (m2)


def _stddev_ops(t: SqlType) -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any], Callable[[], Any]]:
    """add, undo, merge and init of the running moments for the INT, BIGINT or DOUBLE overload.

    ksqlDB's overloads keep SUM in their own type (from memory of StandardDeviationSampUdaf): an INT sum is a
    Java int and a BIGINT sum a Java long, so they wrap on overflow, and each step's deviation
    ``value * newCount - (sum + value)`` is long arithmetic (wrapping at 64 bits) turned into a double; the
    DOUBLE overload (DECIMAL arguments cast to it) is double arithmetic throughout."""
    if t in (INTEGER, BIGINT):
        wrap_sum = _wrap32 if t == INTEGER else _wrap64

        def init() -> list[Any]:
            return [0, 0, 0.0]

        def delta(n: int, s: int, v: int) -> float:
            return float(_wrap64(_wrap64(v * n) - s))

        def add_sum(a: int, b: int) -> int:
            return wrap_sum(a + b)

        def sub_sum(a: int, b: int) -> int:
            return wrap_sum(a - b)

        def num(v: Any) -> Any:
            return v
    else:
        init = _stddev_init

        def delta(n: int, s: float, v: float) -> float:
            return n * v - s

        def add_sum(a: float, b: float) -> float:
            return a + b

        def sub_sum(a: float, b: float) -> float:
            return a - b

        num = float

    def add(acc: list[Any], v: Any) -> list[Any]:
        """Youngs-Cramer update, the formula ksqlDB uses (matches its outputs to the last bit)."""
        if v is None:
            return acc
        v = num(v)
        n = acc[0] + 1
        s = add_sum(acc[1], v)
        if n > 1:
            d = delta(n, s, v)
            acc[2] += d * d / (n * (n - 1))
        acc[0] = n
        acc[1] = s
        return acc

    def undo(acc: list[Any], v: Any) -> list[Any]:
        if v is None or acc[0] == 0:
            return acc
        v = num(v)
        n, s = acc[0], acc[1]
        if n == 1:
            return init()
        d = delta(n, s, v)
        acc[2] -= d * d / (n * (n - 1))
        acc[0] = n - 1
        acc[1] = sub_sum(s, v)
        return acc

    def merge(a: list[Any], b: list[Any]) -> list[Any]:
        ca, cb = a[0], b[0]
        if ca == 0:
            return list(b)
        if cb == 0:
            return list(a)
        n = ca + cb
        d = (cb / ca) * float(a[1]) - float(b[1])
        return [n, add_sum(a[1], b[1]), a[2] + b[2] + (ca / (cb * n)) * d * d]

    return add, undo, merge, init


def _variance(acc: list[Any]) -> float:
    n = acc[0]
    return acc[2] / (n - 1) if n > 1 else 0.0


def _stddev(acc: list[Any]) -> float:
    """Math.sqrt of the variance (from memory of ksqlDB's StandardDeviationSampleUdaf.map, which does not clamp):
    a variance undo has driven below zero (floating-point cancellation) gives NaN, not 0.0."""
    v = _variance(acc)
    return math.sqrt(v) if v >= 0 else math.nan


def _resolve_stddev(sqrt: bool) -> Resolver:
    def resolve(name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]) -> ResolvedUdaf:
        t = _single(name, types, literals)
        if not (_is(t, INTEGER, BIGINT, DOUBLE) or isinstance(t, Decimal)):
            raise reject(name, types, literals)
        # ksqlDB's aggregate schema STRUCT<SUM t, COUNT bigint, M2 double>, SUM in the INT/BIGINT/DOUBLE
        # overload's type (a DECIMAL argument is cast to DOUBLE); the runtime keeps its own list
        state = Struct((("SUM", t if _is(t, INTEGER, BIGINT) else DOUBLE), ("COUNT", BIGINT), ("M2", DOUBLE)))
        result = _stddev if sqrt else _variance
        add, undo, merge, init = _stddev_ops(t)
        return ResolvedUdaf(DOUBLE, init, add, result, undo, merge, state)

    return resolve


def _corr_init() -> list[Any]:
    return [0, 0.0, 0.0, 0.0, 0.0, 0.0]  # n, sum x, sum y, sum x^2, sum y^2, sum xy


def _corr_add(acc: list[Any], x: Any, y: Any) -> list[Any]:
    if x is None or y is None:
        return acc
    x, y = float(x), float(y)
    acc[0] += 1
    acc[1] += x
    acc[2] += y
    acc[3] += x * x
    acc[4] += y * y
    acc[5] += x * y
    return acc


def _corr_undo(acc: list[Any], x: Any, y: Any) -> list[Any]:
    if x is None or y is None:
        return acc
    x, y = float(x), float(y)
    acc[0] -= 1
    acc[1] -= x
    acc[2] -= y
    acc[3] -= x * x
    acc[4] -= y * y
    acc[5] -= x * y
    return acc


def _corr_merge(a: list[Any], b: list[Any]) -> list[Any]:
    return [p + q for p, q in zip(a, b, strict=True)]


def _java_div(num: float, den: float) -> float:
    """IEEE division as Java does it (x/0 is +-Infinity or NaN instead of an exception)."""
    if den == 0.0:
        if num == 0.0 or num != num:
            return math.nan
        return math.copysign(math.inf, num) * math.copysign(1.0, den)
    return num / den


def _corr_result(acc: list[Any]) -> float:
    n, sx, sy, sxx, syy, sxy = acc
    if n == 0:
        return math.nan
    numerator = n * sxy - sx * sy
    dx, dy = n * sxx - sx * sx, n * syy - sy * sy
    denominator = (math.sqrt(dx) if dx >= 0 else math.nan) * (math.sqrt(dy) if dy >= 0 else math.nan)
    return _java_div(numerator, denominator)


def _resolve_correlation(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    if len(types) != 2 or literals:
        raise reject(name, types, literals)
    if not all(_is(t, INTEGER, BIGINT, DOUBLE) or isinstance(t, Decimal) for t in types):
        raise reject(name, types, literals)
    # ksqlDB's aggregate schema: the five DOUBLE sums, then COUNT BIGINT last
    sums = tuple((f, DOUBLE) for f in ("X_SUM", "Y_SUM", "X_SQUARED_SUM", "Y_SQUARED_SUM", "XY_SUM"))
    state = Struct((*sums, ("COUNT", BIGINT)))
    return ResolvedUdaf(DOUBLE, _corr_init, _corr_add, _corr_result, _corr_undo, _corr_merge, state)


