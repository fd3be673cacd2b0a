"""ksqlDB's test UDAFs (ksqlpy/testing/extension, written with the public API and loaded like a user's extension
directory): multi-column arguments, literal init arguments, variadics, configuration, undo, structs."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions.aggregates import literal_type
from ksqlpy.functions.registry import FunctionRegistry, ResolvedAggregate
from ksqlpy.testing.extension import DIRECTORY as TEST_FUNCTIONS_DIR
from ksqlpy.types import BIGINT, BOOLEAN, DOUBLE, INTEGER, STRING, Array, Decimal, Map, SqlType, Struct
from ksqlpy.udf.loader import FunctionSources, load_functions


@pytest.fixture(scope="module")
def registry() -> FunctionRegistry:
    return load_functions(FunctionSources(extension_dir=TEST_FUNCTIONS_DIR, entry_points=False))


def resolve(registry: FunctionRegistry, name: str, args: list[SqlType | Any],
            config: dict[str, Any] | None = None) -> ResolvedAggregate:
    """Resolve a call the way analysis does: the overload from every argument's type, then the trailing
    literals (values here; types given are column arguments)."""
    fn = registry.aggregates[name]
    types = [a if isinstance(a, SqlType) else literal_type(a) for a in args]
    n_lit = fn.init_arg_count(types)
    n_cols = len(args) - n_lit
    return fn.resolve(types[:n_cols], args[n_cols:], config or {})


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
    assert str(e.value).startswith(f"Function 'MULTI_ARG' does not accept parameters {shown}.\n"
                                   "Valid alternatives are:\nMULTI_ARG(BIGINT first, STRING second, INT start, "
                                   "STRING... texts)\n")


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


def test_var_arg_and_mid_var_arg(registry: FunctionRegistry) -> None:
    var = resolve(registry, "VAR_ARG", [BIGINT, STRING, STRING])
    assert results(var, [(1, "ab", None), (2, "c", "def")]) == [3, 9]
    assert results(resolve(registry, "VAR_ARG", [BIGINT]), [(4,)]) == [4]
    mid = resolve(registry, "MID_VAR_ARG", [BIGINT, STRING, STRING, STRING, 10, 20])
    assert results(mid, [(1, "ab", None, "x")]) == [1 + 3 + 30]
    assert results(resolve(registry, "MID_VAR_ARG", [BIGINT, 1, 2]), [(5,)]) == [8]


def test_test_udaf_overloads(registry: FunctionRegistry) -> None:
    longs = resolve(registry, "TEST_UDAF", [BIGINT])
    assert longs.return_type == BIGINT and longs.undo is not None
    assert results(longs, [(1,), (None,), (5,)]) == [1, 1, 6]
    assert longs.undo(6, 5) == 1
    ints = resolve(registry, "TEST_UDAF", [INTEGER], {"ksql.functions.test_udaf.init": 100})
    assert ints.return_type == INTEGER and results(ints, [(1,), (2,)]) == [101, 103]
    assert results(resolve(registry, "TEST_UDAF", [INTEGER]), [(1,)]) == [1]
    doubles = resolve(registry, "TEST_UDAF", [DOUBLE])
    assert doubles.return_type == DOUBLE and doubles.undo is None
    decimals = resolve(registry, "TEST_UDAF", [Decimal(4, 2)])
    assert decimals.return_type == Decimal(4, 2) and decimals.intermediate_type == Decimal(4, 2)
    assert results(decimals, [(D("1.25"),), (D("2.50"),)]) == [D("1.25"), D("3.75")]
    lengths = resolve(registry, "TEST_UDAF", [STRING, "abc"])
    assert results(lengths, [("de",), (None,)]) == [5, 5]
    ab = Struct((("A", INTEGER), ("B", INTEGER)))
    structs = resolve(registry, "TEST_UDAF", [ab])
    assert structs.return_type == ab and structs.intermediate_type == ab
    assert results(structs, [({"A": 1, "B": 2},), ({"A": None, "B": 5},)]) == [{"A": 1, "B": 2}, {"A": 1, "B": 7}]
    with pytest.raises(KsqlTypeError, match=r"Function 'TEST_UDAF' does not accept parameters \(STRING\)"):
        resolve(registry, "TEST_UDAF", [STRING])
