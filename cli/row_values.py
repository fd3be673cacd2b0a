"""A server's row values read as the header's schema types them: a DECIMAL's number exactly as written
(``1.50`` stays ``1.50``, as ksqlDB's clients read JSON floats as BigDecimal), every other number as JSON
gives it. So a shell on a server prints a DECIMAL as the embedded shell does, at any depth (an ARRAY's
elements, a MAP's values, a STRUCT's fields)."""

from __future__ import annotations

import decimal
import re
from dataclasses import dataclass, field
from typing import Any

_TOKEN = re.compile(r"\s*(`(?:[^`]|``)*`|[A-Za-z_][A-Za-z0-9_]*|\d+|[<>(),]|\S)")


@dataclass
class TypeShape:
    """A type's shape as far as reading values needs it: its base name and its parts."""

    name: str
    element: TypeShape | None = None  # ARRAY's element, MAP's value
    fields: dict[str, TypeShape] = field(default_factory=dict)  # STRUCT's fields


def _tokens(text: str) -> list[str]:
    return [m.group(1) for m in _TOKEN.finditer(text)]


def parse_shape(text: str) -> TypeShape:
    """``ARRAY<DECIMAL(4, 1)>``, ``STRUCT<`X` BYTES, `Y` DATE>``, ``MAP<STRING, DOUBLE>``... as a shape;
    text it cannot read is a shape of that name with no parts (its values are read as JSON gives them)."""
    tokens = _tokens(text)
    try:
        shape, _ = _parse(tokens, 0)
    except IndexError:
        return TypeShape(text.strip().upper())
    return shape


def _parse(tokens: list[str], i: int) -> tuple[TypeShape, int]:
    name = tokens[i].upper()
    i += 1
    if name == "DECIMAL" and i < len(tokens) and tokens[i] == "(":
        while tokens[i] != ")":
            i += 1
        return TypeShape(name), i + 1
    if i >= len(tokens) or tokens[i] != "<":
        return TypeShape(name), i
    i += 1
    if name == "ARRAY":
        element, i = _parse(tokens, i)
        return TypeShape(name, element=element), i + 1  # past '>'
    if name == "MAP":
        _, i = _parse(tokens, i)  # keys are text in JSON
        element, i = _parse(tokens, i + 1)  # past ','
        return TypeShape(name, element=element), i + 1
    shape = TypeShape(name)
    while tokens[i] != ">":
        raw = tokens[i]
        field_name = raw[1:-1].replace("``", "`") if raw.startswith("`") else raw.upper()
        shape.fields[field_name], i = _parse(tokens, i + 1)
        if tokens[i] == ",":
            i += 1
    return shape, i + 1


def read_value(value: Any, shape: TypeShape) -> Any:
    """``value`` parsed with JSON floats as Decimal: kept for a DECIMAL, a float for anything else."""
    if isinstance(value, decimal.Decimal):
        return value if shape.name == "DECIMAL" else float(value)
    if isinstance(value, list):
        element = shape.element or TypeShape("")
        return [read_value(v, element) for v in value]
    if isinstance(value, dict):
        if shape.name == "STRUCT":
            return {k: read_value(v, shape.fields.get(k, TypeShape(""))) for k, v in value.items()}
        element = shape.element or TypeShape("")
        return {k: read_value(v, element) for k, v in value.items()}
    return value


def read_row(values: list[Any], shapes: list[TypeShape]) -> list[Any]:
    """A row's columns, each read as its column's type; columns past the header's are read untyped."""
    return [read_value(v, shapes[i] if i < len(shapes) else TypeShape("")) for i, v in enumerate(values)]
