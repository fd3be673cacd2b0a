"""A batch's writes, held while the batch is processed and then written in one short log transaction.

Processing runs outside the log's transaction: on the EmbeddedLog a write transaction holds LMDB's single
writer lock, so worker processes that processed inside it would take turns instead of running in
parallel; on Kafka nothing is sent for a batch that dies half-way. The records and offset commits are
replayed, in order, into the real transaction afterwards - same records, same atomicity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ksqlpy.log.base import Headers, LogTransaction, ProducerRecord


class HeldWrites(LogTransaction):
    """Records ``produce*`` and ``commit_offsets`` calls; ``replay(tx)`` performs them on ``tx``."""

    __slots__ = ("ops", "offsets")

    def __init__(self) -> None:
        self.ops: list[tuple[Any, ...]] = []
        self.offsets: dict[str, dict[tuple[str, int], int]] = {}

    def produce(self, record: ProducerRecord) -> None:
        self.ops.append((record,))

    def produce_many(self, records: Sequence[ProducerRecord]) -> None:
        if records:
            self.ops.append((list(records), None))

    def produce_batch(self, topic: str, partition: int | None, keys: Sequence[bytes | None],
                      values: Sequence[bytes | None], timestamps: Sequence[int | None] | None = None,
                      headers: Sequence[Headers | None] | None = None) -> None:
        self.ops.append((topic, partition, keys, values, timestamps, headers))

    def commit_offsets(self, group: str, offsets: dict[tuple[str, int], int]) -> None:
        self.offsets.setdefault(group, {}).update(offsets)

    def replay(self, tx: LogTransaction) -> None:
        for op in self.ops:
            n = len(op)
            if n == 1:
                tx.produce(op[0])
            elif n == 2:
                tx.produce_many(op[0])
            else:
                tx.produce_batch(*op)
        for group, offsets in self.offsets.items():
            tx.commit_offsets(group, offsets)
