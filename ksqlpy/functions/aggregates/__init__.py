"""Aggregate functions (UDAFs) with ksqlDB's results, behind ``AggregateFunction`` of ``registry.py``.

Accumulator conventions (they live in LMDB state stores and are touched once per record):

* An accumulator is a plain picklable value: a number, ``None``, a tuple, a list or a dict (of such values).
* ``init()`` returns a fresh accumulator. ``add(acc, *values)`` / ``undo(acc, *values)`` get the values of the
  column arguments (never the literal ones) and **may update a list/dict accumulator in place** and return it:
  callers must use the returned value and must not keep using the old one. ``merge(a, b)`` may reuse either.
* ``result(acc)`` never returns an object aliasing the accumulator (lists/dicts are copied), so emitted rows
  are safe from later in-place updates.
* ``undo`` is None for aggregates ksqlDB refuses over a TABLE source (MIN, MAX, TOPK, TOPKDISTINCT,
  COUNT_DISTINCT, EARLIEST/LATEST_BY_OFFSET); ``merge`` is given for every aggregate (session windows).

NULL handling is per aggregate, as in ksqlDB: most skip NULL inputs; COLLECT_LIST/COLLECT_SET keep them;
``LATEST_BY_OFFSET(col, false)`` keeps them; ATTR treats NULL as a value. COUNT() (no argument) counts rows;
COUNT(col) counts non-NULL values. The compiler may pass ``COUNT(*)`` either as no argument or as a non-NULL
constant.

``ResolvedUdaf.intermediate_type`` is ksqlDB's aggregate (state) type. A value format that only holds
primitives (DELIMITED) must reject a query whose aggregates have a non-primitive intermediate type ("One of the
functions used in the statement has an intermediate type that the value format can not handle...").
"""

from __future__ import annotations

import decimal
import itertools
import math
import operator
import time
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal as PyDecimal
from typing import Any

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions.aggregates_sketch import count_distinct_add, count_distinct_merge, count_distinct_result
from ksqlpy.functions.registry import AggregateFunction, FunctionRegistry, ResolvedAggregate
from ksqlpy.functions.signatures import FunctionError, args_str
from ksqlpy.types import (
    BIGINT,
    BOOLEAN,
    BYTES,
    DATE,
    DOUBLE,
    INTEGER,
    NULL,
    STRING,
    TIME,
    TIMESTAMP,
    Array,
    Decimal,
    Map,
    NullType,
    SqlType,
    Struct,
)

COLLECT_LIST_LIMIT = "ksql.functions.collect_list.limit"
COLLECT_SET_LIMIT = "ksql.functions.collect_set.limit"
DEFAULT_COLLECT_LIMIT = 1000
HISTOGRAM_LIMIT = 1000


def inline(template: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark an ``add``/``result`` function with the source a generated aggregation loop writes in its
    place (``runtime.accumulate``): ``{acc}`` is the accumulator (an assignable expression), ``{v0}``,
    ``{v1}``.. the argument values, ``{t}`` a free temporary name; lines separated by newlines. It must do
    exactly what the function does."""

    def mark(f: Callable[..., Any]) -> Callable[..., Any]:
        f.inline = template  # type: ignore[attr-defined]
        return f

    return mark


@dataclass
class ResolvedUdaf(ResolvedAggregate):
    """A resolved aggregate plus ksqlDB's intermediate (state) type, for value-format checks."""

    intermediate_type: SqlType | None = None
    # the result does not depend on the order of the values nor on how they are grouped into partial
    # accumulators combined by ``merge`` (COUNT, integer SUM, MIN/MAX of non-floating types): a generated
    # loop may pre-aggregate a batch's records per window slice (``runtime.agg_loop``)
    order_free: bool = False


Resolver = Callable[[str, list[SqlType], list[Any], dict[str, Any]], ResolvedUdaf]


class Udaf(AggregateFunction):
    """An aggregate defined by a resolver function (types, literal values, config -> ResolvedUdaf)."""

    def __init__(
        self,
        name: str,
        resolver: Resolver,
        *,
        description: str = "",
        literals: int | Callable[[int], int] = 0,
        signatures: Sequence[str] = (),
    ) -> None:
        self.name = name.upper()
        self.description = description
        self._resolver = resolver
        self._literals = literals
        self._signatures = list(signatures)

    def resolve(
        self, arg_types: list[SqlType], literals: list[Any], config: dict[str, Any]
    ) -> ResolvedAggregate:
        return self._resolver(self.name, list(arg_types), list(literals), config or {})

    def literal_arg_count(self, n_args: int) -> int:
        if callable(self._literals):
            return self._literals(n_args)
        return min(self._literals, n_args)

    def signatures(self) -> list[str]:
        return list(self._signatures)


# ---------------------------------------------------------------------------------------------------------
# Helpers


def literal_type(value: Any) -> SqlType:
    """The SQL type of a literal argument value (for error messages)."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER if -(2**31) <= value < 2**31 else BIGINT
    if isinstance(value, float):
        return DOUBLE
    if isinstance(value, PyDecimal):
        t = value.as_tuple()
        scale = max(0, -int(t.exponent))  # type: ignore[arg-type]
        return Decimal(max(len(t.digits), scale), scale)
    if isinstance(value, bytes):
        return BYTES
    return STRING


def reject(name: str, types: Sequence[SqlType], literals: Sequence[Any] = ()) -> KsqlTypeError:
    """ksqlDB's resolution error, listing column and literal argument types."""
    all_types = list(types) + [literal_type(v) for v in literals]
    return KsqlTypeError(f"Function '{name}' does not accept parameters {args_str(all_types)}.")


def _is(t: SqlType, *options: SqlType) -> bool:
    return any(t == o for o in options)


_ORDERABLE = (INTEGER, BIGINT, DOUBLE, STRING, BYTES, DATE, TIME, TIMESTAMP)


def _orderable(t: SqlType) -> bool:
    return isinstance(t, Decimal) or _is(t, *_ORDERABLE)


_SIGNED = bytes((i ^ 0x80) for i in range(256))


def _bytes_key(b: bytes) -> bytes:
    """Java's ByteBuffer order compares signed bytes; flipping the top bit gives that order unsigned."""
    return b.translate(_SIGNED)


def _wrapper(t: SqlType) -> Callable[[Any], Any]:
    """Java integer overflow for INT/BIGINT sums (wrapping once at the end equals wrapping every step)."""
    if t == INTEGER:
        return _wrap32
    if t == BIGINT:
        return _wrap64
    return _identity


def _wrap32(v: int) -> int:
    return v if -(2**31) <= v < 2**31 else (v + 2**31) % 2**32 - 2**31


def _wrap64(v: int) -> int:
    return v if -(2**63) <= v < 2**63 else (v + 2**63) % 2**64 - 2**63


@inline("{acc}")
def _identity(v: Any) -> Any:
    return v


def _copy_list(acc: list[Any]) -> list[Any]:
    return list(acc)


def _limit(config: dict[str, Any], key: str) -> int:
    value = config.get(key, DEFAULT_COLLECT_LIMIT)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise KsqlTypeError(f"Invalid value for {key}: {value!r}") from None


def _no_literals(name: str, types: list[SqlType], literals: list[Any]) -> None:
    if literals:
        raise reject(name, types, literals)


def _single(name: str, types: list[SqlType], literals: list[Any]) -> SqlType:
    if len(types) != 1 or literals:
        raise reject(name, types, literals)
    return types[0]


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
    if _is(t, INTEGER, BIGINT):
        return ResolvedUdaf(DOUBLE, _avg_init, _avg_add, _avg_result_for(t), _avg_undo, _avg_merge, state)
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


def _resolve_min_max(is_max: bool) -> Resolver:
    def resolve(name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]) -> ResolvedUdaf:
        t = _single(name, types, literals)
        if not _orderable(t):
            raise reject(name, types, literals)
        if t == BYTES:
            add = _max_bytes_add if is_max else _min_bytes_add
        else:
            add = _max_add if is_max else _min_add
        return ResolvedUdaf(t, _none, add, _identity, None, add, t,
                            order_free=_is(t, INTEGER, BIGINT, STRING, DATE, TIME, TIMESTAMP))

    return resolve


# ---------------------------------------------------------------------------------------------------------
# COLLECT_LIST / COLLECT_SET / HISTOGRAM


def _resolve_collect_list(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    t = _single(name, types, literals)
    if isinstance(t, NullType):
        raise reject(name, types, literals)
    limit = _limit(config, COLLECT_LIST_LIMIT)

    def add(acc: list[Any], v: Any) -> list[Any]:
        if len(acc) < limit:
            acc.append(v)
        return acc

    def undo(acc: list[Any], v: Any) -> list[Any]:
        for i in range(len(acc) - 1, -1, -1):
            if acc[i] == v:
                del acc[i]
                break
        return acc

    def merge(a: list[Any], b: list[Any]) -> list[Any]:
        return (a + b)[:limit]

    return ResolvedUdaf(Array(t), list, add, _copy_list, undo, merge, Array(t))


def _resolve_collect_set(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    t = _single(name, types, literals)
    if isinstance(t, NullType):
        raise reject(name, types, literals)
    limit = _limit(config, COLLECT_SET_LIMIT)

    def add(acc: list[Any], v: Any) -> list[Any]:
        if len(acc) < limit and v not in acc:
            acc.append(v)
        return acc

    def undo(acc: list[Any], v: Any) -> list[Any]:
        if v in acc:
            acc.remove(v)
        return acc

    def merge(a: list[Any], b: list[Any]) -> list[Any]:
        out = list(a)
        for v in b:
            add(out, v)
        return out

    return ResolvedUdaf(Array(t), list, add, _copy_list, undo, merge, Array(t))


def _histogram_add(acc: dict[Any, int], v: Any) -> dict[Any, int]:
    if v is None:
        return acc
    n = acc.get(v)
    if n is not None:
        acc[v] = n + 1
    elif len(acc) < HISTOGRAM_LIMIT:
        acc[v] = 1
    return acc


def _histogram_undo(acc: dict[Any, int], v: Any) -> dict[Any, int]:
    n = acc.get(v)
    if n is not None:
        if n <= 1:
            del acc[v]
        else:
            acc[v] = n - 1
    return acc


def _histogram_merge(a: dict[Any, int], b: dict[Any, int]) -> dict[Any, int]:
    out = dict(a)
    for k, n in b.items():
        if k in out:
            out[k] += n
        elif len(out) < HISTOGRAM_LIMIT:
            out[k] = n
    return out


def _resolve_histogram(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    t = _single(name, types, literals)
    if t != STRING:
        raise reject(name, types, literals)
    rt = Map(STRING, BIGINT)
    return ResolvedUdaf(rt, dict, _histogram_add, dict, _histogram_undo, _histogram_merge, rt)


# ---------------------------------------------------------------------------------------------------------
# TOPK / TOPKDISTINCT


def _k_literal(name: str, types: list[SqlType], literals: list[Any]) -> int:
    if len(literals) != 1 or isinstance(literals[0], bool) or not isinstance(literals[0], int):
        raise reject(name, types, literals)
    k = literals[0]
    if k <= 0:
        raise KsqlTypeError(f"Function '{name}' requires k to be a positive integer, got {k}.")
    return k


def _resolve_topk(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    """TOPK(col, k) -> ARRAY<T>; TOPK(col, other..., k) -> ARRAY<STRUCT<sort_col T, col0 ..., ...>>.

    The accumulator is ascending (smallest first); ties go before older equal entries, so the descending
    result lists older entries first and a full list drops the newest of the smallest, as ksqlDB does.
    """
    if not types:
        raise reject(name, types, literals)
    k = _k_literal(name, types, literals)
    t = types[0]
    if not _orderable(t):
        raise reject(name, types, literals)
    is_bytes = t == BYTES
    if len(types) == 1:

        def add(acc: list[Any], v: Any) -> list[Any]:
            if v is None:
                return acc
            if is_bytes:
                v = _bytes_key(v)
            if len(acc) >= k and v <= acc[0]:
                return acc
            acc.insert(bisect_left(acc, v), v)
            if len(acc) > k:
                del acc[0]
            return acc

        def merge(a: list[Any], b: list[Any]) -> list[Any]:
            return sorted(a + b)[-k:]

        def result(acc: list[Any]) -> list[Any]:
            out = acc[::-1]
            return [_bytes_key(x) for x in out] if is_bytes else out

        rt = Array(t)
        return ResolvedUdaf(rt, list, add, result, None, merge, rt)

    names = ["sort_col"] + [f"col{i}" for i in range(len(types) - 1)]
    struct = Struct(tuple(zip(names, types, strict=True)))
    first = operator.itemgetter(0)

    def add_struct(acc: list[Any], v: Any, *others: Any) -> list[Any]:
        if v is None:
            return acc
        if is_bytes:
            v = _bytes_key(v)
        if len(acc) >= k and v <= acc[0][0]:
            return acc
        acc.insert(bisect_left(acc, v, key=first), (v, *others))
        if len(acc) > k:
            del acc[0]
        return acc

    def merge_struct(a: list[Any], b: list[Any]) -> list[Any]:
        return sorted(a + b, key=first)[-k:]

    def result_struct(acc: list[Any]) -> list[dict[str, Any]]:
        out = []
        for entry in reversed(acc):
            row = dict(zip(names, entry, strict=True))
            if is_bytes:
                row["sort_col"] = _bytes_key(row["sort_col"])
            out.append(row)
        return out

    rt = Array(struct)
    return ResolvedUdaf(rt, list, add_struct, result_struct, None, merge_struct, rt)


def _resolve_topk_distinct(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    if len(types) != 1:
        raise reject(name, types, literals)
    k = _k_literal(name, types, literals)
    t = types[0]
    if not _orderable(t):
        raise reject(name, types, literals)
    is_bytes = t == BYTES

    def add(acc: list[Any], v: Any) -> list[Any]:
        if v is None:
            return acc
        if is_bytes:
            v = _bytes_key(v)
        i = bisect_left(acc, v)
        if i < len(acc) and acc[i] == v:
            return acc
        if len(acc) >= k:
            if i == 0:
                return acc
            acc.insert(i, v)
            del acc[0]
        else:
            acc.insert(i, v)
        return acc

    def merge(a: list[Any], b: list[Any]) -> list[Any]:
        return sorted(set(a) | set(b))[-k:]

    def result(acc: list[Any]) -> list[Any]:
        out = acc[::-1]
        return [_bytes_key(x) for x in out] if is_bytes else out

    rt = Array(t)
    return ResolvedUdaf(rt, list, add, result, None, merge, rt)


# ---------------------------------------------------------------------------------------------------------
# EARLIEST_BY_OFFSET / LATEST_BY_OFFSET

# Arrival order across session merges: a process-wide counter started at the wall clock in ns, so sequence
# numbers stay increasing across restarts (state from an earlier run has smaller ones).
_SEQUENCE = itertools.count(time.time_ns())


def _offset_literals(name: str, types: list[SqlType], literals: list[Any]) -> tuple[int | None, bool]:
    """(n or None, ignore_nulls) from ``[n] [, ignoreNulls]``."""
    n: int | None = None
    ignore = True
    rest = list(literals)
    if rest and isinstance(rest[0], int) and not isinstance(rest[0], bool):
        n = rest.pop(0)
        if n <= 0:
            raise KsqlTypeError(
                f"Function '{name}': the number of values to keep must be 1 or greater, got {n}."
            )
    if rest and isinstance(rest[0], bool):
        ignore = rest.pop(0)
    if rest:
        raise reject(name, types, literals)
    return n, ignore


def _resolve_by_offset(latest: bool) -> Resolver:
    def resolve(name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]) -> ResolvedUdaf:
        if len(types) != 1 or isinstance(types[0], NullType):
            raise reject(name, types, literals)
        t = types[0]
        n, ignore = _offset_literals(name, types, literals)
        state = Struct((("SEQ", BIGINT), ("VAL", t)))
        seq = _SEQUENCE
        if n is None:
            if latest:

                def init() -> Any:
                    return (next(seq), None)

                def add(acc: Any, v: Any) -> Any:
                    if v is None and ignore:
                        return acc
                    return (next(seq), v)

                def merge(a: Any, b: Any) -> Any:
                    newer, older = (a, b) if a[0] > b[0] else (b, a)
                    return older if ignore and newer[1] is None else newer

                def result(acc: Any) -> Any:
                    return acc[1]

            else:

                def init() -> Any:
                    return None  # not set yet

                def add(acc: Any, v: Any) -> Any:
                    if acc is not None or (v is None and ignore):
                        return acc
                    return (next(seq), v)

                def merge(a: Any, b: Any) -> Any:
                    if a is None or b is None:
                        return b if a is None else a
                    return a if a[0] < b[0] else b

                def result(acc: Any) -> Any:
                    return None if acc is None else acc[1]

            return ResolvedUdaf(t, init, add, result, None, merge, state)

        limit = n
        if latest:

            def add_n(acc: list[Any], v: Any) -> list[Any]:
                if v is None and ignore:
                    return acc
                acc.append((next(seq), v))
                if len(acc) > limit:
                    del acc[0]
                return acc

            def merge_n(a: list[Any], b: list[Any]) -> list[Any]:
                return sorted(a + b)[-limit:] if a or b else []

        else:

            def add_n(acc: list[Any], v: Any) -> list[Any]:
                if len(acc) >= limit or (v is None and ignore):
                    return acc
                acc.append((next(seq), v))
                return acc

            def merge_n(a: list[Any], b: list[Any]) -> list[Any]:
                return sorted(a + b, key=operator.itemgetter(0))[:limit]

        def result_n(acc: list[Any]) -> list[Any]:
            return [v for _, v in acc]

        return ResolvedUdaf(Array(t), list, add_n, result_n, None, merge_n, Array(state))

    return resolve


def _by_offset_literals(n_args: int) -> int:
    return max(0, n_args - 1)


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
        state = Struct((("COUNT", BIGINT), ("SUM", DOUBLE), ("M2", DOUBLE)))
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
    state = Struct(tuple((f, DOUBLE) for f in ("X_SUM", "Y_SUM", "X_SQUARED_SUM", "Y_SQUARED_SUM", "XY_SUM")))
    state = Struct((("COUNT", BIGINT), *state.fields))
    return ResolvedUdaf(DOUBLE, _corr_init, _corr_add, _corr_result, _corr_undo, _corr_merge, state)


# ---------------------------------------------------------------------------------------------------------
# ATTR: the value when every row agrees (NULL counts as a value), else NULL


def freeze(v: Any) -> Any:
    """A hashable stand-in for a value with SQL equality (lists, maps and structs compare by content)."""
    if isinstance(v, list):
        return ("\x00L", tuple(freeze(x) for x in v))
    if isinstance(v, dict):
        return ("\x00M", tuple(sorted((k, freeze(x)) for k, x in v.items())))
    return v


def _needs_freeze(t: SqlType) -> bool:
    return isinstance(t, Array | Map | Struct)


def _resolve_attr(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    t = _single(name, types, literals)
    key = freeze if _needs_freeze(t) else _identity

    def add(acc: dict[Any, list[Any]], v: Any) -> dict[Any, list[Any]]:
        k = key(v)
        entry = acc.get(k)
        if entry is None:
            acc[k] = [v, 1]
        else:
            entry[1] += 1
        return acc

    def undo(acc: dict[Any, list[Any]], v: Any) -> dict[Any, list[Any]]:
        k = key(v)
        entry = acc.get(k)
        if entry is not None:
            if entry[1] <= 1:
                del acc[k]
            else:
                entry[1] -= 1
        return acc

    def merge(a: dict[Any, list[Any]], b: dict[Any, list[Any]]) -> dict[Any, list[Any]]:
        out = {k: list(e) for k, e in a.items()}
        for k, (v, n) in b.items():
            if k in out:
                out[k][1] += n
            else:
                out[k] = [v, n]
        return out

    def result(acc: dict[Any, list[Any]]) -> Any:
        if len(acc) != 1:
            return None
        return next(iter(acc.values()))[0]

    return ResolvedUdaf(t, dict, add, result, undo, merge, Map(STRING, INTEGER))


# ---------------------------------------------------------------------------------------------------------
# COUNT_DISTINCT (exact for small sets, HyperLogLog beyond: see aggregates_sketch)


def _resolve_count_distinct(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    t = _single(name, types, literals)
    if isinstance(t, NullType):
        raise reject(name, types, literals)
    add = count_distinct_add
    if _needs_freeze(t):

        def add(acc: Any, v: Any) -> Any:
            return count_distinct_add(acc, None if v is None else freeze(v))

    return ResolvedUdaf(BIGINT, set, add, count_distinct_result, None, count_distinct_merge, Array(INTEGER))


# ---------------------------------------------------------------------------------------------------------
# Registration

_NUMERIC = ("INT", "BIGINT", "DOUBLE", "DECIMAL")
_ORDERED = ("INT", "BIGINT", "DOUBLE", "DECIMAL", "STRING", "BYTES", "DATE", "TIME", "TIMESTAMP")


def _sigs(name: str, rows: Sequence[tuple[str, str]]) -> list[str]:
    return [f"{name}({params}) -> {ret}" for params, ret in rows]


def _topk_literals(n_args: int) -> int:
    return 1 if n_args >= 2 else 0


BUILTINS: list[Udaf] = [
    Udaf("AVG", _resolve_avg, description="Average of the non-NULL values (0.0 when there are none).",
         signatures=_sigs("AVG", [(t, "DOUBLE") for t in _NUMERIC])),
    Udaf("COUNT", _resolve_count, description="COUNT(col): non-NULL values; COUNT() / COUNT(*): rows.",
         signatures=["COUNT() -> BIGINT", "COUNT(ANY) -> BIGINT"]),
    Udaf("COUNT_DISTINCT", _resolve_count_distinct,
         description="Distinct non-NULL values: exact for small sets, HyperLogLog estimate for large ones.",
         signatures=["COUNT_DISTINCT(ANY) -> BIGINT"]),
    Udaf("SUM", _resolve_sum, description="Sum of the non-NULL values (0 when there are none).",
         signatures=_sigs("SUM", [(t, t) for t in _NUMERIC])),
    Udaf("SUM_LIST", _resolve_sum_list, description="Sum of the non-NULL elements of the arrays.",
         signatures=_sigs("SUM_LIST", [(f"ARRAY<{t}>", t) for t in ("INT", "BIGINT", "DOUBLE")])),
    Udaf("MIN", _resolve_min_max(False), description="Smallest non-NULL value.",
         signatures=_sigs("MIN", [(t, t) for t in _ORDERED])),
    Udaf("MAX", _resolve_min_max(True), description="Largest non-NULL value.",
         signatures=_sigs("MAX", [(t, t) for t in _ORDERED])),
    Udaf("COLLECT_LIST", _resolve_collect_list,
         description=f"All values (NULLs too) in arrival order, up to {COLLECT_LIST_LIMIT} (default 1000).",
         signatures=["COLLECT_LIST(T) -> ARRAY<T>"]),
    Udaf("COLLECT_SET", _resolve_collect_set,
         description=f"Distinct values (NULL too) in arrival order, up to {COLLECT_SET_LIMIT} (default 1000).",
         signatures=["COLLECT_SET(T) -> ARRAY<T>"]),
    Udaf("HISTOGRAM", _resolve_histogram,
         description="Count of each distinct non-NULL string (at most 1000 distinct values are counted).",
         signatures=["HISTOGRAM(STRING) -> MAP<STRING, BIGINT>"]),
    Udaf("TOPK", _resolve_topk, literals=_topk_literals,
         description="The k largest values, largest first; with other columns, structs of the sort value "
         "(sort_col) and the other columns (col0, col1, ...).",
         signatures=["TOPK(T, INT k) -> ARRAY<T>", "TOPK(T, ANY..., INT k) -> ARRAY<STRUCT<sort_col T, col0 ...>>"]),
    Udaf("TOPKDISTINCT", _resolve_topk_distinct, literals=_topk_literals,
         description="The k largest distinct values, largest first.",
         signatures=["TOPKDISTINCT(T, INT k) -> ARRAY<T>"]),
    Udaf("EARLIEST_BY_OFFSET", _resolve_by_offset(False), literals=_by_offset_literals,
         description="The first value received (or the first n as an array); NULLs ignored unless "
         "ignoreNulls is false.",
         signatures=["EARLIEST_BY_OFFSET(T [, BOOLEAN ignoreNulls]) -> T",
                     "EARLIEST_BY_OFFSET(T, INT n [, BOOLEAN ignoreNulls]) -> ARRAY<T>"]),
    Udaf("LATEST_BY_OFFSET", _resolve_by_offset(True), literals=_by_offset_literals,
         description="The last value received (or the last n as an array); NULLs ignored unless "
         "ignoreNulls is false.",
         signatures=["LATEST_BY_OFFSET(T [, BOOLEAN ignoreNulls]) -> T",
                     "LATEST_BY_OFFSET(T, INT n [, BOOLEAN ignoreNulls]) -> ARRAY<T>"]),
    Udaf("STDDEV_SAMP", _resolve_stddev(False),
         description="Sample variance of the non-NULL values (ksqlDB's STDDEV_SAMP returns the variance).",
         signatures=_sigs("STDDEV_SAMP", [(t, "DOUBLE") for t in _NUMERIC])),
    Udaf("STDDEV_SAMPLE", _resolve_stddev(True), description="Sample standard deviation of the non-NULL values.",
         signatures=_sigs("STDDEV_SAMPLE", [(t, "DOUBLE") for t in _NUMERIC])),
    Udaf("CORRELATION", _resolve_correlation,
         description="Pearson correlation of the pairs where both values are non-NULL.",
         signatures=["CORRELATION(DOUBLE, DOUBLE) -> DOUBLE"]),
    Udaf("ATTR", _resolve_attr, description="The value if every row has the same one (NULL included), else NULL.",
         signatures=["ATTR(T) -> T"]),
]  # fmt: skip


def register(registry: FunctionRegistry) -> None:
    """Add the built-in aggregate functions to ``registry``."""
    for fn in BUILTINS:
        registry.register(fn)


__all__ = [
    "BUILTINS",
    "COLLECT_LIST_LIMIT",
    "COLLECT_SET_LIMIT",
    "ResolvedUdaf",
    "Udaf",
    "freeze",
    "literal_type",
    "register",
    "reject",
]
