"""The order in which a case's records reach its queries, as ksqlDB's TestExecutor pipes them.

ksqlDB runs each persistent query in its own TopologyTestDriver and, once every statement has run, feeds
the drivers one after another in the order their queries were created (``buildAndExecuteQuery``, from
memory of its source):

1. ``pipeRecordsFromProvidedInput``: the case's ``inputs`` whose topic the query reads, in file order,
   each processed to completion before the next;
2. ``pipeRecordsFromKafka``: then every other topic the query reads (a sink of an earlier query, a topic
   INSERT VALUES wrote), whole, one topic after another - in the iteration order of the Java ``HashSet``
   the names are collected in (``java_hash_order``).

A driver is done before the next starts, and never fed again: a join whose table side is an earlier
query's sink sees every stream input before any table row; two INSERT INTO queries writing one sink write
all of the first's records before the second's; a topic a later query writes is not read back by an
earlier one.

Our engine runs all queries over one log. ``GatedLog`` lets the runner reproduce the drivers' order: it
caps how far the topics a query reads are visible (``fetch``, ``fetch_raw``, ``end_offset``) while only
that query is polled (``pipe_by_driver``), and hides what the log holds of a fed topic before the inputs
(rows INSERT VALUES wrote after the query started: ksqlDB never pipes them, the topic being one with inputs).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ksqlpy.log.base import RecordBatch

_UNBOUNDED = -1


class GatedLog:
    """Delegates to ``log``; a gated topic's partitions read as if they ended at their limit."""

    def __init__(self, log: Any) -> None:
        self._log = log
        self._limits: dict[str, dict[int, int]] = {}  # topic -> partition -> visible end (absent: 0)
        self._floors: dict[str, dict[int, int]] = {}  # topic -> partition -> first visible offset

    @property
    def wrapped(self) -> Any:
        return self._log

    def __getattr__(self, name: str) -> Any:
        return getattr(self._log, name)

    # -- the gate
    def limit(self, topic: str, ends: dict[int, int] | None = None) -> None:
        """Show ``topic`` up to ``ends`` (partition -> offset; a partition not listed: nothing)."""
        self._limits[topic] = dict(ends or {})

    def skip_before(self, topic: str, floors: dict[int, int]) -> None:
        """Hide the records of ``topic`` below ``floors`` (partition -> offset): a read from below starts
        there, as a read below a log's start offset does."""
        self._floors[topic] = dict(floors)

    def lift(self, topic: str) -> None:
        self._limits.pop(topic, None)

    def lift_all(self) -> None:
        self._limits.clear()
        self._floors.clear()

    def _floor(self, topic: str, partition: int, offset: int) -> int:
        floors = self._floors.get(topic)
        return offset if floors is None else max(offset, floors.get(partition, 0))

    def ends(self, topic: str) -> dict[int, int]:
        """The real end offset of each partition of ``topic`` (empty if it does not exist)."""
        n = self._log.partition_count(topic)
        return {p: self._log.end_offset(topic, p) for p in range(n or 0)}

    def _limit(self, topic: str, partition: int) -> int:
        limits = self._limits.get(topic)
        return _UNBOUNDED if limits is None else limits.get(partition, 0)

    # -- reading through the gate
    def end_offset(self, topic: str, partition: int) -> int:
        end: int = self._log.end_offset(topic, partition)
        limit = self._limit(topic, partition)
        return end if limit == _UNBOUNDED else min(end, limit)

    def fetch(self, topic: str, partition: int, offset: int, max_records: int = 10000) -> RecordBatch:
        offset = self._floor(topic, partition, offset)
        limit = self._limit(topic, partition)
        if limit == _UNBOUNDED:
            return self._log.fetch(topic, partition, offset, max_records)  # type: ignore[no-any-return]
        if offset >= limit:
            return RecordBatch(topic, partition, [], [], [], [], [])
        batch: RecordBatch = self._log.fetch(topic, partition, offset, min(max_records, limit - offset))
        keep = sum(1 for o in batch.offsets if o < limit)
        if keep == len(batch.offsets):
            return batch
        return RecordBatch(topic, partition, batch.offsets[:keep], batch.keys[:keep], batch.values[:keep],
                           batch.timestamps[:keep], batch.headers[:keep])

    def fetch_raw(self, topic: str, partition: int, offset: int, max_records: int = 10000) -> Any:
        """The embedded log's raw fetch (a backfill's reader), capped like ``fetch``; its offsets are dense."""
        offset = self._floor(topic, partition, offset)
        limit = self._limit(topic, partition)
        if limit != _UNBOUNDED:
            max_records = max(0, min(max_records, limit - offset))
        return self._log.fetch_raw(topic, partition, offset, max_records)


def java_string_hash(s: str) -> int:
    """``String.hashCode()``: over UTF-16 code units, 32-bit wrapping (unsigned here)."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h


def java_hash_order(names: Iterable[str]) -> list[str]:
    """The iteration order of a ``java.util.HashSet`` holding ``names`` (``Collectors.toSet()``): by bucket,
    ``(h ^ h >>> 16) & (capacity - 1)``, the table doubling from 16 past 3/4 full. Names sharing a bucket
    keep their insertion order, which ksqlDB's set does not fix either: here by name."""
    ordered = sorted(set(names))
    capacity = 16
    while len(ordered) > capacity * 3 // 4:
        capacity *= 2

    def bucket(name: str) -> int:
        h = java_string_hash(name)
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(ordered, key=bucket)


@dataclass(frozen=True)
class Group:
    """Input records produced together, and where each partition of their topic ended after them."""

    topic: str
    ends: dict[int, int]


def source_topics(query: Any) -> list[str]:
    """The topics of the streams and tables a persistent query reads (not its internal topics)."""
    from ksqlpy.plan.topology import TopicKind

    return [t.name for t in query.topology.topics if t.kind is TopicKind.SOURCE]


def pipe_by_driver(gate: GatedLog, queries: Sequence[Any], groups: Sequence[Group], before: dict[str, dict[int, int]],
                   input_topics: set[str], settle: Callable[[Any], None]) -> None:
    """Feed each query in turn, as ksqlDB feeds its drivers (module docstring). The inputs are already in the
    log; ``before`` holds each input topic's ends before they were produced, ``groups`` the ends after each
    group. ``settle(query)`` polls only that query until it has nothing left to process."""
    try:
        for q in queries:
            reads = source_topics(q)
            fed = [t for t in reads if t in input_topics]
            from_kafka = [t for t in reads if t not in input_topics]
            for t in fed:
                # only the case's inputs: rows INSERT VALUES wrote to the topic after the query started are
                # in the log before them, but ksqlDB pipes the inputs alone (``pipeRecordsFromProvidedInput``)
                gate.limit(t, before.get(t))
                gate.skip_before(t, before.get(t) or {})
            for t in from_kafka:
                gate.limit(t)
            for g in groups:
                if g.topic in fed:
                    gate.limit(g.topic, g.ends)
                    settle(q)
            for t in java_hash_order(from_kafka):
                gate.lift(t)
                settle(q)
            gate.lift_all()
    finally:
        gate.lift_all()


def settle_query(query: Any, timeout_s: float) -> None:
    """Poll ``query`` alone until a poll processes nothing (``Engine.drain`` for one query)."""
    deadline = time.monotonic() + timeout_s
    while query.poll():
        if time.monotonic() > deadline:
            raise TimeoutError(f"query {getattr(query, 'query_id', '?')} still processing")
