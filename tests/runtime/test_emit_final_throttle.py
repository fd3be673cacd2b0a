"""EMIT FINAL's wall-clock throttle, Kafka Streams' ``__emit.interval.ms.kstreams.windowed.aggregation__``
(default 1000 ms): after a record, closed windows are looked for only if the interval has passed since the
last look, and a look uses the interval up even when nothing closed. What is held back goes out at the next
look - delayed, never lost. Tumbling (the generated loop and, with HAVING, the general one), hopping and
session windows; the clock is set by the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord
from ksqlpy.runtime import aggregator

PROP = "ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(aggregator, "wall_ms", c)
    return c


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute("CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    yield e
    e.close()


def _send(engine: Engine, key: str, ts: int) -> None:
    engine.log.produce(ProducerRecord("s", key.encode(), orjson.dumps({"V": 1}), ts, partition=0))
    engine.drain(5)


def _out(engine: Engine) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for p in range(engine.log.partition_count("OUT") or 0):
        batch = engine.log.fetch("OUT", p, 0, 1000)
        rows += [(None, orjson.loads(v)["C"]) for v in batch.values if v is not None]
    return rows


WINDOWS = {
    "tumbling": "WINDOW TUMBLING (SIZE 10 MILLISECONDS, RETENTION 1 SECOND, GRACE PERIOD 0 MILLISECONDS)",
    "hopping": "WINDOW HOPPING (SIZE 10 MILLISECONDS, ADVANCE BY 10 MILLISECONDS, RETENTION 1 SECOND, "
               "GRACE PERIOD 0 MILLISECONDS)",
    "session": "WINDOW SESSION (5 MILLISECONDS, RETENTION 1 SECOND, GRACE PERIOD 0 MILLISECONDS)",
}


@pytest.mark.parametrize("having", ["", " HAVING COUNT(*) > 0"])
@pytest.mark.parametrize("window", list(WINDOWS))
def test_default_interval_holds_closed_windows_until_a_record_a_second_later(
        engine: Engine, clock: Clock, window: str, having: str) -> None:
    engine.execute(f"CREATE TABLE OUT AS SELECT K, COUNT(*) AS C FROM S {WINDOWS[window]} GROUP BY K{having} "
                   "EMIT FINAL;")
    _send(engine, "a", 1)  # the first look: nothing closed, and the next look waits 1000 ms
    clock.now += 10
    _send(engine, "b", 10)  # a's window closed, but this record may not look
    assert _out(engine) == []
    clock.now += 989
    _send(engine, "b", 11)
    assert _out(engine) == []
    clock.now += 1
    _send(engine, "c", 12)  # 1000 ms after the first look: a's window goes out now, late but once
    assert [r[1] for r in _out(engine)] == [1]


DEFAULT_RETENTION = {
    "tumbling": "WINDOW TUMBLING (SIZE 10 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS)",
    "hopping": "WINDOW HOPPING (SIZE 10 MILLISECONDS, ADVANCE BY 10 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS)",
    "session": "WINDOW SESSION (5 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS)",
}


@pytest.mark.parametrize("window", list(DEFAULT_RETENTION))
def test_a_held_back_window_survives_the_retention_purge_until_the_next_look(
        engine: Engine, clock: Clock, window: str) -> None:
    """With the default retention (size/gap + grace) a window or session is past retention as soon as it
    closes; the purge after the batch must not drop it before the throttled look writes it (the store keeps
    what a look may still fetch: time windows from the newest start - retention, sessions until written)."""
    engine.execute(f"CREATE TABLE OUT AS SELECT K, COUNT(*) AS C FROM S {DEFAULT_RETENTION[window]} GROUP BY K "
                   "EMIT FINAL;")
    _send(engine, "a", 1)  # the first look; the next waits 1000 ms
    clock.now += 10
    _send(engine, "b", 10)  # closes a's window/session (past retention too) - no look, then the batch's purge
    assert _out(engine) == []
    clock.now += 990
    _send(engine, "c", 12)
    assert [r[1] for r in _out(engine)] == [1]


@pytest.mark.parametrize("window", list(WINDOWS))
def test_interval_zero_looks_after_every_record(engine: Engine, clock: Clock, window: str) -> None:
    engine.execute(f"SET '{PROP}' = '0';")
    engine.execute(f"CREATE TABLE OUT AS SELECT K, COUNT(*) AS C FROM S {WINDOWS[window]} GROUP BY K EMIT FINAL;")
    _send(engine, "a", 1)
    _send(engine, "b", 10)
    assert [r[1] for r in _out(engine)] == [1]
    _send(engine, "c", 20)
    assert [r[1] for r in _out(engine)] == [1, 1]


def test_the_interval_is_per_task_and_read_from_the_statement_properties(engine: Engine, clock: Clock) -> None:
    engine.execute(f"SET '{PROP}' = '50';")
    engine.execute("CREATE TABLE OUT AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS, "
                   "GRACE PERIOD 0 MILLISECONDS) GROUP BY K EMIT FINAL;")
    _send(engine, "a", 1)
    clock.now += 49
    _send(engine, "b", 10)
    assert _out(engine) == []
    clock.now += 1
    _send(engine, "b", 10)
    assert [r[1] for r in _out(engine)] == [1]
