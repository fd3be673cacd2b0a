"""Functions over the bound IR: structural equality, pickling (the plan crosses processes), constant folding,
finding an overload again from its identity, and what a plan holds."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from ksqlpy import types as T
from ksqlpy.analysis.query import analyze_query
from ksqlpy.engine import Engine
from ksqlpy.expr import bound as B
from ksqlpy.expr.binder import bind
from ksqlpy.expr.codegen import evaluate
from ksqlpy.expr.fold import constant_value, fold
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext
from ksqlpy.functions import builtin_registry
from ksqlpy.grammar import parse, parse_expression
from ksqlpy.plan.logical import Aggregate, Filter

REGISTRY = builtin_registry()

SCOPE = Scope.of([("A", T.INTEGER), ("S", T.STRING), ("ARR", T.Array(T.INTEGER))], alias="T")


def bound(text: str) -> B.Expr:
    return bind(parse_expression(text), SCOPE, BindContext(REGISTRY))


def test_equality_is_structural_and_ignores_positions_and_qualifiers() -> None:
    assert bound("T.A + 1") == bound("A + 1")
    assert hash(bound("T.A + 1")) == hash(bound("A  +  1"))
    assert bound("A + 1") != bound("1 + A")
    assert bound("UCASE(S)") == bound("UCASE(T.S)")
    assert bound("A + 1").pos is not None


def test_bound_nodes_pickle() -> None:
    for text in ["A + 1", "TRANSFORM(ARR, x => x * 2)", "CASE WHEN A > 1 THEN 'a' END", "A IN (1, '2')",
                 "CAST(S AS DECIMAL(10, 2))", "MAP('k' := A)", "STRUCT(F := S)->F"]:
        e = bound(text)
        assert pickle.loads(pickle.dumps(e)) == e


def test_a_call_finds_its_overload_in_another_registry() -> None:
    e = bound("ROUND(A)")
    assert isinstance(e, B.Call)
    copy = pickle.loads(pickle.dumps(e))
    resolved = copy.fn.resolve(builtin_registry())  # a registry built afresh, as another process would
    assert resolved.return_type == e.type
    assert resolved.impl(7) == 7


def test_constant_folding() -> None:
    registry = REGISTRY
    assert fold(bound("1 + 2 * 3"), registry) == B.Literal(7, type=T.INTEGER)
    assert fold(bound("A + (2 * 3)"), registry) == bound("A + 6")
    assert fold(bound("UCASE('x')"), registry) == B.Literal("X", type=T.STRING)
    assert isinstance(fold(bound("1 / 0"), registry), B.Arithmetic)  # fails per record: left as it is
    assert isinstance(fold(bound("RANDOM()"), registry), B.Call)     # not deterministic
    assert constant_value(bound("CAST('12' AS INT) + 1"), registry) == 13
    assert evaluate(bound("2147483647 + 1"), registry) == -2147483648
    with pytest.raises(ArithmeticError):
        constant_value(bound("1 / 0"), registry)


def test_transform_rewrites_bottom_up() -> None:
    e = bound("A + A * 2")
    swapped = e.transform(lambda n: B.Literal(5, type=T.INTEGER) if isinstance(n, B.ColumnRef) else n)
    assert fold(swapped, REGISTRY) == B.Literal(15, type=T.INTEGER)
    assert B.columns_used(e) == {0}


def test_a_query_plan_holds_bound_expressions_and_pickles(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path))
    try:
        engine.execute("CREATE STREAM src (k STRING KEY, a INT, s STRING) WITH (kafka_topic='src', "
                       "value_format='JSON', partitions=1);")
        stmt = parse("CREATE TABLE o AS SELECT UCASE(s) AS u, COUNT(*) AS c FROM src WHERE a > 1 "
                     "GROUP BY UCASE(s) HAVING COUNT(*) > 2;")[0]
        plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name="O", persistent=True)
    finally:
        engine.close()
    agg, where = plan.find(Aggregate), plan.find(Filter)
    assert agg is not None and where is not None
    assert str(where.predicate) == "(A > 1)"
    assert [str(g) for g in agg.group_by] == ["UCASE(S)"]
    # HAVING prints as ksqlDB runs it (its processing-log text): the SELECT's COUNT(*) is KSQL_AGG_VARIABLE_0
    assert str(agg.having) == "(KSQL_AGG_VARIABLE_1 > 2)"
    assert all(isinstance(c.expr, B.Expr) for c in plan.project.key + plan.project.value)
    again = pickle.loads(pickle.dumps(plan))
    assert again.find(Filter).predicate == where.predicate and again.find(Aggregate).having == agg.having
