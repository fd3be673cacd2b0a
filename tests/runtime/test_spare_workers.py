"""Spare worker interpreters (``ksqlpy.workers.spares``): started with a process-mode engine, taken by a
query's workers (which then only build their tasks), replaced once the workers are idle (not while they
start: the replacements' imports would compete with them for the cores), and gone when the engine closes."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.runtime import coordinator
from ksqlpy.runtime.coordinator import Spares

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
        engine.drain(120)
        assert sorted(v for p in range(2) for v in engine.log.fetch("T", p, 0).values) == [b'{"B":10}', b'{"B":20}']
        deadline = time.monotonic() + 30  # replaced once the workers are idle
        while len(_spares(engine)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        again = _spares(engine)
        assert len(again) == 2 and not set(again) & set(first)
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


class _Proc:
    def __init__(self, pid: int) -> None:
        self.pid = pid

    def poll(self) -> None:
        return None  # running


def test_taken_spares_are_replaced_when_the_queries_are_idle_or_later(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []

    def start() -> tuple[_Proc, None]:
        started.append(len(started))
        return _Proc(len(started)), None

    monkeypatch.setattr(coordinator, "start_interpreter", start)
    spares = Spares(2)
    spares.fill()
    assert len(started) == 2
    assert spares.take() is not None and spares.take() is not None
    spares.refill(idle=False)  # the workers that took them are busy: not now
    assert len(started) == 2 and spares.ready == []
    spares.refill(idle=True)
    assert len(started) == 4 and len(spares.ready) == 2
    spares.take()
    spares.refill(idle=False)
    assert len(started) == 4
    assert spares.short_since is not None
    spares.short_since -= coordinator._REFILL_AFTER_S  # a query that never idles: replaced after a while
    spares.refill(idle=False)
    assert len(started) == 5 and len(spares.ready) == 2


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_spares_say_when_their_imports_are_done(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "data"), {"ksqlpy.workers": "process", "ksqlpy.workers.spares": 1,
                                             "auto.offset.reset": "earliest"})
    try:
        manager = engine.worker_manager
        assert manager is not None and manager.spares is not None
        assert manager.spares.wait_ready(120)
        assert len(manager.spares.warm) == 1
        engine.execute(SQL)  # a spare whose "ready" was read is taken as any other
        engine.drain(120)
        assert sorted(v for p in range(2) for v in engine.log.fetch("T", p, 0).values) == [b'{"B":10}', b'{"B":20}']
    finally:
        engine.close()
