"""vectorized=True: one call per batch in the generated code, the per-record semantics kept (errors, WHERE,
CASE), lists and Arrow arrays."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy import types as T
from ksqlpy.expr.binder import bind
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext
from ksqlpy.grammar import parse_expression
from ksqlpy.plan.codegen import StageSpec, build_stateless
from ksqlpy.plan.logical import ColumnRole, OutputColumn, RowSchema, SchemaColumn
from ksqlpy.udf.loader import FunctionSources, load_functions
from tests.udf.conftest import Extensions, plog_errors, values

FUNCTIONS = '''
from ksqlpy.udf import udf

CALLS = []


@udf("VMUL", vectorized=True, description="a * b for a whole batch")
def vmul(a: int, b: int) -> int:
    CALLS.append(len(a))
    return [None if x is None or y is None else x * y for x, y in zip(a, b)]


@udf("VCHECK", vectorized=True)
def vcheck(a: int) -> int:
    CALLS.append(len(a))
    for x in a:
        if x is not None and x < 0:
            raise ValueError(f"negative: {x}")
    return a


@udf("VARROW", vectorized="arrow")
def varrow(a: float) -> float:
    import pyarrow.compute as pc

    return pc.multiply(a, 2.0)


@udf("VSHORT", vectorized=True)
def vshort(a: int) -> int:
    return a[:-1]
'''

SCHEMA = RowSchema([SchemaColumn("K", T.STRING, ColumnRole.KEY), SchemaColumn("A", T.BIGINT, ColumnRole.VALUE),
                    SchemaColumn("B", T.BIGINT, ColumnRole.VALUE), SchemaColumn("X", T.DOUBLE, ColumnRole.VALUE),
                    SchemaColumn("ROWTIME", T.BIGINT, ColumnRole.SYSTEM)])


@pytest.fixture
def registry(ext: Extensions):  # type: ignore[no-untyped-def]
    ext.write("vec.py", FUNCTIONS)
    return load_functions(FunctionSources(extension_dir=str(ext.dir), entry_points=False))


def _calls(registry) -> list[int]:  # type: ignore[no-untyped-def]
    import sys

    from ksqlpy.udf.ext import module_name

    path = registry.scalars["VMUL"].path
    return sys.modules[module_name(path)].CALLS  # type: ignore[no-any-return]


def _run(registry, expr: str, rows: list[tuple], where: str | None = None, t: T.SqlType = T.BIGINT):  # type: ignore[no-untyped-def]
    scope = Scope.of([(c.name, c.type) for c in SCHEMA.columns])

    def b(text: str) -> Any:
        return bind(parse_expression(text), scope, BindContext(registry))

    spec = StageSpec(SCHEMA, b(where) if where else None, None, SCHEMA, [],
                     [[OutputColumn("K", T.STRING, b("K"))], [OutputColumn("V", t, b(expr))]], registry)
    fn = build_stateless(spec)
    out: list[tuple] = []
    errors: list[tuple] = []
    n = len(rows)
    fn(rows, [0] * n, [0] * n, list(range(n)), [None] * n, [False] * n, out, lambda i, w, e: errors.append((i, str(w), str(e))))
    return [o[1][0] for o in out], errors, fn.source


ROWS = [("k", i, i + 1, float(i)) for i in range(5)]


def test_one_call_per_batch(registry) -> None:  # type: ignore[no-untyped-def]
    calls = _calls(registry)
    calls.clear()
    got, errors, source = _run(registry, "VMUL(A, B + 1)", ROWS)
    assert got == [0, 3, 8, 15, 24] and not errors
    assert calls == [5]  # once, for the five records
    assert "_vcall(" in source


def test_a_failing_batch_falls_back_to_the_records_that_reach_the_call(registry) -> None:  # type: ignore[no-untyped-def]
    rows = [("k", 1, 0, 0.0), ("k", -2, 0, 0.0), ("k", 3, 0, 0.0)]
    got, errors, _ = _run(registry, "VCHECK(A)", rows)
    assert got == [1, None, 3]
    assert [(i, w) for i, w, _ in errors] == [(1, "VCHECK")] and "negative: -2" in errors[0][2]
    # the failing record is filtered out by WHERE: the batch fails, but no record reaching the call fails
    got, errors, _ = _run(registry, "VCHECK(A)", rows, where="A > 0")
    assert got == [1, 3] and errors == []
    # ... or it is in a CASE branch that is not chosen for it
    got, errors, _ = _run(registry, "CASE WHEN A > 0 THEN VCHECK(A) ELSE CAST(0 AS BIGINT) END", rows)
    assert got == [1, 0, 3] and errors == []


def test_a_result_of_the_wrong_length_is_an_error_per_record(registry) -> None:  # type: ignore[no-untyped-def]
    got, errors, _ = _run(registry, "VSHORT(A)", ROWS[:2])
    assert got == [None, None]
    assert all("returned 0 values for 1 rows" in e for _, _, e in errors)


def test_arrow_arrays(registry) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("pyarrow")
    got, errors, _ = _run(registry, "VARROW(X)", ROWS, t=T.DOUBLE)
    assert got == [0.0, 2.0, 4.0, 6.0, 8.0] and not errors


def test_calls_over_lambda_parameters_run_per_record(registry) -> None:  # type: ignore[no-untyped-def]
    calls = _calls(registry)
    calls.clear()
    got, errors, _ = _run(registry, "ARRAY_MAX(TRANSFORM(ARRAY[A, B], v => VMUL(v, 10)))", [("k", 2, 3, 0.0)])
    assert got == [30] and not errors
    assert calls == [1, 1]  # the one-record form, per element


def test_in_a_persistent_query(ext: Extensions) -> None:
    ext.write("vec.py", FUNCTIONS)
    e = ext.engine()
    e.execute("CREATE STREAM S (K STRING KEY, A BIGINT, B BIGINT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', "
              "PARTITIONS=1);")
    for i in range(4):
        e.execute(f"INSERT INTO S (K, A, B) VALUES ('k', {i - 1}, {i});")
    e.execute("CREATE STREAM O AS SELECT K, VMUL(A, B) AS M, VCHECK(A) AS C FROM S;")
    e.drain(10)
    assert values(e, "O") == [(0, None), (0, 0), (2, 1), (6, 2)]
    assert [x["errorMessage"] for x in plog_errors(e)] == ["Error processing VCHECK"]
