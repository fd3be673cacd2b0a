"""The signature language of table-driven functions: type patterns, their parser and substitution.

``parse_pattern("ARRAY<T>")``, ``parse_params("T, T...")``: the grammar is described in
``functions.signatures``, which matches argument types against these patterns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ksqlpy.types import (
    PRIMITIVES_BY_NAME,
    Array,
    Decimal,
    LambdaType,
    Map,
    SqlType,
)

# ---------------------------------------------------------------------------------------------------------
# Patterns


class Pattern:
    """A parameter or return type in the signature language."""

    def __str__(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass(frozen=True)
class Exact(Pattern):
    type: SqlType

    def __str__(self) -> str:
        return str(self.type)


@dataclass(frozen=True)
class AnyDecimal(Pattern):
    def __str__(self) -> str:
        return "DECIMAL"


@dataclass(frozen=True)
class AnyType(Pattern):
    def __str__(self) -> str:
        return "ANY"


@dataclass(frozen=True)
class AnyStruct(Pattern):
    def __str__(self) -> str:
        return "STRUCT"


@dataclass(frozen=True)
class Var(Pattern):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class ArrayOf(Pattern):
    element: Pattern

    def __str__(self) -> str:
        return f"ARRAY<{self.element}>"


@dataclass(frozen=True)
class MapOf(Pattern):
    key: Pattern
    value: Pattern

    def __str__(self) -> str:
        return f"MAP<{self.key}, {self.value}>"


@dataclass(frozen=True)
class LambdaOf(Pattern):
    params: tuple[Pattern, ...]
    result: Pattern

    def __str__(self) -> str:
        return f"LAMBDA({', '.join(map(str, self.params))})->{self.result}"


_TOKEN = re.compile(r"\s*(\.\.\.|->|[A-Za-z_][A-Za-z_0-9]*|\d+|[<>(),])")
_VAR = re.compile(r"^[A-Z][0-9]*$")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = []
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                raise ValueError(f"bad signature {self.text!r} at {pos}")
            self.tokens.append(m.group(1))
            pos = m.end()
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok.upper() != expected):
            raise ValueError(f"bad signature {self.text!r}: expected {expected or 'a token'}, got {tok}")
        self.i += 1
        return tok

    def type(self) -> Pattern:
        name = self.take()
        upper = name.upper()
        if upper == "ARRAY":
            self.take("<")
            el = self.type()
            self.take(">")
            return ArrayOf(el)
        if upper == "MAP":
            self.take("<")
            k = self.type()
            self.take(",")
            v = self.type()
            self.take(">")
            return MapOf(k, v)
        if upper == "LAMBDA":
            self.take("(")
            params: list[Pattern] = []
            if self.peek() != ")":
                params.append(self.type())
                while self.peek() == ",":
                    self.take(",")
                    params.append(self.type())
            self.take(")")
            self.take("->")
            return LambdaOf(tuple(params), self.type())
        if upper == "DECIMAL":
            if self.peek() == "(":
                self.take("(")
                p = int(self.take())
                self.take(",")
                s = int(self.take())
                self.take(")")
                return Exact(Decimal(p, s))
            return AnyDecimal()
        if upper == "ANY":
            return AnyType()
        if upper == "STRUCT":
            return AnyStruct()
        if upper in PRIMITIVES_BY_NAME:
            return Exact(PRIMITIVES_BY_NAME[upper])
        if _VAR.match(name):
            return Var(name)
        raise ValueError(f"bad signature {self.text!r}: unknown type {name}")


def parse_pattern(text: str) -> Pattern:
    """One type in the signature language, e.g. ``ARRAY<T>`` or ``LAMBDA(K,V)->U``."""
    p = _Parser(text)
    out = p.type()
    if p.peek() is not None:
        raise ValueError(f"bad signature {text!r}: trailing {p.peek()}")
    return out


def parse_params(text: str | Sequence[str]) -> tuple[tuple[Pattern, ...], bool]:
    """A parameter list; returns (patterns, variadic). The variadic pattern is the last one."""
    if not isinstance(text, str):
        text = ", ".join(text)
    p = _Parser(text)
    params: list[Pattern] = []
    variadic = False
    if p.peek() is None:
        return (), False
    while True:
        if variadic:
            raise ValueError(f"bad signature {text!r}: '...' only on the last parameter")
        params.append(p.type())
        if p.peek() == "...":
            p.take()
            variadic = True
        if p.peek() is None:
            break
        p.take(",")
    return tuple(params), variadic


def type_of(text: str) -> SqlType:
    """A concrete SqlType from the signature language (no variables), e.g. ``type_of("ARRAY<STRING>")``."""
    t = substitute(parse_pattern(text), {})
    if t is None:
        raise ValueError(f"{text!r} is not a concrete type")
    return t


def substitute(p: Pattern, binding: dict[str, SqlType]) -> SqlType | None:
    """The concrete type of a pattern under ``binding``; None if it is not concrete (unbound, ANY, DECIMAL)."""
    if isinstance(p, Exact):
        return p.type
    if isinstance(p, Var):
        return binding.get(p.name)
    if isinstance(p, ArrayOf):
        el = substitute(p.element, binding)
        return None if el is None else Array(el)
    if isinstance(p, MapOf):
        k, v = substitute(p.key, binding), substitute(p.value, binding)
        return None if k is None or v is None else Map(k, v)
    if isinstance(p, LambdaOf):
        params = [substitute(x, binding) for x in p.params]
        if any(x is None for x in params):
            return None
        return LambdaType(tuple(params), substitute(p.result, binding))  # type: ignore[arg-type]
    return None
