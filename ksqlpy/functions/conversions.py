"""CONVERSIONS functions (numbers from bytes) and the Java text forms of values that several function
families share: ``java_double_str`` (Double.toString), ``java_decimal_str`` (BigDecimal.toString) and
``java_str`` (String.valueOf of a SQL value, as ARRAY_JOIN and friends print elements)."""

from __future__ import annotations

import math
import struct
from decimal import Decimal as PyDecimal
from typing import Any

from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, udf

CATEGORY = "CONVERSIONS"


def java_double_str(d: float) -> str:
    """Double.toString: plain in [1e-3, 1e7), otherwise computerized scientific notation (``1.0E10``)."""
    if d != d:
        return "NaN"
    if d == math.inf:
        return "Infinity"
    if d == -math.inf:
        return "-Infinity"
    if d == 0:
        return "-0.0" if math.copysign(1.0, d) < 0 else "0.0"
    r = repr(d)
    a = abs(d)
    if 1e-3 <= a < 1e7 and "e" not in r:
        return r if "." in r else r + ".0"
    sign, digits, exponent = PyDecimal(r).as_tuple()
    ds = "".join(map(str, digits))
    point = len(ds) + int(exponent)  # decimal point position relative to the first digit
    ds = ds.rstrip("0") or "0"
    neg = "-" if sign else ""
    if 1e-3 <= a < 1e7:
        if point <= 0:
            return f"{neg}0.{'0' * -point}{ds}"
        if point >= len(ds):
            return f"{neg}{ds}{'0' * (point - len(ds))}.0"
        return f"{neg}{ds[:point]}.{ds[point:]}"
    mantissa = ds[0] + "." + (ds[1:] or "0")
    return f"{neg}{mantissa}E{point - 1}"


def java_decimal_str(d: PyDecimal) -> str:
    """BigDecimal.toString (the same to-scientific-string rules as Python's Decimal, minus negative zero)."""
    if d.is_zero() and d.is_signed():
        d = d.copy_abs()
    return str(d)


def java_str(v: Any) -> str:
    """String.valueOf for a SQL value: ``null``, ``true``, Java number formats, lists and maps Java-style."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float):
        return java_double_str(v)
    if isinstance(v, PyDecimal):
        return java_decimal_str(v)
    if isinstance(v, list):
        return "[" + ", ".join(java_str(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{java_str(k)}={java_str(x)}" for k, x in v.items()) + "}"
    if isinstance(v, bytes):
        return f"java.nio.HeapByteBuffer[pos=0 lim={len(v)} cap={len(v)}]"
    return str(v)


_ORDERS = {"BIG_ENDIAN": ">", "LITTLE_ENDIAN": "<"}


def _order(byte_order: str) -> str:
    try:
        return _ORDERS[byte_order.upper()]
    except KeyError:
        raise FunctionError(
            f"Byte order must be BIG_ENDIAN or LITTLE_ENDIAN. Unknown byte order '{byte_order}'."
        ) from None


def _from_bytes(fmt: str, size: int):
    def one(value: bytes, byte_order: str = "BIG_ENDIAN") -> Any:
        if len(value) != size:
            raise FunctionError(f"Number of bytes must be equal to {size}, but found {len(value)}")
        return struct.unpack(_order(byte_order) + fmt, value)[0]

    return one


def register(registry: FunctionRegistry) -> None:
    for name, ret, fmt, size in (
        ("INT_FROM_BYTES", "INT", "i", 4),
        ("BIGINT_FROM_BYTES", "BIGINT", "q", 8),
        ("DOUBLE_FROM_BYTES", "DOUBLE", "d", 8),
    ):
        fn = _from_bytes(fmt, size)
        registry.register(
            udf(
                name,
                category=CATEGORY,
                description=f"Converts a BYTES value of {size} bytes to {ret}, big endian unless a byte order "
                "('BIG_ENDIAN' or 'LITTLE_ENDIAN') is given.",
                null_on_null=True,
                overloads=[("BYTES", ret, fn), ("BYTES, STRING", ret, fn)],
            )
        )
