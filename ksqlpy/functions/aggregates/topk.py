"""TOPK and TOPKDISTINCT: the k largest values (with other columns as structs)."""

from __future__ import annotations

import operator
from bisect import bisect_left
from typing import Any

from ksqlpy import utf16
from ksqlpy.functions.aggregates.base import (
    ResolvedUdaf,
    _bytes_key,
    _orderable,
    literal_type,
    reject,
)
from ksqlpy.functions.aggregates.java_values import order_key as java_order_key
from ksqlpy.functions.signatures import FunctionError
from ksqlpy.types import (
    BYTES,
    INTEGER,
    STRING,
    Array,
    SqlType,
    Struct,
)

# ---------------------------------------------------------------------------------------------------------
# TOPK / TOPKDISTINCT


def _k_literal(name: str, types: list[SqlType], literals: list[Any]) -> int:
    """k as the factory takes it: an INT parameter (a BIGINT literal, outside INT's range, matches no overload,
    as in ksqlDB). Any value is accepted - ksqlDB's TopkKudaf/TopkDistinctKudaf check no range (from memory);
    what k <= 0 does is their per-record algorithm's (``_list_of``, ``_full``)."""
    if len(literals) != 1 or literal_type(literals[0]) != INTEGER:
        raise reject(name, types, literals)
    return literals[0]


def _full(size: int, k: int) -> bool:
    """The aggregate list is full when its size *equals* k (``currentSize == topKSize``): a negative k is never
    reached, so the list keeps every value; with k = 0 the empty list is full and replacing its last element
    (``list.set(-1, v)`` / ``list.get(-1)``) fails for the first non-null value."""
    if size == k == 0:
        raise FunctionError("java.lang.IndexOutOfBoundsException: Index -1 out of bounds for length 0")
    return size == k


def _merged_size(k: int, a: list[Any], b: list[Any]) -> None:
    """The merger (session windows merge every session a record reaches into a fresh aggregate) allocates
    ``new ArrayList<>(Math.min(k, a + b))``: a negative k fails there."""
    if k < 0:
        raise FunctionError(f"java.lang.IllegalArgumentException: Illegal Capacity: {min(k, len(a) + len(b))}")


def _top(entries: list[Any], k: int) -> list[Any]:
    """The k largest of an ascending list: all of them when it holds fewer than k (k = 0: none)."""
    return entries[max(len(entries) - k, 0):] if k > 0 else []


def _merged(a: list[Any], b: list[Any], k: int, key: Any) -> list[Any]:
    """TopkKudaf.merge (from memory): the k largest of two descending lists, taken head by head, ``aggOne``
    (the running aggregate, ``a``) first on a tie. Ours are ascending with a list's preferred entries to the
    right of its equal ones, so ``b`` goes first into the stable sort: a's tied entries land right of b's."""
    return _top(sorted(b + a, key=key), k)


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
    # strings order by String.compareTo (UTF-16 units), doubles by Double.compareTo (-0.0 below 0.0, NaN above
    # everything); the accumulator keeps the values themselves
    order = utf16.order_key if t == STRING else java_order_key(t)
    if len(types) == 1:

        def add(acc: list[Any], v: Any) -> list[Any]:
            if v is None:
                return acc
            if is_bytes:
                v = _bytes_key(v)
            if order is not None:
                kv = order(v)
                full = _full(len(acc), k)
                if full and kv <= order(acc[0]):
                    return acc
                acc.insert(bisect_left(acc, kv, key=order), v)
            else:
                full = _full(len(acc), k)
                if full and v <= acc[0]:
                    return acc
                acc.insert(bisect_left(acc, v), v)
            if full:
                del acc[0]
            return acc

        def merge(a: list[Any], b: list[Any]) -> list[Any]:
            _merged_size(k, a, b)
            return _merged(a, b, k, order)

        def result(acc: list[Any]) -> list[Any]:
            out = acc[::-1]
            return [_bytes_key(x) for x in out] if is_bytes else out

        rt = Array(t)
        return ResolvedUdaf(rt, list, add, result, None, merge, rt)

    names = ["sort_col"] + [f"col{i}" for i in range(len(types) - 1)]
    struct = Struct(tuple(zip(names, types, strict=True)))
    first = operator.itemgetter(0) if order is None else (lambda e: order(e[0]))
    ordered = (lambda x: x) if order is None else order

    def add_struct(acc: list[Any], v: Any, *others: Any) -> list[Any]:
        if v is None:
            return acc
        if is_bytes:
            v = _bytes_key(v)
        kv = ordered(v)
        full = _full(len(acc), k)
        if full and kv <= first(acc[0]):
            return acc
        acc.insert(bisect_left(acc, kv, key=first), (v, *others))
        if full:
            del acc[0]
        return acc

    def merge_struct(a: list[Any], b: list[Any]) -> list[Any]:
        _merged_size(k, a, b)
        return _merged(a, b, k, first)

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
    # String.compareTo (by UTF-16 unit), Double.compareTo; a duplicate is one List.contains finds (Double.equals:
    # -0.0 is no 0.0, NaN is NaN - the order's equality)
    order = utf16.order_key if t == STRING else java_order_key(t)

    def add(acc: list[Any], v: Any) -> list[Any]:
        if v is None:
            return acc
        if is_bytes:
            v = _bytes_key(v)
        i = bisect_left(acc, v) if order is None else bisect_left(acc, order(v), key=order)
        full = _full(len(acc), k)  # checked first: with k = 0 even a value seen before fails
        if full and i == 0:
            return acc
        if i < len(acc) and (acc[i] == v if order is None else order(acc[i]) == order(v)):
            return acc
        acc.insert(i, v)
        if full:
            del acc[0]
        return acc

    def merge(a: list[Any], b: list[Any]) -> list[Any]:
        _merged_size(k, a, b)
        if order is None:
            return _top(sorted(set(a) | set(b)), k)
        distinct = {order(v): v for v in a + b}
        return _top(sorted(distinct.values(), key=order), k)

    def result(acc: list[Any]) -> list[Any]:
        out = acc[::-1]
        return [_bytes_key(x) for x in out] if is_bytes else out

    rt = Array(t)
    return ResolvedUdaf(rt, list, add, result, None, merge, rt)


