"""ksqlDB's ``DefaultSqlValueCoercer.STRICT``: how an evaluated INSERT VALUES value becomes a column's value.

Only widening numbers (INT -> BIGINT/DECIMAL/DOUBLE, BIGINT -> DECIMAL/DOUBLE, DECIMAL -> DECIMAL that fits
without rounding, or DOUBLE), strings parsed as DATE/TIME/TIMESTAMP or decoded as base64 BYTES, and containers element by
element; a STRUCT takes the target's fields by exact name (a missing one is NULL, an extra one dropped), at
every nesting level. Nothing narrows and nothing becomes a STRING.
"""

from __future__ import annotations

import binascii
import decimal
from typing import Any

from ksqlpy import javatext
from ksqlpy import types as T


class CoercionFailed(Exception):
    """The value cannot become the target type; ``hint`` explains a badly written time value."""

    def __init__(self, hint: str = "") -> None:
        super().__init__(hint)
        self.hint = hint


_TIME_HINTS = {
    "TIMESTAMP": ". Timestamp format must be yyyy-mm-ddThh:mm:ss[.S]",
    "TIME": ". Time format must be hh:mm:ss[.S]",
    "DATE": ". Date format must be yyyy-mm-dd",
}


def coerce_strict(value: Any, src: T.SqlType, dst: T.SqlType) -> Any:
    """``value`` (of SQL type ``src``) as a value of ``dst``; CoercionFailed if STRICT mode refuses."""
    if value is None or isinstance(src, T.NullType):
        return None
    if isinstance(dst, T.Struct):
        if not isinstance(src, T.Struct):
            raise CoercionFailed
        out: dict[str, Any] = {}
        for name, ft in dst.fields:
            st = src.field(name)
            out[name] = None if st is None else coerce_strict(value.get(name), st, ft)
        return out
    if isinstance(dst, T.Array):
        if not isinstance(src, T.Array):
            raise CoercionFailed
        return [coerce_strict(v, src.element, dst.element) for v in value]
    if isinstance(dst, T.Map):
        if not isinstance(src, T.Map):
            raise CoercionFailed
        return {coerce_strict(k, src.key, dst.key): coerce_strict(v, src.value, dst.value) for k, v in value.items()}
    if src == dst:
        return value
    if isinstance(dst, T.Decimal):
        if src in (T.INTEGER, T.BIGINT) or isinstance(src, T.Decimal):
            return _fit(decimal.Decimal(value), dst)
        raise CoercionFailed
    if dst == T.BIGINT and src == T.INTEGER:
        return value
    if dst == T.DOUBLE and (src in (T.INTEGER, T.BIGINT) or isinstance(src, T.Decimal)):
        return float(value)
    if src == T.STRING and dst.name in _TIME_HINTS:
        return _parse_time(value, dst)
    if src == T.STRING and dst == T.BYTES:
        try:
            # Java's Base64.getDecoder(): the padding may be left out (``AAE``), a final unit of one
            # character, wrong padding or a blank is refused
            return javatext.base64_decode(value)
        except (binascii.Error, ValueError):
            raise CoercionFailed from None
    raise CoercionFailed


def _fit(value: decimal.Decimal, dst: T.Decimal) -> decimal.Decimal:
    """``DecimalUtil.ensureFit``: the integer digits must fit and the value is never rounded (decimal places
    beyond the scale may only be zeros)."""
    q = value.quantize(decimal.Decimal(1).scaleb(-dst.scale), context=decimal.Context(prec=1000))
    digits = len(q.as_tuple().digits)
    if q != value or (q != 0 and digits > dst.precision):
        raise CoercionFailed
    return q


def _parse_time(text: str, dst: T.SqlType) -> int:
    from ksqlpy.functions import isotime

    parse = {"TIMESTAMP": isotime.parse_timestamp_iso, "TIME": isotime.parse_time_iso,
             "DATE": isotime.parse_date_iso}[dst.name]
    try:
        return parse(text)
    except Exception:  # noqa: BLE001 - any unparseable text is the same user error
        raise CoercionFailed(_TIME_HINTS[dst.name]) from None


def base_type_name(t: T.SqlType) -> str:
    """ksqlDB's ``SqlBaseType`` name of a type (``INTEGER``, ``DECIMAL``, ``STRUCT``...)."""
    if isinstance(t, T.NullType):
        return "NULL"
    return "INTEGER" if t.name == "INT" else t.name


def java_value_text(value: Any, t: T.SqlType) -> str:
    """The evaluated value as ksqlDB's message prints it (Java's toString of the value): a DATE, TIME or
    TIMESTAMP - at any depth - as its java.sql class prints itself (``2020-01-02``, ``10:11:12``,
    ``2020-01-02 10:11:12.5``, in UTC), as CAST(... AS STRING) of a container prints them."""
    if value is None:
        return "null"
    if t in (T.DATE, T.TIME, T.TIMESTAMP) and isinstance(value, int) and not isinstance(value, bool):
        from ksqlpy.expr.casts import java_text

        return java_text(t)(value)
    if isinstance(t, T.Struct):
        return "Struct{" + ",".join(f"{n}={java_value_text(value.get(n), ft)}" for n, ft in t.fields
                                    if value.get(n) is not None) + "}"
    if isinstance(t, T.Array):
        return "[" + ", ".join(java_value_text(v, t.element) for v in value) + "]"
    if isinstance(t, T.Map):
        return "{" + ", ".join(f"{java_value_text(k, t.key)}={java_value_text(v, t.value)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, str):
        return value
    return javatext.java_str(value)
