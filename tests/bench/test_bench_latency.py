"""The pull-latency report: idle and draining figures side by side with the machine's load, and the targets
judged from them (the idle-machine target not judged on a busy machine)."""

from __future__ import annotations

from bench.latency import pull
from bench.report import pull_targets


def _rest(p99: float, idle_p99: float, load_idle: float, cpus: int = 2) -> dict:
    return {"workload": "pull-rest", "p50_ms": 1.0, "p99_ms": p99, "idle_p50_ms": 0.3, "idle_p99_ms": idle_p99,
            "load_avg_idle": load_idle, "load_avg_draining": load_idle + 1, "cpus": cpus}


def test_rest_runs_carry_the_idle_and_draining_targets_with_the_load() -> None:
    got = {t["target"]: t for t in pull_targets(_rest(p99=8.0, idle_p99=3.0, load_idle=0.2))}
    idle = got["REST pull p99 < 5 ms, table idle, idle machine (pull-rest)"]
    draining = got["REST pull p99 < 10 ms while q7 drains (pull-rest)"]
    assert (idle["figure"], idle["met"]) == (3.0, True)
    assert (draining["figure"], draining["met"]) == (8.0, True)
    assert "load average 0.2 idle, 1.2 draining, 2 cores" in draining["note"]
    assert got["pull-query p99 < 5 ms while a query runs (pull-rest)"]["met"] is False


def test_the_idle_machine_target_is_not_judged_on_a_busy_machine() -> None:
    got = {t["target"]: t for t in pull_targets(_rest(p99=30.0, idle_p99=9.0, load_idle=6.0))}
    idle = got["REST pull p99 < 5 ms, table idle, idle machine (pull-rest)"]
    assert idle["met"] is None and "not idle" in idle["note"]
    assert got["REST pull p99 < 10 ms while q7 drains (pull-rest)"]["met"] is False


def test_engine_runs_keep_one_target_and_other_rows_none() -> None:
    lat = {"workload": "pull-engine", "p50_ms": 0.2, "p99_ms": 2.0, "idle_p99_ms": 0.1}
    assert [t["met"] for t in pull_targets(lat)] == [True]
    assert pull_targets({"workload": "push", "p99_ms": 1.0}) == []


def test_a_pull_run_reports_idle_and_draining_with_the_load() -> None:
    r = pull(20_000, lookups=40, mode="engine", gap_ms=0)
    assert r["samples"] >= 1 and r["found"] == r["samples"]
    assert r["idle_p99_ms"] > 0 and r["p99_ms"] > 0
    assert r["load_avg_idle"] >= 0 and r["load_avg_draining"] >= 0 and r["cpus"] >= 1


def test_the_workers_row_runs_its_queries_in_worker_processes_and_takes_its_samples() -> None:
    # it ran them in the engine's own thread once ksqlpy.workers was read from the configuration only (set
    # after the engine was built, it did nothing), and its busy() ended after 24 lookups; now the load is
    # copied again while fewer than min_samples lookups were taken under it
    r = pull(20_000, lookups=400, mode="workers", gap_ms=0, min_samples=300)
    assert r["workload"] == "pull-workers" and r["samples"] >= 300 and r["found"] == r["samples"]
    assert r["load_copies"] >= 1
