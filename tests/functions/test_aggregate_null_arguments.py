"""A NULL column argument of a built-in aggregate is decided by the aggregate's declared overloads, as ksqlDB's
UdfIndex decides it for every kind of function (reference rules 2.8): a NULL fits any parameter, a tie between
overloads is ambiguous, one fitting overload types the NULL, and a type variable nothing binds leaves no type.
The statements' side is in tests/cases/aggregations/udaf-null-arguments.json."""

from __future__ import annotations

import pytest

from ksqlpy import types as T
from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions import builtin_registry
from ksqlpy.functions.aggregates import BUILTINS, Udaf
from ksqlpy.functions.aggregates.base import CANNOT_INFER_NULL, alternatives
from ksqlpy.functions.aggregates.declared import declared_overloads

REGISTRY = builtin_registry()


@pytest.mark.parametrize("fn", BUILTINS, ids=lambda f: f.name)
def test_every_documented_signature_is_a_row(fn: Udaf) -> None:
    """The rows list themselves in a refusal as the documented signatures do."""
    rows = declared_overloads(fn.name, fn.signatures())
    assert [r.alternative(fn.name) for r in rows] == alternatives(fn.signatures())


def test_a_variadic_parameter_before_the_literal_one() -> None:
    rows = declared_overloads("TOPK", REGISTRY.aggregates["TOPK"].signatures())
    multi = rows[1]
    assert multi.variadic and multi.variadic_index == 1
    assert multi.arity_ok(3) and multi.arity_ok(5) and not rows[0].arity_ok(3)


@pytest.mark.parametrize("name", ["SUM", "AVG", "MIN", "MAX", "STDDEV_SAMP", "STDDEV_SAMPLE", "SUM_LIST"])
def test_several_overloads_fit_a_null_alike(name: str) -> None:
    fn = REGISTRY.aggregates[name]
    for attempt in (lambda: fn.resolve([T.NULL], [], {}), lambda: fn.init_arg_count([T.NULL])):
        with pytest.raises(KsqlTypeError) as info:
            attempt()
        lines = info.value.message.splitlines()
        assert lines[0] == f"Function '{name}' cannot be resolved due to ambiguous method parameters (null)."
        assert lines[2] == "Valid function calls are:"


@pytest.mark.parametrize("name, args, result", [
    ("HISTOGRAM", [T.NULL], T.Map(T.STRING, T.BIGINT)),
    ("CORRELATION", [T.NULL, T.INTEGER], T.DOUBLE),
    ("CORRELATION", [T.NULL, T.NULL], T.DOUBLE),
    ("COUNT", [T.NULL], T.BIGINT),
    ("COUNT_DISTINCT", [T.NULL], T.BIGINT),
])  # fmt: skip
def test_one_fitting_overload_types_the_null(name: str, args: list[T.SqlType], result: T.SqlType) -> None:
    fn = REGISTRY.aggregates[name]
    resolved = fn.resolve(args, [], {})
    assert resolved.return_type == result
    acc = resolved.init()
    for _ in range(3):
        acc = resolved.add(acc, *([None] * len(args)))
    assert resolved.result(acc) in ({}, 0) or resolved.result(acc) != resolved.result(acc)  # NaN


@pytest.mark.parametrize("name, literals", [
    ("COLLECT_LIST", []), ("COLLECT_SET", []), ("ATTR", []), ("LATEST_BY_OFFSET", [False]),
    ("EARLIEST_BY_OFFSET", [2]), ("TOPK", [2]), ("TOPKDISTINCT", [2]),
])  # fmt: skip
def test_a_type_variable_only_the_null_binds(name: str, literals: list[object]) -> None:
    with pytest.raises(KsqlTypeError) as info:
        REGISTRY.aggregates[name].resolve([T.NULL], literals, {})
    assert info.value.message == CANNOT_INFER_NULL


def test_a_type_variable_in_a_return_the_rows_cannot_spell() -> None:
    """TOPK's other columns: the sort column's T, bound only by a NULL, leaves its struct typeless; an other
    column's NULL fits its parameter of any type, but it becomes a field of the result's struct that has no
    type, which no sink schema can hold: refused alike (cast, it is accepted)."""
    topk = REGISTRY.aggregates["TOPK"]
    for args in ([T.NULL, T.STRING], [T.INTEGER, T.NULL], [T.INTEGER, T.STRING, T.NULL]):
        with pytest.raises(KsqlTypeError) as info:
            topk.resolve(args, [2], {})
        assert info.value.message == CANNOT_INFER_NULL
    assert topk.resolve([T.INTEGER, T.STRING], [2], {}).return_type == T.Array(
        T.Struct((("sort_col", T.INTEGER), ("col0", T.STRING))))


def test_a_typed_argument_is_untouched() -> None:
    assert REGISTRY.aggregates["SUM"].resolve([T.INTEGER], [], {}).return_type == T.INTEGER
    assert REGISTRY.aggregates["COLLECT_LIST"].resolve([T.STRING], [], {}).return_type == T.Array(T.STRING)


@pytest.mark.parametrize("name", ["LATEST_BY_OFFSET", "EARLIEST_BY_OFFSET"])
def test_a_null_literal_argument_is_resolved_by_the_index_too(name: str) -> None:
    """The initial (literal) arguments are parameters of the index as the column ones are: a NULL where the
    by-offset aggregates take ignoreNulls (BOOLEAN) or n (INT) fits both overloads - ambiguous, whichever way
    resolution is reached (the call's types, or the types and the literal values)."""
    fn = REGISTRY.aggregates[name]
    with pytest.raises(KsqlTypeError) as by_types:
        fn.init_arg_count([T.INTEGER, T.NULL])
    with pytest.raises(KsqlTypeError) as by_values:
        fn.resolve([T.INTEGER], [None], {})
    for info in (by_types, by_values):
        assert info.value.message.startswith(
            f"Function '{name}' cannot be resolved due to ambiguous method parameters (INTEGER, null).")
    assert fn.resolve([T.INTEGER], [True], {}).return_type == T.INTEGER
    assert fn.resolve([T.INTEGER], [2], {}).return_type == T.Array(T.INTEGER)
