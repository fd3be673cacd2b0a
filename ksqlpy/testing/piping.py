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

Within one driver, a record the query writes to a topic it reads is piped back at once: TopologyTestDriver's
``captureOutputsAndGenerateInterimResults`` forwards every produced record whose topic is one of the
topology's source (or internal) topics into ``pipeRecord`` again, depth first, before the next input (from
memory of its source). So ``INSERT INTO S SELECT ... FROM S WHERE ...`` loops on each input until its WHERE
stops it, and the next input comes after. A topic the query reads from Kafka (not fed) that it also writes
is piped as ksqlDB reads it then: every record the topic holds at its turn, its own earlier writes
included, one at a time, each with what it loops into.

A driver numbers the records piped to a topic from 0, in the order piped (``enqueueTaskRecord``:
``offsetsByTopicOrPatternPartition``), which is what ``ROWOFFSET`` reads.

Our engine runs all queries over one log. ``GatedLog`` lets the runner reproduce the drivers' order while
only one query is polled (``pipe_by_driver``): a fed topic, and a topic the query writes too, is *driven*
(``GatedLog.drive``) - the query reads it as its driver's input topic, the records piped to it in the order
piped at offsets from 0 (rows INSERT VALUES wrote to a fed topic are never among them: ksqlDB pipes the
inputs alone), while the topic itself keeps the order the writes came in; any other topic is hidden
(``limit``) until its turn, then shown whole.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ksqlpy.log.base import RecordBatch

_UNBOUNDED = -1


@dataclass
class _Driven:
    """A partition of a driven topic: the real offsets of the records piped to it, in the order piped;
    records written at ``scanned`` or later (the fed query's own writes) are piped as they appear."""

    piped: list[int]
    scanned: int | None  # None: what is written is not piped (a topic held before its driver runs)


class GatedLog:
    """Delegates to ``log``; a gated topic's partitions read as if they ended at their limit."""

    def __init__(self, log: Any) -> None:
        self._log = log
        self._limits: dict[str, dict[int, int]] = {}  # topic -> partition -> visible end (absent: 0)
        self._driven: dict[str, dict[int, _Driven]] = {}  # topic -> partition -> what was piped to it
        self._held: set[str] = set()  # driven topics that pipe nothing written to them (``hold``)

    @property
    def wrapped(self) -> Any:
        return self._log

    def __getattr__(self, name: str) -> Any:
        return getattr(self._log, name)

    # -- the gate
    def limit(self, topic: str, ends: dict[int, int] | None = None) -> None:
        """Show ``topic`` up to ``ends`` (partition -> offset; a partition not listed: nothing)."""
        self._limits[topic] = dict(ends or {})

    def hold(self, topic: str) -> None:
        """Show ``topic`` as a driver's input topic before anything is piped to it: empty, whatever is
        written to it. A query created meanwhile starts reading it at offset 0, where ``drive`` starts."""
        self._driven[topic] = {}
        self._held.add(topic)

    def drive(self, topic: str) -> None:
        """Show ``topic`` as a driver's input topic: nothing yet but what is written to it from now on,
        as it is written; ``pipe`` adds records already in it."""
        self._held.discard(topic)
        self._driven[topic] = {p: _Driven([], end) for p, end in self.ends(topic).items()}

    def pipe(self, topic: str, partition: int, offsets: Iterable[int]) -> None:
        """Add the records at real ``offsets`` of a driven topic's partition after what it shows."""
        d = self._driven[topic][partition]
        self._catch_up(topic, partition, d)
        d.piped.extend(offsets)

    def _catch_up(self, topic: str, partition: int, d: _Driven) -> None:
        if d.scanned is None:
            return
        end: int = self._log.end_offset(topic, partition)
        if end > d.scanned:
            d.piped.extend(range(d.scanned, end))
            d.scanned = end

    def _driven_partition(self, topic: str, partition: int) -> _Driven | None:
        parts = self._driven.get(topic)
        if parts is None:
            return None
        d = parts.get(partition)
        if d is None:
            d = parts[partition] = _Driven([], None if topic in self._held else 0)
        self._catch_up(topic, partition, d)
        return d

    def lift(self, topic: str) -> None:
        self._limits.pop(topic, None)

    def lift_all(self) -> None:
        self._limits.clear()
        self._driven.clear()
        self._held.clear()

    def ends(self, topic: str) -> dict[int, int]:
        """The real end offset of each partition of ``topic`` (empty if it does not exist)."""
        n = self._log.partition_count(topic)
        return {p: self._log.end_offset(topic, p) for p in range(n or 0)}

    def _limit(self, topic: str, partition: int) -> int:
        limits = self._limits.get(topic)
        return _UNBOUNDED if limits is None else limits.get(partition, 0)

    # -- reading through the gate
    def start_offset(self, topic: str, partition: int) -> int:
        if topic in self._driven:
            return 0
        return self._log.start_offset(topic, partition)  # type: ignore[no-any-return]

    def end_offset(self, topic: str, partition: int) -> int:
        d = self._driven_partition(topic, partition)
        if d is not None:
            return len(d.piped)
        end: int = self._log.end_offset(topic, partition)
        limit = self._limit(topic, partition)
        return end if limit == _UNBOUNDED else min(end, limit)

    def fetch(self, topic: str, partition: int, offset: int, max_records: int = 10000) -> RecordBatch:
        d = self._driven_partition(topic, partition)
        if d is not None:
            return self._fetch_driven(topic, partition, d, offset, max_records)
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

    def _fetch_driven(self, topic: str, partition: int, d: _Driven, offset: int, max_records: int) -> RecordBatch:
        """Records ``offset`` .. of what was piped to the partition, numbered by their place in it."""
        out = RecordBatch(topic, partition, [], [], [], [], [])
        want = d.piped[max(0, offset):max(0, offset) + max(0, max_records)]
        i = 0
        while i < len(want):
            j = i + 1  # a run of consecutive real offsets is one read
            while j < len(want) and want[j] == want[j - 1] + 1:
                j += 1
            batch = self._log.fetch(topic, partition, want[i], j - i)
            n = min(j - i, len(batch.offsets))
            out.keys += batch.keys[:n]
            out.values += batch.values[:n]
            out.timestamps += batch.timestamps[:n]
            out.headers += batch.headers[:n]
            if n < j - i:
                break
            i = j
        out.offsets = list(range(offset, offset + len(out.keys)))
        return out

    def fetch_raw(self, topic: str, partition: int, offset: int, max_records: int = 10000) -> Any:
        """The embedded log's raw fetch (a backfill's reader), capped like ``fetch``; its offsets are dense.
        A driven topic reads one record at a time, at the place it was piped."""
        d = self._driven_partition(topic, partition)
        if d is not None:
            raw = self._log.fetch_raw(topic, partition, d.piped[offset] if 0 <= offset < len(d.piped) else
                                      self._log.end_offset(topic, partition), min(max_records, 1))
            raw.offset = offset
            return raw
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


def looping_topics(query: Any) -> set[str]:
    """The topics a persistent query both reads and writes (``INSERT INTO S SELECT ... FROM S``): its
    driver pipes what it writes there back into it. (The topology lists such a topic once, as a source.)"""
    sink = getattr(getattr(query, "sink", None), "topic", None)
    return {sink} & set(source_topics(query)) if isinstance(sink, str) else set()


def pipe_by_driver(gate: GatedLog, queries: Sequence[Any], groups: Sequence[Group], before: dict[str, dict[int, int]],
                   input_topics: set[str], settle: Callable[[Any], None]) -> None:
    """Feed each query in turn, as ksqlDB feeds its drivers (module docstring). The inputs are already in the
    log; ``before`` holds each input topic's ends before they were produced, ``groups`` the ends after each
    group. ``settle(query)`` polls only that query until it has nothing left to process."""
    try:
        for q in queries:
            reads = source_topics(q)
            loops = looping_topics(q)
            fed = [t for t in reads if t in input_topics]
            from_kafka = [t for t in reads if t not in input_topics]
            piped = {t: dict(before.get(t) or {}) for t in fed}  # how far each fed topic's inputs were piped
            for t in reads:
                if t in fed or t in loops:
                    gate.drive(t)
                else:
                    gate.limit(t)
            for g in groups:
                if g.topic not in piped:
                    continue
                for p, end in g.ends.items():
                    gate.pipe(g.topic, p, range(piped[g.topic].get(p, 0), end))
                piped[g.topic] = dict(g.ends)
                settle(q)
            for t in java_hash_order(from_kafka):
                if t not in loops:
                    gate.lift(t)
                    settle(q)
                    continue
                # ``pipeRecordsFromKafka``: what the topic holds now, one record at a time
                for p, end in gate.ends(t).items():
                    for offset in range(gate.wrapped.start_offset(t, p), end):
                        gate.pipe(t, p, [offset])
                        settle(q)
            gate.lift_all()
    finally:
        gate.lift_all()


def settle_query(query: Any, timeout_s: float) -> None:
    """Poll ``query`` alone until it has nothing left (``Engine.drain`` for one query): until two polls in
    a row process nothing - the first writes what the query held back, the second finds nothing those
    writes gave it to read (a record it wrote to a topic it reads)."""
    deadline = time.monotonic() + timeout_s
    idle = 0
    while idle < 2:
        idle = 0 if query.poll() else idle + 1
        if time.monotonic() > deadline:
            raise TimeoutError(f"query {getattr(query, 'query_id', '?')} still processing")
