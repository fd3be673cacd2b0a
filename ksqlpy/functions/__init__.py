"""Built-in functions. ``builtin_registry()`` gathers every module listed in ``MODULES``; each module
exposes ``register(registry)``. Adding a family of functions is adding a module name here.

There is no process-wide registry: each engine owns one (``ksqlpy.session_state``), made from the
built-ins plus its extension functions (``ksqlpy.udf.loader``)."""

from __future__ import annotations

import importlib
from functools import lru_cache

from ksqlpy.functions.parameter_names import name_parameters
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


def builtin_registry() -> FunctionRegistry:
    """A fresh registry holding exactly the built-in functions (registering into it changes no other)."""
    return _builtins().copy()


@lru_cache(maxsize=1)
def _builtins() -> FunctionRegistry:
    registry = FunctionRegistry()
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:  # a family not written yet
            if e.name != name:
                raise
            continue
        module.register(registry)
    name_parameters(registry)  # ksqlDB's parameter names, one table for every family
    registry.origin = (builtin_registry, ())
    return registry


__all__ = [
    "AggregateFunction",
    "FunctionRegistry",
    "Resolved",
    "ResolvedAggregate",
    "ScalarFunction",
    "TableFunction",
    "builtin_registry",
]
