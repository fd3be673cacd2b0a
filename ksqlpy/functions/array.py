"""ARRAY functions. Set-like functions (DISTINCT, EXCEPT, INTERSECT, UNION) keep first-seen order and treat
NULL as a value, as ksqlDB's LinkedHashSet-based versions do; sorting puts NULLs last in both directions."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from ksqlpy import utf16
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, Overload, registrar
from ksqlpy.javatext import java_str
from ksqlpy.types import (
    BIGINT,
    BOOLEAN,
    BYTES,
    DOUBLE,
    INTEGER,
    STRING,
    Array,
    Decimal,
    Map,
    NullType,
    SqlType,
    Struct,
)

CATEGORY = "ARRAY"


def hashable(v: Any) -> Any:
    """A hashable stand-in for a SQL value (lists, maps and structs included) with SQL equality."""
    if isinstance(v, list):
        return ("\x00L", tuple(hashable(x) for x in v))
    if isinstance(v, dict):
        return ("\x00M", frozenset((k, hashable(x)) for k, x in v.items()))
    if isinstance(v, bool):
        return ("\x00B", v)  # keep True apart from 1
    if isinstance(v, float) and (v == 0 or v != v):
        # Double.equals compares bits: NaN equals NaN, -0.0 is not 0.0 (Python has it the other way round)
        return ("\x00D", "NaN") if v != v else ("\x00D", math.copysign(1.0, v))
    return v


def distinct(values: Iterable[Any]) -> list[Any]:
    seen: set[Any] = set()
    out = []
    for v in values:
        h = hashable(v)
        if h not in seen:
            seen.add(h)
            out.append(v)
    return out


def _concat(a: Any, b: Any) -> Any:
    if a is None and b is None:
        return None
    return (a or []) + (b or [])


def _contains(a: Any, v: Any) -> bool:
    if a is None:
        return False
    if v is None:
        return any(x is None for x in a)
    h = hashable(v)
    return any(x is not None and hashable(x) == h for x in a)


def _except(a: list, b: list) -> list:
    right = {hashable(x) for x in b}
    return [x for x in distinct(a) if hashable(x) not in right]


def _intersect(a: list, b: list) -> list:
    right = {hashable(x) for x in b}
    return [x for x in distinct(a) if hashable(x) in right]


def _union(a: list, b: list) -> list:
    return distinct(a + b)


def _remove(a: Any, v: Any) -> Any:
    if a is None:
        return None
    if v is None:
        return [x for x in a if x is not None]
    h = hashable(v)
    return [x for x in a if x is None or hashable(x) != h]


# the element classes ksqlDB's ArrayJoin prints (KSQL_PRIMITIVES); any other non-null element - a DATE, TIME or
# TIMESTAMP (java.sql classes), BYTES, a container - fails the call
_JOINABLE = (BOOLEAN, INTEGER, BIGINT, DOUBLE, STRING)


def _make_join(param_types: list[SqlType], _returns: SqlType) -> Callable[..., Any]:
    element = param_types[0].element if isinstance(param_types[0], Array) else None
    joinable = element is None or element in _JOINABLE or isinstance(element, Decimal | NullType)

    def join(a: Any, delimiter: Any = ",") -> Any:
        if a is None:
            return None
        if delimiter is None:
            delimiter = ""
        parts = []
        for x in a:
            if x is not None and (not joinable or isinstance(x, list | dict | bytes)):
                raise FunctionError("error message: ARRAY_JOIN only supports arrays of primitive types")
            parts.append(java_str(x))
        return utf16.joined(delimiter.join(parts))  # halves of a character cut apart join again

    return join


_FLIP_SIGN = bytes((b ^ 0x80) for b in range(256))


def double_order(x: float) -> tuple[int, float, float]:
    """``Double.compareTo``'s order: -0.0 before 0.0, NaN after everything (and equal to itself)."""
    return (1, 0.0, 0.0) if math.isnan(x) else (0, x, math.copysign(1.0, x))


# the Java class of a value of these types, none of which is Comparable
_NOT_COMPARABLE = {Struct: "org.apache.kafka.connect.data.Struct", Map: "java.util.HashMap",
                   Array: "java.util.ArrayList"}


def _sort_key(t: SqlType) -> Callable[[Any], Any] | None:
    if t == BYTES:
        return lambda b: b.translate(_FLIP_SIGN)  # ByteBuffer compares signed bytes
    if t == DOUBLE:
        return double_order
    if t == STRING:
        return utf16.order_key  # String.compareTo: by UTF-16 unit
    return None


def _check_comparable(t: SqlType, fn: str, non_null: int) -> None:
    """ARRAY_SORT/MAX/MIN are generic over ``T extends Comparable`` in ksqlDB, a bound its function index does
    not check: an array of STRUCT, MAP or ARRAY elements binds, and the call fails when Java first compares two
    elements (two non-NULL ones: NULLs are compared by ``nullsLast`` or skipped) - a ClassCastException."""
    java = _NOT_COMPARABLE.get(type(t))
    if java is not None and non_null > 1:
        raise FunctionError(f"Failed to invoke function {fn}: class {java} cannot be cast to class "
                            "java.lang.Comparable")


def _make_max_min(pick: Callable[..., Any]):
    fn = "ARRAY_MAX" if pick is max else "ARRAY_MIN"

    def make(params: list[SqlType], ret: SqlType) -> Callable[[list], Any]:
        key = _sort_key(ret)

        def impl(a: list) -> Any:
            vals = [x for x in a if x is not None]
            if not vals:
                return None
            _check_comparable(ret, fn, len(vals))
            return pick(vals) if key is None else pick(vals, key=key)

        return impl

    return make


_ASC = {"ASC", "ASCENDING"}
_DESC = {"DESC", "DESCENDING"}


def _make_sort(params: list[SqlType], ret: SqlType) -> Callable[..., Any]:
    element = getattr(ret, "element", ret)
    key = _sort_key(element)

    def impl(a: Any, direction: Any = "ASC") -> Any:
        if a is None or direction is None:
            return None
        d = direction.upper()
        if d in _ASC:
            reverse = False
        elif d in _DESC:
            reverse = True
        else:
            return None
        vals = [x for x in a if x is not None]
        nulls = len(a) - len(vals)
        _check_comparable(element, "ARRAY_SORT", len(vals))
        out = sorted(vals, key=key, reverse=reverse)
        if nulls:
            out.extend([None] * nulls)
        return out

    return impl


def _series(start: int, end: int, step: int | None = None) -> list[int]:
    if step is None:
        step = 1 if end - start > 0 else -1
    if step == 0:
        raise FunctionError("GENERATE_SERIES step cannot be zero")
    diff = end - start
    if (diff > 0 and step < 0) or (diff < 0 and step > 0):
        raise FunctionError("GENERATE_SERIES has a step with the wrong sign for its range")
    size = diff // step + 1
    if size > _MAX_SERIES:  # Java's ArrayList cannot hold it (int size); never try to build it
        raise FunctionError(f"GENERATE_SERIES would return {size} elements, more than an array can hold")
    try:
        return list(range(start, end + (1 if step > 0 else -1), step))
    except MemoryError:
        raise FunctionError(f"GENERATE_SERIES of {size} elements does not fit in memory") from None


_MAX_SERIES = 2**31 - 9  # the largest array a JVM allocates


def _slice(a: Any, start: Any, end: Any) -> Any:
    """1-based, inclusive; NULL bounds mean the array's ends; NULL if out of range (List.subList)."""
    if a is None:
        return None
    s = 0 if start is None else start - 1
    e = len(a) if end is None else end
    if s < 0 or e > len(a) or s > e:
        return None
    return a[s:e]


def register(registry: FunctionRegistry) -> None:
    add = registrar(registry, CATEGORY)

    add(
        "ARRAY_CONCAT",
        "Concatenates two arrays; a NULL array counts as empty unless both are NULL.",
        [("ARRAY<T>, ARRAY<T>", "ARRAY<T>", _concat)],
        null_on_null=False,
    )
    add(
        "ARRAY_CONTAINS",
        "True if an array contains a value (NULL included); false for a NULL array.",
        [("ARRAY<T>, T", "BOOLEAN", _contains)],
        null_on_null=False,
    )
    add(
        "ARRAY_DISTINCT",
        "The distinct elements of an array, in first-seen order.",
        [("ARRAY<T>", "ARRAY<T>", distinct)],
    )
    add(
        "ARRAY_EXCEPT",
        "The distinct elements of the first array that are not in the second.",
        [("ARRAY<T>, ARRAY<T>", "ARRAY<T>", _except)],
    )
    add(
        "ARRAY_INTERSECT",
        "The distinct elements of the first array that are also in the second.",
        [("ARRAY<T>, ARRAY<T>", "ARRAY<T>", _intersect)],
    )
    add(
        "ARRAY_JOIN",
        "Joins the elements of an array of primitives into a string, with ',' or the given delimiter.",
        [Overload("ARRAY<T>", "STRING", make_impl=_make_join), Overload("ARRAY<T>, STRING", "STRING", make_impl=_make_join)],
        null_on_null=False,
    )
    add("ARRAY_LENGTH", "The number of elements of an array.", [("ARRAY<T>", "INT", len)])
    add(
        "ARRAY_MAX",
        "The largest non-NULL element of an array; NULL if there is none.",
        [Overload("ARRAY<T>", "T", make_impl=_make_max_min(max))],
    )
    add(
        "ARRAY_MIN",
        "The smallest non-NULL element of an array; NULL if there is none.",
        [Overload("ARRAY<T>", "T", make_impl=_make_max_min(min))],
    )
    add(
        "ARRAY_REMOVE",
        "The array without every element equal to a value (NULL removes NULLs).",
        [("ARRAY<T>, T", "ARRAY<T>", _remove)],
        null_on_null=False,
    )
    add(
        "ARRAY_SORT",
        "Sorts an array, ascending or with 'DESC' descending; NULLs last.",
        [
            Overload("ARRAY<T>", "ARRAY<T>", make_impl=_make_sort),
            Overload("ARRAY<T>, STRING", "ARRAY<T>", make_impl=_make_sort),
        ],
        null_on_null=False,
    )
    add(
        "ARRAY_UNION",
        "The distinct elements of both arrays, in first-seen order.",
        [("ARRAY<T>, ARRAY<T>", "ARRAY<T>", _union)],
    )
    add(
        "GENERATE_SERIES",
        "The integers from start to end inclusive, by a step (default 1 or -1).",
        [
            ("INT, INT", "ARRAY<INT>", _series),
            ("INT, INT, INT", "ARRAY<INT>", _series),
            ("BIGINT, BIGINT", "ARRAY<BIGINT>", _series),
            ("BIGINT, BIGINT, INT", "ARRAY<BIGINT>", _series),
        ],
    )
    add(
        "SLICE",
        "The sub-array from a 1-based start to an inclusive end; NULL when out of range.",
        [("ARRAY<T>, INT, INT", "ARRAY<T>", _slice)],
        null_on_null=False,
    )
