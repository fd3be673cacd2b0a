"""A batch's writes, held while the batch is processed and then written in one short log transaction.

Processing runs outside the log's transaction: on the EmbeddedLog a write transaction holds LMDB's single
writer lock, so worker processes that processed inside it would take turns instead of running in
parallel; on Kafka nothing is sent for a batch that dies half-way. The records and offset commits are
replayed, in order, into the real transaction afterwards - same records, same atomicity.

With a ``prepare`` hook (``EmbeddedLog.prepare_batch``) a columnar batch is also packed into the log's
stored form here, so the transaction only puts it (``log.embedded_prepare``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

from ksqlpy.log.base import Headers, LogTransaction, ProducerRecord


class _Op(Enum):
    RECORD = 1
    MANY = 2
    BATCH = 3
    PREPARED = 4


class HeldWrites(LogTransaction):
    """Records ``produce*`` and ``commit_offsets`` calls; ``replay(tx)`` performs them on ``tx``."""

    __slots__ = ("ops", "offsets", "prepare")

    def __init__(self, prepare: Callable[..., Any] | None = None) -> None:
        self.ops: list[tuple[_Op, Any]] = []
        self.offsets: dict[str, dict[tuple[str, int], int]] = {}
        self.prepare = prepare

    def produce(self, record: ProducerRecord) -> None:
        self.ops.append((_Op.RECORD, record))

    def produce_many(self, records: Sequence[ProducerRecord]) -> None:
        if records:
            self.ops.append((_Op.MANY, list(records)))

    def produce_batch(self, topic: str, partition: int | None, keys: Sequence[bytes | None],
                      values: Sequence[bytes | None], timestamps: Sequence[int | None] | None = None,
                      headers: Sequence[Headers | None] | None = None) -> None:
        if self.prepare is not None:
            prepared = self.prepare(topic, partition, keys, values, timestamps, headers)
            if prepared is not None:
                self.ops.append((_Op.PREPARED, prepared))
                return
        self.ops.append((_Op.BATCH, (topic, partition, keys, values, timestamps, headers)))

    def commit_offsets(self, group: str, offsets: dict[tuple[str, int], int]) -> None:
        self.offsets.setdefault(group, {}).update(offsets)

    def replay(self, tx: LogTransaction) -> None:
        for kind, arg in self.ops:
            if kind is _Op.BATCH:
                tx.produce_batch(*arg)
            elif kind is _Op.PREPARED:
                tx.produce_prepared(arg)  # type: ignore[attr-defined] - only with the log's prepare hook
            elif kind is _Op.MANY:
                tx.produce_many(arg)
            else:
                tx.produce(arg)
        for group, offsets in self.offsets.items():
            tx.commit_offsets(group, offsets)
