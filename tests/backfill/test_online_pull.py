"""The online backfill benchmark (``bench.backfill_online``) on a small history: a real server answers pull
queries idle and while it backfills, the backfill's progress is visible over REST while it computes, and
the report carries both latency distributions (the figures themselves depend on the machine's load, so
they are reported, not asserted)."""

from __future__ import annotations

import pytest

from tests.backfill.conftest import _java

pytestmark = pytest.mark.slow
pytest.importorskip("httpx")
pytest.importorskip("hypercorn")


def test_pull_queries_idle_and_during_a_backfill() -> None:
    if not _java():
        pytest.skip("Java is not installed: the Spark backfill tests need a JVM")
    from bench.backfill_online import run

    report = run(120_000, "local[2]", idle_queries=100, log=lambda *_: None)
    assert report["phase"] == "DONE"
    assert report["pull_errors"] == 0
    assert report["idle"]["count"] == 100 and report["during_backfill"]["count"] > 0
    assert report["idle"]["p99_ms"] > 0 and report["during_backfill"]["p99_ms"] > 0
    assert report["progress_values_seen"] >= 1  # recordsRead seen while COMPUTING
    assert report["sink_records"] > 0
