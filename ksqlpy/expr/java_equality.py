"""ARRAY, MAP and STRUCT equality as ksqlDB's generated Java decides it.

ksqlDB compiles ``a = b``, ``a <> b`` and ``a IS [NOT] DISTINCT FROM b`` on ARRAY, MAP or STRUCT operands to
``((Object) a).equals(b)`` (from memory of SqlToJavaVisitor.visitComparisonExpression /
visitObjectComparisonExpression), and its type check only asks for the same base type on both sides
(ComparisonUtil), so the element types may differ. Java's equals then decides, element by element, with the
Java class each SQL type is held in:

* ``List.equals`` / ``Map.equals`` (AbstractList, AbstractMap): same size, then each element's own ``equals``
  (a map's key found by the left key's ``equals``; a NULL value must be present as NULL);
* ``Struct.equals`` (Kafka Connect): the schemas equal - same field names, order and types (a DECIMAL's
  precision is a schema parameter) - then the values by ``Arrays.deepEquals``;
* ``Integer``/``Long``/``Double``/``BigDecimal``/``String``/``Boolean``/``ByteBuffer`` each equal only an
  instance of its own class: ``ARRAY<INT>`` never equals ``ARRAY<BIGINT>`` (unless both are empty);
* ``Double.equals`` compares bits: NaN equals NaN, -0.0 is not 0.0;
* ``BigDecimal.equals`` compares value and scale: ``ARRAY[1.50]`` is not ``ARRAY[1.5]`` (a top-level DECIMAL
  comparison is ``compareTo``, by value - not this module's business);
* ``java.sql.Date`` and ``java.sql.Time`` inherit ``java.util.Date.equals`` (any Date subclass with the same
  epoch millis), while ``java.sql.Timestamp.equals`` wants a Timestamp - so it is not symmetric.

A value's class and a DECIMAL's scale come from its static SQL type (ksqlDB holds a DECIMAL value at its type's
scale). Pull-query key lookups and GROUP BY / join keys do not come here: they match serialized keys after
coercing the looked-up value to the key's type.
"""

from __future__ import annotations

import math
from typing import Any

from ksqlpy import types as T

_MS_PER_DAY = 86_400_000
_UTIL_DATE = (T.DATE, T.TIME, T.TIMESTAMP)  # java.util.Date's subclasses


def java_equals(a: Any, ta: T.SqlType, b: Any, tb: T.SqlType) -> bool:
    """``Objects.equals(a, b)`` for ``a`` of SQL type ``ta`` and ``b`` of ``tb``: two NULLs are equal."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(ta, T.Array):
        return (isinstance(tb, T.Array) and len(a) == len(b)
                and all(java_equals(x, ta.element, y, tb.element) for x, y in zip(a, b, strict=True)))
    if isinstance(ta, T.Map):
        return isinstance(tb, T.Map) and _maps_equal(a, ta, b, tb)
    if isinstance(ta, T.Struct):
        return ta == tb and all(java_equals(a.get(n), ft, b.get(n), ft) for n, ft in ta.fields)
    if isinstance(ta, T.Decimal):
        return isinstance(tb, T.Decimal) and ta.scale == tb.scale and a == b
    if ta == T.DOUBLE:
        return tb == T.DOUBLE and double_bits(a) == double_bits(b)
    if ta in (T.DATE, T.TIME):  # java.util.Date.equals: any Date subclass, by getTime()
        return tb in _UTIL_DATE and _epoch_millis(a, ta) == _epoch_millis(b, tb)
    return ta == tb and a == b


def java_distinct(a: Any, ta: T.SqlType, b: Any, tb: T.SqlType) -> bool:
    """``a IS DISTINCT FROM b``: one NULL is distinct, two are not, else ``!a.equals(b)``."""
    return not java_equals(a, ta, b, tb)


def _maps_equal(a: dict, ta: T.Map, b: dict, tb: T.Map) -> bool:
    """AbstractMap.equals: each left entry's value ``equals`` the right map's value for a key the left key
    ``equals`` (a NULL value: the key present with NULL)."""
    if len(a) != len(b):
        return False
    same_keys = ta.key == tb.key and ta.key != T.DOUBLE
    for k, v in a.items():
        if same_keys:
            if k not in b:
                return False
            other = b[k]
        else:
            found = [x for kb, x in b.items() if java_equals(k, ta.key, kb, tb.key)]
            if not found:
                return False
            other = found[0]
        if not java_equals(v, ta.value, other, tb.value):
            return False
    return True


def double_bits(v: float) -> tuple[bool, float, float]:
    """Double.doubleToLongBits up to what equality needs: every NaN alike, -0.0 apart from 0.0 (the sign
    goes with the value: a zero's sign alone must not stand for it)."""
    f = float(v)
    if f != f:
        return (True, 0.0, 0.0)
    return (False, f, math.copysign(1.0, f))


def _epoch_millis(v: int, t: T.SqlType) -> int:
    """A DATE (days), TIME (millis of the day) or TIMESTAMP (epoch millis) as its Java object's getTime()."""
    return v * _MS_PER_DAY if t == T.DATE else v
