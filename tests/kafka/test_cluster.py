"""Two engine processes with one ksql.service.id share a query's partitions through the consumer
group; when one is killed (kill -9, its workers die with it) the other takes its partitions over,
restores their state from the changelogs and finishes with the table a single engine computes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("confluent_kafka")

from kafka_workload import (  # noqa: E402
    Workload,
    caught_up,
    duplicates,
    final_table,
    group_of,
    input_ends,
    lost_updates,
    new_suffix,
    properties,
    read_updates,
    wait_until,
)

from ksqlpy.log import open_log  # noqa: E402

HERE = Path(__file__).parent


def _start(tmp_path: Path, name: str, props: dict[str, Any], statements: list[str]) -> tuple[Any, Path]:
    status = tmp_path / f"{name}.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent.parent), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, str(HERE / "engine_proc.py"), str(tmp_path / name), str(status),
                             json.dumps(props), json.dumps(statements)], env=env)
    return proc, status


def _assigned(status: Path) -> list[int]:
    try:
        report = json.loads(status.read_text())
    except (OSError, ValueError):
        return []
    return sorted(p for workers in report["queries"].values() for w in workers for p in w["assigned"])


@pytest.mark.slow
def test_two_engines_share_partitions_and_one_takes_over(tmp_path: Path, bootstrap: str) -> None:
    wl = Workload(new_suffix(), n=8000)
    service = f"cl{new_suffix()}_"
    props = properties(service, **{"bootstrap.servers": bootstrap, "num.stream.threads": 1,
                                   "ksql.streams.session.timeout.ms": 1000})
    log = open_log({"bootstrap.servers": bootstrap})
    a, status_a = _start(tmp_path, "a", props, wl.statements())
    b = None
    try:
        wait_until(lambda: _assigned(status_a) == [0, 1, 2, 3], 60, "engine A to own the partitions")
        b, status_b = _start(tmp_path, "b", props, wl.statements())  # same statements, same query id
        wait_until(lambda: _assigned(status_a) and _assigned(status_b)
                   and sorted(_assigned(status_a) + _assigned(status_b)) == [0, 1, 2, 3], 60,
                   "both engines to get partitions")
        shared = (_assigned(status_a), _assigned(status_b))
        group = group_of(service)
        wl.produce(log, 0, wl.n // 2)
        ends = input_ends(log, wl.source)
        wait_until(lambda: caught_up(log, group, wl.source, ends), 120, "the first half")
        os.kill(a.pid, signal.SIGKILL)  # engine A dies; its worker gets SIGKILL with it
        a.wait(10)
        wl.produce(log, wl.n // 2, wl.n)
        wait_until(lambda: _assigned(status_b) == [0, 1, 2, 3], 60, "engine B to take every partition")
        ends = input_ends(log, wl.source)
        wait_until(lambda: caught_up(log, group, wl.source, ends), 120, "engine B to finish")
        updates = read_updates(log, wl.sink)
        assert all(shared), f"both engines had partitions: {shared}"
        assert final_table(updates) == wl.expected()
        assert duplicates(updates, wl.expected()) == 0 and lost_updates(updates, wl.expected()) == 0
    finally:
        for p in (a, b):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
        log.close()
