"""ATTR and COUNT_DISTINCT: aggregates over distinct values (composite values frozen to hashable ones)."""

from __future__ import annotations

import re
from typing import Any

from ksqlpy.functions.aggregates.base import (
    ResolvedUdaf,
    _identity,
    _single,
)
from ksqlpy.functions.aggregates.java_values import equality_key, has_double
from ksqlpy.functions.aggregates_sketch import count_distinct_add, count_distinct_merge, count_distinct_result
from ksqlpy.types import (
    BIGINT,
    DOUBLE,
    INTEGER,
    STRING,
    Array,
    Map,
    NullType,
    SqlType,
    Struct,
)

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
    # rows agree as Java's equals says: -0.0 is no 0.0, NaN is NaN
    key = equality_key if has_double(t) else freeze if _needs_freeze(t) else _identity

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

    # ksqlDB's state is the list of distinct values with their counts, ARRAY<STRUCT<VALUE t, COUNT INTEGER>>
    # (from memory of ksqlDB's Attr UDAF, getAggregateSqlType); our store keeps a dict, this type is what a
    # registry value format registers for the aggregate store
    return ResolvedUdaf(t, dict, add, result, undo, merge, Array(Struct((("VALUE", t), ("COUNT", INTEGER)))))


# ---------------------------------------------------------------------------------------------------------
# COUNT_DISTINCT (exact for small sets, HyperLogLog beyond: see aggregates_sketch)


def _resolve_count_distinct(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    t = _single(name, types, literals)
    # COUNT_DISTINCT(NULL): its one parameter takes anything and the result is BIGINT, so the call resolves
    # (``declared``); every value is NULL and none is counted
    key = count_distinct_key(STRING if isinstance(t, NullType) else t)

    def add(acc: Any, v: Any) -> Any:
        return count_distinct_add(acc, None if v is None else key(v))

    return ResolvedUdaf(BIGINT, set, add, count_distinct_result, None, count_distinct_merge, Array(INTEGER))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _string_key(s: str) -> str:
    """The text ``getBytes()`` encodes: halves of a pair joined, a lone half '?'."""
    if s.isascii():
        return s
    joined = s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return _SURROGATE.sub("?", joined)


def count_distinct_key(t: SqlType) -> Any:
    """What tells two values of ``t`` apart for COUNT_DISTINCT. ksqlDB offers each value to its HyperLogLog as
    the Java object (``HyperLogLog.offer(Object)``), which hashes it with ``MurmurHash.hash(Object)``: an Integer
    or Long by its value, a Double by its raw bits (-0.0 is no 0.0, NaN is NaN), a String by its bytes, and any
    other object by its ``toString()``. So values whose Java text is the same count once: BYTES (a ByteBuffer
    prints ``java.nio.HeapByteBuffer[pos=0 lim=n cap=n]``, so values of one length are one value), TIME
    (java.sql.Time prints hh:mm:ss: values in one second are one), and an ARRAY, MAP or STRUCT by its printed
    form (``[a, b]``, ``{k=v}``, ``Struct{F=v}`` without NULL fields), so ``['a, b']`` is ``['a', 'b']``.
    BOOLEAN, DECIMAL (one scale per column), DATE and TIMESTAMP print one text per value. A STRING's bytes are
    ``getBytes()``'s UTF-8, where a lone surrogate is '?': 'a\\ud800', 'a\\udc00' and 'a?' count once."""
    if t in (INTEGER, BIGINT):
        return _identity
    if t == STRING:
        return _string_key
    if t == DOUBLE:
        return equality_key
    from ksqlpy.expr.casts import java_text

    return java_text(t)
