"""Table functions (UDTFs): each call returns the list of values that become one output row each."""

from __future__ import annotations

from typing import Any

from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import udtf


def _explode(a: Any) -> list[Any]:
    """The elements of an array, one row each; a NULL array gives no rows."""
    return [] if a is None else list(a)


def _cube(a: Any) -> list[Any]:
    """Every combination of keeping or nulling each element, in binary counting order (first element = high
    bit, kept = 1); combinations that come out equal (because an element is NULL) appear once."""
    if a is None:
        return []
    n = len(a)
    seen: set[tuple] = set()
    out: list[list[Any]] = []
    for i in range(1 << n):
        row = [a[j] if (i >> (n - j - 1)) & 1 else None for j in range(n)]
        key = tuple(map(repr, row))
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


def register(registry: FunctionRegistry) -> None:
    registry.register(
        udtf(
            "EXPLODE",
            description="Outputs one row per element of an array.",
            overloads=[("ARRAY<T>", "T", _explode)],
        )
    )
    registry.register(
        udtf(
            "CUBE_EXPLODE",
            description="Outputs one row per combination of the array's elements with NULLs (a cube).",
            overloads=[("ARRAY<T>", "ARRAY<T>", _cube)],
        )
    )
