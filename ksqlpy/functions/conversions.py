"""CONVERSIONS functions: numbers from bytes. (Java text forms of values live in ``ksqlpy.javatext``.)"""

from __future__ import annotations

import struct
from typing import Any

from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, udf

CATEGORY = "CONVERSIONS"


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
