"""LAMBDA functions: FILTER, TRANSFORM and REDUCE over arrays and maps. Lambdas arrive as plain Python
callables taking the lambda's parameters. ``lambda_params`` (from the signature rows) tells the compiler the
parameter types: the element type for arrays, (key, value) for maps, (state, element) / (state, key, value)
for REDUCE, where the state type comes from the initial value. Maps are walked in Java HashMap order
(``java_map_items``), which decides REDUCE's result for an order-sensitive lambda. Where ksqlDB's Java fails
for one record, so do these: a FILTER lambda returning NULL (a Boolean that cannot unbox), a FILTER or
TRANSFORM over a map producing a NULL value (Collectors.toMap refuses it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy.functions.map import java_map_items
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, registrar

CATEGORY = "LAMBDA"


def _test(result: Any) -> bool:
    """A FILTER lambda's result as Java's Predicate sees it: a NULL Boolean cannot unbox (the call fails)."""
    if result is None:
        raise FunctionError("A FILTER lambda returned NULL, not a BOOLEAN")
    return bool(result)


def _filter_array(a: Any, fn: Callable[[Any], Any]) -> Any:
    if a is None:
        return None
    return [x for x in a if _test(fn(x))]


def _filter_map(m: Any, fn: Callable[[Any, Any], Any]) -> Any:
    if m is None:
        return None
    out = {k: v for k, v in java_map_items(m) if _test(fn(k, v))}
    _no_null_values(out, "FILTER")
    return out


def _no_null_values(m: dict[Any, Any], name: str) -> None:
    """ksqlDB builds these maps with Collectors.toMap, which refuses a NULL value."""
    for k, v in m.items():
        if v is None:
            raise FunctionError(f"The map produced by {name} cannot hold a NULL value (key {k})")


def _transform_array(a: Any, fn: Callable[[Any], Any]) -> Any:
    if a is None:
        return None
    return [fn(x) for x in a]


def _transform_map(m: Any, key_fn: Callable[[Any, Any], Any], value_fn: Callable[[Any, Any], Any]) -> Any:
    if m is None:
        return None
    out: dict[Any, Any] = {}
    for k, v in java_map_items(m):
        nk = key_fn(k, v)
        if nk in out:
            raise FunctionError(f"Duplicate key {nk} in the map produced by TRANSFORM")
        out[nk] = value_fn(k, v)
    _no_null_values(out, "TRANSFORM")
    return out


def _reduce_array(a: Any, state: Any, fn: Callable[[Any, Any], Any]) -> Any:
    if state is None:
        return None
    if a is None:
        return state
    for x in a:
        state = fn(state, x)
    return state


def _reduce_map(m: Any, state: Any, fn: Callable[[Any, Any, Any], Any]) -> Any:
    if state is None:
        return None
    if m is None:
        return state
    for k, v in java_map_items(m):
        state = fn(state, k, v)
    return state


def register(registry: FunctionRegistry) -> None:
    add = registrar(registry, CATEGORY, null_on_null=False)

    add(
        "FILTER",
        "The elements of an array, or the entries of a map, for which a lambda is true.",
        [
            ("ARRAY<T>, LAMBDA(T)->BOOLEAN", "ARRAY<T>", _filter_array),
            ("MAP<K, V>, LAMBDA(K, V)->BOOLEAN", "MAP<K, V>", _filter_map),
        ],
    )
    add(
        "TRANSFORM",
        "Applies a lambda to every element of an array, or key and value lambdas to every entry of a map.",
        [
            ("ARRAY<T>, LAMBDA(T)->U", "ARRAY<U>", _transform_array),
            ("MAP<K, V>, LAMBDA(K, V)->K1, LAMBDA(K, V)->V1", "MAP<K1, V1>", _transform_map),
        ],
    )
    add(
        "REDUCE",
        "Folds an array or a map into a state with a lambda, starting from an initial state.",
        [
            ("ARRAY<T>, S, LAMBDA(S, T)->S", "S", _reduce_array),
            ("MAP<K, V>, S, LAMBDA(S, K, V)->S", "S", _reduce_map),
        ],
    )
