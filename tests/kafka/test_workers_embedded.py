"""Worker processes on the EmbeddedLog: the engine deals partitions; kill -9 loses and duplicates nothing.

On the EmbeddedLog one LMDB write transaction holds a batch's outputs, changelog records and input
offsets, so a worker killed at any instant leaves either all of a batch or none of it: after restarts
every window-key's counts read 1, 2, 3, ... exactly once.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest
from kafka_workload import (
    Workload,
    caught_up,
    duplicates,
    final_table,
    input_ends,
    lost_updates,
    new_suffix,
    properties,
    read_updates,
    wait_until,
)

from ksqlpy.engine import Engine


def _run(tmp_path: Path, wl: Workload, *, kill_every: int | None = None, extra: dict | None = None,
         chunks: int = 20) -> tuple[Engine, dict]:
    service = f"emb{new_suffix()}_"
    engine = Engine(str(tmp_path / "data"), properties(service, **(extra or {})))
    for sql in wl.statements():
        engine.execute(sql)
    (qid, query), = engine.queries.items()
    group = f"_confluent-ksql-{service}query_{qid}"
    workers = query.workers
    wait_until(lambda: len([s for s in workers.statuses() if s.get("assigned")]) == 2, 60, "two workers")
    kills = 0
    step = wl.n // chunks
    for c in range(chunks):
        wl.produce(engine.log, c * step, (c + 1) * step)
        if kill_every and c % kill_every == kill_every - 1 and c < chunks - 1:
            time.sleep(random.uniform(0, 0.03))  # mid-stream: the workers are busy with this chunk
            wait_until(lambda: len(workers.pids()) == 2, 60, "both workers alive")
            os.kill(workers.pids()[c % 2], signal.SIGKILL)
            kills += 1
    ends = input_ends(engine.log, wl.source)
    wait_until(lambda: caught_up(engine.log, group, wl.source, ends), 120, "the query to finish")
    restarts = sum(w.restarts for w in workers.workers)
    return engine, {"kills": kills, "restarts": restarts, "statuses": workers.statuses()}


def test_two_workers_share_the_partitions_and_match_the_expected_table(tmp_path: Path) -> None:
    wl = Workload(new_suffix(), n=4000)
    engine, info = _run(tmp_path, wl, chunks=4)
    try:
        assigned = sorted(tuple(s["assigned"]) for s in info["statuses"])
        assert assigned == [(0, 2), (1, 3)]  # dealt round-robin by the engine
        updates = read_updates(engine.log, wl.sink)
        assert final_table(updates) == wl.expected()
        assert duplicates(updates, wl.expected()) == 0 and lost_updates(updates, wl.expected()) == 0
    finally:
        engine.close()


@pytest.mark.slow
def test_kill_9_workers_mid_stream_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    wl = Workload(new_suffix(), n=20_000)
    engine, info = _run(tmp_path, wl, kill_every=5, extra={"processing.guarantee": "exactly_once_v2"})
    try:
        assert info["kills"] == 3 and info["restarts"] >= 3
        updates = read_updates(engine.log, wl.sink)
        assert final_table(updates) == wl.expected()  # the no-crash result, computed from the input
        assert duplicates(updates, wl.expected()) == 0 and lost_updates(updates, wl.expected()) == 0  # every update exactly once
        assert sum(len(v) for v in updates.values()) == wl.n
    finally:
        engine.close()


def test_worker_errors_reach_the_engine_processing_log_and_pull_queries_read_worker_state(tmp_path: Path) -> None:
    """Bad input never stops a worker; its processing-log entries are forwarded to the engine, and a pull
    query on the worker-run table answers from the changelogs the workers wrote."""
    from ksqlpy.log import ProducerRecord

    wl = Workload(new_suffix(), n=400)
    engine = Engine(str(tmp_path / "data"), properties(f"pl{new_suffix()}_"))
    try:
        for sql in wl.statements():
            engine.execute(sql)
        engine.log.produce(ProducerRecord(wl.source, (1).to_bytes(4, "big"), b"{not json", 0, partition=0))
        wl.produce(engine.log, 0, wl.n)
        wait_until(lambda: engine.plog.count >= 1, 60, "the processing-log entry")
        assert "deserialize" in str(engine.plog.entries[0]["message"]).lower()
        wait_until(lambda: sum(c for c, _ in final_table(read_updates(engine.log, wl.sink)).values()) == wl.n,
                   60, "every record")
        rows = engine.execute("SELECT * FROM T WHERE ID = 7;")[0].data["rows"]
        assert sorted(r[-1] for r in rows) == sorted(sv for k, (_, sv) in wl.expected().items()  # SUM(V)
                                                     if int.from_bytes(k[:4], "big") == 7)
    finally:
        engine.close()
