"""Crash recovery with real processes: kill -9 at random points, the result is as if nothing happened.

A windowed aggregation runs over 100k records in a worker process that is SIGKILLed several times while
it works and restarted over the same data directory. Under exactly-once (one log transaction per batch
holds the outputs, the changelog records and the input positions) the output topic must be exactly the
one a run without crashes writes: same records, same order, no duplicate update. A second test deletes
the state directory and checks the stores are rebuilt from their changelogs.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog

ROOT = Path(__file__).resolve().parents[2]
WORKER = [sys.executable, str(Path(__file__).with_name("crash_worker.py"))]
N = 100_000
KEYS = 200

pytestmark = pytest.mark.slow


def _prepare(data_dir: Path, n: int = N) -> None:
    """The input: n records over 2 partitions, mostly in order, some late, some too late."""
    rnd = random.Random(7)
    log = EmbeddedLog(str(data_dir / "log"))
    log.create_topic("events", 2)
    with log.transaction() as tx:
        for i in range(n):
            ts = i * 3 - (rnd.randrange(10_000) if rnd.random() < 0.05 else 0)
            key = f"k{rnd.randrange(KEYS)}"
            tx.produce(ProducerRecord("events", key.encode(), orjson.dumps({"V": i % 97}), max(ts, 0)))
    log.close()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _run_to_end(data_dir: Path, timeout: float = 600) -> None:
    out = subprocess.run([*WORKER, str(data_dir)], env=_env(), capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0 and "DONE" in out.stdout, out.stderr[-3000:]


def _output(data_dir: Path, topic: str = "COUNTS") -> list[tuple]:
    log = EmbeddedLog(str(data_dir / "log"))
    try:
        info = log.describe_topic(topic)
        assert info is not None
        rows = []
        for p in range(info.partitions):
            batch = log.fetch(topic, p, 0, 10_000_000)
            rows.extend((p, k, v, ts) for k, v, ts in zip(batch.keys, batch.values, batch.timestamps, strict=True))
        return rows
    finally:
        log.close()


def _per_key(rows: list[tuple]) -> dict[tuple, list[tuple]]:
    """Each (partition, key)'s update sequence: tasks interleave differently from run to run, but the
    updates of one key come from one task, in order."""
    seqs: dict[tuple, list[tuple]] = {}
    for p, k, v, ts in rows:
        seqs.setdefault((p, k), []).append((v, ts))
    return seqs


def _final(rows: list[tuple]) -> dict[bytes, bytes | None]:
    table: dict[bytes, bytes | None] = {}
    for _, k, v, _ in rows:
        table[k] = v
    return table


def _pull(data_dir: Path, keys: list[str]) -> dict:
    out = subprocess.run([*WORKER, str(data_dir), "--pull", *keys], env=_env(), capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return orjson.loads(out.stdout.strip().splitlines()[-1])


@dataclass
class Reference:
    """A run with no crash: its data directory, its output and how long it took (kill points are drawn as
    fractions of it, so the kills land while the worker works however fast this machine runs it)."""

    dir: Path
    rows: list[tuple]
    seconds: float


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    d = tmp_path_factory.mktemp("reference")
    _prepare(d)
    t0 = time.monotonic()
    _run_to_end(d)
    return Reference(d, _output(d), time.monotonic() - t0)


def _by_mod(data_dir: Path) -> dict[tuple, list[tuple]]:
    return _per_key(_output(data_dir, "BY_MOD"))


def test_kill_9_at_random_points_changes_nothing(tmp_path: Path, reference: Reference) -> None:
    expected = reference.rows
    _prepare(tmp_path)
    rnd = random.Random(int(time.time()))
    kills = 0
    for _ in range(6):
        proc = subprocess.Popen([*WORKER, str(tmp_path)], env=_env(), stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "STARTED"
        # each run gets at most 12 % of a whole run's time: at least three of six are killed mid-work
        time.sleep(rnd.uniform(0.01, 0.12) * reference.seconds)
        if proc.poll() is None:
            proc.kill()  # SIGKILL: no cleanup, wherever it is
            kills += 1
        proc.wait()
    assert kills >= 3
    _run_to_end(tmp_path)
    got = _output(tmp_path)
    assert _final(got) == _final(expected)
    # exactly-once: the very same updates, none duplicated, none lost, in the same order per key
    assert len(got) == len(expected)
    assert _per_key(got) == _per_key(expected)
    # the repartitioned aggregation: per-key sequences follow the repartition topic's order, which
    # depends on how the source tasks interleaved; the final values and the number of updates do not
    ref_mod, got_mod = _by_mod(reference.dir), _by_mod(tmp_path)
    assert {k: v[-1][0] for k, v in got_mod.items()} == {k: v[-1][0] for k, v in ref_mod.items()}
    assert sum(map(len, got_mod.values())) == sum(map(len, ref_mod.values())) == N


def test_deleted_state_is_rebuilt_from_the_changelog(tmp_path: Path, reference: Reference) -> None:
    ref_dir, expected = reference.dir, reference.rows
    keys = ["k1", "k42", "k199"]
    before = _pull(ref_dir, keys)
    work = tmp_path / "copy"
    shutil.copytree(ref_dir, work)
    shutil.rmtree(work / "state")
    after = _pull(work, keys)
    assert after == before
    assert all(before[k] for k in keys)
    assert _output(work) == expected  # rebuilding state wrote nothing
