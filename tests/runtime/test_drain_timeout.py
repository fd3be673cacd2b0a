"""``Engine.drain()`` that gives up says so: a DrainTimeout (a TimeoutError) naming what was behind.

A drain that returned silently at its timeout looked like one that finished, and the caller read the state
from before it (test_upgrade_kafka.py saw a count one insert short after its drain waited 60 s for workers
that got no partitions). The workers here are paused with SIGSTOP while idle, so the input they hold
back is certain; continued, the same drain finishes.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.runtime.coordinator import DrainTimeout


def _count(engine: Engine) -> dict[int, int]:
    [res] = engine.execute("SELECT * FROM C;")
    return {r[0]: r[1] for r in res.data["rows"]}


def test_a_drain_that_times_out_raises_and_names_the_queries_behind(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest", "ksqlpy.workers": "process",
                                             "num.stream.threads": 1, "ksql.service.id": "drain_"})
    paused: list[int] = []
    try:
        engine.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (KAFKA_TOPIC='drain_s', PARTITIONS=1, "
                       "VALUE_FORMAT='JSON');")
        engine.execute("CREATE TABLE C AS SELECT ID, COUNT(*) AS N FROM S GROUP BY ID;")
        engine.execute("INSERT INTO S (ID, V) VALUES (1, 1);")
        engine.drain(120)
        assert _count(engine) == {1: 1}
        (query,) = engine.queries.values()
        paused = query.workers.pids()
        assert paused
        for pid in paused:  # idle (caught up): no log transaction is open
            os.kill(pid, signal.SIGSTOP)
        engine.execute("INSERT INTO S (ID, V) VALUES (1, 2);")
        with pytest.raises(DrainTimeout) as got:
            engine.drain(2)
        assert isinstance(got.value, TimeoutError)  # what the conformance runner catches
        message = str(got.value)
        assert "within 2s" in message
        assert f"{query.query_id} (worker processes): drain_s-0 committed 1 of 2" in message
        for pid in paused:
            os.kill(pid, signal.SIGCONT)
        paused = []
        engine.drain(120)
        assert _count(engine) == {1: 2}
    finally:
        for pid in paused:
            os.kill(pid, signal.SIGCONT)
        engine.close()


def test_a_drain_with_nothing_to_do_returns(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest"})
    try:
        engine.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (KAFKA_TOPIC='idle_s', PARTITIONS=1, "
                       "VALUE_FORMAT='JSON');")
        engine.execute("CREATE STREAM T AS SELECT * FROM S;")
        engine.drain(5)  # no input: returns at once, raises nothing
    finally:
        engine.close()
