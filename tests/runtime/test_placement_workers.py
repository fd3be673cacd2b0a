"""The join stores' start-up move with ``--workers N``: real worker processes over one LMDB log, each moving
only into the partitions it owns (``join_placement``), so a worker that starts late never writes over what
another worker's task wrote since."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog
from tests.runtime.placement_worker import KEYS, NEWER, OWNED, PARTITIONS, TOPIC, entry, home

ROOT = Path(__file__).resolve().parents[2]


def _live(log: EmbeddedLog, p: int) -> dict[bytes, bytes]:
    batch = log.fetch(TOPIC, p, 0, 10_000)
    out: dict[bytes, bytes | None] = dict(zip(batch.keys, batch.values, strict=True))
    return {k: v for k, v in out.items() if v is not None}


def test_a_late_worker_does_not_overwrite_entries_written_since(tmp_path: Path) -> None:
    log = EmbeddedLog(str(tmp_path / "log"))
    log.create_topic(TOPIC, PARTITIONS, 1, {})
    for k in KEYS:  # every entry one partition off its key's placement (an upgrade of the key's bytes)
        log.produce(ProducerRecord(TOPIC, entry(k), b"old%d" % k, None, None, (home(k) + 1) % PARTITIONS))
    log.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = {role: subprocess.Popen([sys.executable, str(ROOT / "tests/runtime/placement_worker.py"),
                                     str(tmp_path), role], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for role in ("late", "first")}
    for role, p in procs.items():
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and b"DONE" in out, (role, err.decode()[-2000:])
    log = EmbeddedLog(str(tmp_path / "log"))
    try:
        live = [_live(log, p) for p in range(PARTITIONS)]
        for k in KEYS:
            where = [p for p in range(PARTITIONS) if entry(k) in live[p]]
            assert where == [home(k)], k  # moved once, to its placement
            expected = NEWER if home(k) in OWNED["first"] else b"old%d" % k
            assert live[home(k)][entry(k)] == expected, k
    finally:
        log.close()
