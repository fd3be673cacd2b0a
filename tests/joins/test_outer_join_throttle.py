"""The look at an outer stream-stream join's waiting records, throttled as Kafka Streams does
(``__emit.interval.ms.kstreams.outer.join.spurious.results.fix__``, default 1000 ms): a record at stream time
that may have closed a window looks only when the join's schedule allows; the first look starts the schedule
and each look moves it one interval on - from the schedule, not from the clock, so looks catch up after a
pause. What a skipped look would have emitted waits for the next one. The clock is set by the test."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord
from ksqlpy.runtime import join_stream_stream

PROP = "ksql.streams.__emit.interval.ms.kstreams.outer.join.spurious.results.fix__"


class Clock:
    def __init__(self) -> None:
        self.now = 5_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(join_stream_stream, "wall_ms", c)
    return c


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute("CREATE STREAM L (K INT KEY, A STRING) WITH (kafka_topic='l', value_format='JSON', partitions=1);")
    e.execute("CREATE STREAM R (K INT KEY, B STRING) WITH (kafka_topic='r', value_format='JSON', partitions=1);")
    yield e
    e.close()


def _query(engine: Engine, kind: str = "LEFT JOIN", grace: str = " GRACE PERIOD 0 SECONDS") -> None:
    key = "ROWKEY" if kind.startswith("FULL") else "L.K"
    engine.execute(f"CREATE STREAM OUT WITH (PARTITIONS=1) AS SELECT {key} AS K, A, B FROM L {kind} R "
                   f"WITHIN 1 SECOND{grace} ON L.K = R.K;")


def _send(engine: Engine, topic: str, key: int, ts: int) -> None:
    field = "A" if topic == "l" else "B"
    value = orjson.dumps({field: f"{topic}{key}"})
    engine.log.produce(ProducerRecord(topic, struct.pack(">i", key), value, ts, partition=0))
    engine.drain(5)


def _out(engine: Engine) -> list[tuple[Any, ...]]:
    batch = engine.log.fetch("OUT", 0, 0, 1000)
    rows = []
    for v, ts in zip(batch.values, batch.timestamps, strict=True):
        row = orjson.loads(v)
        rows.append((row["A"], row["B"], ts))
    return rows


def test_a_skipped_look_leaves_closed_windows_for_the_next_one(engine: Engine, clock: Clock) -> None:
    _query(engine)
    _send(engine, "l", 1, 1000)  # waits: its window (1000 + 1 s + grace 0) is open
    _send(engine, "l", 2, 5000)  # the first look: l1's window closed; l2 waits
    assert _out(engine) == [("l1", None, 1000)]
    clock.now += 999
    _send(engine, "l", 3, 10000)  # l2's window closed, but the next look is 1000 ms after the first
    assert _out(engine) == [("l1", None, 1000)]
    clock.now += 1
    _send(engine, "l", 4, 20000)  # may look: l2 and l3 go out, at their own times
    assert _out(engine) == [("l1", None, 1000), ("l2", None, 5000), ("l3", None, 10000)]


def test_a_clock_that_does_not_move_looks_once(engine: Engine, clock: Clock) -> None:
    """ksqlDB's test driver never moves its clock: only the first look that passes the minimum-time check
    runs. A look stopped by that check (nothing could have closed) does not start the schedule."""
    _query(engine, "FULL OUTER JOIN")
    _send(engine, "l", 1, 1000)
    _send(engine, "r", 2, 1500)  # at stream time, but nothing waits long enough: no look
    _send(engine, "l", 3, 4000)  # the first look: l1 and r2 go out, in time order
    assert _out(engine) == [("l1", None, 1000), (None, "r2", 1500)]
    _send(engine, "r", 4, 9000)
    _send(engine, "l", 5, 30000)
    assert _out(engine) == [("l1", None, 1000), (None, "r2", 1500)]


def test_looks_catch_up_after_a_pause(engine: Engine, clock: Clock) -> None:
    _query(engine)
    _send(engine, "l", 1, 1000)
    _send(engine, "l", 2, 5000)  # the first look at T: the next one at T + 1000
    clock.now += 3000  # T + 3000: looks at T + 1000, T + 2000 and T + 3000 are due
    _send(engine, "l", 3, 10000)
    _send(engine, "l", 4, 20000)
    _send(engine, "l", 5, 30000)
    assert [r[0] for r in _out(engine)] == ["l1", "l2", "l3", "l4"]
    _send(engine, "l", 6, 40000)  # the schedule (T + 4000) passed the clock: no look
    assert [r[0] for r in _out(engine)] == ["l1", "l2", "l3", "l4"]


def test_interval_zero_looks_after_every_record(engine: Engine, clock: Clock) -> None:
    engine.execute(f"SET '{PROP}' = '0';")
    _query(engine)
    for i, ts in enumerate([1000, 5000, 10000, 20000], start=1):
        _send(engine, "l", i, ts)
    assert [r[0] for r in _out(engine)] == ["l1", "l2", "l3"]


def test_no_grace_period_emits_at_once_whatever_the_interval(engine: Engine, clock: Clock) -> None:
    """Without GRACE PERIOD an unmatched record goes out at once: there is no outer store to look at."""
    _query(engine, grace="")
    for i, ts in enumerate([1000, 5000, 10000], start=1):
        _send(engine, "l", i, ts)
    assert [r[0] for r in _out(engine)] == ["l1", "l2", "l3"]
