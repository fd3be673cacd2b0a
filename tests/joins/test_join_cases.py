"""Our join cases (tests/joins/cases/*.json, ksqlDB's test-file format) through the real engine.

Every case runs with every record in partition 0 (as ksqlDB's harness runs its cases) and with records
where their keys hash over 4 partitions (what shows a record routed to the wrong partition), except the
cases whose outcome rests on one stream time for all keys: with several partitions each has its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.testing.cli import default_factory
from ksqlpy.testing.partitioning import Placement
from ksqlpy.testing.runner import load_cases, run_all

CASES = sorted((Path(__file__).parent / "cases").glob("*.json"))
ALL = load_cases(CASES)

# a record of another key closes the window: on several partitions it may advance another stream time
ONE_STREAM_TIME = frozenset({
    "stream-stream.json :: left join with grace period emits the null-padded row only once the window closed",
    "stream-stream.json :: full outer join with grace period: both sides wait for the window to close",
})


def _params():  # type: ignore[no-untyped-def]
    for case in ALL:
        for placement in Placement:
            if placement is Placement.KAFKA and case.id in ONE_STREAM_TIME:
                continue
            yield pytest.param(case, placement, id=f"{case.id} [{placement.value}]")


@pytest.mark.parametrize(("case", "placement"), list(_params()))
def test_case(case, placement: Placement) -> None:  # type: ignore[no-untyped-def]
    [result] = run_all([case], default_factory(), placement=placement)
    assert result.status == "passed", result.reason
