"""The ``Log`` interface: partitioned, offset-addressed topics, as Kafka has them.

Everything above this layer (runtime, engine, conformance runner) talks to topics only through it, so
the embedded LMDB log and the Kafka log are interchangeable. Records move in columnar batches so the
runtime pays per batch, not per record.
"""

from __future__ import annotations

import abc
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

Headers = list[tuple[str, bytes | None]]


@dataclass
class TopicInfo:
    name: str
    partitions: int
    replicas: int = 1
    config: dict[str, str] = field(default_factory=dict)


@dataclass
class RecordBatch:
    """Records of one topic partition, in offset order, stored column-wise."""

    topic: str
    partition: int
    offsets: list[int]
    keys: list[bytes | None]
    values: list[bytes | None]
    timestamps: list[int]
    headers: list[Headers | None]

    def __len__(self) -> int:
        return len(self.offsets)

    @property
    def next_offset(self) -> int:
        """The offset a consumer resumes from after this batch."""
        return self.offsets[-1] + 1 if self.offsets else -1


@dataclass(slots=True)
class ProducerRecord:
    topic: str
    key: bytes | None
    value: bytes | None
    timestamp: int | None = None  # None: the log's clock (log append time)
    headers: Headers | None = None
    partition: int | None = None  # None: the default partitioner (murmur2 of key; round-robin if no key)


class LogTransaction(abc.ABC):
    """Writes and consumer-offset commits that become visible together or not at all.

    On the EmbeddedLog this is one LMDB write transaction; on Kafka a producer transaction under
    exactly-once, or produce + flush + offset commit under at-least-once.
    """

    @abc.abstractmethod
    def produce(self, record: ProducerRecord) -> None: ...

    def produce_many(self, records: Sequence[ProducerRecord]) -> None:
        for r in records:
            self.produce(r)

    def produce_batch(self, topic: str, partition: int | None, keys: Sequence[bytes | None],
                      values: Sequence[bytes | None], timestamps: Sequence[int | None] | None = None,
                      headers: Sequence[Headers | None] | None = None) -> None:
        """Columnar produce of one batch to ``topic`` (``partition`` None: by key, like ``produce``).

        Saves building a ProducerRecord per record; implementations override it with a tight loop.
        """
        for i in range(len(values)):
            self.produce(ProducerRecord(topic, keys[i], values[i],
                                        timestamps[i] if timestamps is not None else None,
                                        headers[i] if headers is not None else None, partition))

    @abc.abstractmethod
    def commit_offsets(self, group: str, offsets: dict[tuple[str, int], int]) -> None:
        """Record ``offsets`` (next offset to read, per (topic, partition)) for consumer ``group``."""


class TopicExistsError(Exception):
    pass


class UnknownTopicError(Exception):
    pass


class Log(abc.ABC):
    """A partitioned log: topics of partitions of records addressed by offset."""

    # a commit is a network round trip (producer flush, offset commit): inline queries then commit on
    # commit.interval.ms rather than per batch (an embedded log's commit is a local transaction)
    remote_commit: bool = False
    # several servers share this log and run the same statements at once (a cluster): each finds a topic
    # missing and creates it, and all but the first find it created meanwhile. With this set, creating a
    # topic that exists with the asked partition count answers its description instead of TopicExistsError.
    concurrent_creates: bool = False
    # a write transaction may run in another thread than the one that processed its batch, while that one
    # goes on (``runtime.commit_pipeline``)
    commits_in_threads: bool = False

    # -- topics
    @abc.abstractmethod
    def create_topic(self, name: str, partitions: int = 1, replicas: int = 1,
                     config: dict[str, str] | None = None) -> TopicInfo:
        """Create a topic; raises TopicExistsError if it exists."""

    @abc.abstractmethod
    def delete_topic(self, name: str) -> None: ...

    @abc.abstractmethod
    def describe_topic(self, name: str) -> TopicInfo | None:
        """The topic's description, or None if there is no such topic."""

    @abc.abstractmethod
    def list_topics(self) -> list[TopicInfo]: ...

    def _created_meanwhile(self, name: str, partitions: int, error: TopicExistsError) -> TopicInfo:
        """``create_topic``'s answer when ``name`` exists: under ``concurrent_creates``, the topic another
        server created for the same statement (same partition count); otherwise ``error``."""
        info = self.describe_topic(name) if self.concurrent_creates else None
        if info is None or info.partitions != partitions:
            raise error
        return info

    def topic_exists(self, name: str) -> bool:
        return self.describe_topic(name) is not None

    def partition_count(self, name: str) -> int | None:
        """The topic's number of partitions, or None if there is no such topic (each caller says what a
        missing topic means to it)."""
        info = self.describe_topic(name)
        return info.partitions if info is not None else None

    # -- writing
    @abc.abstractmethod
    @contextmanager
    def transaction(self) -> Iterator[LogTransaction]:
        """A write transaction: committed when the block exits normally, aborted on exception."""

    def produce(self, record: ProducerRecord) -> tuple[int, int]:
        """Write one record now; returns (partition, offset)."""
        with self.transaction() as tx:
            tx.produce(record)
        return self.last_written(record.topic)

    @abc.abstractmethod
    def last_written(self, topic: str) -> tuple[int, int]:
        """(partition, offset) of the last record this process wrote to ``topic`` (for produce())."""

    # -- reading
    @abc.abstractmethod
    def fetch(self, topic: str, partition: int, offset: int, max_records: int = 10000) -> RecordBatch:
        """Up to ``max_records`` committed records from ``offset`` on; empty if none yet."""

    @abc.abstractmethod
    def end_offset(self, topic: str, partition: int) -> int:
        """Offset the next record written to the partition will get (the high watermark)."""

    @abc.abstractmethod
    def start_offset(self, topic: str, partition: int) -> int:
        """Lowest offset still retained."""

    @abc.abstractmethod
    def committed(self, group: str, topic: str, partition: int) -> int | None:
        """The group's committed offset for a partition, or None if it never committed."""

    @abc.abstractmethod
    def groups(self) -> list[str]:
        """The consumer groups that have committed offsets (or, on Kafka, that the broker knows)."""

    @abc.abstractmethod
    def delete_groups(self, groups: Collection[str]) -> None:
        """Forget ``groups``' committed offsets on every topic and partition (a group that does not exist is
        no error): markers a run kept only while it could be resumed."""

    def prefetch(self, topic: str, partition: int, offset: int) -> None:  # noqa: B027 - optional hook
        """A hint from the thread that will ``fetch`` there: start reading ``offset`` now. A query's tasks
        announce all their inputs before the first fetch, so a log whose reader needs a round trip to
        start (a Kafka consumer assignment) starts them together instead of one task at a time."""

    def wait_for_data(self, timeout_s: float) -> None:
        """Block up to ``timeout_s`` or until new records may be available (a hint, not a promise)."""
        import time

        time.sleep(timeout_s)

    def close(self) -> None:  # noqa: B027 - optional hook
        pass
