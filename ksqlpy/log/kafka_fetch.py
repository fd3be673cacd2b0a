"""Offset-addressed reads over librdkafka consumers: ``fetch(topic, partition, offset)`` and the true end.

librdkafka consumers stream partitions from a position; the ``Log`` interface asks for records at an
offset. A ``CursorSet`` is one consumer with one read position per partition (manual assignment, never a
group member): a fetch at the offset the previous fetch ended at continues the stream, any other offset
re-assigns the partition there. Several readers of one partition in one thread (a persistent query and a
push query over the same stream) get separate cursor sets, so they do not seek each other back and forth.

"Caught up" is decided from partition-EOF events (their offset is the fetch high watermark), never from
ListOffsets: some brokers (Tansu) report a LATEST offset a producer batch short, and under load real
clusters make it a poor progress signal too. ``end_offset_probe`` gets the true end the same way.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

from confluent_kafka import OFFSET_INVALID, Consumer, KafkaError, KafkaException, Message, TopicPartition

from ksqlpy.log.base import RecordBatch, UnknownTopicError

TP = tuple[str, int]
_MAX_CURSOR_SETS = 4
_PUMP = 10_000  # messages taken from librdkafka per consume() call
_WAIT_S = 10.0  # longest a fetch waits for the first fetch response of a newly assigned partition
_IDLE_S = 30.0  # a partition not fetched from for this long is unassigned (see CursorSet.release_idle)
# librdkafka reads a timestamp of 0 as "now"; records at epoch 0 (test data) are written as -1 (a value
# no Kafka producer writes: negative CreateTime is rejected) and read back as 0
EPOCH_ZERO = -1
_MISSING = (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC, KafkaError._UNKNOWN_PARTITION)


class CursorSet:
    """One consumer; per partition: the offset the next fetch is expected at, received messages, EOF."""

    def __init__(self, conf: dict[str, Any]) -> None:
        self.consumer = Consumer(conf)
        self.expected: dict[TP, int] = {}
        self.buf: dict[TP, list[Any]] = {}  # received messages, in offset order
        # fetch high watermark at the last EOF with nothing received since, and the topic's write
        # generation then (a later write by this process makes the EOF stale)
        self.eof: dict[TP, tuple[int, int]] = {}
        self.failed: dict[TP, KafkaError] = {}
        self.used = 0.0
        self.fetched: dict[TP, float] = {}  # when each partition was last fetched from
        self.shared = False  # ever assigned two partitions at once: messages need routing
        self.known: set[str] = set()

    def assign(self, tp: TP, offset: int) -> None:
        if tp[0] not in self.known:
            # a metadata request now: otherwise librdkafka may take a refresh interval (~1 s) to learn
            # the leader of a topic it has not seen, and the partition is not fetched until then
            try:
                self.consumer.list_topics(tp[0], timeout=10)
            except KafkaException:
                pass  # the fetch reports it
            self.known.add(tp[0])
        if tp in self.expected:
            self.consumer.incremental_unassign([TopicPartition(tp[0], tp[1])])
        elif self.expected:
            self.shared = True
        self.consumer.incremental_assign([TopicPartition(tp[0], tp[1], offset)])
        self.expected[tp] = offset
        self.buf[tp] = []
        self.eof.pop(tp, None)
        self.failed.pop(tp, None)
        self.fetched[tp] = time.monotonic()

    def release_idle(self, now: float) -> None:
        """Stop reading partitions nobody fetched from for ``_IDLE_S`` (a state store's changelog after
        its restore, a finished push query's input): librdkafka would go on fetching them into a buffer
        that only grows."""
        idle = [tp for tp, t in self.fetched.items() if now - t > _IDLE_S]
        if not idle:
            return
        with contextlib.suppress(KafkaException, RuntimeError):
            self.consumer.incremental_unassign([TopicPartition(t, p) for t, p in idle])
        for tp in idle:
            for d in (self.expected, self.buf, self.eof, self.failed, self.fetched):
                d.pop(tp, None)
        self.shared = True  # a message of a released partition still queued must not go to another's buffer

    def pump(self, timeout: float, gens: dict[str, int]) -> None:
        """Move what librdkafka has received into the per-partition buffers."""
        msgs = take(self.consumer, timeout)
        if not msgs:
            return
        if not self.shared and len(self.expected) == 1 and not [m for m in msgs if m.error() is not None]:
            # one partition ever and no events (the common case: a cursor set per partition): no routing
            (tp,) = self.expected
            self.buf[tp].extend(msgs)
            self.eof.pop(tp, None)
            return
        for m in msgs:
            tp = (m.topic(), m.partition())
            err = m.error()
            if err is not None:
                code = err.code()
                if code == KafkaError._PARTITION_EOF:
                    if tp in self.expected:
                        self.eof[tp] = (m.offset(), gens.get(tp[0], 0))
                elif code in _MISSING and tp in self.expected:
                    self.failed[tp] = err
                elif err.fatal():
                    raise KafkaException(err)
                continue
            b = self.buf.get(tp)
            if b is not None:
                b.append(m)
                self.eof.pop(tp, None)

    def close(self) -> None:
        try:
            self.consumer.close()
        except (KafkaException, RuntimeError):
            pass


class Fetcher:
    """The cursor sets of one thread (librdkafka consumers are not shared across threads here)."""

    def __init__(self, conf: dict[str, Any], gens: dict[str, int], true_end: Callable[[str, int], int]) -> None:
        self.conf = conf
        self.gens = gens  # topic -> count of this process's completed writes to it
        self.true_end = true_end
        self.sets: list[CursorSet] = []
        self.lock = threading.Lock()  # held by fetch(); another thread's drop_topic waits for it
        self.swept = time.monotonic()

    def _route(self, tp: TP, offset: int) -> CursorSet:
        """The cursor set reading ``tp`` at ``offset``; else one that can start there. A partition gets a
        consumer of its own while there are fewer than ``_MAX_CURSOR_SETS`` (its messages then need no
        routing), then shares one."""
        for c in self.sets:
            if c.expected.get(tp) == offset:
                return c
        for c in self.sets:
            if not c.expected:
                c.assign(tp, offset)
                return c
        if len(self.sets) < _MAX_CURSOR_SETS:
            c = CursorSet(self.conf)
            self.sets.append(c)
        else:
            free = [s for s in self.sets if tp not in s.expected]
            c = min(free or self.sets, key=lambda s: s.used)
        c.assign(tp, offset)
        return c

    def prefetch(self, topic: str, partition: int, offset: int) -> None:
        """Assign ``offset`` now (librdkafka starts fetching in the background); a later fetch there finds
        the cursor in place."""
        with self.lock:
            self._route((topic, partition), offset)

    def fetch(self, topic: str, partition: int, offset: int, max_records: int) -> RecordBatch:
        with self.lock:
            return self._fetch(topic, partition, offset, max_records)

    def _fetch(self, topic: str, partition: int, offset: int, max_records: int) -> RecordBatch:
        tp = (topic, partition)
        now = time.monotonic()
        if now - self.swept > _IDLE_S / 4:
            self.swept = now
            for cs in self.sets:
                cs.release_idle(now)
        c = self._route(tp, offset)
        c.used = c.fetched[tp] = now
        deadline = now + _WAIT_S
        pumped = False
        while True:
            b = c.buf[tp]
            if not b and not pumped:
                c.pump(0, self.gens)  # what arrived since (an EOF is only true until the next message)
                pumped = True
            if b and b[0].offset() < offset:
                _skip_below(b, offset)
            if b:
                batch = _to_batch(topic, partition, b, max_records)
                c.expected[tp] = batch.next_offset
                return batch
            err = c.failed.get(tp)
            if err is not None:
                raise UnknownTopicError(f"cannot read {topic}-{partition}: {err.str()}")
            eof = c.eof.get(tp)
            if eof is not None and eof[0] >= offset:
                gen = self.gens.get(topic, 0)
                if eof[1] == gen:
                    return RecordBatch(topic, partition, [], [], [], [], [])
                # this process wrote to the topic since: ask the broker whether the end moved
                if self.true_end(topic, partition) <= eof[0]:
                    c.eof[tp] = (eof[0], gen)
                    return RecordBatch(topic, partition, [], [], [], [], [])
                c.eof.pop(tp, None)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return RecordBatch(topic, partition, [], [], [], [], [])
            c.pump(min(remaining, 0.05), self.gens)

    def drop_topic(self, topic: str) -> None:
        """Close every consumer that was ever assigned ``topic``: librdkafka (2.x, with tansu at least)
        crashes in a metadata refresh after a topic its consumer once fetched is deleted."""
        with self.lock:
            keep = []
            for c in self.sets:
                if topic in c.known:
                    c.close()
                else:
                    keep.append(c)
            self.sets = keep

    def close(self) -> None:
        with self.lock:
            for c in self.sets:
                c.close()
            self.sets = []


def take(consumer: Consumer, timeout: float) -> list[Any]:
    """What is queued now, else wait up to ``timeout`` for the first message and take the rest queued
    with it (``consume(n, timeout)`` alone waits out the timeout unless ``n`` messages are queued)."""
    got = consumer.consume(_PUMP, 0)
    if got:
        return got
    m = consumer.poll(timeout)
    if m is None:
        return []
    return [m, *consumer.consume(_PUMP - 1, 0)]


def _skip_below(buf: list[Any], offset: int) -> None:
    """Drop buffered messages before ``offset`` (a fetch that moved the cursor back and forth)."""
    i = 0
    n = len(buf)
    while i < n and buf[i].offset() < offset:
        i += 1
    del buf[:i]


def _to_batch(topic: str, partition: int, buf: list[Any], max_records: int) -> RecordBatch:
    """The first ``max_records`` buffered messages as a batch, column by column (``map`` over the C
    accessors: no Python loop body per message)."""
    ms = buf[:max_records]
    del buf[:max_records]
    offsets = list(map(Message.offset, ms))
    keys = list(map(Message.key, ms))
    values = list(map(Message.value, ms))
    tss = [t for _, t in map(Message.timestamp, ms)]
    if EPOCH_ZERO in tss:
        tss = [0 if t == EPOCH_ZERO else t for t in tss]
    hdrs = list(map(Message.headers, ms))
    if any(hdrs):
        hdrs = [h or None for h in hdrs]
    return RecordBatch(topic, partition, offsets, keys, values, tss, hdrs)


class EndProbe:
    """The true end of a partition: assign at a lower bound, read the high watermark of the first fetch
    response (fetch.wait.max.ms is short, so an empty partition answers at once)."""

    def __init__(self, conf: dict[str, Any]) -> None:
        self.conf = {**conf, "fetch.wait.max.ms": 1, "enable.partition.eof": True}
        self.consumer = Consumer(self.conf)
        self.lock = threading.Lock()
        self.known: set[str] = set()

    def drop_topic(self, topic: str) -> None:
        """See ``Fetcher.drop_topic``: a consumer that was assigned a deleted topic is replaced."""
        with self.lock:
            if topic in self.known:
                with contextlib.suppress(KafkaException, RuntimeError):
                    self.consumer.close()
                self.consumer = Consumer(self.conf)
                self.known = set()

    def watermarks(self, topic: str, partition: int, timeout: float) -> tuple[int, int]:
        with self.lock:
            lo, hi = self.consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=timeout)
        return lo, hi

    def end(self, topic: str, partition: int, lower_bound: int, timeout: float = 10.0) -> int:
        with self.lock:
            c = self.consumer
            tpo = TopicPartition(topic, partition)
            try:
                _, listed = c.get_watermark_offsets(tpo, timeout=timeout)
            except KafkaException as e:
                raise UnknownTopicError(f"cannot read {topic}-{partition}: {e}") from e
            start = max(listed, lower_bound)
            self.known.add(topic)
            c.assign([TopicPartition(topic, partition, start)])
            try:
                deadline = time.monotonic() + timeout
                while time.monotonic() < deadline:
                    for m in take(c, 0.05):
                        if (m.topic(), m.partition()) != (topic, partition):
                            continue
                        err = m.error()
                        if err is not None and err.code() != KafkaError._PARTITION_EOF:
                            if err.code() in _MISSING:
                                raise UnknownTopicError(f"cannot read {topic}-{partition}: {err.str()}")
                            continue
                        hw = c.get_watermark_offsets(tpo, cached=True)[1]
                        return max(hw, start) if hw != OFFSET_INVALID else start
                raise TimeoutError(f"no fetch response for {topic}-{partition} within {timeout:g}s")
            finally:
                c.unassign()

    def close(self) -> None:
        with self.lock:
            try:
                self.consumer.close()
            except (KafkaException, RuntimeError):
                pass
