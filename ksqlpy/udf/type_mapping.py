"""Python annotations of user functions -> SQL parameter patterns (the signature language of
``ksqlpy.functions.patterns``).

| annotation                                  | SQL                                  |
|---------------------------------------------|--------------------------------------|
| ``int`` / ``float`` / ``str`` / ``bool``    | BIGINT / DOUBLE / STRING / BOOLEAN   |
| ``Decimal`` / ``bytes``                     | DECIMAL (any precision) / BYTES      |
| ``datetime`` / ``date`` / ``time``          | TIMESTAMP / DATE / TIME              |
| ``list[T]`` / ``dict[K, V]``                | ARRAY<T> / MAP<K, V>                 |
| a dataclass or a TypedDict                  | STRUCT<FIELD T, ...> (names upper-cased) |
| a ``TypeVar``                               | a generic type (bound by the arguments) |
| ``typing.Any``                              | ANY (parameters only)                |
| a string that is not Python                 | a SQL type: ``"INT"``, ``"DECIMAL(10, 2)"``, ``"STRUCT<A INT>"``, ``"ARRAY<T>"`` |

``Optional[X]`` / ``X | None`` is ``X`` (every SQL value may be NULL); ``Annotated[X, "text"]`` is ``X``
with a parameter description. Annotations are read when the module is loaded, so string annotations (and
``from __future__ import annotations``) work, evaluated in the function's module.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import datetime as dt
import decimal
import sys
import types as pytypes
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ksqlpy import types as T
from ksqlpy.functions.patterns import (
    AnyDecimal,
    AnyType,
    ArrayOf,
    Exact,
    LambdaOf,
    MapOf,
    Pattern,
    Var,
    parse_pattern,
)
from ksqlpy.grammar import parse_type

_PLAIN: dict[Any, Pattern] = {
    bool: Exact(T.BOOLEAN),
    int: Exact(T.BIGINT),
    float: Exact(T.DOUBLE),
    str: Exact(T.STRING),
    bytes: Exact(T.BYTES),
    decimal.Decimal: AnyDecimal(),
    dt.datetime: Exact(T.TIMESTAMP),  # before date: a datetime is a date
    dt.date: Exact(T.DATE),
    dt.time: Exact(T.TIME),
}

SUPPORTED = ("int, float, str, bool, Decimal, bytes, datetime, date, time, list[T], dict[K, V], a dataclass, "
             "a TypedDict, a TypeVar, Any or a SQL type string such as 'DECIMAL(10, 2)'")


@dataclass(frozen=True)
class SqlTypeHint:
    """``Annotated`` metadata naming the SQL pattern of a parameter or result (``ksqlpy.udf.sql``)."""

    pattern: Pattern


class AnnotationError(ValueError):
    """An annotation that has no SQL type; the loader reports it with the function and the file."""


def resolve_annotation(ann: Any, namespace: Mapping[str, Any]) -> Any:
    """``ann`` with string forward references evaluated in ``namespace`` where they are Python; a string
    that is not Python stays a string (a SQL type)."""
    if isinstance(ann, typing.ForwardRef):
        ann = ann.__forward_arg__
    if isinstance(ann, str):
        try:
            value = eval(ann, dict(namespace))  # noqa: S307 - the user's own annotation, in their module
        except Exception:  # noqa: BLE001 - not Python: a SQL type string
            return ann
        return value
    return ann


def unwrap(ann: Any, namespace: Mapping[str, Any]) -> tuple[Any, str]:
    """(annotation without ``Optional``/``Annotated``, its description or "")."""
    base, doc, _ = unwrap_hint(ann, namespace)
    return base, doc


def unwrap_hint(ann: Any, namespace: Mapping[str, Any]) -> tuple[Any, str, SqlTypeHint | None]:
    """(annotation without ``Optional``/``Annotated``, its description, its ``SqlTypeHint`` if any)."""
    ann = resolve_annotation(ann, namespace)
    doc = ""
    hint = None
    while True:
        origin = typing.get_origin(ann)
        if origin is typing.Annotated:
            args = typing.get_args(ann)
            doc = next((a for a in args[1:] if isinstance(a, str)), doc)
            hint = next((a for a in args[1:] if isinstance(a, SqlTypeHint)), hint)
            ann = resolve_annotation(args[0], namespace)
        elif origin in (typing.Union, pytypes.UnionType):
            rest = [a for a in typing.get_args(ann) if a is not type(None)]
            if len(rest) != 1:
                raise AnnotationError(f"{_text(ann)} is a union; a parameter has one SQL type ({SUPPORTED})")
            ann = resolve_annotation(rest[0], namespace)
        else:
            return ann, doc, hint


def pattern_of(ann: Any, namespace: Mapping[str, Any], *, result: bool = False) -> Pattern:
    """The SQL pattern of an annotation; ``result``: for a return value (must be concrete after binding)."""
    ann, _, hint = unwrap_hint(ann, namespace)
    if hint is not None:
        return hint.pattern
    if ann is None or ann is type(None):
        raise AnnotationError(f"None has no SQL type ({SUPPORTED})")
    if isinstance(ann, str):
        return sql_pattern(ann)
    if isinstance(ann, typing.TypeVar):
        return Var(ann.__name__)
    if ann is typing.Any:
        if result:
            raise AnnotationError("a result of type Any has no SQL type: give a SQL type or a return-type provider")
        return AnyType()
    if isinstance(ann, type) and ann in _PLAIN:
        p = _PLAIN[ann]
        if result and isinstance(p, AnyDecimal):
            raise AnnotationError("a DECIMAL result needs its precision and scale: annotate it with a SQL type "
                                  "string such as 'DECIMAL(10, 2)' or give a return-type provider (returns=...)")
        return p
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin in (list, collections.abc.Sequence):
        if len(args) != 1:
            raise AnnotationError(f"{_text(ann)} needs its element type, e.g. list[int]")
        return ArrayOf(pattern_of(args[0], namespace, result=result))
    if origin in (dict, collections.abc.Mapping):
        if len(args) != 2:
            raise AnnotationError(f"{_text(ann)} needs its key and value types, e.g. dict[str, int]")
        return MapOf(pattern_of(args[0], namespace, result=result), pattern_of(args[1], namespace, result=result))
    if ann in (list, dict):
        raise AnnotationError(f"{ann.__name__} needs its element types, e.g. list[int] or dict[str, int]")
    if isinstance(ann, type) and (dataclasses.is_dataclass(ann) or typing.is_typeddict(ann)):
        return Exact(struct_type(ann))
    raise AnnotationError(f"{_text(ann)} has no SQL type ({SUPPORTED})")


def struct_type(cls: type) -> T.Struct:
    """The STRUCT of a dataclass or TypedDict: its fields in order, names upper-cased, types concrete."""
    fields = []
    for name, ann in struct_fields(cls).items():
        p = pattern_of(ann, module_namespace(cls), result=True)
        if not isinstance(p, Exact):
            raise AnnotationError(f"field {name!r} of {cls.__name__} needs a concrete SQL type, not {p} "
                                  "(a STRUCT's fields have fixed types)")
        fields.append((name.upper(), p.type))
    if not fields:
        raise AnnotationError(f"{cls.__name__} has no fields")
    return T.Struct(tuple(fields))


def struct_fields(cls: type) -> dict[str, Any]:
    """The (Python) field names of a dataclass or TypedDict with their raw annotations."""
    if dataclasses.is_dataclass(cls):
        return {f.name: f.type for f in dataclasses.fields(cls) if f.init}
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        hints.update(getattr(klass, "__annotations__", {}))
    return hints


def module_namespace(obj: Any) -> dict[str, Any]:
    """The globals of the module ``obj`` was defined in (where its string annotations are evaluated)."""
    module = sys.modules.get(getattr(obj, "__module__", ""), None)
    return dict(vars(module)) if module is not None else {}


def sql_pattern(text: str) -> Pattern:
    """A SQL type string: the signature language (INT, DECIMAL, ARRAY<T>, ANY...) or a full SQL type
    (STRUCT<A INT, B STRING>)."""
    try:
        return parse_pattern(text)
    except ValueError:
        pass
    try:
        t = parse_type(text)
    except Exception as e:  # noqa: BLE001 - reported as the annotation's problem
        raise AnnotationError(f"{text!r} is neither a Python type nor a SQL type ({SUPPORTED}): {e}") from None
    _check_concrete(t, text)
    return Exact(t)


def _check_concrete(t: T.SqlType, text: str) -> None:
    if isinstance(t, T.Array):
        _check_concrete(t.element, text)
    elif isinstance(t, T.Map):
        _check_concrete(t.key, text)
        _check_concrete(t.value, text)
    elif isinstance(t, T.Struct):
        for _, ft in t.fields:
            _check_concrete(ft, text)
    elif not isinstance(t, T.Primitive | T.Decimal):
        raise AnnotationError(f"{text!r} names the type {t}, which is not a SQL type a function can declare "
                              "(custom types from CREATE TYPE are not visible to functions)")


def concrete(p: Pattern) -> bool:
    """Whether a pattern is one concrete type (no generic, ANY, any-DECIMAL or any-STRUCT)."""
    if isinstance(p, Exact):
        return True
    if isinstance(p, ArrayOf):
        return concrete(p.element)
    if isinstance(p, MapOf):
        return concrete(p.key) and concrete(p.value)
    return False


def variables(p: Pattern) -> set[str]:
    """The generic type names a pattern uses."""
    if isinstance(p, Var):
        return {p.name}
    if isinstance(p, ArrayOf):
        return variables(p.element)
    if isinstance(p, MapOf):
        return variables(p.key) | variables(p.value)
    if isinstance(p, LambdaOf):
        return set().union(*(variables(x) for x in p.params), variables(p.result))
    return set()


def _text(ann: Any) -> str:
    if isinstance(ann, type):
        return ann.__qualname__
    return repr(ann).replace("typing.", "")


__all__ = ["AnnotationError", "concrete", "module_namespace", "pattern_of", "resolve_annotation", "SqlTypeHint", "sql_pattern",
           "struct_fields", "struct_type", "unwrap", "unwrap_hint", "variables"]
