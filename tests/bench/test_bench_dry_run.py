"""``python -m bench run --dry-run``: the run's measurement processes in its order and what each step would
make first or lacks, with nothing started or written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench import dry_run, venvs
from bench.__main__ import main
from bench.engine_runs import Options


def _empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No cached data and no peer environments."""
    monkeypatch.setattr(dry_run, "DATA", str(tmp_path / "data"))
    monkeypatch.setattr(venvs, "ROOT", str(tmp_path / "venvs"))


def _ready(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, events: int) -> None:
    """The data cached and every peer environment ready."""
    _empty(tmp_path, monkeypatch)
    for sub in ("", "jsonl-1", "jsonl-2"):
        for n in (events, 2000):
            d = tmp_path / "data" / f"nexmark-{n}-42" / sub
            d.mkdir(parents=True, exist_ok=True)
            (d / "READY").write_text("{}")
    for peer, pkgs in venvs.PEERS.items():
        d = tmp_path / "venvs" / peer
        d.mkdir(parents=True)
        (d / ".bench-ready").write_text(" ".join(pkgs))


def test_the_plan_lists_every_measurement_process_in_the_runs_order(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _ready(tmp_path, monkeypatch, 1_000_000)
    steps = {s.name: s for s in dry_run.plan(Options(events=1_000_000, workers=2, workloads=("q0", "q5", "q8"),
                                                     say=lambda _: None))}
    assert steps["ksqlpy on the embedded log"].runs == [
        "ksqlpy q0", "ksqlpy q5", "ksqlpy q8", "ksqlpy-cache0 q5", "ksqlpy-w2 q0", "ksqlpy-w2 q5", "ksqlpy-w2 q8"]
    assert steps["hand-written loop on the embedded log"].runs == ["hand-written q0", "hand-written q5",
                                                                   "hand-folded q5"]
    assert steps["Flink SQL (PyFlink mini-cluster)"].runs == [
        f"flink-{v} {w}" for w in ("q0", "q5", "q8") for v in ("p1", "p2", "p1-blackhole")]
    assert steps["Pathway (JSON-lines reader)"].runs == ["pathway q0", "pathway q5", "pathway q8"]
    # q8 reads persons and auctions: not on the Kafka side, which loads bids
    assert steps["Kafka side (tansu broker)"].runs == [
        f"{e} {w}" for w in ("q0", "q5") for e in ("hand-written", "quixstreams", "bytewax", "pathway")]
    assert steps["latency on the embedded engine"].runs == list(dry_run.LATENCY_RUNS)
    assert all(not s.makes for s in steps.values())


def test_what_the_run_would_make_first_and_what_it_lacks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _empty(tmp_path, monkeypatch)
    import bench.broker

    monkeypatch.setattr(bench.broker, "tansu_binary", lambda: None)
    monkeypatch.setattr(dry_run.shutil, "which", lambda name: None)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    steps = {s.name: s for s in dry_run.plan(Options(events=5000, workloads=("q1",), say=lambda _: None))}
    assert steps["data"].makes == [f"5,000 Nexmark events (seed 42) in {tmp_path / 'data'}"]
    flink = steps["Flink SQL (PyFlink mini-cluster)"]
    assert any("flink environment from PyPI" in m for m in flink.makes)
    assert [m for m in flink.makes if "JSON lines" in m] == [
        f"{n:,} events as JSON lines, {p} file(s) per topic" for p in (1, 2) for n in (2000, 5000)]
    assert flink.lacks == ["a Java 11/17 runtime (java on PATH or JAVA_HOME) for PyFlink"]
    kafka = steps["Kafka side (tansu broker)"]
    assert kafka.lacks[0].startswith("the tansu broker")
    assert {m.split(" ")[1] for m in kafka.makes} == {"quixstreams", "bytewax"}  # Pathway's is the Pathway step's
    assert not os.path.exists(tmp_path / "data") and not os.path.exists(tmp_path / "venvs")  # nothing written


def test_the_command_line_dry_run_starts_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _ready(tmp_path, monkeypatch, 1_000_000)
    import bench.harness

    monkeypatch.setattr(bench.harness, "run", lambda opts: pytest.fail("a dry run measured"))
    assert main(["run", "--quick", "--workers", "2", "--workloads", "q8", "--no-latency", "--peers", "pathway",
                 "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "ksqlpy-w2 q8" in out and "pathway q8" in out and "flink" not in out
    assert '"processes": 3' in out
