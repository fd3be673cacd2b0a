"""Our own conformance cases (tests/cases/*.json, ksqlDB's test-file format) through the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.testing.cli import default_factory
from ksqlpy.testing.runner import load_cases, run_all

CASES = sorted((Path(__file__).parent.parent / "cases").glob("*.json"))
ALL = load_cases(CASES)


# Known gaps, each with the issue that closes it; strict, so a fix is noticed.
PENDING: dict[str, str] = {}


def _param(case):  # type: ignore[no-untyped-def]
    if case.id in PENDING:
        return pytest.param(case, id=case.id, marks=pytest.mark.xfail(reason=PENDING[case.id], strict=True))
    return pytest.param(case, id=case.id)


@pytest.mark.parametrize("case", [_param(c) for c in ALL])
def test_case(case) -> None:  # type: ignore[no-untyped-def]
    [result] = run_all([case], default_factory())
    assert result.status == "passed", result.reason
