"""CAST: which conversions ksqlDB supports (``CastEvaluator``) and the value conversions themselves.

``supported`` is the matrix the binder checks (an unsupported cast is a code-generation error);
``converter`` builds, once per query, the function converting a non-null value of one type to another.
Containers convert element-wise through converters built recursively.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ksqlpy import javatext
from ksqlpy import types as T
from ksqlpy.errors import KsqlTypeError
from ksqlpy.expr import runtime
from ksqlpy.functions import isotime

_DAY_MS = 86_400_000
_TEMPORAL = (T.DATE, T.TIME, T.TIMESTAMP)
_TO_STRING = (T.BOOLEAN, T.INTEGER, T.BIGINT, T.DOUBLE, T.STRING, T.DATE, T.TIME, T.TIMESTAMP)
_FROM_STRING = (T.BOOLEAN, T.INTEGER, T.BIGINT, T.DOUBLE, T.STRING, T.DATE, T.TIME, T.TIMESTAMP, T.BYTES)


def supported(src: T.SqlType, dst: T.SqlType) -> bool:
    """ksqlDB's CAST matrix (ksqldb-rules.md 2.6): NULL and same-type casts, numbers to numbers, most
    things to STRING (not BYTES), STRING to primitives, TIMESTAMP to DATE/TIME, DATE to TIMESTAMP, and
    containers of the same kind element-wise (STRUCT fields matched by name)."""
    if src == dst or isinstance(src, T.NullType):
        return True
    if T.is_numeric(src) and T.is_numeric(dst):
        return True
    if dst == T.STRING:
        return src in _TO_STRING or isinstance(src, T.Decimal | T.Array | T.Map | T.Struct)
    if src == T.STRING:
        return dst in _FROM_STRING or isinstance(dst, T.Decimal)
    if src == T.TIMESTAMP:
        return dst in (T.DATE, T.TIME)
    if src == T.DATE:
        return dst == T.TIMESTAMP
    if isinstance(src, T.Array) and isinstance(dst, T.Array):
        return supported(src.element, dst.element)
    if isinstance(src, T.Map) and isinstance(dst, T.Map):
        return supported(src.key, dst.key) and supported(src.value, dst.value)
    if isinstance(src, T.Struct) and isinstance(dst, T.Struct):
        return all(supported(st, ft) for name, ft in dst.fields if (st := src.field(name)) is not None)
    return False


def unsupported_message(src: T.SqlType, dst: T.SqlType) -> str:
    return f"Cast of {src} to {dst} is not supported"


def _parse_integral(bits: int) -> Callable[[str], int]:
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def parse(s: str) -> int:
        text = javatext.java_trim(s)
        body = text[1:] if text[:1] in "+-" else text
        if not body.isdecimal():  # Java's Character.digit takes any Unicode decimal digit
            raise ValueError(f"For input string: \"{text}\"")
        v = int(text)
        if not lo <= v <= hi:
            raise ValueError(f"For input string: \"{text}\"")
        return v

    return parse


def parse_boolean(s: str) -> bool:
    """ksqlDB's string to BOOLEAN: a non-empty prefix of ``true`` or ``yes`` (any case); anything else is
    false."""
    low = javatext.java_trim(s).lower()
    return bool(low) and ("true".startswith(low) or "yes".startswith(low))


def _str_to_double(s: str) -> float:
    """ksqlDB's CAST of STRING to DOUBLE: Java's ``Double.parseDouble`` (blanks, ``d``/``f`` suffixes, hex floats,
    ``1e5``/``.5``/``5.``), but a NaN or infinite result is refused - ``NaN``, ``Infinity`` and text overflowing
    to infinity (``1e400``). Only CAST checks this; the value formats' readers keep ``Double.parseDouble``."""
    v = javatext.parse_double(s)
    if not math.isfinite(v):
        raise ValueError(f"Cannot cast '{s}' to DOUBLE")
    return v


def _saturate(lo: int, hi: int) -> Callable[[float], int]:
    """Java's (int)/(long) of a double: truncation toward zero, saturating at the range, NaN is 0."""
    def conv(v: float) -> int:
        if v != v:
            return 0
        if v >= hi:
            return hi
        if v <= lo:
            return lo
        return int(v)

    return conv


def java_text(t: T.SqlType) -> Callable[[Any], str]:
    """``Objects.toString`` of a non-null value of ``t`` as ksqlDB holds it, which CAST(container AS STRING)
    prints: a list ``[a, b]``, a map ``{k=v, ...}`` in its java.util.HashMap's order, a Connect ``Struct{F=v,...}``
    (NULL fields left out) at any depth, and inside them a DATE, TIME or TIMESTAMP as its java.sql class prints
    itself (``2020-01-02``, ``10:11:12``, ``2020-01-02 10:11:12.5``, in UTC), a DECIMAL as BigDecimal.toString,
    BYTES as its ByteBuffer."""
    if isinstance(t, T.Array):
        element = java_text(t.element)
        return lambda v: "[" + ", ".join("null" if x is None else element(x) for x in v) + "]"
    if isinstance(t, T.Map):
        from ksqlpy.functions.map import java_map_items

        key, value = java_text(t.key), java_text(t.value)
        return lambda v: "{" + ", ".join(f"{'null' if k is None else key(k)}={'null' if x is None else value(x)}"
                                         for k, x in java_map_items(v)) + "}"
    if isinstance(t, T.Struct):
        fields = [(name, java_text(ft)) for name, ft in t.fields]
        return lambda v: "Struct{" + ",".join(f"{name}={text(v[name])}" for name, text in fields
                                              if v.get(name) is not None) + "}"
    if t == T.DATE:
        return isotime.format_date_iso  # java.sql.Date: yyyy-mm-dd
    if t == T.TIME:
        return _sql_time_text
    if t == T.TIMESTAMP:
        return _sql_timestamp_text
    return javatext.java_str


def _sql_time_text(ms: int) -> str:
    """``java.sql.Time.toString``: hh:mm:ss, never the milliseconds."""
    seconds = ms // 1000
    return f"{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _sql_timestamp_text(ms: int) -> str:
    """``java.sql.Timestamp.toString``: yyyy-mm-dd hh:mm:ss.f, the fraction's trailing zeros dropped (``.0``)."""
    days, rest = divmod(ms, _DAY_MS)
    fraction = f"{rest % 1000 * 1_000_000:09d}".rstrip("0") or "0"
    return f"{isotime.format_date_iso(days)} {_sql_time_text(rest)}.{fraction}"


def _bytes_of(s: str) -> bytes:
    """STRING -> BYTES: the trimmed text read as base64 the way Java's decoder reads it (padding optional)."""
    return javatext.base64_decode(javatext.java_trim(s))


_TIME_TYPES = (T.DATE, T.TIME, T.TIMESTAMP)


def cast_converter(src: T.SqlType, dst: T.SqlType) -> Callable[[Any], Any] | None:
    """``converter`` as an explicit CAST applies it: ksqlDB's cast trims text before it reads any type from it,
    so a DATE/TIME/TIMESTAMP is parsed from the trimmed text too (comparisons and literal lists parse the text
    as it is)."""
    return converter(src, dst, trim_text=True)


def converter(src: T.SqlType, dst: T.SqlType, *, trim_text: bool = False) -> Callable[[Any], Any] | None:
    """A function converting a non-null value of ``src`` to ``dst``; None means identity.
    Raises KsqlTypeError when the cast is not supported."""
    if src == dst or isinstance(src, T.NullType):
        return None
    if T.is_numeric(src) and T.is_numeric(dst):
        if dst == T.DOUBLE:
            return float
        if isinstance(dst, T.Decimal):
            p, s = dst.precision, dst.scale
            return lambda v: runtime.cast_decimal(v, p, s)
        if dst == T.BIGINT:
            if src == T.INTEGER:
                return None
            if src == T.DOUBLE:
                return _saturate(-(2**63), 2**63 - 1)
            return lambda v: runtime.wrap_long(int(v))
        if dst == T.INTEGER:
            if src == T.DOUBLE:
                return _saturate(-(2**31), 2**31 - 1)
            return lambda v: runtime.wrap_int(int(v))
    if dst == T.STRING:
        if src == T.DOUBLE:
            return javatext.double_to_string
        if isinstance(src, T.Decimal):
            return javatext.decimal_to_plain
        if src == T.BOOLEAN:
            return lambda v: "true" if v else "false"
        if src in (T.INTEGER, T.BIGINT):
            return str
        if src == T.TIMESTAMP:
            return isotime.format_timestamp_iso
        if src == T.DATE:
            return isotime.format_date_iso
        if src == T.TIME:
            return isotime.format_time_cast
        if isinstance(src, T.Struct | T.Array | T.Map):
            return java_text(src)
    if src == T.STRING:
        if dst == T.INTEGER:
            return _parse_integral(32)
        if dst == T.BIGINT:
            return _parse_integral(64)
        if dst == T.DOUBLE:
            return _str_to_double
        if isinstance(dst, T.Decimal):
            p, s = dst.precision, dst.scale
            return lambda v: runtime.cast_decimal(v, p, s)
        if dst == T.BOOLEAN:
            return parse_boolean
        if dst == T.BYTES:
            return _bytes_of
        if dst in _TIME_TYPES:
            parse = {T.TIMESTAMP: isotime.parse_timestamp_iso, T.DATE: isotime.parse_date_iso,
                     T.TIME: isotime.parse_time_iso}[dst]
            return (lambda v: parse(javatext.java_trim(v))) if trim_text else parse
    if src == T.TIMESTAMP and dst == T.DATE:
        return lambda v: v // _DAY_MS
    if src == T.TIMESTAMP and dst == T.TIME:
        return lambda v: v % _DAY_MS
    if src == T.DATE and dst == T.TIMESTAMP:
        return lambda v: v * _DAY_MS
    if isinstance(src, T.Array) and isinstance(dst, T.Array):
        inner = converter(src.element, dst.element, trim_text=trim_text)
        if inner is None:
            return None
        return lambda v: [None if x is None else inner(x) for x in v]
    if isinstance(src, T.Map) and isinstance(dst, T.Map):
        kc = converter(src.key, dst.key, trim_text=trim_text)
        vc = converter(src.value, dst.value, trim_text=trim_text)
        if kc is None and vc is None:
            return None
        kf = kc or (lambda x: x)
        vf = vc or (lambda x: x)
        return lambda v: {(None if k is None else kf(k)): (None if x is None else vf(x)) for k, x in v.items()}
    if isinstance(src, T.Struct) and isinstance(dst, T.Struct):
        convs = {}
        for name, ft in dst.fields:
            st = src.field(name)
            convs[name] = converter(st, ft, trim_text=trim_text) if st is not None else None
        names = [n for n, _ in dst.fields]
        return lambda v: {n: (None if v.get(n) is None else (convs[n] or (lambda x: x))(v.get(n))) for n in names}
    raise KsqlTypeError(unsupported_message(src, dst))

