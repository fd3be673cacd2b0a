"""The example UDAFs of the conformance cases: multi-column arguments, literal init arguments, variadics."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions.aggregates import literal_type
from ksqlpy.functions.aggregates_testing import register
from ksqlpy.functions.registry import FunctionRegistry, ResolvedAggregate
from ksqlpy.types import BIGINT, BOOLEAN, DOUBLE, INTEGER, STRING, Array, Decimal, Map, SqlType


@pytest.fixture(scope="module")
def registry() -> FunctionRegistry:
    r = FunctionRegistry()
    register(r)
    return r


def resolve(registry: FunctionRegistry, name: str, args: list[SqlType | Any]) -> ResolvedAggregate:
    """Resolve a call the way the compiler does: split trailing literals with literal_arg_count."""
    fn = registry.aggregates[name]
    n_lit = fn.literal_arg_count(len(args))
    columns, literals = args[: len(args) - n_lit], args[len(args) - n_lit :]
    # a literal in a column position (MULTI_ARG(col, 5, ...)) reaches resolve as its type
    return fn.resolve([a if isinstance(a, SqlType) else literal_type(a) for a in columns], literals, {})


def results(res: ResolvedAggregate, rows: list[tuple[Any, ...]]) -> list[Any]:
    acc = res.init()
    out = []
    for row in rows:
        acc = res.add(acc, *row)
        out.append(res.result(acc))
    return out


def test_multi_arg_adds_first_and_string_lengths(registry: FunctionRegistry) -> None:
    res = resolve(registry, "MULTI_ARG", [BIGINT, STRING, 5, "10", "20", "3"])
    assert res.return_type == BIGINT
    assert results(res, [(6, "hi"), (None, "hello"), (5, None)]) == [18, 23, 28]
    no_varargs = resolve(registry, "MULTI_ARG", [BIGINT, STRING, 5])
    assert results(no_varargs, [(6, "hi")]) == [13]


@pytest.mark.parametrize(
    "args, shown",
    [([BIGINT, STRING], "(BIGINT, STRING)"),
     ([STRING, 5, "10", "20", "3"], "(STRING, INTEGER, STRING, STRING, STRING)"),
     ([BIGINT, 5, "10", "20", "3"], "(BIGINT, INTEGER, STRING, STRING, STRING)")],
)  # fmt: skip
def test_multi_arg_rejections_list_every_argument(
    registry: FunctionRegistry, args: list[Any], shown: str
) -> None:
    with pytest.raises(KsqlTypeError) as e:
        resolve(registry, "MULTI_ARG", args)
    assert str(e.value) == f"Function 'MULTI_ARG' does not accept parameters {shown}."


def test_four_and_five_arg(registry: FunctionRegistry) -> None:
    four = resolve(registry, "FOUR_ARG", [BIGINT, STRING, STRING, STRING, 5, "10", "20", "3"])
    assert results(four, [(6, "hi", "apples", None)]) == [24]
    five = resolve(registry, "FIVE_ARG", [BIGINT, STRING, STRING, STRING, INTEGER, 5, "10", "20", "3"])
    assert results(five, [(6, "hi", "apples", None, 9), (None, "hello", "bananas", "Venus", 1)]) == [33, 51]


def test_generic_var_arg_collects_when_nothing_is_null(registry: FunctionRegistry) -> None:
    res = resolve(registry, "GENERIC_VAR_ARG", [Decimal(5, 1), INTEGER, DOUBLE, DOUBLE, DOUBLE])
    assert res.return_type == Array(Decimal(5, 1))
    rows = [(D("2.3"), 1, 1.2, 1.44, 8.9), (D("5.7"), 3, 9.1, 0.9, 2.5), (D("3.9"), 7, 7.6, None, 8.1)]
    assert results(res, rows)[-1] == [D("2.3"), D("5.7")]
    maps = resolve(registry, "GENERIC_VAR_ARG", [Map(STRING, DOUBLE), INTEGER])
    assert results(maps, [({"one": 6.1}, 5), (None, 5)])[-1] == [{"one": 6.1}]


def test_generic_var_arg_variadics_share_a_type(registry: FunctionRegistry) -> None:
    with pytest.raises(KsqlTypeError, match=r"\(DECIMAL\(5, 1\), INTEGER, DOUBLE, STRING, DOUBLE\)"):
        resolve(registry, "GENERIC_VAR_ARG", [Decimal(5, 1), INTEGER, DOUBLE, STRING, DOUBLE])


def test_obj_col_arg_accepts_any_variadics(registry: FunctionRegistry) -> None:
    res = resolve(registry, "OBJ_COL_ARG", [INTEGER, BIGINT, BOOLEAN, DOUBLE, INTEGER, Array(INTEGER)])
    rows = [(2, 1, False, 1.44, 8, [8, 1]), (5, 3, None, 0.9, 2, [1]), (3, 2, False, 4.3, 4, [0, 0])]
    assert results(res, rows)[-1] == [2, 3]
    assert results(resolve(registry, "OBJ_COL_ARG", [INTEGER]), [(6,), (None,), (5,)])[-1] == [6, 5]
