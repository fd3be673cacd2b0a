"""A registry of only some function families, and a scalar called as compiled code calls it: imported by
module name by the scalar-function tests of each family."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from ksqlpy.functions.registry import FunctionRegistry


def family_registry(*modules: ModuleType) -> FunctionRegistry:
    """A registry of these families only: other families' work in progress cannot break their tests."""
    registry = FunctionRegistry()
    for module in modules:
        module.register(registry)
    return registry


def scalar_caller(registry: FunctionRegistry) -> Callable[..., Any]:
    """``call(name, types, *args)``: what compiled code does - resolve once, NULL short-circuit when the
    function declares it, then the implementation."""
    def call(name: str, types: Any, *args: Any) -> Any:
        r = registry.scalars[name].resolve(list(types))
        if r.null_on_null and any(a is None for a in args):
            return None
        return r.impl(*args)

    return call
