"""Values between the engine's representation (``ksqlpy.types``) and what a user function sees.

A user function gets Python values: TIMESTAMP as an aware UTC ``datetime``, DATE as ``date``, TIME as
``time``, a STRUCT as a dict keyed by field name (or an instance, when the annotation is a dataclass; a
TypedDict's dict uses its own key spelling), ARRAY as list, MAP as dict. What it returns goes back the
other way: a DOUBLE result is made a float, a DECIMAL(p, s) result is rounded to scale s (HALF_UP), a
datetime without a zone is read as UTC. NULL is None both ways.

Converters are built once per resolved call from the concrete SQL type and the annotation; a type that
needs no conversion gets None, so the common case (numbers, strings) calls the function directly.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import typing
from collections.abc import Callable, Mapping
from typing import Any

from ksqlpy import types as T
from ksqlpy.udf.type_mapping import module_namespace, resolve_annotation, struct_fields, unwrap

Convert = Callable[[Any], Any]

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_DAY = dt.date(1970, 1, 1).toordinal()
_MS = dt.timedelta(milliseconds=1)


def to_python(t: T.SqlType, ann: Any = None, namespace: Mapping[str, Any] | None = None) -> Convert | None:
    """engine value -> Python value for a parameter of type ``t`` annotated ``ann``; None: as is."""
    ns = namespace or {}
    ann = unwrap(ann, ns)[0] if ann is not None else None
    if t == T.TIMESTAMP:
        return _null_safe(_ms_to_datetime)
    if t == T.DATE:
        return _null_safe(_days_to_date)
    if t == T.TIME:
        return _null_safe(_ms_to_time)
    if isinstance(t, T.Array):
        el = to_python(t.element, _arg(ann, 0), ns)
        return None if el is None else _null_safe(lambda v: [el(x) for x in v])
    if isinstance(t, T.Map):
        k, val = to_python(t.key, _arg(ann, 0), ns), to_python(t.value, _arg(ann, 1), ns)
        if k is None and val is None:
            return None
        k, val = k or _same, val or _same
        return _null_safe(lambda v: {k(a): val(b) for a, b in v.items()})
    if isinstance(t, T.Struct):
        return _struct_to_python(t, ann, ns)
    return None


# any DECIMAL's digits (Python's default context holds 28 and quantize refuses more)
_WIDE = decimal.Context(prec=1000)


def from_python(t: T.SqlType, ann: Any = None, namespace: Mapping[str, Any] | None = None) -> Convert | None:
    """Python value -> engine value for a result of type ``t``; None: as is."""
    ns = namespace or {}
    ann = unwrap(ann, ns)[0] if ann is not None else None
    if t == T.TIMESTAMP:
        return _null_safe(_datetime_to_ms)
    if t == T.DATE:
        return _null_safe(_date_to_days)
    if t == T.TIME:
        return _null_safe(_time_to_ms)
    if t == T.DOUBLE:
        return _TO_DOUBLE
    if isinstance(t, T.Decimal):
        quantum = decimal.Decimal(1).scaleb(-t.scale)
        return _null_safe(lambda v: _as_decimal(v).quantize(quantum, rounding=decimal.ROUND_HALF_UP, context=_WIDE))
    if isinstance(t, T.Array):
        el = from_python(t.element, _arg(ann, 0), ns) or _same
        return _null_safe(lambda v: [el(x) for x in v])
    if isinstance(t, T.Map):
        k = from_python(t.key, _arg(ann, 0), ns) or _same
        val = from_python(t.value, _arg(ann, 1), ns) or _same
        return _null_safe(lambda v: {k(a): val(b) for a, b in v.items()})
    if isinstance(t, T.Struct):
        return _struct_from_python(t, ann, ns)
    return None


# ------------------------------------------------------------------------------------------------ structs
def _struct_to_python(t: T.Struct, ann: Any, ns: Mapping[str, Any]) -> Convert | None:
    pyfields = _python_fields(ann, t)
    convs = [(sql, py, to_python(ft, pyann, ns)) for sql, ft, py, pyann in pyfields]
    if isinstance(ann, type) and dataclasses.is_dataclass(ann):
        cls = ann

        def to_instance(v: dict[str, Any]) -> Any:
            return cls(**{py: (c(v.get(sql)) if c else v.get(sql)) for sql, py, c in convs})

        return _null_safe(to_instance)
    if all(c is None and sql == py for sql, py, c in convs):
        return None
    return _null_safe(lambda v: {py: (c(v.get(sql)) if c else v.get(sql)) for sql, py, c in convs})


def _struct_from_python(t: T.Struct, ann: Any, ns: Mapping[str, Any]) -> Convert:
    pyfields = _python_fields(ann, t)
    convs = [(sql, py, from_python(ft, pyann, ns)) for sql, ft, py, pyann in pyfields]

    def to_engine(v: Any) -> dict[str, Any]:
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            get = lambda name: getattr(v, name, None)  # noqa: E731
        elif isinstance(v, Mapping):
            by_upper = {str(k).upper(): x for k, x in v.items()}
            get = lambda name: v[name] if name in v else by_upper.get(name.upper())  # noqa: E731
        else:
            raise TypeError(f"expected a dict or a dataclass for {t}, got {type(v).__name__}")
        out = {}
        for sql, py, c in convs:
            x = get(py)
            out[sql] = c(x) if (c is not None and x is not None) else x
        return out

    return _null_safe(to_engine)


def _python_fields(ann: Any, t: T.Struct) -> list[tuple[str, T.SqlType, str, Any]]:
    """(SQL field, its type, Python field name, Python annotation) for each field of ``t``."""
    py_names: dict[str, tuple[str, Any]] = {}
    if isinstance(ann, type) and (dataclasses.is_dataclass(ann) or typing.is_typeddict(ann)):
        ns = module_namespace(ann)
        for name, fann in struct_fields(ann).items():
            py_names[name.upper()] = (name, resolve_annotation(fann, ns))
    return [(sql, ft, *py_names.get(sql.upper(), (sql, None))) for sql, ft in t.fields]


# ------------------------------------------------------------------------------------------------ scalars
def _ms_to_datetime(ms: int) -> dt.datetime:
    return _EPOCH + ms * _MS


def _datetime_to_ms(v: Any) -> int:
    if isinstance(v, dt.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=dt.UTC)
        return (v - _EPOCH) // _MS
    if isinstance(v, dt.date):
        return (v.toordinal() - _EPOCH_DAY) * 86_400_000
    return int(v)


def _days_to_date(days: int) -> dt.date:
    return dt.date.fromordinal(_EPOCH_DAY + days)


def _date_to_days(v: Any) -> int:
    if isinstance(v, dt.date):  # a datetime: its date
        return v.toordinal() - _EPOCH_DAY
    return int(v)


def _ms_to_time(ms: int) -> dt.time:
    s, ms = divmod(ms, 1000)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    return dt.time(h, m, s, ms * 1000)


def _time_to_ms(v: Any) -> int:
    if isinstance(v, dt.time):
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000
    return int(v)


def _as_decimal(v: Any) -> decimal.Decimal:
    if isinstance(v, decimal.Decimal):
        return v
    if isinstance(v, float):
        return decimal.Decimal(repr(v))
    return decimal.Decimal(v)


def _to_double(v: Any) -> Any:
    return None if v is None else float(v)


_to_double.to_double = True  # type: ignore[attr-defined] # adapters inline it (ksqlpy.udf.build)
_TO_DOUBLE: Convert = _to_double


def _same(v: Any) -> Any:
    return v


def _null_safe(f: Convert) -> Convert:
    def convert(v: Any) -> Any:
        return None if v is None else f(v)

    return convert


def _arg(ann: Any, i: int) -> Any:
    args = typing.get_args(ann) if ann is not None else ()
    return args[i] if i < len(args) else None


__all__ = ["Convert", "from_python", "to_python"]
