"""How a JSON row of ``/inserts-stream`` becomes column values: ksqlDB's ``KeyValueExtractor`` (from memory).

The row's field names are identifiers (``Identifiers.getIdentifierText``): upper-cased unless written in
back-quotes, then exact. Each value, as Vert.x decoded it (a whole number an ``Integer`` when it fits 32
bits, else a ``Long``, else a ``BigInteger``; a fraction a ``Double``; text, booleans, objects and arrays),
goes through the STRICT coercion INSERT VALUES uses (``expr/strict_coercion.py``: numbers only widen,
strings become DATE/TIME/TIMESTAMP or base64 BYTES, nothing else becomes a STRING), plus what the API adds
for DECIMAL (ApiSqlValueCoercer.coerceDecimal, from memory): a ``Double`` (a JSON fraction) or a ``String``
holding a number (``"12.34"``, as clients that keep a decimal's digits send it) becomes a DECIMAL that
holds it without rounding. The rule is the same at every depth: inside a STRUCT, MAP or ARRAY a string
is no INT, as at the top. An object is a STRUCT (fields by name, exact then upper-cased) or a MAP, an array an ARRAY.
A value that does not coerce is refused as the endpoint words it:
``Can't coerce a field of type class java.lang.String (x) into type INTEGER`` (40000).
"""

from __future__ import annotations

import decimal
import re
from typing import Any

import orjson

from ksqlpy import javatext
from ksqlpy import types as T
from ksqlpy.expr.strict_coercion import CoercionFailed, coerce_strict

INT32 = (-(2 ** 31), 2 ** 31 - 1)
INT64 = (-(2 ** 63), 2 ** 63 - 1)


class CoercionRefused(ValueError):
    """A row's value the column's type does not take (an error ack, 40000)."""


def field_name(name: str) -> str:
    """A JSON field name as the column name it means (Identifiers.getIdentifierText)."""
    if len(name) >= 2 and name.startswith("`") and name.endswith("`"):
        return name[1:-1].replace("``", "`")
    return name.upper()


def column_values(row: dict[str, Any]) -> dict[str, Any]:
    """The row keyed by column name (a later field meaning the same column wins, as JsonObject.put)."""
    return {field_name(k): v for k, v in row.items()}


def coerce(value: Any, dst: T.SqlType) -> Any:
    """``value`` (decoded JSON) as a value of ``dst``, or CoercionRefused with ksqlDB's words."""
    if value is None:
        return None
    try:
        return _coerce(value, dst)
    except (CoercionFailed, _Mismatch):
        raise CoercionRefused(f"Can't coerce a field of type {java_class(value)} ({java_text(value)}) into type "
                              f"{dst}") from None


class _Mismatch(Exception):
    pass


def _coerce(value: Any, dst: T.SqlType) -> Any:
    if value is None:
        return None
    if isinstance(value, dict):
        if isinstance(dst, T.Struct):
            upper = {k.upper(): v for k, v in value.items()}
            return {n: _coerce(value[n] if n in value else upper.get(n.upper()), ft) for n, ft in dst.fields}
        if isinstance(dst, T.Map):
            return {_coerce(k, dst.key): _coerce(v, dst.value) for k, v in value.items()}
        raise _Mismatch
    if isinstance(value, list):
        if isinstance(dst, T.Array):
            return [_coerce(v, dst.element) for v in value]
        raise _Mismatch
    if isinstance(value, float | str) and isinstance(dst, T.Decimal):
        # the API's DOUBLE -> DECIMAL (BigDecimal.valueOf: the double's shortest text) and STRING -> DECIMAL
        # (new BigDecimal(text): clients that keep a decimal's digits send it as text), never rounded
        return coerce_strict(_big_decimal(value), T.Decimal(38, 18), dst)
    return coerce_strict(value, _source_type(value), dst)


# the text Java's BigDecimal(String) reads: a sign, digits with at most one point, an optional exponent
_BIG_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _big_decimal(value: float | str) -> decimal.Decimal:
    if isinstance(value, str):
        if not _BIG_DECIMAL.fullmatch(value):
            raise _Mismatch
        return decimal.Decimal(value)
    exact = decimal.Decimal(repr(value))
    if not exact.is_finite():
        raise _Mismatch
    return exact


def _source_type(value: Any) -> T.SqlType:
    """The SQL type of the Java value Vert.x decodes a JSON scalar to."""
    if isinstance(value, bool):
        return T.BOOLEAN
    if isinstance(value, int):
        if INT32[0] <= value <= INT32[1]:
            return T.INTEGER
        if INT64[0] <= value <= INT64[1]:
            return T.BIGINT
        raise _Mismatch  # a BigInteger: no SQL type takes it
    if isinstance(value, float):
        return T.DOUBLE
    if isinstance(value, str):
        return T.STRING
    raise _Mismatch


def java_class(value: Any) -> str:
    """``value.getClass()`` as Java prints it, for the Vert.x decoding of a JSON value."""
    if isinstance(value, bool):
        return "class java.lang.Boolean"
    if isinstance(value, int):
        if INT32[0] <= value <= INT32[1]:
            return "class java.lang.Integer"
        return "class java.lang.Long" if INT64[0] <= value <= INT64[1] else "class java.math.BigInteger"
    if isinstance(value, float):
        return "class java.lang.Double"
    if isinstance(value, str):
        return "class java.lang.String"
    if isinstance(value, dict):
        return "class io.vertx.core.json.JsonObject"
    return "class io.vertx.core.json.JsonArray"


def java_text(value: Any) -> str:
    """``value.toString()``: Java's number texts, JSON text (compact) for objects and arrays."""
    if isinstance(value, dict | list):
        return orjson.dumps(value, default=str).decode()
    if isinstance(value, str):
        return value
    return javatext.java_str(value)
