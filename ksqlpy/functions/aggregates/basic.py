"""COUNT, SUM, SUM_LIST, AVG, MIN and MAX."""

from __future__ import annotations

import decimal
import operator
from collections.abc import Callable
from decimal import Decimal as PyDecimal
from typing import Any

from ksqlpy import utf16
from ksqlpy.functions.aggregates.base import (
    ResolvedUdaf,
    Resolver,
    _bytes_key,
    _identity,
    _is,
    _orderable,
    _single,
    _wrapper,
    inline,
    reject,
)
from ksqlpy.functions.aggregates.java_values import double_order
from ksqlpy.functions.signatures import FunctionError
from ksqlpy.types import (
    BIGINT,
    BYTES,
    DATE,
    DOUBLE,
    INTEGER,
    STRING,
    TIME,
    TIMESTAMP,
    Array,
    Decimal,
    SqlType,
    Struct,
)

# ---------------------------------------------------------------------------------------------------------
# COUNT


@inline("{acc} += 1")
def _count_star_add(acc: int) -> int:
    return acc + 1


def _count_star_undo(acc: int) -> int:
    return acc - 1


@inline("if {v0} is not None:\n    {acc} += 1")
def _count_add(acc: int, v: Any) -> int:
    return acc if v is None else acc + 1


def _count_undo(acc: int, v: Any) -> int:
    return acc if v is None else acc - 1


def _zero() -> int:
    return 0


def _resolve_count(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    if len(types) > 1 or literals:
        raise reject(name, types, literals)
    if not types:  # COUNT() / COUNT(*): every row
        return ResolvedUdaf(BIGINT, _zero, _count_star_add, _identity, _count_star_undo, operator.add, BIGINT,
                            order_free=True)
    return ResolvedUdaf(BIGINT, _zero, _count_add, _identity, _count_undo, operator.add, BIGINT, order_free=True)


# ---------------------------------------------------------------------------------------------------------
# SUM and SUM_LIST


@inline("{t} = {v0}\nif {t} is not None:\n    {acc} = {acc} + {t}")
def _sum_add(acc: Any, v: Any) -> Any:
    return acc if v is None else acc + v


def _sum_undo(acc: Any, v: Any) -> Any:
    return acc if v is None else acc - v


def _decimal_sum(
    t: Decimal,
) -> tuple[Callable[[], Any], Callable[..., Any], Callable[..., Any], Callable[..., Any]]:
    """DECIMAL(p,s) sums keep the input type; a sum that no longer fits fails ("Numeric field overflow")."""
    ctx = decimal.Context(prec=max(t.precision, 28) + 2)
    limit = PyDecimal(10) ** (t.precision - t.scale)
    zero = PyDecimal(0).scaleb(-t.scale)

    def check(r: PyDecimal) -> PyDecimal:
        if abs(r) >= limit:
            raise FunctionError("Numeric field overflow")
        return r

    def add(acc: PyDecimal, v: PyDecimal | None) -> PyDecimal:
        return acc if v is None else check(ctx.add(acc, v))

    def undo(acc: PyDecimal, v: PyDecimal | None) -> PyDecimal:
        return acc if v is None else check(ctx.subtract(acc, v))

    def merge(a: PyDecimal, b: PyDecimal) -> PyDecimal:
        return check(ctx.add(a, b))

    return (lambda: zero), add, undo, merge


def _resolve_sum(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    t = _single(name, types, literals)
    if isinstance(t, Decimal):
        init, add, undo, merge = _decimal_sum(t)
        return ResolvedUdaf(t, init, add, _identity, undo, merge, t)
    if _is(t, INTEGER, BIGINT):
        return ResolvedUdaf(t, _zero, _sum_add, _wrapper(t), _sum_undo, operator.add, t, order_free=True)
    if t == DOUBLE:
        return ResolvedUdaf(t, float, _sum_add, _identity, _sum_undo, operator.add, t)
    raise reject(name, types, literals)


def _list_total(values: list[Any]) -> Any:
    total = 0
    for x in values:  # sequential, like Java's stream reduce (no compensated float summation)
        if x is not None:
            total = total + x
    return total


def _sum_list_add(acc: Any, values: list[Any] | None) -> Any:
    return acc if values is None else acc + _list_total(values)


def _sum_list_undo(acc: Any, values: list[Any] | None) -> Any:
    return acc if values is None else acc - _list_total(values)


def _resolve_sum_list(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    t = _single(name, types, literals)
    if not isinstance(t, Array) or not _is(t.element, INTEGER, BIGINT, DOUBLE):
        raise reject(name, types, literals)
    el = t.element
    init = float if el == DOUBLE else _zero
    return ResolvedUdaf(el, init, _sum_list_add, _wrapper(el), _sum_list_undo, operator.add, el)


# ---------------------------------------------------------------------------------------------------------
# AVG


def _avg_init() -> list[Any]:
    return [0, 0]


@inline("{t} = {v0}\nif {t} is not None:\n    {acc}[0] += {t}\n    {acc}[1] += 1")
def _avg_add(acc: list[Any], v: Any) -> list[Any]:
    if v is not None:
        acc[0] += v
        acc[1] += 1
    return acc


def _avg_undo(acc: list[Any], v: Any) -> list[Any]:
    if v is not None:
        acc[0] -= v
        acc[1] -= 1
    return acc


def _avg_merge(a: list[Any], b: list[Any]) -> list[Any]:
    return [a[0] + b[0], a[1] + b[1]]


def _avg_result_for(t: SqlType) -> Callable[[list[Any]], float]:
    wrap = _wrapper(t)

    def result(acc: list[Any]) -> float:
        count = acc[1]
        if count == 0:
            return 0.0
        return float(wrap(acc[0])) / count  # Java: sum.doubleValue() / count

    return result


def _avg_decimal_add(acc: list[Any], v: Any) -> list[Any]:
    if v is not None:
        acc[0] += float(v)
        acc[1] += 1
    return acc


def _avg_decimal_undo(acc: list[Any], v: Any) -> list[Any]:
    if v is not None:
        acc[0] -= float(v)
        acc[1] -= 1
    return acc


def _resolve_avg(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    t = _single(name, types, literals)
    state = Struct((("SUM", t), ("COUNT", BIGINT)))
    if _is(t, INTEGER, BIGINT):  # an exact integer sum and a count: any grouping into partials agrees
        return ResolvedUdaf(DOUBLE, _avg_init, _avg_add, _avg_result_for(t), _avg_undo, _avg_merge, state,
                            order_free=True)
    if t == DOUBLE:
        init = lambda: [0.0, 0]  # noqa: E731
        return ResolvedUdaf(DOUBLE, init, _avg_add, _avg_result_for(t), _avg_undo, _avg_merge, state)
    if isinstance(t, Decimal):  # ksqlDB resolves AVG(DECIMAL) to the DOUBLE overload by implicit cast
        init = lambda: [0.0, 0]  # noqa: E731
        state = Struct((("SUM", DOUBLE), ("COUNT", BIGINT)))
        return ResolvedUdaf(
            DOUBLE, init, _avg_decimal_add, _avg_result_for(DOUBLE), _avg_decimal_undo, _avg_merge, state
        )
    raise reject(name, types, literals)


# ---------------------------------------------------------------------------------------------------------
# MIN / MAX


def _none() -> None:
    return None


@inline("{t} = {v0}\nif {t} is not None and ({acc} is None or {t} > {acc}):\n    {acc} = {t}")
def _max_add(acc: Any, v: Any) -> Any:
    if v is None:
        return acc
    return v if acc is None or v > acc else acc


@inline("{t} = {v0}\nif {t} is not None and ({acc} is None or {t} < {acc}):\n    {acc} = {t}")
def _min_add(acc: Any, v: Any) -> Any:
    if v is None:
        return acc
    return v if acc is None or v < acc else acc


def _max_bytes_add(acc: bytes | None, v: bytes | None) -> bytes | None:
    if v is None:
        return acc
    return v if acc is None or _bytes_key(v) > _bytes_key(acc) else acc


def _min_bytes_add(acc: bytes | None, v: bytes | None) -> bytes | None:
    if v is None:
        return acc
    return v if acc is None or _bytes_key(v) < _bytes_key(acc) else acc


def _max_string_add(acc: str | None, v: str | None) -> str | None:
    if v is None:
        return acc
    return v if acc is None or utf16.compare(v, acc) > 0 else acc


def _min_string_add(acc: str | None, v: str | None) -> str | None:
    if v is None:
        return acc
    return v if acc is None or utf16.compare(v, acc) < 0 else acc


def _max_double_add(acc: float | None, v: float | None) -> float | None:
    if v is None:
        return acc
    return v if acc is None or double_order(v) > double_order(acc) else acc


def _min_double_add(acc: float | None, v: float | None) -> float | None:
    if v is None:
        return acc
    return v if acc is None or double_order(v) < double_order(acc) else acc


def _resolve_min_max(is_max: bool) -> Resolver:
    def resolve(name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]) -> ResolvedUdaf:
        t = _single(name, types, literals)
        if not _orderable(t):
            raise reject(name, types, literals)
        if t == BYTES:
            add = _max_bytes_add if is_max else _min_bytes_add
        elif t == STRING:  # String.compareTo: by UTF-16 unit
            add = _max_string_add if is_max else _min_string_add
        elif t == DOUBLE:  # Double.compareTo: -0.0 below 0.0, NaN above everything
            add = _max_double_add if is_max else _min_double_add
        else:
            add = _max_add if is_max else _min_add
        return ResolvedUdaf(t, _none, add, _identity, None, add, t,
                            order_free=_is(t, INTEGER, BIGINT, STRING, DATE, TIME, TIMESTAMP))

    return resolve


