"""The loop-free form of a generated stage (``plan.codegen._columnar``): a stage whose every output is a
column or a vectorized function's result builds its output with ``map``/``zip`` over the batch. It must give
exactly what the per-record loop gives (``StageSpec(columnar=False)``) - for every output shape, system
columns, headers, tombstones, NULL keys and records a vectorized call does not compute - and must not be
used for anything computed per record."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from ksqlpy import types as T
from ksqlpy.expr.binder import bind
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.grammar import parse_expression
from ksqlpy.plan.codegen import StageSpec, build_stateless
from ksqlpy.plan.logical import ColumnRole, OutputColumn, RowSchema, SchemaColumn
from ksqlpy.udf.loader import FunctionSources, load_functions

FUNCTIONS = '''
from ksqlpy.udf import udf


@udf("NP_TWICE", vectorized="numpy")
def np_twice(x: float) -> float:
    return x * 2.0


@udf("NP_SUM", vectorized="numpy")
def np_sum(a: int, b: int) -> int:
    return a + b


@udf("L_UPPER", vectorized=True)
def l_upper(s: str) -> str:
    return [None if v is None else v.upper() for v in s]


@udf("L_FAIL", vectorized=True)
def l_fail(a: int) -> int:
    if any(v is not None and v < 0 for v in a):
        raise ValueError("negative")
    return a
'''

SCHEMA = RowSchema([
    SchemaColumn("K1", T.STRING, ColumnRole.KEY), SchemaColumn("K2", T.BIGINT, ColumnRole.KEY),
    SchemaColumn("A", T.BIGINT, ColumnRole.VALUE), SchemaColumn("X", T.DOUBLE, ColumnRole.VALUE),
    SchemaColumn("S", T.STRING, ColumnRole.VALUE),
    SchemaColumn("ROWTIME", T.BIGINT, ColumnRole.SYSTEM), SchemaColumn("ROWPARTITION", T.INTEGER, ColumnRole.SYSTEM),
    SchemaColumn("ROWOFFSET", T.BIGINT, ColumnRole.SYSTEM)])
ROWS = [("a", 1, 10, 1.5, "x"), ("b", 2, None, None, None), ("c", 3, -4, float("nan"), "z"), ("a", 4, 7, -0.0, "")]


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> FunctionRegistry:
    d: Path = tmp_path_factory.mktemp("ext")
    (d / "columnar_functions.py").write_text(textwrap.dedent(FUNCTIONS))
    return load_functions(FunctionSources(extension_dir=str(d), entry_points=False))


def _spec(registry: FunctionRegistry, groups: list[list[str]], *, where: str | None = None, columnar: bool = True,
          **flags: Any) -> StageSpec:
    scope = Scope.of([(c.name, c.type) for c in SCHEMA.columns])

    def b(text: str) -> Any:
        return bind(parse_expression(text), scope, BindContext(registry))

    outputs = [[OutputColumn(f"O{g}_{k}", b(e).type, b(e)) for k, e in enumerate(exprs)]
               for g, exprs in enumerate(groups)]
    return StageSpec(SCHEMA, b(where) if where else None, None, SCHEMA, [], outputs, registry, columnar=columnar,
                     **flags)


def _run(spec: StageSpec, rows: list[tuple], tombs: list[bool] | None = None) -> tuple[list, list, str]:
    fn = build_stateless(spec)
    n = len(rows)
    out: list[tuple] = [("earlier",)]  # the stage appends to what the caller has
    errors: list[tuple] = []
    fn(rows, [100 + i for i in range(n)], [i % 2 for i in range(n)], [1000 + i for i in range(n)],
       [[("h", b"%d" % i)] for i in range(n)], tombs or [False] * n, out,
       lambda i, w, e: errors.append((i, str(w), str(e))))
    return out, errors, fn.source


def _same(registry: FunctionRegistry, groups: list[list[str]], rows: list[tuple] = ROWS,
          tombs: list[bool] | None = None, **flags: Any) -> tuple[list, list, str]:
    """Run the stage both ways; the results and errors must be identical. Returns the columnar run's."""
    got = _run(_spec(registry, groups, **flags), rows, tombs)
    want = _run(_spec(registry, groups, columnar=False, **flags), rows, tombs)
    assert repr(got[0]) == repr(want[0])  # repr: NaN compares unequal to itself
    assert got[1] == want[1]
    assert "out.extend(" not in want[2]
    return got


SHAPES = [
    [["K1"], ["A"]],  # one column per group
    [["K1", "K2"], ["A", "X", "S"]],  # several columns of the row: one itemgetter per group
    [["K2", "K1"], ["S", "A", "S"]],  # reordered, repeated
    [[], ["A"]],  # an empty group
    [["K1"], ["ROWTIME", "A", "ROWPARTITION", "ROWOFFSET"]],  # system columns come from their lists
    [["K1"], ["ROWOFFSET"]],
    [["K1"], ["NP_TWICE(X)", "A", "L_UPPER(S)"]],  # vectorized results zipped in
    [["L_UPPER(K1)", "K2"], ["NP_SUM(A, K2)", "NP_TWICE(X)", "ROWTIME"]],
]


@pytest.mark.parametrize("groups", SHAPES, ids=[repr(g) for g in SHAPES])
def test_the_loop_free_stage_gives_what_the_loop_gives(registry: FunctionRegistry, groups: list[list[str]]) -> None:
    # a NULL for a NumPy argument is a record the batch does not compute (the loop's case, tested below)
    rows = [r for r in ROWS if None not in r[2:4]] if any("NP_" in e for g in groups for e in g) else ROWS
    out, errors, source = _same(registry, groups, rows)
    assert "out.extend(" in source and not errors
    assert out[0] == ("earlier",) and len(out) == len(rows) + 1


def test_headers_are_zipped_in(registry: FunctionRegistry) -> None:
    out, _, source = _same(registry, [["K1"], ["A"]], with_headers=True)
    assert "out.extend(" in source
    assert out[1] == (("a",), (10,), 100, [("h", b"0")])


def test_a_batch_with_a_tombstone_takes_the_loop(registry: FunctionRegistry) -> None:
    tombs = [False, True, False, False]
    for flags in ({"pass_tombstones": True}, {"tombstone_on_filter": True}):
        out, _, source = _same(registry, [["K1"], ["A", "NP_TWICE(X)"]], tombs=tombs, **flags)
        assert "out.extend(" in source
        assert out[2] == (("b",), None, 101)  # the tombstone goes on as a delete of its key


def test_records_a_vectorized_call_did_not_compute_take_the_loop(registry: FunctionRegistry) -> None:
    # a NULL in a typed NumPy argument: that record's call fails (NULL, an error), the others computed
    out, errors, _ = _same(registry, [["K1"], ["NP_SUM(A, K2)"]])
    assert [o[1] for o in out[1:]] == [(11,), (None,), (-1,), (11,)]
    assert [(i, w) for i, w, _ in errors] == [(1, "NP_SUM")]
    # a failing batch: record by record, the failing record NULL with an error
    out, errors, _ = _same(registry, [["K1"], ["L_FAIL(A)"]])
    assert [o[1] for o in out[1:]] == [(10,), (None,), (None,), (7,)]
    assert [(i, w) for i, w, _ in errors] == [(2, "L_FAIL")]


def test_an_empty_batch(registry: FunctionRegistry) -> None:
    out, errors, _ = _same(registry, [["K1"], ["A", "NP_TWICE(X)"]], rows=[])
    assert out == [("earlier",)] and not errors


@pytest.mark.parametrize("groups, where", [
    ([["K1"], ["A + 1"]], None),  # an expression computed per record
    ([["K1"], ["CAST(A AS STRING)"]], None),
    ([["K1"], ["NP_TWICE(X + 1.0)"]], None),  # an argument computed per record: the result is still a column
    ([["K1"], ["A"]], "A > 0"),  # a WHERE
    ([["UCASE(K1)"], ["A"]], None),  # a row function
])
def test_what_is_computed_per_record_keeps_the_loop(registry: FunctionRegistry, groups: list[list[str]],
                                                     where: str | None) -> None:
    rows = [r for r in ROWS if r[2] is not None and r[3] is not None]
    out, _, source = _same(registry, groups, rows, where=where)
    loop_free = "out.extend(" in source
    assert loop_free is (groups[1] == ["NP_TWICE(X + 1.0)"])


@pytest.mark.parametrize("n", [0, 1, 999, 1000, 1001, 2500])
def test_a_batch_is_extended_in_chunks_with_every_record_in_order(registry: FunctionRegistry, n: int) -> None:
    # chunks of ``json_fast.CHUNK`` records, so a pull query's thread can take the GIL between them; the chunks
    # together are the whole batch, in order, whatever its size against the chunk
    rows = [(f"k{i}", i, i * 3, i / 2, "s") for i in range(n)]
    out, errors, source = _same(registry, [["K1"], ["A", "ROWOFFSET", "L_UPPER(S)"]], rows)
    assert "_islice(_it, _CHUNK)" in source and not errors
    assert out[1:] == [((f"k{i}",), (i * 3, 1000 + i, "S"), 100 + i) for i in range(n)]
