"""LAMBDA (FILTER, TRANSFORM, REDUCE) and CONDITIONAL (COALESCE, IFNULL, NULLIF) functions."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions import conditional, lambdas
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError
from ksqlpy.types import BIGINT, BOOLEAN, DOUBLE, INTEGER, NULL, STRING, Array, Decimal, LambdaType, Map

REG = FunctionRegistry()
for _module in (lambdas, conditional):
    _module.register(REG)  # only this family: other families' work in progress cannot break these tests


def fn(name):
    return REG.scalars[name]


def test_filter_array_and_map():
    r = fn("FILTER").resolve([Array(INTEGER), LambdaType((INTEGER,), BOOLEAN)])
    assert r.return_type == Array(INTEGER)
    assert r.impl([1, 2, 3, None], lambda x: x is not None and x > 1) == [2, 3]
    assert r.impl([1, None], lambda x: x is None) == [None]
    assert r.impl(None, lambda x: True) is None
    assert fn("FILTER").lambda_params(1, [Map(STRING, DOUBLE)]) == (STRING, DOUBLE)
    r = fn("FILTER").resolve([Map(STRING, DOUBLE), LambdaType((STRING, DOUBLE), BOOLEAN)])
    assert r.impl({"a": 1.0, "b": 5.0}, lambda k, v: v > 2) == {"b": 5.0}


def test_where_java_fails_the_call_fails():
    # a NULL Boolean from the lambda cannot unbox in ksqlDB's Predicate: the call fails for the record
    f_arr = fn("FILTER").resolve([Array(INTEGER), LambdaType((INTEGER,), BOOLEAN)])
    with pytest.raises(FunctionError, match="returned NULL"):
        f_arr.impl([1, 2], lambda x: None)
    # maps are collected with Collectors.toMap, which refuses NULL values (NULL keys are fine)
    f_map = fn("FILTER").resolve([Map(STRING, INTEGER), LambdaType((STRING, INTEGER), BOOLEAN)])
    assert f_map.impl({"a": 1, "b": None}, lambda k, v: v is not None) == {"a": 1}
    with pytest.raises(FunctionError, match="NULL value"):
        f_map.impl({"a": 1, "b": None}, lambda k, v: True)
    t_map = fn("TRANSFORM").resolve([Map(STRING, INTEGER), LambdaType((STRING, INTEGER), STRING),
                                     LambdaType((STRING, INTEGER), INTEGER)])
    assert t_map.impl({"a": 1}, lambda k, v: None, lambda k, v: v) == {None: 1}
    with pytest.raises(FunctionError, match="NULL value"):
        t_map.impl({"a": 1}, lambda k, v: k, lambda k, v: None)
    t_arr = fn("TRANSFORM").resolve([Array(INTEGER), LambdaType((INTEGER,), INTEGER)])
    assert t_arr.impl([1, 2], lambda x: None) == [None, None]  # lists hold NULLs


def test_filter_needs_a_boolean_lambda():
    with pytest.raises(KsqlTypeError):
        fn("FILTER").resolve([Array(INTEGER), LambdaType((INTEGER,), STRING)])


def test_transform_array_types_from_the_lambda_result():
    assert fn("TRANSFORM").lambda_params(1, [Array(STRING)]) == (STRING,)
    r = fn("TRANSFORM").resolve([Array(STRING), LambdaType((STRING,), INTEGER)])
    assert r.return_type == Array(INTEGER)
    assert r.impl(["ab", "c"], len) == [2, 1]
    assert r.impl(None, len) is None


def test_transform_map_with_key_and_value_lambdas():
    f = fn("TRANSFORM")
    assert f.lambda_params(2, [Map(STRING, INTEGER), LambdaType((STRING, INTEGER), STRING)]) == (
        STRING,
        INTEGER,
    )
    r = f.resolve(
        [Map(STRING, INTEGER), LambdaType((STRING, INTEGER), STRING), LambdaType((STRING, INTEGER), BIGINT)]
    )
    assert r.return_type == Map(STRING, BIGINT)
    assert r.impl({"a": 1, "b": 2}, lambda k, v: k.upper(), lambda k, v: v * 10) == {"A": 10, "B": 20}
    with pytest.raises(FunctionError, match="Duplicate key"):
        r.impl({"a": 1, "b": 2}, lambda k, v: "same", lambda k, v: v)


def test_reduce_array_and_map():
    f = fn("REDUCE")
    assert f.lambda_params(2, [Array(INTEGER), BIGINT]) == (BIGINT, INTEGER)
    r = f.resolve([Array(INTEGER), BIGINT, LambdaType((BIGINT, INTEGER), BIGINT)])
    assert r.return_type == BIGINT
    add = lambda s, x: s + x  # noqa: E731
    assert r.impl([1, 2, 3], 10, add) == 16
    assert r.impl(None, 10, add) == 10  # NULL collection: the initial state
    assert r.impl([1], None, add) is None  # NULL state: NULL
    assert f.lambda_params(2, [Map(STRING, DOUBLE), DOUBLE]) == (DOUBLE, STRING, DOUBLE)
    r = f.resolve([Map(STRING, DOUBLE), DOUBLE, LambdaType((DOUBLE, STRING, DOUBLE), DOUBLE)])
    assert r.impl({"a": 1.5, "b": 2.0}, 0.5, lambda s, k, v: s * v) == 1.5
    # an order-sensitive fold sees the map in Java HashMap order, as ksqlDB does
    r = f.resolve([Map(STRING, INTEGER), STRING, LambdaType((STRING, STRING, INTEGER), STRING)])
    assert r.impl({"k1": 1, "k2": 2, "k3": 3}, ">", lambda s, k, v: s + k) == ">k3k1k2"


def test_reduce_state_must_keep_its_type():
    # the state S is bound by the initial value; a lambda returning another type fits no overload
    with pytest.raises(KsqlTypeError, match=r"Function 'reduce' does not accept parameters"):
        fn("REDUCE").resolve([Array(BIGINT), INTEGER, LambdaType((INTEGER, BIGINT), BIGINT)])
    assert fn("REDUCE").resolve([Array(BIGINT), BIGINT, LambdaType((BIGINT, BIGINT), BIGINT)]).return_type == BIGINT


def test_coalesce():
    r = fn("COALESCE").resolve([INTEGER, INTEGER, INTEGER])
    assert r.impl(None, None, 3) == 3 and r.impl(None, None, None) is None
    assert fn("COALESCE").resolve([STRING]).impl("only") == "only"
    assert fn("COALESCE").resolve([Array(INTEGER), Array(INTEGER)]).return_type == Array(INTEGER)
    for name in ("COALESCE", "IFNULL", "NULLIF"):  # every argument binds T to the same type: no widening
        with pytest.raises(KsqlTypeError, match=rf"Function '{name}' does not accept parameters \(INTEGER, BIGINT\)"):
            fn(name).resolve([INTEGER, BIGINT])
    with pytest.raises(KsqlTypeError, match=r"\(DECIMAL\(4, 2\), DECIMAL\(5, 2\)\)"):
        fn("COALESCE").resolve([Decimal(4, 2), Decimal(5, 2)])
    assert fn("COALESCE").resolve([Decimal(4, 2), NULL, Decimal(4, 2)]).return_type == Decimal(4, 2)
    assert fn("COALESCE").resolve([NULL, STRING]).return_type == STRING
    with pytest.raises(KsqlTypeError, match=r"Function 'COALESCE' does not accept parameters \(\)"):
        fn("COALESCE").resolve([])
    with pytest.raises(
        KsqlTypeError, match=r"Function 'COALESCE' does not accept parameters \(STRING, INTEGER\)"
    ):
        fn("COALESCE").resolve([STRING, INTEGER])


def test_ifnull_and_nullif():
    r = fn("IFNULL").resolve([STRING, STRING])
    assert r.impl(None, "d") == "d" and r.impl("v", "d") == "v"
    assert not r.null_on_null
    r = fn("NULLIF").resolve([Array(INTEGER), Array(INTEGER)])
    assert r.impl([1, 2], [1, 2]) is None
    assert r.impl([1, 2], [2, 1]) == [1, 2]
    assert r.impl(None, [1]) is None
    assert fn("NULLIF").resolve([STRING, STRING]).impl("x", None) == "x"
    assert fn("NULLIF").resolve([STRING, STRING]).impl("x", "X") == "x"
