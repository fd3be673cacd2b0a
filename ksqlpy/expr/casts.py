"""CAST and implicit-cast code generation, with ksqlDB's conversion rules.

A cast is resolved from (source type, target type) once per query into a snippet or a converter
function; containers cast element-wise through a converter built recursively.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ksqlpy import javatext
from ksqlpy import types as T
from ksqlpy.errors import KsqlTypeError
from ksqlpy.expr import runtime

if TYPE_CHECKING:
    from ksqlpy.expr.compiler import Compiled, ExprCompiler

_DAY_MS = 86_400_000


def _temporal():  # type: ignore[no-untyped-def]
    from ksqlpy.functions import isotime

    return isotime


def _parse_int(s: str) -> int:
    return int(s.strip())


def _parse_bool(s: str) -> bool:
    return s.strip().lower() == "true"


def _str_to_double(s: str) -> float:
    return float(s.strip())


def converter(src: T.SqlType, dst: T.SqlType) -> Callable[[Any], Any] | None:
    """A function converting a non-null value of ``src`` to ``dst``; None means identity.
    Raises KsqlTypeError when the cast is not supported."""
    if src == dst or isinstance(src, T.NullType):
        return None
    if T.is_numeric(src) and T.is_numeric(dst):
        if dst == T.DOUBLE:
            return float
        if isinstance(dst, T.Decimal):
            p, s = dst.precision, dst.scale
            return lambda v: runtime.to_decimal(v, p, s)
        if dst == T.BIGINT:
            if src == T.INTEGER:
                return None
            return lambda v: runtime.wrap_long(int(v)) if v == v else 0
        if dst == T.INTEGER:
            return lambda v: runtime.wrap_int(int(v)) if v == v else 0
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
            return _temporal().format_timestamp_iso
        if src == T.DATE:
            return _temporal().format_date_iso
        if src == T.TIME:
            return _temporal().format_time_iso
        if isinstance(src, T.Struct):
            return javatext.struct_str
        if isinstance(src, (T.Array, T.Map)):
            return javatext.java_str
        if src == T.BYTES:
            return None if False else _bytes_str
    if src == T.STRING:
        if dst in (T.INTEGER, T.BIGINT):
            return _parse_int
        if dst == T.DOUBLE:
            return _str_to_double
        if isinstance(dst, T.Decimal):
            p, s = dst.precision, dst.scale
            return lambda v: runtime.to_decimal(v, p, s)
        if dst == T.BOOLEAN:
            return _parse_bool
        if dst == T.TIMESTAMP:
            return _temporal().parse_timestamp_iso
        if dst == T.DATE:
            return _temporal().parse_date_iso
        if dst == T.TIME:
            return _temporal().parse_time_iso
    if src == T.TIMESTAMP and dst == T.DATE:
        return lambda v: v // _DAY_MS
    if src == T.TIMESTAMP and dst == T.TIME:
        return lambda v: v % _DAY_MS
    if src == T.DATE and dst == T.TIMESTAMP:
        return lambda v: v * _DAY_MS
    if isinstance(src, T.Array) and isinstance(dst, T.Array):
        inner = converter(src.element, dst.element)
        if inner is None:
            return None
        return lambda v: [None if x is None else inner(x) for x in v]
    if isinstance(src, T.Map) and isinstance(dst, T.Map):
        kc, vc = converter(src.key, dst.key), converter(src.value, dst.value)
        if kc is None and vc is None:
            return None
        kf = kc or (lambda x: x)
        vf = vc or (lambda x: x)
        return lambda v: {(None if k is None else kf(k)): (None if x is None else vf(x)) for k, x in v.items()}
    if isinstance(src, T.Struct) and isinstance(dst, T.Struct):
        convs = {}
        for name, ft in dst.fields:
            st = src.field(name)
            convs[name] = converter(st, ft) if st is not None else None
        names = [n for n, _ in dst.fields]
        return lambda v: {n: (None if v.get(n) is None else (convs[n] or (lambda x: x))(v.get(n))) for n in names}
    raise KsqlTypeError(f"Cast of {src} to {dst} is not supported")


def _bytes_str(v: bytes) -> str:
    import base64

    return base64.b64encode(v).decode()


def cast_code(comp: ExprCompiler, c: Compiled, target: T.SqlType, implicit: bool = False) -> str:
    src = c.type
    if implicit and not T.can_implicitly_cast(src, target):
        raise KsqlTypeError(f"Cannot implicitly cast {src} to {target}")
    if src == target or isinstance(src, T.NullType):
        return c.code
    if src == T.INTEGER and target == T.BIGINT:
        return c.code
    if target == T.DOUBLE and T.is_numeric(src):
        return comp._guard([c], "float({0})")
    conv = converter(src, target)
    if conv is None:
        return c.code
    name = comp.const(conv, "cv")
    return comp._guard([c], name + "({0})")


def cast_compiled(comp: ExprCompiler, c: Compiled, target: T.SqlType) -> Compiled:
    from ksqlpy.expr.compiler import Compiled

    if c.literal and c.value is not None and not isinstance(target, (T.Array, T.Map, T.Struct)):
        conv = converter(c.type, target)
        try:
            v = c.value if conv is None else conv(c.value)
        except Exception:  # noqa: BLE001 - leave a failing literal cast to run time (NULL + log)
            return Compiled(cast_code(comp, c, target), target)
        code = repr(v) if isinstance(v, (int, float, str, bool)) and not (isinstance(v, float) and v != v) else comp.const(v, "k")
        return Compiled(code, target, True, v)
    return Compiled(cast_code(comp, c, target), target)
