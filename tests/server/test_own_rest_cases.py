"""Our own REST cases (tests/cases/rest/*.json, ksqlDB's REST test format) through the real server."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.testing.runner import load_cases

CASES = sorted((Path(__file__).parent.parent / "cases" / "rest").glob("*.json"))

pytestmark = pytest.mark.slow


def test_own_rest_cases_pass() -> None:
    from ksqlpy.testing.rest import run_rest

    # strict: an error case of ours fails when its error never comes, queries or not
    results = run_rest(load_cases(CASES), timeout_s=60, strict_errors=True)
    failed = [f"{r.file} :: {r.name}: {r.reason}" for r in results if r.status != "passed"]
    assert results and not failed, "\n".join(failed)
