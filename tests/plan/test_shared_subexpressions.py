"""A generated stage computes a repeated pure subexpression once per record (``ksqlpy.expr.shared``), and
writes a few built-in calls as their implementation's own text (``ksqlpy.expr.inline_calls``).

Every test runs the stage both ways - sharing on and off (``StageSpec(shared=False)``: every occurrence
evaluated as written) - over rows with NULLs, non-ASCII text and values that make an expression fail, and
requires the same outputs and the same processing-log entries; then checks what was (not) shared."""

from __future__ import annotations

import sys
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

CALLS = []


@udf("COUNTED")
def counted(s: str) -> str:
    CALLS.append(s)
    return s
'''

SCHEMA = RowSchema([
    SchemaColumn("K", T.STRING, ColumnRole.KEY), SchemaColumn("A", T.BIGINT, ColumnRole.VALUE),
    SchemaColumn("B", T.INTEGER, ColumnRole.VALUE), SchemaColumn("S", T.STRING, ColumnRole.VALUE),
    SchemaColumn("U", T.STRING, ColumnRole.VALUE), SchemaColumn("ROWTIME", T.BIGINT, ColumnRole.SYSTEM)])
ROWS = [
    ("k1", 5_000_000, 3, "Apple", "http://h/a/b/c/d"),
    ("k2", None, 0, None, None),
    ("k3", -7, None, "GOOGLE", "x/y"),
    ("k4", 9_223_372_036_854_775_807, 2, "caféc\U0001F600c", "http://h/a/b/c/d/e/f"),  # overflow, non-ASCII
    ("k5", 12, -1, "", ""),
    ("k6", 3_600_000 * 30, 7, "cc", "/"),
]


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> FunctionRegistry:
    d: Path = tmp_path_factory.mktemp("ext")
    (d / "shared_functions.py").write_text(textwrap.dedent(FUNCTIONS))
    return load_functions(FunctionSources(extension_dir=str(d), entry_points=False))


def _spec(registry: FunctionRegistry, outputs: list[str], where: str | None, shared: bool) -> StageSpec:
    scope = Scope.of([(c.name, c.type) for c in SCHEMA.columns])

    def b(text: str) -> Any:
        return bind(parse_expression(text), scope, BindContext(registry))

    groups = [[OutputColumn("K", T.STRING, b("K"))],
              [OutputColumn(f"O{k}", b(e).type, b(e)) for k, e in enumerate(outputs)]]
    return StageSpec(SCHEMA, b(where) if where else None, None, SCHEMA, [], groups, registry, shared=shared,
                     columnar=False)


def _run(spec: StageSpec, rows: list[tuple]) -> tuple[list, list, str]:
    fn = build_stateless(spec)
    n = len(rows)
    out: list[tuple] = []
    errors: list[tuple] = []
    fn(rows, [100 + i for i in range(n)], [0] * n, list(range(n)), [None] * n, [False] * n, out,
       lambda i, w, e: errors.append((i, str(w), type(e).__name__, str(e))))
    return out, errors, fn.source


def _same(registry: FunctionRegistry, outputs: list[str], where: str | None = None,
          rows: list[tuple] = ROWS) -> tuple[list, list, str]:
    """The stage with sharing and without: identical outputs and errors. Returns the shared run's, and
    its fast path's source (the part before the slow path)."""
    got = _run(_spec(registry, outputs, where, True), rows)
    want = _run(_spec(registry, outputs, where, False), rows)
    assert got[0] == want[0]
    assert got[1] == want[1]
    assert "_x0" not in want[2]
    return got[0], got[1], got[2].split("def _slow")[0]


def test_a_repeated_function_call_is_computed_once_per_record(registry: FunctionRegistry) -> None:
    out, errors, fast = _same(registry, ["SPLIT(U, '/')[4]", "SPLIT(U, '/')[5]", "SPLIT(U, '/')[-1]",
                                         "SPLIT(U, '/')[0]", "SPLIT(U, '/')[99]"])
    assert fast.count(".split(") == 1 and "_x0 = " in fast
    assert out[0][1] == ("a", "b", "d", None, None)
    assert out[1][1] == (None,) * 5 and not errors


def test_where_and_projection_share_arithmetic(registry: FunctionRegistry) -> None:
    # a NULL or overflowing operand fails the expression: the record takes the slow path, as without sharing
    out, errors, fast = _same(registry, ["A * 908 / 1000", "(A * 908 / 1000) % 7"],
                              where="A * 908 / 1000 > 10 AND A * 908 / 1000 < 9000000")
    assert fast.count("* 908") == 1
    keys = [o[0][0] for o in out]
    assert "k1" in keys and "k5" not in keys and "k6" not in keys
    assert [e[0] for e in errors] == [1]  # the NULL operand, logged alike both ways


def test_case_branches_share_their_condition_operand(registry: FunctionRegistry) -> None:
    case = ("CASE WHEN (A / 3600000) % 24 >= 8 AND (A / 3600000) % 24 <= 18 THEN 'day' "
            "WHEN (A / 3600000) % 24 <= 6 OR (A / 3600000) % 24 >= 20 THEN 'night' ELSE 'other' END")
    out, _, fast = _same(registry, [case])
    assert fast.count("// 3600000") == 2  # (one computation: both signs' branches)
    assert [o[1] for o in out if o[0] == ("k6",)] == [("night",)]  # hour 30 is 6


def test_a_subexpression_first_met_in_a_branch_is_bound_where_it_is_always_evaluated(
        registry: FunctionRegistry) -> None:
    # LCASE(S) is only sometimes evaluated in the WHERE (right of OR), always in the first WHEN
    case = "CASE WHEN LCASE(S) = 'apple' THEN '0' WHEN LCASE(S) = 'google' THEN '1' ELSE LCASE(S) END"
    out, _, fast = _same(registry, [case, "LCASE(S)"], where="B > 2 OR LCASE(S) IN ('google', '')")
    lines = fast.splitlines()
    where = next(i for i, line in enumerate(lines) if line.strip().startswith("if ") and "tombs" not in line)
    bound = next(i for i, line in enumerate(lines) if line.strip().startswith("_x0 = "))
    assert bound > where and "lower()" in lines[where]  # computed in the WHERE as written, then bound once
    assert [o[1] for o in out] == [("0", "apple"), ("1", "google"), ("", ""), ("cc", "cc")]


def test_a_user_function_is_called_at_every_occurrence(registry: FunctionRegistry) -> None:
    # a user's function may count its calls or have side effects: never shared
    calls = next(m for m in sys.modules.values() if getattr(m, "__file__", "") and
                 m.__file__.endswith("shared_functions.py")).CALLS
    calls.clear()
    _run(_spec(registry, ["LEN(COUNTED(S))", "LEN(COUNTED(S))"], None, True), ROWS[:1])
    assert calls == ["Apple", "Apple"]


def test_non_deterministic_functions_are_not_shared(registry: FunctionRegistry) -> None:
    out, _, source = _run(_spec(registry, ["RANDOM() + B", "RANDOM() + B"], None, True), ROWS[:1])
    assert "_x0" not in source
    assert out[0][1][0] != out[0][1][1]


def test_a_container_is_shared_only_when_read(registry: FunctionRegistry) -> None:
    # two columns holding the same list object could be changed through each other downstream
    out, _, fast = _same(registry, ["SPLIT(U, '/')", "SPLIT(U, '/')"], rows=ROWS[:1])
    assert "_x0" not in fast
    assert out[0][1][0] == out[0][1][1] and out[0][1][0] is not out[0][1][1]


def test_inlined_string_functions_keep_java_semantics(registry: FunctionRegistry) -> None:
    out, errors, fast = _same(registry, ["LEN(S)", "LEN(S) - LEN(REPLACE(S, 'c', ''))", "UCASE(S)", "LCASE(S)",
                                         "SPLIT(S, '')", "SPLIT(U, S)", "SPLIT(U, 'c')"])
    assert ".isascii()" in fast and ".replace('c', '')" in fast and ".upper()" in fast
    assert ".split('c')" in fast
    by_key = {o[0][0]: o[1] for o in out}
    assert by_key["k4"][:2] == (8, 3)  # the emoji is two UTF-16 units
    assert by_key["k5"][4] == [""] and by_key["k1"][4] == list("Apple")  # an empty delimiter: characters
    assert by_key["k2"] == (None,) * 7
    assert errors == [(1, "O1", "NullOperandError", "java.lang.NullPointerException")]  # NULL - NULL, both ways
