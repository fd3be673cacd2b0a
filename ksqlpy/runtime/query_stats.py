"""Counters of one persistent query's processing, kept where its tasks run.

The engine keeps a ``QueryStats`` per query it runs in its own process; a worker process keeps one for the
tasks it runs and sends it, cumulative, with every status message; the engine adds what changed since the
worker's previous status (``QueryStats.add``) - so ``/metrics``, DESCRIBE EXTENDED and the shell's progress
read the same counters whichever way a query runs (``ksqlpy.workers``).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

# processing time of one poll (one batch per task), seconds
BATCH_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
RATE_WINDOW_S = 30.0  # messages-per-sec over this window (ksqlDB's sensors sample about as long)


def bucket(seconds: float, bounds: tuple[float, ...] = BATCH_BUCKETS) -> int:
    """The index of the first of ``bounds`` holding ``seconds`` (``len(bounds)``: the +Inf bucket)."""
    for i, bound in enumerate(bounds):
        if seconds <= bound:
            return i
    return len(bounds)


@dataclass
class TopicMeter:
    """One topic's records on one side (consumed or produced) of one query - ksqlDB's TopicSensors of a
    ConsumerCollector or ProducerCollector: a total, a rate, and the time of the last record."""

    total: int = 0
    last_ms: int | None = None
    recent: deque[tuple[float, int]] = field(default_factory=deque)

    def add(self, records: int, now: float) -> None:
        self.total += records
        self.last_ms = int(now * 1000)
        self.recent.append((now, records))
        while self.recent and self.recent[0][0] < now - RATE_WINDOW_S:
            self.recent.popleft()

    def rate(self) -> float:
        now = time.time()
        return sum(r for t, r in self.recent if t >= now - RATE_WINDOW_S) / RATE_WINDOW_S


def tasks_consumed(tasks: list[Any]) -> dict[str, int]:
    """Records the tasks consumed, per input topic, since they were built (a join task counts each input's
    topic; a plain task its one topic - a repartition topic is an input of its own)."""
    out: dict[str, int] = {}
    for task in tasks:
        by_topic = getattr(task, "consumed_topics", None)
        if by_topic is None:
            topic = getattr(task, "topic", None)
            by_topic = {topic: int(getattr(task, "processed", 0))} if topic else {}
        for topic, n in list(by_topic.items()):  # (another thread may be adding a topic)
            out[topic] = out.get(topic, 0) + n
    return out


def tasks_produced(tasks: list[Any]) -> dict[str, int]:
    """Records the tasks' sink writer wrote, under the writer's topic (one writer shared by a query's tasks)."""
    seen: set[int] = set()
    out: dict[str, int] = {}
    for task in tasks:
        writer = getattr(task, "writer", None)
        if writer is not None and id(writer) not in seen:
            seen.add(id(writer))
            out[writer.topic] = out.get(writer.topic, 0) + int(getattr(writer, "written", 0))
    return out


@dataclass
class QueryStats:
    """Records consumed, per-poll processing times, and - for tasks run in worker processes, whose writers
    and aggregations the engine does not hold - records produced and dropped as late."""

    consumed: int = 0
    produced: int = 0
    late: int = 0
    last_message_ms: int | None = None
    batch_counts: list[int] = field(default_factory=lambda: [0] * (len(BATCH_BUCKETS) + 1))
    batch_sum_s: float = 0.0
    batches: int = 0
    recent: deque[tuple[float, int]] = field(default_factory=deque)
    # per topic: records consumed from each input topic, records produced to the sink topic (DESCRIBE EXTENDED)
    consumed_topics: dict[str, TopicMeter] = field(default_factory=dict)
    produced_topics: dict[str, TopicMeter] = field(default_factory=dict)
    # the tasks' cumulative per-topic counters as last observed (``observe``): ("c"|"p", topic) -> count
    seen: dict[tuple[str, str], int] = field(default_factory=dict)

    def observe(self, tasks: list[Any], now: float | None = None) -> None:
        """Add to the per-topic meters what the tasks consumed and produced since the last observation.
        A counter below the last one seen belongs to tasks built anew (``forget_tasks`` not called): all of
        it is new."""
        now = time.time() if now is None else now
        for side, counts in (("c", tasks_consumed(tasks)), ("p", tasks_produced(tasks))):
            for topic, total in counts.items():
                before = self.seen.get((side, topic), 0)
                gained = total - before if total >= before else total
                self.seen[(side, topic)] = total
                if gained:
                    self.meter(side, topic).add(gained, now)

    def forget_tasks(self) -> None:
        """The observed tasks went away (their counts were observed): new tasks count from zero."""
        self.seen.clear()

    def meter(self, side: str, topic: str) -> TopicMeter:
        meters = self.consumed_topics if side == "c" else self.produced_topics
        m = meters.get(topic)
        if m is None:
            m = meters[topic] = TopicMeter()
        return m

    def record(self, records: int, seconds: float) -> None:
        now = time.time()
        self.consumed += records
        self.last_message_ms = int(now * 1000)
        self.batches += 1
        self.batch_sum_s += seconds
        self.batch_counts[bucket(seconds)] += 1
        self._recent(now, records)

    def _recent(self, now: float, records: int) -> None:
        self.recent.append((now, records))
        while self.recent and self.recent[0][0] < now - RATE_WINDOW_S:
            self.recent.popleft()

    def rate(self) -> float:
        now = time.time()
        n = sum(r for t, r in self.recent if t >= now - RATE_WINDOW_S)
        return n / RATE_WINDOW_S

    def snapshot(self) -> dict[str, Any]:
        """The cumulative counters, as a worker sends them (plain data)."""
        return {"consumed": self.consumed, "produced": self.produced, "late": self.late,
                "last_message_ms": self.last_message_ms, "batch_counts": list(self.batch_counts),
                "batch_sum_s": self.batch_sum_s, "batches": self.batches,
                "consumed_topics": {t: m.total for t, m in self.consumed_topics.items()},
                "produced_topics": {t: m.total for t, m in self.produced_topics.items()},
                "topics_last_ms": {f"{side}:{t}": m.last_ms for side, meters in
                                   (("c", self.consumed_topics), ("p", self.produced_topics))
                                   for t, m in meters.items()}}

    def add(self, now: dict[str, Any], before: dict[str, Any] | None) -> None:
        """Add what a worker's counters gained between two of its snapshots (``before`` None: since it started)."""
        def gained(name: str) -> Any:
            return now.get(name, 0) - (before or {}).get(name, 0)

        consumed = gained("consumed")
        self.consumed += consumed
        self.produced += gained("produced")
        self.late += gained("late")
        self.batches += gained("batches")
        self.batch_sum_s += gained("batch_sum_s")
        old = (before or {}).get("batch_counts") or [0] * len(self.batch_counts)
        for i, (n, o) in enumerate(zip(now.get("batch_counts", []), old, strict=False)):
            self.batch_counts[i] += n - o
        if now.get("last_message_ms"):
            self.last_message_ms = max(self.last_message_ms or 0, now["last_message_ms"])
        if consumed:
            self._recent(time.time(), consumed)
        now_s = time.time()
        for side, key in (("c", "consumed_topics"), ("p", "produced_topics")):
            old_topics = (before or {}).get(key) or {}
            for topic, total in (now.get(key) or {}).items():
                gained = total - old_topics.get(topic, 0)
                if gained > 0:
                    meter = self.meter(side, topic)
                    previous = meter.last_ms or 0
                    meter.add(gained, now_s)
                    last = (now.get("topics_last_ms") or {}).get(f"{side}:{topic}")
                    if last:  # when the worker saw it, not when its status arrived
                        meter.last_ms = max(previous, last)


def tasks_written(tasks: list[Any]) -> int:
    """Records the tasks' sink writer wrote (one writer shared by a query's tasks)."""
    seen: set[int] = set()
    total = 0
    for task in tasks:
        writer = getattr(task, "writer", None)
        if writer is not None and id(writer) not in seen:
            seen.add(id(writer))
            total += int(getattr(writer, "written", 0))
    return total


def late_dropped(aggregation: Any) -> int:
    """Records an aggregation dropped as late (0 without one)."""
    late = getattr(aggregation, "late_records", None)
    return int(late()) if callable(late) else 0
