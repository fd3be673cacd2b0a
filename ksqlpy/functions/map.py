"""MAP functions. ksqlDB maps have STRING keys in practice; the signatures bind any key type so that maps
built by MAP(...) with other keys still resolve."""

from __future__ import annotations

from typing import Any

from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import udf
from ksqlpy.types import NULL, Array, Map, SqlType, Struct

CATEGORY = "MAP"


def _as_map(keys: list, values: list) -> dict:
    """Keys paired with values by position; missing values are NULL, extra values are dropped."""
    n = len(values)
    return {k: (values[i] if i < n else None) for i, k in enumerate(keys)}


def _entries(m: Any, sort: Any) -> Any:
    if m is None:
        return None
    items = sorted(m.items(), key=lambda kv: kv[0]) if sort else m.items()
    return [{"K": k, "V": v} for k, v in items]


def _entries_type(ts: list[SqlType]) -> SqlType:
    m = ts[0]
    if isinstance(m, Map):
        return Array(Struct((("K", m.key), ("V", m.value))))
    return Array(Struct((("K", NULL), ("V", NULL))))


def _map_union(a: Any, b: Any) -> Any:
    if a is None and b is None:
        return None
    out = dict(a) if a is not None else {}
    if b is not None:
        out.update(b)
    return out


def register(registry: FunctionRegistry) -> None:
    def add(name: str, description: str, overloads: list[Any], null_on_null: bool = True) -> None:
        registry.register(
            udf(
                name,
                category=CATEGORY,
                description=description,
                overloads=overloads,
                null_on_null=null_on_null,
            )
        )

    add(
        "AS_MAP",
        "A map from an array of keys and an array of values, paired by position.",
        [("ARRAY<STRING>, ARRAY<T>", "MAP<STRING, T>", _as_map)],
    )
    add(
        "ENTRIES",
        "The entries of a map as an array of STRUCT<K, V>, sorted by key if the flag is true.",
        [("MAP<K, V>, BOOLEAN", _entries_type, _entries)],
        null_on_null=False,
    )
    add("MAP_KEYS", "The keys of a map.", [("MAP<K, V>", "ARRAY<K>", lambda m: list(m))])
    add("MAP_VALUES", "The values of a map.", [("MAP<K, V>", "ARRAY<V>", lambda m: list(m.values()))])
    add(
        "MAP_UNION",
        "The union of two maps; the second map's value wins for a shared key. A NULL map counts as empty.",
        [("MAP<K, V>, MAP<K, V>", "MAP<K, V>", _map_union)],
        null_on_null=False,
    )
