"""STDDEV_SAMP, STDDEV_SAMPLE and CORRELATION: running moments, merged for session windows."""

from __future__ import annotations

import math
from typing import Any

from ksqlpy.functions.aggregates.base import (
    ResolvedUdaf,
    Resolver,
    _is,
    _single,
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


def _stddev_add(acc: list[Any], v: Any) -> list[Any]:
    """Youngs-Cramer update, the formula ksqlDB uses (matches its outputs to the last bit)."""
    if v is None:
        return acc
    v = float(v)
    n = acc[0] + 1
    s = acc[1] + v
    if n > 1:
        t = n * v - s
        acc[2] += t * t / (n * (n - 1))
    acc[0] = n
    acc[1] = s
    return acc


def _stddev_undo(acc: list[Any], v: Any) -> list[Any]:
    if v is None or acc[0] == 0:
        return acc
    v = float(v)
    n, s = acc[0], acc[1]
    if n == 1:
        return _stddev_init()
    t = n * v - s
    acc[2] -= t * t / (n * (n - 1))
    acc[0] = n - 1
    acc[1] = s - v
    return acc


def _stddev_merge(a: list[Any], b: list[Any]) -> list[Any]:
    ca, cb = a[0], b[0]
    if ca == 0:
        return list(b)
    if cb == 0:
        return list(a)
    n = ca + cb
    t = (cb / ca) * a[1] - b[1]
    return [n, a[1] + b[1], a[2] + b[2] + (ca / (cb * n)) * t * t]


def _variance(acc: list[Any]) -> float:
    n = acc[0]
    return acc[2] / (n - 1) if n > 1 else 0.0


def _stddev(acc: list[Any]) -> float:
    return math.sqrt(max(_variance(acc), 0.0))


def _resolve_stddev(sqrt: bool) -> Resolver:
    def resolve(name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]) -> ResolvedUdaf:
        t = _single(name, types, literals)
        if not (_is(t, INTEGER, BIGINT, DOUBLE) or isinstance(t, Decimal)):
            raise reject(name, types, literals)
        # ksqlDB's aggregate schema STRUCT<SUM t, COUNT bigint, M2 double>, SUM in the INT/BIGINT/DOUBLE
        # overload's type (a DECIMAL argument is cast to DOUBLE); the runtime keeps its own list
        state = Struct((("SUM", t if _is(t, INTEGER, BIGINT) else DOUBLE), ("COUNT", BIGINT), ("M2", DOUBLE)))
        result = _stddev if sqrt else _variance
        return ResolvedUdaf(DOUBLE, _stddev_init, _stddev_add, result, _stddev_undo, _stddev_merge, state)

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


