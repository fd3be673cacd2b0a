"""Built-in functions. ``default_registry()`` gathers every module listed in ``MODULES``; each module
exposes ``register(registry)``. Adding a family of functions is adding a module name here."""

from __future__ import annotations

import importlib
from functools import lru_cache

from ksqlpy.functions.registry import (
    AggregateFunction,
    FunctionRegistry,
    Resolved,
    ResolvedAggregate,
    ScalarFunction,
    TableFunction,
)

MODULES = [
    "ksqlpy.functions.math",
    "ksqlpy.functions.string",
    "ksqlpy.functions.regex",
    "ksqlpy.functions.json",
    "ksqlpy.functions.array",
    "ksqlpy.functions.map",
    "ksqlpy.functions.lambdas",
    "ksqlpy.functions.conditional",
    "ksqlpy.functions.conversions",
    "ksqlpy.functions.url",
    "ksqlpy.functions.other",
    "ksqlpy.functions.table",
    "ksqlpy.functions.datetime",
    "ksqlpy.functions.aggregates",
]


@lru_cache(maxsize=1)
def default_registry() -> FunctionRegistry:
    """The process-wide registry the compiler resolves against (built-ins, plus any user functions)."""
    return builtin_registry()


def builtin_registry() -> FunctionRegistry:
    """A fresh registry holding exactly the built-in functions."""
    registry = FunctionRegistry()
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:  # a family not written yet
            if e.name != name:
                raise
            continue
        module.register(registry)
    return registry


__all__ = [
    "AggregateFunction",
    "FunctionRegistry",
    "Resolved",
    "ResolvedAggregate",
    "ScalarFunction",
    "TableFunction",
    "builtin_registry",
    "default_registry",
]
