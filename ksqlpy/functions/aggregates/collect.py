"""COLLECT_LIST, COLLECT_SET and HISTOGRAM: aggregates whose accumulator is a list or a dict."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from ksqlpy.functions.aggregates.base import (
    COLLECT_LIST_LIMIT,
    COLLECT_SET_LIMIT,
    HISTOGRAM_LIMIT,
    ResolvedUdaf,
    _copy_list,
    _limit,
    _single,
    reject,
)
from ksqlpy.functions.aggregates.java_values import equality_key, has_double
from ksqlpy.types import (
    BIGINT,
    STRING,
    Array,
    Map,
    NullType,
    SqlType,
)

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

    # an undo removes the value's last occurrence (List.lastIndexOf: Double.equals - NaN is NaN, -0.0 no 0.0)
    same: Callable[[Any, Any], bool] = (
        (lambda x, v: equality_key(x) == equality_key(v)) if has_double(t) else operator.eq)

    def undo(acc: list[Any], v: Any) -> list[Any]:
        for i in range(len(acc) - 1, -1, -1):
            if same(acc[i], v):
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

    if has_double(t):  # List.contains is Double.equals: -0.0 is no 0.0, NaN is NaN

        def add(acc: list[Any], v: Any) -> list[Any]:
            if len(acc) < limit:
                key = equality_key(v)
                if all(equality_key(x) != key for x in acc):
                    acc.append(v)
            return acc

    def merge(a: list[Any], b: list[Any]) -> list[Any]:
        out = list(a)
        for v in b:
            add(out, v)
        return out

    # no undo: ksqlDB's COLLECT_SET is not a table aggregate (a set cannot tell which duplicate went away)
    return ResolvedUdaf(Array(t), list, add, _copy_list, None, merge, Array(t))


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


