"""The common type of a list of expressions, as ksqlDB's ``CoercionUtil.coerceUserList`` finds it.

This is the one place where a literal takes another type than its own: the elements of ``ARRAY[...]``,
the keys and the values of ``MAP(...)`` and the operand and items of ``IN (...)``. Comparisons never
coerce literals (ksqldb-rules.md 2.3, 2.5).

Left to right, the first non-NULL element fixes the running type and each next one must merge with it:

- a string literal against a numeric running type is parsed (INT if it fits, else BIGINT, DECIMAL with a
  point, DOUBLE with an exponent) and widens it; against BOOLEAN it must be a boolean word;
- an ARRAY/MAP/STRUCT constructor against a running type of its kind merges element- or field-wise
  (structs take the union of their fields); a mismatch inside is reported for the whole constructor;
- otherwise the element's type must coerce to the running type or the running type to the element's,
  leniently for literals (a number or a boolean reads as text) and strictly for other expressions.

So ``ARRAY['a', 1]`` is ``ARRAY<STRING>`` while ``ARRAY[1, 'a']`` is an error. ``coerce_to`` then gives
every element the common type: literals are converted, constructors rebuilt, other expressions cast.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal as PyDecimal
from typing import Any

from ksqlpy import javatext
from ksqlpy import types as T
from ksqlpy.expr import bound as B
from ksqlpy.expr import casts
from ksqlpy.expr.stages import BindError, Phase

_LAX_TO_STRING = (T.BOOLEAN, T.INTEGER, T.BIGINT, T.DOUBLE, T.TIMESTAMP, T.TIME, T.DATE)
_LAX_FROM_STRING = (T.BOOLEAN, T.INTEGER, T.BIGINT, T.DOUBLE)
_STRICT_FROM_STRING = (T.TIMESTAMP, T.TIME, T.DATE, T.BYTES)


class _Mismatch(Exception):
    def __init__(self, running: T.SqlType, item: B.Expr) -> None:
        self.running = running
        self.item = item


def common_type(items: Sequence[B.Expr], phase: Phase) -> T.SqlType | None:
    """The type every element of ``items`` takes (None: all are NULL); errors are reported in ``phase``."""
    running: T.SqlType | None = None
    for item in items:
        try:
            running = _merge(item, running)
        except _Mismatch as m:
            raise BindError(f"operator does not exist: {m.running} = {m.item.type} ({m.item})\n"
                            "Hint: You might need to add explicit type casts.", phase) from None
        except _BadLiteral as b:
            raise BindError(f'invalid input syntax for type {b.base}: "{b.text}".', phase) from None
    return running


def coerce_to(item: B.Expr, target: T.SqlType, phase: Phase) -> B.Expr:
    """``item`` as a value of ``target`` (the common type ``common_type`` found)."""
    try:
        return _coerce(item, target)
    except _BadLiteral as b:
        raise BindError(f'invalid input syntax for type {b.base}: "{b.text}".', phase) from None


# --------------------------------------------------------------------------- merging types


def _merge(item: B.Expr, running: T.SqlType | None) -> T.SqlType | None:
    t = item.type
    if isinstance(item, B.Literal) and item.value is None:  # NULL, also once typed by an inner list
        return running
    if running is None:
        return None if isinstance(t, T.NullType) else t
    if isinstance(t, T.NullType):
        return running
    if isinstance(running, T.Struct) and isinstance(item, B.StructCtor):
        return _wrap(item, running, lambda: _merge_struct(item, running))
    if isinstance(running, T.Map) and isinstance(item, B.MapCtor):
        return _wrap(item, running, lambda: T.Map(_merge_all([k for k, _ in item.entries], running.key),
                                                  _merge_all([v for _, v in item.entries], running.value)))
    if isinstance(running, T.Array) and isinstance(item, B.ArrayCtor):
        return _wrap(item, running, lambda: T.Array(_merge_all(list(item.items), running.element)))
    if isinstance(item, B.Literal) and t == T.STRING:
        if T.is_numeric(running):
            return _widen(running, _numeric_type_of(item.value, running))
        if running == T.BOOLEAN:
            _boolean_word(item.value, running)
            return running
    if T.is_numeric(t) and T.is_numeric(running):
        return _widen(running, t)
    lax = isinstance(item, B.Literal)
    if can_coerce(t, running, lax=lax):
        return running
    if can_coerce(running, t, lax=lax):
        return t
    raise _Mismatch(running, item)


def _wrap(item: B.Expr, running: T.SqlType, merge: Any) -> T.SqlType:
    try:
        return merge()
    except _Mismatch:
        raise _Mismatch(running, item) from None


def _merge_all(items: list[B.Expr], running: T.SqlType) -> T.SqlType:
    out: T.SqlType | None = running
    for i in items:
        out = _merge(i, out)
    assert out is not None
    return out


def _merge_struct(item: B.StructCtor, running: T.Struct) -> T.Struct:
    fields = dict(running.fields)
    for name, value in item.fields:
        if name in fields:
            merged = _merge(value, fields[name])
            assert merged is not None
            fields[name] = merged
        elif not isinstance(value.type, T.NullType):
            fields[name] = value.type
    return T.Struct(tuple(fields.items()))


def _widen(a: T.SqlType, b: T.SqlType) -> T.SqlType:
    """The numeric type holding both: DOUBLE over everything, DECIMALs widened, the wider integer."""
    if a == T.DOUBLE or b == T.DOUBLE:
        return T.DOUBLE
    if isinstance(a, T.Decimal) or isinstance(b, T.Decimal):
        da, db = T.as_decimal(a), T.as_decimal(b)
        scale = max(da.scale, db.scale)
        return T.Decimal(max(da.precision - da.scale, db.precision - db.scale) + scale, scale)
    return T.BIGINT if T.BIGINT in (a, b) else T.INTEGER


def can_coerce(src: T.SqlType, dst: T.SqlType, *, lax: bool) -> bool:
    """ksqlDB's value coercer at the type level: STRICT (numeric widening, STRING to time types and
    BYTES, containers element-wise, structs by field name) or LAX (also numbers, booleans and times to
    STRING and STRING to BOOLEAN and numbers) - the latter for literals."""
    if src == dst or isinstance(src, T.NullType):
        return True
    if T.is_numeric(src) and T.is_numeric(dst):
        return T.NUMERIC_ORDER[src.name] <= T.NUMERIC_ORDER[dst.name]
    if src == T.STRING and dst in _STRICT_FROM_STRING:
        return True
    if isinstance(src, T.Array) and isinstance(dst, T.Array):
        return can_coerce(src.element, dst.element, lax=lax)
    if isinstance(src, T.Map) and isinstance(dst, T.Map):
        return can_coerce(src.key, dst.key, lax=lax) and can_coerce(src.value, dst.value, lax=lax)
    if isinstance(src, T.Struct) and isinstance(dst, T.Struct):
        return all(can_coerce(st, ft, lax=lax) for name, ft in dst.fields if (st := src.field(name)) is not None)
    if lax:
        if dst == T.STRING and (src in _LAX_TO_STRING or isinstance(src, T.Decimal)):
            return True
        if src == T.STRING and (dst in _LAX_FROM_STRING or isinstance(dst, T.Decimal)):
            return True
    return False


# --------------------------------------------------------------------------- literals


class _BadLiteral(Exception):
    def __init__(self, base: str, text: str) -> None:
        self.base = base
        self.text = text


def _base(t: T.SqlType) -> str:
    return t.name


_INTEGRAL = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _numeric_type_of(text: str, running: T.SqlType) -> T.SqlType:
    """The type of a numeric string literal: INT if it parses as one, else BIGINT, else the DECIMAL of its
    value (``'2e1'`` is DECIMAL(2, 0))."""
    s = javatext.java_trim(text)
    if _INTEGRAL.fullmatch(s):
        v = int(s)
        if -(2**31) <= v < 2**31:
            return T.INTEGER
        if -(2**63) <= v < 2**63:
            return T.BIGINT
    if not _NUMBER.fullmatch(s):
        raise _BadLiteral(_base(running), text)
    return decimal_type_of(PyDecimal(s))


def decimal_type_of(d: PyDecimal) -> T.Decimal:
    """ksqlDB's ``DecimalUtil.fromValue``: the value's digits; a value under 1 counts its leading zero."""
    tup = d.as_tuple()
    exponent = int(tup.exponent)
    if exponent > 0:  # no negative scales: 2E+1 is 20
        tup = d.quantize(PyDecimal(1)).as_tuple()
        exponent = 0
    scale = -exponent
    precision = len(tup.digits)
    if precision <= scale:
        precision = scale + 1
    return T.Decimal(precision, scale)


def _boolean_word(text: str, running: T.SqlType) -> bool:
    low = javatext.java_trim(text).lower()
    if low and ("true".startswith(low) or "yes".startswith(low)):
        return True
    if low and ("false".startswith(low) or "no".startswith(low)):
        return False
    raise _BadLiteral(_base(running), text)


def literal_value(value: Any, src: T.SqlType, dst: T.SqlType) -> Any:
    """A literal's value read as ``dst`` (ksqlDB's lenient literal coercion)."""
    if value is None or src == dst:
        return value
    if dst == T.STRING:
        return value if isinstance(value, str) else javatext.java_str(value)
    if src == T.STRING:
        text = javatext.java_trim(value)
        if dst == T.BOOLEAN:
            return _boolean_word(value, dst)
        if T.is_numeric(dst):
            if not _NUMBER.fullmatch(text):
                raise _BadLiteral(_base(dst), value)
            return _numeric(PyDecimal(text), dst, value)
    if T.is_numeric(src) and T.is_numeric(dst):
        return _numeric(value, dst, str(value))
    conv = casts.converter(src, dst)
    try:
        return value if conv is None else conv(value)
    except Exception:  # noqa: BLE001 - a literal that does not read as the type
        raise _BadLiteral(_base(dst), str(value)) from None


def _numeric(v: Any, dst: T.SqlType, text: str) -> Any:
    if dst == T.DOUBLE:
        # a string read as a number is a BigDecimal first: it has no negative zero ('-0.0' is the DOUBLE 0.0)
        return float(v) if not isinstance(v, PyDecimal) or v else 0.0
    if isinstance(dst, T.Decimal):
        try:
            return casts.runtime.to_decimal(v, dst.precision, dst.scale)
        except ArithmeticError:
            raise _BadLiteral("DECIMAL", text) from None
    d = PyDecimal(v) if not isinstance(v, PyDecimal) else v
    if d != d.to_integral_value():
        raise _BadLiteral(_base(dst), text)
    return int(d)


# --------------------------------------------------------------------------- coercing elements


def _coerce(item: B.Expr, target: T.SqlType) -> B.Expr:
    if isinstance(item, B.Literal):
        if item.type == target:
            return item
        shown = item.shown if item.shown is not None else str(item)
        return B.Literal(literal_value(item.value, item.type, target), shown, type=target, pos=item.pos)
    if isinstance(item, B.ArrayCtor) and isinstance(target, T.Array):
        return B.ArrayCtor(tuple(_coerce(i, target.element) for i in item.items), type=target,
                           element_errors_null=item.element_errors_null, pos=item.pos)
    if isinstance(item, B.MapCtor) and isinstance(target, T.Map):
        entries = tuple((_coerce(k, target.key), _coerce(v, target.value)) for k, v in item.entries)
        return B.MapCtor(entries, type=target, element_errors_null=item.element_errors_null, pos=item.pos)
    if isinstance(item, B.StructCtor) and isinstance(target, T.Struct):
        # the fields it has take the target's field types; the cast adds the ones it lacks as NULL
        fields = tuple((name, _coerce(value, target.field(name) or value.type)) for name, value in item.fields)
        ctor = B.StructCtor(fields, type=T.Struct(tuple((n, v.type) for n, v in fields)),
                            element_errors_null=item.element_errors_null, pos=item.pos)
        return ctor if ctor.type == target else B.Cast(ctor, type=target, implicit=True, pos=item.pos)
    if item.type == target or isinstance(item.type, T.NullType):
        return item if item.type == target else B.Literal(None, type=target, pos=item.pos)
    return B.Cast(item, type=target, implicit=True, pos=item.pos)
