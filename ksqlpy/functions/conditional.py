"""CONDITIONAL functions. All arguments share one type T (widened when they differ, e.g. INT and BIGINT)."""

from __future__ import annotations

from typing import Any

from ksqlpy.functions.array import hashable
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import udf

CATEGORY = "CONDITIONAL"


def _coalesce(*args: Any) -> Any:
    for a in args:
        if a is not None:
            return a
    return None


def _ifnull(a: Any, b: Any) -> Any:
    return b if a is None else a


def _nullif(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return a
    return None if hashable(a) == hashable(b) else a


def register(registry: FunctionRegistry) -> None:
    # ksqlDB registers these three with upper-case names, which its error messages repeat.
    for name, description, overloads in (
        ("COALESCE", "The first non-NULL argument.", [("T, T...", "T", _coalesce)]),
        ("IFNULL", "The first argument, or the second if the first is NULL.", [("T, T", "T", _ifnull)]),
        ("NULLIF", "NULL if both arguments are equal, otherwise the first.", [("T, T", "T", _nullif)]),
    ):
        registry.register(
            udf(name, category=CATEGORY, description=description, overloads=overloads, display_name=name)
        )
