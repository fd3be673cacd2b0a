"""The windowed aggregation the worker, crash and cluster tests share, and how they read its results.

Input: ``n`` records over 50 keys with event times spread over 20 ten-second windows; the query counts
and sums per key and window with every update emitted (cache.max.bytes.buffering 0), so the sink topic
holds one update per input record: per window-key the counts must read 1, 2, 3, ... with nothing
repeated (a duplicate) or skipped (a loss).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from ksqlpy.log.base import Log, ProducerRecord

KEYS = 50
PARTITIONS = 4


@dataclass
class Workload:
    suffix: str
    n: int = 20_000

    @property
    def source(self) -> str:
        return f"src-{self.suffix}"

    @property
    def sink(self) -> str:
        return f"agg-{self.suffix}"

    def statements(self) -> list[str]:
        return [
            f"CREATE STREAM S (ID INT KEY, V INT) WITH (KAFKA_TOPIC='{self.source}', PARTITIONS={PARTITIONS}, "
            "VALUE_FORMAT='JSON');",
            f"CREATE TABLE T WITH (KAFKA_TOPIC='{self.sink}') AS SELECT ID, COUNT(*) AS C, SUM(V) AS SV FROM S "
            "WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY ID EMIT CHANGES;",
        ]

    def record(self, i: int) -> ProducerRecord:
        key = (i % KEYS).to_bytes(4, "big", signed=True)
        return ProducerRecord(self.source, key, orjson.dumps({"V": i}), 1000 * (i * 200 // self.n))

    def produce(self, log: Log, start: int, stop: int) -> None:
        with log.transaction() as tx:
            for i in range(start, stop):
                tx.produce(self.record(i))

    def expected(self) -> dict[bytes, tuple[int, int]]:
        """Final (count, sum) per windowed key, computed directly from the input."""
        out: dict[bytes, tuple[int, int]] = {}
        for i in range(self.n):
            r = self.record(i)
            window = r.timestamp // 10_000 * 10_000  # type: ignore[operator]
            k = r.key + window.to_bytes(8, "big")  # type: ignore[operator]
            c, s = out.get(k, (0, 0))
            out[k] = (c + 1, s + i)
        return out


def new_suffix() -> str:
    return uuid.uuid4().hex[:8]


def properties(service: str, **extra: Any) -> dict[str, Any]:
    return {"ksql.service.id": service, "auto.offset.reset": "earliest", "cache.max.bytes.buffering": 0,
            "ksqlpy.workers": "process", "num.stream.threads": 2, **extra}


def read_updates(log: Log, topic: str) -> dict[bytes, list[tuple[int, int]]]:
    """Every update per windowed key on the sink topic, in offset order."""
    out: dict[bytes, list[tuple[int, int]]] = {}
    info = log.describe_topic(topic)
    assert info is not None, f"sink topic {topic} missing"
    for p in range(info.partitions):
        offset = log.start_offset(topic, p)
        while True:
            b = log.fetch(topic, p, offset, 100_000)
            if not b.offsets:
                break
            for k, v in zip(b.keys, b.values, strict=True):
                if v is not None:
                    d = orjson.loads(v)
                    out.setdefault(k, []).append((d["C"], d["SV"]))
            offset = b.next_offset
    return out


def final_table(updates: dict[bytes, list[tuple[int, int]]]) -> dict[bytes, tuple[int, int]]:
    return {k: v[-1] for k, v in updates.items()}


def duplicates(updates: dict[bytes, list[tuple[int, int]]], expected: dict[bytes, tuple[int, int]]) -> int:
    """Updates beyond each window-key's true count, or out of the 1, 2, 3, ... order (re-processed input);
    0 when every key counts 1, 2, ..., n exactly once."""
    bad = 0
    for k, seq in updates.items():
        n = expected.get(k, (0, 0))[0]
        bad += max(0, len(seq) - n) + sum(1 for want, (c, _) in enumerate(seq[:n], start=1) if c != want)
    return bad


def lost_updates(updates: dict[bytes, list[tuple[int, int]]], expected: dict[bytes, tuple[int, int]]) -> int:
    """Counts 1..n of a window-key that never appeared on the sink topic."""
    return sum(len(set(range(1, n + 1)) - {c for c, _ in updates.get(k, [])}) for k, (n, _) in expected.items())


def group_of(service: str, query_id: str = "CTAS_T_0") -> str:
    return f"_confluent-ksql-{service}query_{query_id}"


def wait_until(cond: Callable[[], bool], timeout: float, what: str, poll: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(poll)
    raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")


def caught_up(log: Log, group: str, topic: str, ends: dict[int, int]) -> bool:
    for p, end in ends.items():
        c = log.committed(group, topic, p)
        if c is None or c < end:
            return False
    return True


def input_ends(log: Log, topic: str) -> dict[int, int]:
    return {p: log.end_offset(topic, p) for p in range(PARTITIONS)}
