"""The decorators of the public API: ``@udf``, ``@udaf``, ``@udtf`` (ksqlDB's ``@Udf``, ``@UdafFactory``,
``@Udtf``).

A decorator only records a ``Declaration`` - on the object (``__ksqlpy_declarations__``) and in the
defining module's globals (``__ksqlpy_functions__``, in declaration order, so two functions with one
Python name that overload one SQL name are both kept). Nothing is registered anywhere: the loader
(``ksqlpy.udf.loader``) reads the declarations of the modules an engine loads and turns them into that
engine's functions, reading the annotations then (so forward references and dataclasses defined further
down the module work).
"""

from __future__ import annotations

import enum
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from ksqlpy.types import SqlType

F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound=type)

# a return-type provider (ksqlDB's schema provider): the argument types of a call -> the result type
TypeProvider = Callable[[list[SqlType]], "SqlType | str"]
# a result type: a SQL type string, an annotation (sql.INT, list[int], a dataclass...) or a provider
TypeSpec = str | TypeProvider | Any | None

MODULE_ATTRIBUTE = "__ksqlpy_functions__"
OBJECT_ATTRIBUTE = "__ksqlpy_declarations__"


class Kind(enum.Enum):
    SCALAR = "scalar"
    AGGREGATE = "aggregate"
    TABLE = "table"


@dataclass(frozen=True)
class Declaration:
    """One overload of a user function, as written: the decorated object and the decorator's options."""

    kind: Kind
    name: str
    target: Any  # the function (scalar, table) or the class (aggregate)
    description: str = ""
    category: str = "OTHER"
    returns: TypeSpec = None  # overrides the return annotation (UDTF: the type of one row's value)
    aggregate: TypeSpec = None  # UDAF: overrides initialize's annotation (the aggregate / state type)
    params: Mapping[str, str] = field(default_factory=dict)  # parameter name -> description
    vectorized: bool | Literal["numpy", "arrow"] = False
    deterministic: bool = True
    author: str = ""
    version: str = ""


def udf(name: str, *, description: str = "", category: str = "OTHER", returns: TypeSpec = None,
        params: Mapping[str, str] | None = None, vectorized: bool | Literal["numpy", "arrow"] = False,
        deterministic: bool = True, author: str = "", version: str = "") -> Callable[[F], F]:
    """Declare a scalar function (one overload of ``name``; declare several with one name to overload).

    Parameter and return types come from the annotations (see ``ksqlpy.udf.type_mapping``); ``returns``
    overrides the return type with a SQL type string or a provider ``fn(argument types) -> type``.
    ``vectorized=True``: the function receives one list per argument for a whole batch and returns a list
    (or a NumPy or Arrow array) of as many results; ``vectorized="numpy"`` passes NumPy arrays and
    ``vectorized="arrow"`` ``pyarrow`` arrays instead (``ksqlpy.udf.batch``).
    """

    if vectorized not in (True, False, "numpy", "arrow"):
        raise TypeError(f"@udf({name!r}): vectorized is True, False, 'numpy' or 'arrow', not {vectorized!r}")

    def mark(fn: F) -> F:
        if isinstance(fn, type) or not callable(fn):
            raise TypeError(f"@udf({name!r}) decorates a function, not {fn!r}")
        _declare(Declaration(Kind.SCALAR, _name(name), fn, description, category, returns, None,
                             dict(params or {}), vectorized, deterministic, author, version))
        return fn

    return mark


def udtf(name: str, *, description: str = "", returns: TypeSpec = None, params: Mapping[str, str] | None = None,
         deterministic: bool = True, author: str = "", version: str = "") -> Callable[[F], F]:
    """Declare a table function: it returns a list, each element one output row (``returns``: the
    element's type, overriding the ``list[...]`` annotation)."""

    def mark(fn: F) -> F:
        if isinstance(fn, type) or not callable(fn):
            raise TypeError(f"@udtf({name!r}) decorates a function, not {fn!r}")
        _declare(Declaration(Kind.TABLE, _name(name), fn, description, "TABLE", returns, None,
                             dict(params or {}), False, deterministic, author, version))
        return fn

    return mark


def udaf(name: str, *, description: str = "", returns: TypeSpec = None, aggregate: TypeSpec = None,
         params: Mapping[str, str] | None = None, author: str = "", version: str = "") -> Callable[[C], C]:
    """Declare an aggregate function on a class with ``initialize() -> A``, ``aggregate(*columns, A) -> A``,
    ``merge(A, A) -> A``, ``map(A) -> R`` and optionally ``undo(*columns, A) -> A`` (needed over tables).

    The parameters of ``aggregate`` before the aggregate are the column arguments (``*args`` for a variadic
    one); the parameters of ``__init__`` are literal arguments that follow them in the call (ksqlDB's
    initial arguments). An optional ``configure(config)`` receives the ``ksql.functions.<name>.*`` and
    ``ksql.functions._global_.*`` properties. ``aggregate``/``returns`` override the annotations of
    ``initialize``/``map``.
    """

    def mark(cls: C) -> C:
        if not isinstance(cls, type):
            raise TypeError(f"@udaf({name!r}) decorates a class, not {cls!r}")
        _declare(Declaration(Kind.AGGREGATE, _name(name), cls, description, "AGGREGATE", returns, aggregate,
                             dict(params or {}), False, True, author, version))
        return cls

    return mark


def declarations_of(obj: Any) -> list[Declaration]:
    """The declarations made in a module (its ``__ksqlpy_functions__``) or on a decorated object; a list
    or tuple of decorated objects gives all of theirs."""
    if isinstance(obj, list | tuple):
        return [d for item in obj for d in declarations_of(item)]
    found = getattr(obj, MODULE_ATTRIBUTE, None) if isinstance(obj, types.ModuleType) else getattr(obj, OBJECT_ATTRIBUTE, None)
    return list(found or [])


def _declare(decl: Declaration) -> None:
    target = decl.target
    own = target.__dict__.get(OBJECT_ATTRIBUTE) if hasattr(target, "__dict__") else None
    if own is None:
        own = []
        setattr(target, OBJECT_ATTRIBUTE, own)
    own.append(decl)
    _module_globals(target).setdefault(MODULE_ATTRIBUTE, []).append(decl)


def _module_globals(target: Any) -> dict[str, Any]:
    """The globals of the module defining ``target`` (a function's own, a class's through its methods)."""
    glob = getattr(target, "__globals__", None)
    if glob is None and isinstance(target, type):
        glob = next((getattr(v, "__globals__", None) for v in vars(target).values()
                     if getattr(v, "__globals__", None) is not None), None)
    if glob is None:
        module = sys.modules.get(getattr(target, "__module__", ""), None)
        glob = vars(module) if module is not None else {}
    return glob  # type: ignore[no-any-return]


def _name(name: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"a function name must be a non-empty string, not {name!r}")
    text = name.strip()
    if not all(ch.isalnum() or ch == "_" for ch in text) or text[0].isdigit():
        raise TypeError(f"function name {name!r} is not a SQL identifier (letters, digits and _)")
    return text


__all__ = ["Declaration", "Kind", "TypeProvider", "TypeSpec", "declarations_of", "udaf", "udf", "udtf"]
