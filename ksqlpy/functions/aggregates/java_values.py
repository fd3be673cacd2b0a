"""Java's equality and order of aggregated values where Python's differ: DOUBLE.

ksqlDB's UDAFs compare values as Java objects (from memory of its sources): MIN/MAX, TOPK and TOPKDISTINCT
order by ``Comparable.compareTo``; COLLECT_SET and TOPKDISTINCT find duplicates with ``List.contains``
(``equals``); COUNT_DISTINCT hashes each value into its sketch. For a ``Double`` both ``compareTo`` and
``equals`` go by ``doubleToLongBits``: -0.0 is below 0.0 and not equal to it, and NaN equals NaN and is above
everything (+Infinity included). Python's ``==``/``<`` say 0.0 == -0.0 and NaN is equal to nothing, so these
aggregates collapsed -0.0 into 0.0 and kept one NaN per row. A list, map or struct is equal by its elements,
so the rule reaches DOUBLEs nested in them too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ksqlpy.functions.array import double_order
from ksqlpy.types import DOUBLE, Array, Map, SqlType, Struct

__all__ = ["double_order", "equality_key", "has_double"]


def has_double(t: SqlType) -> bool:
    """``t`` is DOUBLE or holds one (array element, map value, struct field)."""
    if t == DOUBLE:
        return True
    if isinstance(t, Array):
        return has_double(t.element)
    if isinstance(t, Map):
        return has_double(t.value)
    if isinstance(t, Struct):
        return any(has_double(ft) for _, ft in t.fields)
    return False


def _double_key(x: float) -> tuple[str, float, float] | tuple[str]:
    return ("\x00N",) if math.isnan(x) else ("\x00D", x, math.copysign(1.0, x))


def equality_key(v: Any) -> Any:
    """A hashable stand-in for ``v`` equal to another's exactly when Java's ``equals`` says so (DOUBLEs by their
    bits, NaN equal to itself; lists, maps and structs by content)."""
    if isinstance(v, float):
        return _double_key(v)
    if isinstance(v, list):
        return ("\x00L", tuple(equality_key(x) for x in v))
    if isinstance(v, dict):
        return ("\x00M", tuple(sorted((k, equality_key(x)) for k, x in v.items())))
    return v


def order_key(t: SqlType) -> Callable[[Any], Any] | None:
    """The key ordering values of ``t`` as ``compareTo`` does, where Python's order differs (None: it does not)."""
    return double_order if t == DOUBLE else None
