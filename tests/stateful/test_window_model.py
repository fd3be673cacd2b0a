"""Windowed aggregations against an independent model of Kafka Streams' window processors, over random inputs.

Each scenario draws a window (TUMBLING, HOPPING with an advance that may not divide the size, SESSION), a grace
period, the default retention or RETENTION 1 HOUR, EMIT CHANGES or EMIT FINAL, with or without HAVING, and up to
25 records of up to three keys whose timestamps wander back and forth; it runs the CTAS record by record and
with every record in one batch (the batch loop, HAVING's generic loop and EMIT FINAL's path), and both must
write exactly what the model writes, in order. The model, from memory of Kafka Streams' KStreamWindowAggregate
and KStreamSessionWindowAggregate (the rules ksqlDB's windowed aggregations run on):

* stream time: the largest timestamp the processor has seen;
* TUMBLING/HOPPING: a record updates each window ``[start, start + size)`` holding it (starts multiples of the
  advance, not negative, ascending) whose end is after ``stream time - grace``; an update is written with the
  newest timestamp the window holds;
* SESSION: a record merges every session of its key ending at or after ``ts - gap`` and starting at or before
  ``ts + gap`` that the store still reaches (one ending after the stream time before the record minus the
  retention); the merged session is late when it ends before ``stream time - gap - grace``; otherwise each merged
  session is deleted (a tombstone at its end, in end order) unless the merge is the record's own point, and
  the merged one written at its end;
* EMIT FINAL: after each record that moves the close time, the windows that closed since are written once -
  time windows ending at or before ``stream time - grace`` (start, key order; none starting before the newest
  window start minus the retention), sessions ending before ``stream time - gap - grace`` (end, key order);
* HAVING ``SUM(V) > 8``: a KTable filter - a row that fails is a tombstone if the window's previous row passed,
  nothing otherwise (EMIT FINAL has no previous row).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from tests.stateful.conftest import Harness

STREAM = "CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
PROPERTIES = {"auto.offset.reset": "earliest", "ksql.service.id": "test_", "cache.max.bytes.buffering": 0,
              "ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0}
HOUR = 3_600_000
THRESHOLD = 8

Record = tuple[str, int, int]  # key, V, timestamp
Row = tuple[str, int, int, tuple[int, int] | None, int]  # key, window start, end, (COUNT, SUM) or None, timestamp


@dataclass(frozen=True)
class Scenario:
    kind: str  # TUMBLING | HOPPING | SESSION
    size: int  # the session gap for SESSION
    advance: int
    grace: int
    long_retention: bool
    final: bool
    having: bool
    records: list[Record]

    @property
    def retention(self) -> int:
        return HOUR if self.long_retention else self.size + self.grace

    def sql(self) -> str:
        ret = "RETENTION 1 HOUR, " if self.long_retention else ""
        tail = f"{ret}GRACE PERIOD {self.grace} MILLISECONDS)"
        if self.kind == "SESSION":
            window = f"SESSION ({self.size} MILLISECONDS, {tail}"
        elif self.kind == "HOPPING":
            window = f"HOPPING (SIZE {self.size} MILLISECONDS, ADVANCE BY {self.advance} MILLISECONDS, {tail}"
        else:
            window = f"TUMBLING (SIZE {self.size} MILLISECONDS, {tail}"
        having = f" HAVING SUM(V) > {THRESHOLD}" if self.having else ""
        emit = " EMIT FINAL" if self.final else ""
        return f"CREATE TABLE T AS SELECT K, COUNT(*) AS C, SUM(V) AS S FROM S WINDOW {window} GROUP BY K{having}{emit};"


def _time_windows(sc: Scenario) -> list[Row]:
    store: dict[tuple[int, str], tuple[int, int, int]] = {}  # (start, key) -> (count, sum, newest ts)
    st, closed_to, out = -1, -1, []
    for key, v, ts in sc.records:
        st = max(st, ts)
        first = max(0, ts - sc.size + sc.advance) // sc.advance * sc.advance
        for start in range(first, ts + 1, sc.advance):
            if start + sc.size > st - sc.grace:
                n, total, newest = store.get((start, key), (0, 0, ts))
                store[(start, key)] = (n + 1, total + v, max(newest, ts))
                if not sc.final:
                    out.append((key, start, start + sc.size, (n + 1, total + v), max(newest, ts)))
        close = st - sc.grace
        if sc.final and close > closed_to:
            floor = st // sc.advance * sc.advance - sc.retention
            for start, k in sorted(w for w in store if closed_to < w[0] + sc.size <= close and w[0] >= floor):
                n, total, newest = store[(start, k)]
                out.append((k, start, start + sc.size, (n, total), newest))
            closed_to = close
    return out


def _sessions(sc: Scenario) -> list[Row]:
    gap = sc.size
    sessions: dict[tuple[str, int, int], tuple[int, int]] = {}  # (key, start, end) -> (count, sum)
    st, last_close, out = -1, None, []
    for key, v, ts in sc.records:
        reach_after = st - sc.retention
        st = max(st, ts)
        close = st - gap - sc.grace
        near = sorted((s for s in sessions
                       if s[0] == key and s[2] >= ts - gap and s[1] <= ts + gap and s[2] > reach_after),
                      key=lambda s: (s[2], s[1]))
        start, end = min([ts] + [s[1] for s in near]), max([ts] + [s[2] for s in near])
        if end >= close:
            n = sum(sessions[s][0] for s in near) + 1
            total = sum(sessions[s][1] for s in near) + v
            for s in near:
                del sessions[s]
                if not sc.final and (start, end) != (ts, ts):
                    out.append((key, s[1], s[2], None, s[2]))
            sessions[(key, start, end)] = (n, total)
            if not sc.final:
                out.append((key, start, end, (n, total), end))
        if sc.final and (last_close is None or close > last_close):
            low = last_close if last_close is not None else -(2**62)
            for e, k, s in sorted((s[2], s[0], s[1]) for s in sessions if low <= s[2] < close):
                out.append((k, s, e, sessions[(k, s, e)], e))
            last_close = close
    return out


def _having(rows: list[Row], final: bool) -> list[Row]:
    def passes(value: tuple[int, int] | None) -> bool:
        return value is not None and value[1] > THRESHOLD

    previous: dict[tuple[str, int, int], tuple[int, int] | None] = {}
    out = []
    for key, start, end, value, ts in rows:
        old = None if final else previous.get((key, start, end))
        previous[(key, start, end)] = value
        if passes(value) or passes(old):
            out.append((key, start, end, value if passes(value) else None, ts))
    return out


def model(sc: Scenario) -> list[Row]:
    rows = _sessions(sc) if sc.kind == "SESSION" else _time_windows(sc)
    return _having(rows, sc.final) if sc.having else rows


def scenario(rng: random.Random) -> Scenario:
    kind = rng.choice(["TUMBLING", "HOPPING", "SESSION"])
    size = rng.choice([3, 5, 10]) if kind == "SESSION" else rng.choice([5, 10])
    advance = size if kind != "HOPPING" else rng.choice([a for a in (2, 3, 5) if a <= size])
    jump = rng.choice([8, 25])
    keys = rng.choice([["a"], ["a", "b"], ["a", "b", "c"]])
    t, records = 0, []
    for _ in range(rng.randint(3, 25)):
        t += rng.randint(-jump, jump + 4)
        records.append((rng.choice(keys), rng.randint(1, 9), max(0, t)))
    return Scenario(kind, size, advance, rng.choice([0, 3, 10]), rng.random() < 0.5, rng.random() < 0.4,
                    rng.random() < 0.4, records)


def run(sc: Scenario, directory: Path, one_batch: bool) -> list[Row]:
    engine = Engine(str(directory), dict(PROPERTIES))
    h = Harness(engine)
    try:
        h.sql(STREAM)
        h.sql(sc.sql())
        for key, v, ts in sc.records:
            h.send("s", key, {"V": v}, ts)
            if not one_batch:
                h.run()
        h.run()
        return [(k[0][0], k[1], k[2], v, ts) for k, v, ts in h.read("T")]
    finally:
        engine.close()


@pytest.mark.parametrize("seed", range(8))
def test_windowed_aggregations_write_what_the_model_writes(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    for i in range(25):
        sc = scenario(rng)
        expected = model(sc)
        for one_batch in (False, True):
            got: Any = run(sc, tmp_path / f"{i}-{one_batch}", one_batch)
            assert got == expected, (sc.sql(), sc.records, "one batch" if one_batch else "record by record")
