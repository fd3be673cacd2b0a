"""Our join cases (tests/joins/cases/*.json, ksqlDB's test-file format) through the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.testing.cli import default_factory
from ksqlpy.testing.runner import load_cases, run_all

CASES = sorted((Path(__file__).parent / "cases").glob("*.json"))
ALL = load_cases(CASES)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in ALL])
def test_case(case) -> None:  # type: ignore[no-untyped-def]
    [result] = run_all([case], default_factory())
    assert result.status == "passed", result.reason
