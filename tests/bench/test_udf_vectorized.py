"""bench/udf_vectorized on a tiny input, for correctness only (no timing is asserted): every variant runs in
the stage, as a call and as a whole query, and the forms of one function compute the same values."""

from __future__ import annotations

import math

from bench import udf_vectorized as bench


def test_every_variant_in_the_stage_as_a_call_and_in_the_query(capsys) -> None:  # type: ignore[no-untyped-def]
    assert bench.main(["--records", "300", "--batch", "100", "--query-records", "40", "--repeat", "1",
                       "--profile"]) == 0
    out = capsys.readouterr().out
    for label, _ in bench.VARIANTS:
        assert label in out
    assert "function in the stage" in out and "whole query" in out and "formula_row" in out


def test_the_forms_agree() -> None:
    import tempfile
    import textwrap
    from pathlib import Path

    from ksqlpy.udf.loader import FunctionSources, load_functions

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "f.py").write_text(textwrap.dedent(bench.FUNCTIONS))
        registry = load_functions(FunctionSources(extension_dir=tmp, entry_points=False))
        rows = [("k", float(i) + 0.5, float(i % 7) + 1.25) for i in range(50)]
        n = len(rows)
        results = {}
        for _, expr in bench.VARIANTS[1:]:
            out: list = []
            bench._stage(registry, expr)(rows, [0] * n, [0] * n, list(range(n)), [None] * n, [False] * n, out, None)
            results[expr] = [o[1][0] for o in out]
        for fn in ("MUL", "FORMULA"):
            row = results[f"{fn}_ROW(X, Y)"]
            for form in ("LIST", "NUMPY"):
                assert all(math.isclose(a, b) for a, b in zip(row, results[f"{fn}_{form}(X, Y)"], strict=True))
