"""A worker's cumulative counters reach the engine's statistics as what they gained since its previous status;
a restarted worker (counting from zero again) adds all it reports, and nothing is counted twice."""

from __future__ import annotations

from ksqlpy.engine.metrics import EngineStats
from ksqlpy.runtime.query_stats import BATCH_BUCKETS, QueryStats, bucket


def _worker(consumed: int, produced: int, batches: list[float]) -> dict:
    s = QueryStats()
    for seconds in batches:
        s.record(consumed // len(batches), seconds)
    s.produced = produced
    return s.snapshot()


def test_statuses_add_what_they_gained_and_a_restart_counts_from_zero() -> None:
    engine = EngineStats()
    first = _worker(10, 4, [0.001, 0.2])
    engine.worker_status("Q", first, None)
    second = _worker(30, 9, [0.001, 0.2, 3.0])
    engine.worker_status("Q", second, first)
    assert engine.query("Q").consumed == 30 and engine.query("Q").produced == 9
    restarted = _worker(6, 2, [0.01])  # a new process: its counters start again at zero
    engine.worker_status("Q", restarted, None)
    stats = engine.query("Q")
    assert (stats.consumed, stats.produced, stats.batches) == (36, 11, 4)
    assert stats.batch_counts[bucket(0.001)] == 1 and stats.batch_counts[bucket(0.2)] == 1
    assert stats.batch_counts[len(BATCH_BUCKETS) - 1] == 1 and stats.batch_counts[bucket(0.01)] == 1
    assert abs(stats.batch_sum_s - 3.211) < 1e-9
    assert stats.rate() > 0 and stats.last_message_ms is not None


def test_push_queries_are_timed_when_they_end() -> None:
    engine = EngineStats()
    engine.push_ended(0.3)
    engine.push_ended(4000.0)
    assert sum(engine.push_counts) == 2 and engine.push_counts[-1] == 1
    assert engine.push_sum_s == 4000.3
