"""Join state through crashes: a worker process is SIGKILLed at random points and restarted.

A stream-stream join (one side repartitioned) and a foreign-key join (two sub-topologies, tables with
different partition counts) run over prepared inputs. Under exactly-once the crashed run must give what
an uninterrupted run gives: the same stream-stream results, each exactly once, and the same final
foreign-key table.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import orjson
import pytest

from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog

ROOT = Path(__file__).resolve().parents[2]
WORKER = [sys.executable, str(Path(__file__).with_name("crash_worker.py"))]

pytestmark = pytest.mark.slow


def _int_key(v: int) -> bytes:
    return v.to_bytes(4, "big", signed=True)


def _prepare(data_dir: Path) -> None:
    rnd = random.Random(11)
    log = EmbeddedLog(str(data_dir / "log"))
    for topic, parts in (("clicks", 2), ("views", 2), ("orders", 2), ("users", 3)):
        log.create_topic(topic, parts)
    with log.transaction() as tx:
        for i in range(600):
            tx.produce(ProducerRecord("views", _int_key(rnd.randrange(150)), orjson.dumps({"PAGE": f"p{i}"}), i))
        for i in range(100):
            tx.produce(ProducerRecord("users", _int_key(i), orjson.dumps({"NAME": f"u{i}"}), i))
        for i in range(12_000):
            tx.produce(ProducerRecord("clicks", f"c{i}".encode(), orjson.dumps({"USERID": rnd.randrange(150), "N": i}),
                                      600 + i))
        for i in range(4_000):
            value = None if rnd.random() < 0.05 else {"USERID": rnd.randrange(120), "AMOUNT": i}
            tx.produce(ProducerRecord("orders", _int_key(rnd.randrange(800)),
                                      None if value is None else orjson.dumps(value), 700 + i))
            if i % 50 == 0:
                tx.produce(ProducerRecord("users", _int_key(rnd.randrange(120)), orjson.dumps({"NAME": f"v{i}"}),
                                          700 + i))
    log.close()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _run(data_dir: Path) -> None:
    out = subprocess.run([*WORKER, str(data_dir)], env=_env(), capture_output=True, text=True, timeout=900)
    assert out.returncode == 0 and "DONE" in out.stdout, out.stderr[-3000:]


def _results(data_dir: Path) -> tuple[Counter, dict]:
    log = EmbeddedLog(str(data_dir / "log"))
    try:
        clicks: Counter = Counter()
        for p in range(2):
            batch = log.fetch("CLICK_VIEWS", p, 0, 10_000_000)
            clicks.update(zip(batch.keys, batch.values, strict=True))
        table: dict = {}
        for p in range(2):
            batch = log.fetch("ORDER_USERS", p, 0, 10_000_000)
            for k, v in zip(batch.keys, batch.values, strict=True):
                table[k] = v
        return clicks, {k: v for k, v in table.items() if v is not None}
    finally:
        log.close()


def test_joins_survive_kill_9(tmp_path: Path) -> None:
    clean, crashed = tmp_path / "clean", tmp_path / "crashed"
    for d in (clean, crashed):
        d.mkdir()
        _prepare(d)
    _run(clean)
    rnd = random.Random(3)
    for _ in range(4):
        proc = subprocess.Popen([*WORKER, str(crashed)], env=_env(), stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "STARTED"
        time.sleep(rnd.uniform(0.3, 1.5))
        proc.kill()
        proc.wait()
    _run(crashed)
    want_clicks, want_table = _results(clean)
    got_clicks, got_table = _results(crashed)
    assert sum(want_clicks.values()) > 10_000
    assert got_clicks == want_clicks
    assert got_table == want_table
