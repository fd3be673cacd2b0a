"""vectorized=...: one call per batch in the generated code, the per-record semantics kept (errors, WHERE,
CASE, NULLs), lists, NumPy and Arrow arrays."""

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


SEEN = []  # (function, [(argument type, dtype), ...], rows) per batch call of the NumPy forms


def _seen(name, *cols):
    SEEN.append((name, [(type(c).__name__, str(getattr(c, "dtype", ""))) for c in cols], len(cols[0])))


@udf("NPMUL", vectorized="numpy")
def npmul(x: float, y: float) -> float:
    _seen("NPMUL", x, y)
    return x * y


@udf("NPADD", vectorized="numpy")
def npadd(a: int, b: int) -> float:
    _seen("NPADD", a, b)
    return a + b  # an int64 array for a DOUBLE result


@udf("NPFLAG", vectorized="numpy")
def npflag(x: bool) -> bool:
    _seen("NPFLAG", x)
    return ~x


@udf("NPLEN", vectorized="numpy")
def nplen(s: str, n: int) -> int:
    _seen("NPLEN", s, n)
    return [None if v is None else len(v) + k for v, k in zip(s, n)]


@udf("LISTINT", vectorized=True)
def listint(x: float) -> float:
    return [None if v is None else int(v) for v in x]  # ints for a DOUBLE result
'''

SCHEMA = RowSchema([SchemaColumn("K", T.STRING, ColumnRole.KEY), SchemaColumn("A", T.BIGINT, ColumnRole.VALUE),
                    SchemaColumn("B", T.BIGINT, ColumnRole.VALUE), SchemaColumn("X", T.DOUBLE, ColumnRole.VALUE),
                    SchemaColumn("ROWTIME", T.BIGINT, ColumnRole.SYSTEM)])
FLAGS = RowSchema([SchemaColumn("K", T.STRING, ColumnRole.KEY), SchemaColumn("F", T.BOOLEAN, ColumnRole.VALUE),
                   SchemaColumn("ROWTIME", T.BIGINT, ColumnRole.SYSTEM)])


@pytest.fixture
def registry(ext: Extensions):  # type: ignore[no-untyped-def]
    ext.write("vec.py", FUNCTIONS)
    return load_functions(FunctionSources(extension_dir=str(ext.dir), entry_points=False))


def _module(registry):  # type: ignore[no-untyped-def]
    import sys

    from ksqlpy.udf.ext import module_name

    return sys.modules[module_name(registry.scalars["VMUL"].path)]


def _calls(registry) -> list[int]:  # type: ignore[no-untyped-def]
    return _module(registry).CALLS  # type: ignore[no-any-return]


def _seen_calls(registry) -> list[tuple]:  # type: ignore[no-untyped-def]
    seen = _module(registry).SEEN
    out = list(seen)
    seen.clear()
    return out


def _run(registry, expr: str, rows: list[tuple], where: str | None = None, t: T.SqlType = T.BIGINT,  # type: ignore[no-untyped-def]
         schema: RowSchema = SCHEMA):
    scope = Scope.of([(c.name, c.type) for c in schema.columns])

    def b(text: str) -> Any:
        return bind(parse_expression(text), scope, BindContext(registry))

    spec = StageSpec(schema, b(where) if where else None, None, schema, [],
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


# --------------------------------------------------------------------------------------- vectorized="numpy"
def test_numpy_arguments_are_typed_arrays_gathered_from_the_rows(registry) -> None:  # type: ignore[no-untyped-def]
    _seen_calls(registry)
    got, errors, source = _run(registry, "NPMUL(X, X)", ROWS, t=T.DOUBLE)
    assert got == [0.0, 1.0, 4.0, 9.0, 16.0] and not errors
    assert all(type(v) is float for v in got)  # Python floats, not NumPy scalars
    assert _seen_calls(registry) == [("NPMUL", [("ndarray", "float64"), ("ndarray", "float64")], 5)]
    assert "_vgather(rows, 3, 'float64')" in source  # straight from the row tuples
    got, errors, _ = _run(registry, "NPADD(A, B)", ROWS, t=T.DOUBLE)
    assert got == [1.0, 3.0, 5.0, 7.0, 9.0] and all(type(v) is float for v in got) and not errors
    assert _seen_calls(registry) == [("NPADD", [("ndarray", "int64"), ("ndarray", "int64")], 5)]


def test_a_null_numpy_argument_fails_that_record_only(registry) -> None:  # type: ignore[no-untyped-def]
    """ksqlDB: a NULL for a primitive Java parameter fails the invocation (NULL, a processing-log entry); a
    typed NumPy array cannot hold NULL either. The other records are computed in one batch call."""
    rows = [("k", 1, 2, 1.5), ("k", None, 2, None), ("k", 3, None, 2.5), ("k", 4, 5, 3.0)]
    _seen_calls(registry)
    for expr, t, want in (("NPMUL(X, 2.0)", T.DOUBLE, [3.0, None, 5.0, 6.0]),
                          ("NPADD(A, B)", T.DOUBLE, [3.0, None, None, 9.0])):
        got, errors, _ = _run(registry, expr, rows, t=t)
        assert got == want
        assert [i for i, _, _ in errors] == [i for i, v in enumerate(want) if v is None]
        assert all(w == expr.split("(")[0] and "NULL for parameter" in e for _, w, e in errors)
        assert [n for _, _, n in _seen_calls(registry)] == [sum(v is not None for v in want)]
    # a NaN is a value, not a NULL
    got, errors, _ = _run(registry, "NPMUL(X, 2.0)", [("k", 0, 0, float("nan"))], t=T.DOUBLE)
    assert len(got) == 1 and got[0] != got[0] and not errors


def test_a_null_numpy_argument_that_no_record_reaches_is_no_error(registry) -> None:  # type: ignore[no-untyped-def]
    rows = [("k", 1, 2, 1.5), ("k", None, 2, None)]
    got, errors, _ = _run(registry, "NPMUL(X, 2.0)", rows, where="X IS NOT NULL", t=T.DOUBLE)
    assert got == [3.0] and not errors
    got, errors, _ = _run(registry, "CASE WHEN X IS NULL THEN CAST(-1 AS DOUBLE) ELSE NPMUL(X, 2.0) END", rows, t=T.DOUBLE)
    assert got == [3.0, -1.0] and not errors


def test_a_null_boolean_is_not_false(registry) -> None:  # type: ignore[no-untyped-def]
    got, errors, _ = _run(registry, "NPFLAG(F)", [("k", True), ("k", None), ("k", False)], t=T.BOOLEAN,
                          schema=FLAGS)
    assert got == [False, None, True]
    assert [i for i, _, _ in errors] == [1]


def test_other_types_are_object_arrays_holding_nulls(registry) -> None:  # type: ignore[no-untyped-def]
    _seen_calls(registry)
    got, errors, _ = _run(registry, "NPLEN(K, A)", [("abc", 1, 0, 0.0), (None, 2, 0, 0.0)])
    assert got == [4, None] and not errors
    assert _seen_calls(registry) == [("NPLEN", [("ndarray", "object"), ("ndarray", "int64")], 2)]


def test_the_one_record_form_of_a_numpy_function(registry) -> None:  # type: ignore[no-untyped-def]
    # over lambda parameters the function is called per element, as arrays of one
    got, errors, _ = _run(registry, "ARRAY_MAX(TRANSFORM(ARRAY[X, X + 1], v => NPMUL(v, 2.0)))", ROWS[1:3],
                          t=T.DOUBLE)
    assert got == [4.0, 6.0] and not errors
    got, errors, _ = _run(registry, "ARRAY_MAX(TRANSFORM(ARRAY[X], v => NPMUL(v, 2.0)))", [("k", 0, 0, None)],
                          t=T.DOUBLE)
    assert got == [None] and len(errors) == 1 and "NULL for parameter y" not in errors[0][2]
    assert "Failed to invoke function NPMUL: NULL for parameter x (DOUBLE)" in errors[0][2]


def test_results_are_read_unchecked_only_when_the_batch_computed_every_record(registry) -> None:  # type: ignore[no-untyped-def]
    got, _, source = _run(registry, "NPMUL(X, 2.0)", ROWS, t=T.DOUBLE)
    # every ``if _vok:`` of the stage (the row loop, and the column loop of a columnar batch) reads the
    # results unchecked and its ``else:`` checks them for the records to retry one by one
    branches = _vok_branches(source)
    assert len(branches) == 2
    for unchecked, checked in branches:
        assert "_vr0[_i]" in unchecked and "_RETRY else" not in unchecked
        assert "_RETRY else" in checked


def _vok_branches(source: str) -> list[tuple[str, str]]:
    """The (if, else) bodies of each ``if _vok:`` statement in generated ``source``."""
    lines = source.split("\n")
    out = []
    for i, line in enumerate(lines):
        if line.strip() != "if _vok:":
            continue
        indent = line[: len(line) - len(line.lstrip())]
        body: dict[str, list[str]] = {"if": [], "else": []}
        part = "if"
        for nxt in lines[i + 1:]:
            if nxt == indent + "else:":
                part = "else"
                continue
            if nxt.strip() and not nxt.startswith(indent + " "):
                break
            body[part].append(nxt)
        out.append(("\n".join(body["if"]), "\n".join(body["else"])))
    return out


def test_a_list_result_of_ints_for_a_double_becomes_floats(registry) -> None:  # type: ignore[no-untyped-def]
    got, errors, _ = _run(registry, "LISTINT(X)", ROWS[:3] + [("k", 0, 0, None)], t=T.DOUBLE)
    assert got == [0.0, 1.0, 2.0, None] and all(type(v) is float for v in got[:3]) and not errors


def test_numpy_in_a_persistent_query(ext: Extensions) -> None:
    ext.write("vec.py", FUNCTIONS)
    e = ext.engine()
    e.execute("CREATE STREAM S (K STRING KEY, X DOUBLE, Y DOUBLE) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', "
              "PARTITIONS=1);")
    for x, y in ((1.5, 2.0), (None, 1.0), (3.0, 3.0)):
        e.execute(f"INSERT INTO S (K, X, Y) VALUES ('k', {'NULL' if x is None else x}, {y});")
    e.execute("CREATE STREAM O AS SELECT K, NPMUL(X, Y) AS M FROM S;")
    e.drain(10)
    assert values(e, "O") == [(3.0,), (None,), (9.0,)]
    assert [x["errorMessage"] for x in plog_errors(e)] == ["Error processing NPMUL"]


def test_gathering_a_typed_column() -> None:
    """``gather``: a column of the row tuples packed into a writable typed array, or the plain list when a
    value does not convert (a NULL, an int outside the type) - the batch form then finds those records."""
    import numpy as np

    from ksqlpy.plan.batch_calls import gather

    rows = [("k", 1.5, 3), ("k", 2, -(2**31))]
    arr = gather(rows, 1, "float64")
    assert isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.tolist() == [1.5, 2.0]
    arr[0] = 0.0  # the function may work in place
    assert gather(rows, 2, "int32").tolist() == [3, -(2**31)] and gather(rows, 2, "int64").dtype == np.int64
    nan = gather([("k", float("nan"), 0)], 1, "float64")
    assert isinstance(nan, np.ndarray) and np.isnan(nan[0])  # a NaN is a value
    assert gather([("k", None, 1), ("k", 1.0, None)], 1, "float64") == [None, 1.0]
    assert gather([("k", 1.0, None)], 2, "int64") == [None]
    assert gather([("k", 1.0, 2**31)], 2, "int32") == [2**31]
    assert gather([("k", 1.0, 2**63)], 2, "int64") == [2**63]
    assert gather([("k", True, 0), ("k", None, 0)], 1, "bool") == [True, None]  # BOOLEAN: the NULL check
    assert gather([], 1, "float64").tolist() == []
