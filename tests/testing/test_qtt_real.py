"""The runner over ksqlDB's own QTT folder (read in place from /work/shared/qtt, never copied).

Skipped when the folder is absent. The slow test runs a sample of cases on the real engine and, for
each one that passes, checks that mutating one expected value makes it fail.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ksqlpy.testing.executor import run_case
from ksqlpy.testing.mutation import mutate
from ksqlpy.testing.runner import discover, load_cases

QTT = Path("/work/shared/qtt")
pytestmark = pytest.mark.skipif(not QTT.is_dir(), reason="ksqlDB QTT folder not available")


def test_every_real_file_loads_and_expands() -> None:
    cases = load_cases(discover([QTT / "query-validation-tests", QTT / "rest-query-validation-tests"]))
    assert len(cases) > 1000
    malformed = [f"{c.id}: {c.error}" for c in cases if c.error]
    assert malformed == []
    rest = [c for c in cases if c.rest]
    assert rest and all(c.skip_reason == "REST case: needs --rest" for c in rest)
    assert any(c.responses for c in rest)
    reasons = Counter(c.skip_reason for c in cases if not c.rest)
    assert reasons[None] > 800  # most statement-level cases are runnable


@pytest.mark.slow
def test_mutating_a_sample_of_passing_real_cases_makes_them_fail() -> None:
    try:
        from ksqlpy.testing.cli import default_factory

        factory = default_factory()
    except ImportError as e:
        pytest.skip(f"engine not available: {e}")
    cases = [c for c in load_cases(discover([QTT / "query-validation-tests"])) if not c.skip_reason]
    sample = cases[:: max(1, len(cases) // 60)]
    checked = []
    for case in sample:
        if run_case(case, factory, timeout_s=30).status != "passed":
            continue
        m = mutate(case)
        if m is None:
            continue
        mutant, what = m
        result = run_case(mutant, factory, timeout_s=30)
        assert result.status == "failed", f"{case.id}: mutating {what} still {result.status}"
        checked.append(case.id)
    if not checked:
        pytest.skip("no sampled case passes on the engine yet")
