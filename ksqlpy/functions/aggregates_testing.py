"""Example UDAFs that ksqlDB's conformance cases load from its test jar (MULTI_ARG, FOUR_ARG, FIVE_ARG,
GENERIC_VAR_ARG, OBJ_COL_ARG). They exercise the UDAF interface: several column arguments, literal initial
arguments, variadic columns. Not part of the built-ins: the conformance runner (or a test) registers them with
``register(registry)``, as ksqlDB's tests put their jar on the classpath.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy.functions.aggregates import ResolvedUdaf, Udaf, reject
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.types import BIGINT, INTEGER, STRING, Array, NullType, SqlType


def _length_sum(n_strings: int, with_int: bool) -> Callable[..., int]:
    """add(acc, first, s1..sn[, i]): acc + first + len(s1) + ... (+ i); NULLs count as 0."""

    def add(acc: int, first: Any, *rest: Any) -> int:
        total = acc + (first or 0)
        for s in rest[:n_strings]:
            if s is not None:
                total += len(s)
        if with_int and rest[n_strings] is not None:
            total += rest[n_strings]
        return total

    return add


def _multi(columns: list[SqlType], with_int: bool) -> Callable[..., ResolvedUdaf]:
    """MULTI_ARG-style: columns (BIGINT, STRING...[, INT]) then literals (INT, STRING...): init = int + lens."""
    n_strings = len(columns) - 1 - (1 if with_int else 0)

    def resolve(name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]) -> ResolvedUdaf:
        ok = (
            len(types) == len(columns)
            and all(t == c or isinstance(t, NullType) for t, c in zip(types, columns, strict=True))
            and len(literals) >= 1
            and isinstance(literals[0], int)
            and not isinstance(literals[0], bool)
            and all(isinstance(s, str) for s in literals[1:])
        )
        if not ok:
            raise reject(name, types, literals)
        start = literals[0] + sum(len(s) for s in literals[1:])
        return ResolvedUdaf(
            BIGINT, lambda: start, _length_sum(n_strings, with_int), lambda acc: acc, None, None, BIGINT
        )

    return resolve


def _collect_when_all_present(acc: list[Any], first: Any, *rest: Any) -> list[Any]:
    if first is not None and all(v is not None for v in rest):
        acc.append(first)
    return acc


def _resolve_generic_var_arg(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    """GENERIC_VAR_ARG(T, INT, V...) -> ARRAY<T>: collects T when no argument is NULL; V... share one type."""
    variadic = types[2:]
    if len(types) < 2 or types[1] != INTEGER or literals or any(v != variadic[0] for v in variadic):
        raise reject(name, types, literals)
    rt = Array(types[0])
    return ResolvedUdaf(rt, list, _collect_when_all_present, list, None, None, rt)


def _resolve_obj_col_arg(
    name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]
) -> ResolvedUdaf:
    """OBJ_COL_ARG(INT, ANY...) -> ARRAY<INT>: collects the first argument when no argument is NULL."""
    if not types or types[0] != INTEGER or literals:
        raise reject(name, types, literals)
    rt = Array(INTEGER)
    return ResolvedUdaf(rt, list, _collect_when_all_present, list, None, None, rt)


def _all_but(n_columns: int) -> Callable[[int], int]:
    return lambda n_args: max(0, n_args - n_columns)


TEST_UDAFS = [
    Udaf("MULTI_ARG", _multi([BIGINT, STRING], False), literals=_all_but(2),
         signatures=["MULTI_ARG(BIGINT, STRING, INT, STRING...) -> BIGINT"]),
    Udaf("FOUR_ARG", _multi([BIGINT, STRING, STRING, STRING], False), literals=_all_but(4),
         signatures=["FOUR_ARG(BIGINT, STRING, STRING, STRING, INT, STRING...) -> BIGINT"]),
    Udaf("FIVE_ARG", _multi([BIGINT, STRING, STRING, STRING, INTEGER], True), literals=_all_but(5),
         signatures=["FIVE_ARG(BIGINT, STRING, STRING, STRING, INT, INT, STRING...) -> BIGINT"]),
    Udaf("GENERIC_VAR_ARG", _resolve_generic_var_arg, signatures=["GENERIC_VAR_ARG(T, INT, V...) -> ARRAY<T>"]),
    Udaf("OBJ_COL_ARG", _resolve_obj_col_arg, signatures=["OBJ_COL_ARG(INT, ANY...) -> ARRAY<INT>"]),
]  # fmt: skip


def register(registry: FunctionRegistry) -> None:
    """Add the example UDAFs used by ksqlDB's conformance cases."""
    for fn in TEST_UDAFS:
        registry.register(fn)


__all__ = ["TEST_UDAFS", "register"]
