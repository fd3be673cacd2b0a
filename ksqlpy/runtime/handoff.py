"""A repartition topic's committed records handed to the task reading them in the same process, in memory.

A query split at a repartition topic (``runtime.repartition``; a join's re-keyed side, ``join_build``) writes
the topic and reads it back in another task: the payloads are marshalled, framed into the log, fetched,
unframed and unmarshalled again - for q8's 60,000 repartitioned auctions and its GROUP BY a fifth of the
query's CPU. When both tasks run in this process, the writer keeps what it wrote (the payloads as objects,
their timestamps) and, once its transaction has committed, hands them to the reader at the offsets the log
gave them; the reader takes them instead of fetching and decoding those offsets.

Nothing else changes: the topic is still written in the same transaction (restarts, other processes and
other readers read it), the reader still commits its position in its own transaction, and it takes only
records at exactly its position - anything else (records another process wrote in between, a batch whose
partitions the writer could not tell, more than ``CAP`` records waiting, a restart) it fetches from the
log. After the records it took it fetches once more from the log, so a read returns what a fetch there
would have (the order across a task's inputs depends on it). A record is handed over only if the
transaction's count of records in its partition equals the writer's (``EmbeddedTransaction.written``):
a log that cannot say (Kafka, whose offsets are known only on delivery) hands nothing over.

``ksqlpy.repartition.handoff`` (default ``true``) turns it off.
"""

from __future__ import annotations

import threading
from bisect import insort
from collections.abc import Sequence
from typing import Any

from ksqlpy.log.base import RecordBatch
from ksqlpy.log.partitioner import deal_by_key
from ksqlpy.plan.topology import (
    ForeignKeyLeft,
    JoinChannel,
    JoinOperator,
    JoinStage,
    Topology,
    ToRepartition,
    WriteRepartition,
)
from ksqlpy.runtime.reader import DecodedBatch

PROPERTY = "ksqlpy.repartition.handoff"
CAP = 1 << 17  # records waiting per partition beyond which further batches are left to the log

Pair = tuple[tuple, int]  # (payload, timestamp); the payload is the marshalled value as an object


def handed_topics(topology: Topology) -> set[str]:
    """The topics a query writes as repartition records (a GROUP BY's, a join's re-keyed side): its internal
    topics but a foreign-key join's subscription and response topics, whose records are encoded otherwise."""
    out: set[str] = set()
    for sub in topology.sub_topologies:
        for op in sub.operators:
            if isinstance(op, WriteRepartition):
                out.add(op.topic)
            elif isinstance(op, JoinStage):
                for w in op.wiring:
                    target = w.target if isinstance(w, JoinChannel) else \
                        w.output if isinstance(w, (JoinOperator, ForeignKeyLeft)) else None
                    if isinstance(target, ToRepartition):
                        out.add(target.topic)
    return out


def enabled(ctx: Any) -> bool:
    """``ksqlpy.repartition.handoff``: hand repartition records to in-process readers (default true)."""
    return str(ctx.prop(PROPERTY, "true")).strip().lower() != "false"


class _Segment:
    """Records of one partition at the offsets ``first .. first + len(pairs) - 1``."""

    __slots__ = ("first", "end", "pairs")

    def __init__(self, first: int, pairs: list[Pair]) -> None:
        self.first = first
        self.end = first + len(pairs)
        self.pairs = pairs

    def __lt__(self, other: _Segment) -> bool:
        return self.first < other.first


class Inbox:
    """The committed records of one (topic, partition) waiting for the task reading it here."""

    def __init__(self) -> None:
        self._segments: list[_Segment] = []
        self._count = 0
        self._lock = threading.Lock()  # writers may commit in other threads (a committer, a task thread)

    def put(self, first: int, pairs: list[Pair]) -> None:
        with self._lock:
            if self._count + len(pairs) > CAP:
                return  # left to the log: the reader fetches what it does not find here
            insort(self._segments, _Segment(first, pairs))
            self._count += len(pairs)

    def take(self, offset: int, n: int) -> list[Pair]:
        """Up to ``n`` records from exactly ``offset`` on (contiguous), or none."""
        out: list[Pair] = []
        with self._lock:
            for seg in self._segments:
                if seg.end <= offset:
                    continue
                if seg.first > offset or len(out) >= n:
                    break
                i = offset - seg.first
                got = seg.pairs[i:i + n - len(out)]
                out += got
                offset += len(got)
        return out

    def prune(self, offset: int) -> None:
        """Forget records below ``offset`` (the reader's committed position)."""
        with self._lock:
            segs = self._segments
            k = 0
            while k < len(segs) and segs[k].end <= offset:
                self._count -= len(segs[k].pairs)
                k += 1
            if k:
                del segs[:k]

    def __len__(self) -> int:
        return self._count


class HandOff:
    """One query's in-process readers of its repartition topics (this process's tasks), by topic and
    partition."""

    def __init__(self) -> None:
        self._inboxes: dict[str, dict[int, Inbox]] = {}

    def subscribe(self, topic: str, partition: int) -> Inbox:
        parts = self._inboxes.setdefault(topic, {})
        box = parts.get(partition)
        if box is None:
            box = parts[partition] = Inbox()
        return box

    def wants(self, topic: str) -> bool:
        return topic in self._inboxes

    def deliver(self, topic: str, written: tuple[int, dict[int, tuple[int, int]]] | None,
                staged: list[tuple[Sequence[bytes | None], list[Pair]]]) -> None:
        """Hand ``staged`` - the batches written to ``topic`` in one committed transaction, in write order - to
        the readers of the partitions whose offsets ``written`` accounts for exactly."""
        parts = self._inboxes.get(topic)
        if parts is None or written is None:
            return
        nparts, ranges = written
        by_part: list[list[Pair]] = [[] for _ in range(nparts)]
        for keys, pairs in staged:
            if nparts == 1:
                by_part[0] += pairs
                continue
            if not all(keys) and None in keys:
                # a null key's partition is the log's choice: the others are dealt, so that partition's count
                # will not match
                kept = [(k, pr) for k, pr in zip(keys, pairs, strict=True) if k is not None]
                if not kept:
                    continue
                keys, pairs = [k for k, _ in kept], [pr for _, pr in kept]
            _, buckets = deal_by_key(keys, pairs, nparts)  # type: ignore[arg-type]
            for q, b in enumerate(buckets):
                if b:
                    by_part[q] += b
        for p, box in parts.items():
            rng = ranges.get(p)
            got = by_part[p] if p < nparts else None
            if rng is not None and got and rng[1] - rng[0] == len(got):
                box.put(rng[0], got)


class Outbox:
    """What one task wrote to handed-off topics since its last commit (``stage``), delivered once that commit
    is done (``deliver``) or dropped with an abort (``clear``)."""

    def __init__(self, handoff: HandOff) -> None:
        self.handoff = handoff
        self.staged: dict[str, list[tuple[Sequence[bytes | None], list[Pair]]]] = {}

    def wants(self, topic: str) -> bool:
        return self.handoff.wants(topic)

    def stage(self, topic: str, keys: Sequence[bytes | None], payloads: Sequence[tuple],
              timestamps: Sequence[int | None]) -> None:
        """A batch written to ``topic`` (no headers): the key bytes it was partitioned by, its payloads and
        timestamps. A batch not staged (headers, a timestamp the log fills in) is left to the log: the
        partitions it wrote to count more records than were staged, so they are not handed over."""
        if not all(timestamps) and None in timestamps:
            return
        self.staged.setdefault(topic, []).append((list(keys), list(zip(payloads, timestamps, strict=True))))

    def take(self) -> dict[str, list[tuple[Sequence[bytes | None], list[Pair]]]]:
        staged, self.staged = self.staged, {}
        return staged

    def clear(self) -> None:
        self.staged = {}

    def deliver(self, tx: Any, staged: dict[str, list[tuple[Sequence[bytes | None], list[Pair]]]] | None = None) -> None:
        """After ``tx`` committed: hand its staged batches (``staged``, else what is staged now) to the readers."""
        if staged is None:
            staged = self.take()
        if not staged:
            return
        written = getattr(tx, "written", None)
        if written is None:
            return
        for topic, batches in staged.items():
            self.handoff.deliver(topic, written(topic), batches)


def internal_events(first: int, pairs: list[Pair]) -> list[tuple]:
    """A join task's events of an internal topic's records (``join_build``'s ``decode_internal``):
    ``(ts, offset, (key, row, headers))``."""
    return [(ts, off, (*payload, None))
            for (payload, ts), off in zip(pairs, range(first, first + len(pairs)), strict=True)]


def handed_batch(topic: str, partition: int, first: int, pairs: list[Pair]) -> tuple[RecordBatch, DecodedBatch]:
    """The records at ``first ..`` as a repartition reader's task sees them: the batch (offsets only) and
    its rows as ``RepartitionReader.decode`` makes them - the payload, then timestamp and headers."""
    n = len(pairs)
    offsets = list(range(first, first + n))
    rows = [(*payload, ts, None) for payload, ts in pairs]
    batch = RecordBatch(topic, partition, offsets, [], [], [], [])
    return batch, DecodedBatch(rows, [ts for _, ts in pairs], [partition] * n, list(offsets), [None] * n,
                               [False] * n)

