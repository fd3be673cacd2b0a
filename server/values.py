"""SQL values and schemas as ksqlDB writes them in REST responses.

Rows leave the engine as plain Python values (see ``ksqlpy.types``); on the wire TIMESTAMP, DATE and TIME
are ISO strings, BYTES base64, DECIMAL a plain number (never exponent form), STRUCT an object. A converter
is built once per query from the column types, then applied per row.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
from collections.abc import Callable
from typing import Any

import orjson

from ksqlpy import types as T

Conv = Callable[[Any], Any]
_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_DATE = dt.date(1970, 1, 1)


def _timestamp(v: Any) -> Any:
    if not isinstance(v, int):
        return v
    t = _EPOCH + dt.timedelta(milliseconds=v)
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}.{t.microsecond // 1000:03d}"


def _date(v: Any) -> Any:
    return (_EPOCH_DATE + dt.timedelta(days=v)).isoformat() if isinstance(v, int) else v


def _time(v: Any) -> Any:
    """java.time.LocalTime#toString: HH:mm, HH:mm:ss or HH:mm:ss.SSS, whichever is shortest exact."""
    if not isinstance(v, int):
        return v
    ms = v % 1000
    s, m, h = (v // 1000) % 60, (v // 60000) % 60, v // 3600000
    if ms:
        return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"
    if s:
        return f"{h:02d}:{m:02d}:{s:02d}"
    return f"{h:02d}:{m:02d}"


def _bytes(v: Any) -> Any:
    return base64.b64encode(v).decode("ascii") if isinstance(v, bytes | bytearray | memoryview) else v


def _decimal(v: Any) -> Any:
    if isinstance(v, decimal.Decimal):
        return orjson.Fragment(format(v, "f").encode()) if v.is_finite() else str(v)
    return v


def _double(v: Any) -> Any:
    if isinstance(v, float) and v - v != 0:
        return "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")
    return v


def converter(t: T.SqlType) -> Conv | None:
    """A function turning a value of ``t`` into its JSON form, or None when it is already JSON-ready."""
    name = t.name
    if name == "TIMESTAMP":
        return _timestamp
    if name == "DATE":
        return _date
    if name == "TIME":
        return _time
    if name == "BYTES":
        return _bytes
    if name == "DECIMAL":
        return _decimal
    if name == "DOUBLE":
        return _double
    if isinstance(t, T.Array):
        ce = converter(t.element)
        if ce is None:
            return None
        return lambda v: None if v is None else [ce(x) for x in v]
    if isinstance(t, T.Map):
        cv = converter(t.value)
        if cv is None:
            return lambda v: None if v is None else {str(k): x for k, x in v.items()}
        return lambda v: None if v is None else {str(k): cv(x) for k, x in v.items()}
    if isinstance(t, T.Struct):
        convs = [(n, converter(ft)) for n, ft in t.fields]
        if all(c is None for _, c in convs):
            return None

        def struct(v: Any) -> Any:
            if v is None:
                return None
            return {n: (c(v.get(n)) if c is not None else v.get(n)) for n, c in convs}

        return struct
    return None


def row_converter(types: list[T.SqlType]) -> Callable[[tuple | list], list[Any]]:
    """Per-query: a function turning an engine row into the list written on the wire."""
    convs = [converter(t) for t in types]
    if all(c is None for c in convs):
        return list
    pairs = list(enumerate(convs))

    def convert(row: tuple | list) -> list[Any]:
        out = list(row)
        for i, c in pairs:
            if c is not None and out[i] is not None:
                out[i] = c(out[i])
        return out

    return convert


def dumps(obj: Any) -> bytes:
    """JSON bytes for a response: DECIMAL as exact numbers, anything unknown as its string form."""
    return orjson.dumps(obj, default=_default)


def _default(o: Any) -> Any:
    if isinstance(o, decimal.Decimal):
        return orjson.Fragment(format(o, "f").encode())
    if isinstance(o, bytes | bytearray | memoryview):
        return base64.b64encode(o).decode("ascii")
    if isinstance(o, set | frozenset | tuple):
        return list(o)
    return str(o)


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def schema_string(columns: list[tuple[str, T.SqlType, bool]]) -> str:
    """`` `A` INTEGER KEY, `B` STRING``: the header schema of /query and the v1+json /query-stream."""
    return ", ".join(f"{quote(n)} {t}{' KEY' if key else ''}" for n, t, key in columns)
