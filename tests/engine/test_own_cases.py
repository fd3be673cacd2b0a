"""Our own conformance cases (every tests/cases/**/*.json but rest/; ksqlDB's test-file format) through the
real engine.

Every case runs twice: with every record in partition 0, as ksqlDB's harness runs its cases, and with
records where their keys hash over the topics' partitions (4 unless a case declares a count), which is
what shows a record routed to the wrong partition.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.testing.cli import default_factory
from ksqlpy.testing.partitioning import Placement
from ksqlpy.testing.runner import load_cases, run_all

_ROOT = Path(__file__).parent.parent / "cases"
# every case file under tests/cases, whatever area directory it is in, but rest/ (REST cases: run against a
# server by tests/server/test_own_rest_cases.py) - a directory listed by name here once left new areas
# (analysis/, functions/) out of CI
CASES = sorted(p for p in _ROOT.rglob("*.json") if "rest" not in p.relative_to(_ROOT).parts[:-1])
ALL = load_cases(CASES)


# Known gaps, each with the issue that closes it; strict, so a fix is noticed.
PENDING: dict[str, str] = {}


def _params():  # type: ignore[no-untyped-def]
    for case in ALL:
        for placement in Placement:
            marks = ([pytest.mark.xfail(reason=PENDING[case.id], strict=True)] if case.id in PENDING else [])
            yield pytest.param(case, placement, id=f"{case.id} [{placement.value}]", marks=marks)


@pytest.mark.parametrize(("case", "placement"), list(_params()))
def test_case(case, placement: Placement) -> None:  # type: ignore[no-untyped-def]
    [result] = run_all([case], default_factory(), placement=placement)
    assert result.status == "passed", result.reason
