"""Spare worker interpreters (``ksqlpy.workers.spares``): started with a process-mode engine, taken by a
query's workers (which then only build their tasks), replaced, and gone when the engine closes."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ksqlpy.engine import Engine

SQL = ("CREATE STREAM s (a INT) WITH (kafka_topic='s', value_format='JSON', partitions=2);"
       "INSERT INTO s (a) VALUES (1); INSERT INTO s (a) VALUES (2);"
       "CREATE STREAM t AS SELECT a * 10 AS b FROM s;")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _spares(engine: Engine) -> list[int]:
    manager = engine.worker_manager
    return [p.pid for p, _ in manager.spares.ready] if manager is not None and manager.spares is not None else []


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_query_takes_the_spares_and_they_are_replaced(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "data"), {"ksqlpy.workers": "process", "ksqlpy.workers.spares": 2,
                                             "auto.offset.reset": "earliest"})
    try:
        first = _spares(engine)
        assert len(first) == 2 and all(map(_alive, first))  # before any query
        engine.execute(SQL)
        (query,) = engine.queries.values()
        assert sorted(w.process.pid for w in query.workers.workers) == sorted(first)
        again = _spares(engine)
        assert len(again) == 2 and not set(again) & set(first)
        engine.drain(120)
        assert sorted(v for p in range(2) for v in engine.log.fetch("T", p, 0).values) == [b'{"B":10}', b'{"B":20}']
        every = first + again
    finally:
        engine.close()
    deadline = time.monotonic() + 10
    while any(map(_alive, every)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, every))  # workers stopped, spares let go


@pytest.mark.parametrize(("props", "expected"), [
    ({"ksqlpy.workers": "process", "ksqlpy.workers.spares": 0}, 0),
    ({"ksqlpy.workers": "process", "ksqlpy.workers.spares": "auto", "num.stream.threads": 1}, 1),
    ({}, 0),  # inline: no worker processes at all
])
def test_how_many_spares(tmp_path: Path, props: dict, expected: int) -> None:
    engine = Engine(str(tmp_path / "data"), props)
    try:
        assert len(_spares(engine)) == expected
    finally:
        engine.close()
