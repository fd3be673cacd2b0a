"""MAP functions. ksqlDB maps have STRING keys in practice; the signatures bind any key type so that maps
built by MAP(...) with other keys still resolve.

Where ksqlDB's result depends on the order it walks a map (MAP_KEYS, MAP_VALUES, unsorted ENTRIES, REDUCE and
TRANSFORM/FILTER over maps, TO_JSON_STRING), the walk follows ``java_map_items``: the iteration order of the
java.util.HashMap its deserializers build (``new HashMap<>(size)``), not the order the keys arrived in."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ksqlpy import utf16
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, Overload, registrar
from ksqlpy.types import BIGINT, BOOLEAN, DOUBLE, INTEGER, STRING, Array, SqlType, Struct

CATEGORY = "MAP"

_MASK32 = 0xFFFFFFFF


@lru_cache(maxsize=8192)
def java_string_hash(s: str) -> int:
    """String.hashCode over UTF-16 code units, as an unsigned 32-bit value."""
    h = 0
    if s.isascii():
        for b in s.encode("ascii"):
            h = (31 * h + b) & _MASK32
    else:
        data = s.encode("utf-16-be", "surrogatepass")
        for i in range(0, len(data), 2):
            h = (31 * h + ((data[i] << 8) | data[i + 1])) & _MASK32
    return h


def _java_hash(k: Any) -> int:
    if isinstance(k, str):
        return java_string_hash(k)
    if isinstance(k, bool):
        return 1231 if k else 1237
    if isinstance(k, int):
        if -(2**31) <= k < 2**31:
            return k & _MASK32
        u = k & 0xFFFFFFFFFFFFFFFF
        return (u ^ (u >> 32)) & _MASK32
    raise TypeError("no Java hash")


def java_map_items(m: dict) -> list[tuple[Any, Any]]:
    """The entries of ``m`` in the iteration order of ``new HashMap<>(m.size())`` filled in ``m``'s order:
    by hash bucket (spread hash & (capacity - 1)), then by insertion within a bucket."""
    items = list(m.items())
    n = len(items)
    if n < 2:
        return items
    cap = 1
    while cap < n:
        cap <<= 1
    while n > int(cap * 0.75):
        cap <<= 1
    mask = cap - 1
    try:
        buckets = []
        for k, _ in items:
            h = _java_hash(k)
            buckets.append((h ^ (h >> 16)) & mask)
    except TypeError:
        return items
    order = sorted(range(n), key=buckets.__getitem__)
    return [items[i] for i in order]


def _as_map(keys: list, values: list) -> dict:
    """Keys paired with values by position; missing values are NULL, extra values are dropped."""
    n = len(values)
    return {k: (values[i] if i < n else None) for i, k in enumerate(keys)}


def _entries(m: Any, sort: Any) -> Any:
    if m is None:
        return None
    if sort is None:  # ksqlDB's parameter is a primitive boolean: a NULL fails the call
        raise FunctionError("ENTRIES needs a non-NULL sort flag")
    # sorted as Java sorts String keys: String.compareTo, by UTF-16 unit
    items = sorted(m.items(), key=lambda kv: utf16.order_key(kv[0])) if sort else java_map_items(m)
    return [{"K": k, "V": v} for k, v in items]


def _entry_array(value: SqlType) -> Callable[[list[SqlType]], SqlType]:
    """ENTRIES' return type for one value type: ARRAY<STRUCT<K STRING, V value>>."""
    t = Array(Struct((("K", STRING), ("V", value))))
    return lambda _params: t


def _map_keys(m: dict) -> list:
    return [k for k, _ in java_map_items(m)]


def _map_values(m: dict) -> list:
    return [v for _, v in java_map_items(m)]


def _map_union(a: Any, b: Any) -> Any:
    if a is None and b is None:
        return None
    out = dict(a) if a is not None else {}
    if b is not None:
        out.update(b)
    return out


def register(registry: FunctionRegistry) -> None:
    add = registrar(registry, CATEGORY)

    add(
        "AS_MAP",
        "A map from an array of keys and an array of values, paired by position.",
        [("ARRAY<STRING>, ARRAY<T>", "MAP<STRING, T>", _as_map)],
    )
    add(
        "ENTRIES",
        "The entries of a map with STRING keys and INT, BIGINT, DOUBLE, BOOLEAN or STRING values as an array of "
        "STRUCT<K, V>, sorted by key if the flag is true.",
        [  # ksqlDB declares one overload per value type (no generic map)
            Overload(f"MAP<STRING, {name}>, BOOLEAN", _entry_array(v), _entries,
                     returns_doc=f"ARRAY<STRUCT<K STRING, V {name}>>")
            for name, v in (("INT", INTEGER), ("BIGINT", BIGINT), ("DOUBLE", DOUBLE), ("BOOLEAN", BOOLEAN),
                            ("STRING", STRING))
        ],
        null_on_null=False,
    )
    add("MAP_KEYS", "The keys of a map.", [("MAP<K, V>", "ARRAY<K>", _map_keys)])
    add("MAP_VALUES", "The values of a map.", [("MAP<K, V>", "ARRAY<V>", _map_values)])
    add(
        "MAP_UNION",
        "The union of two maps; the second map's value wins for a shared key. A NULL map counts as empty.",
        [("MAP<K, V>, MAP<K, V>", "MAP<K, V>", _map_union)],
        null_on_null=False,
    )
