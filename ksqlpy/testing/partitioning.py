"""Where a case's records go: as ksqlDB's TopologyTestDriver puts them (partition 0), or as Kafka would.

ksqlDB's statement-level harness registers a case's topics with their partition counts (4 unless the case
declares one) in a stub topic client - the counts its checks compare: co-partitioned joins, a sink
inheriting its source's count, ``post.topics`` - but runs each query in a TopologyTestDriver, which feeds
every record to partition 0 of its topic and processes it to completion before the next. Its expected
outputs are written for that: one stream time per query (not one per partition), ``ROWPARTITION`` 0,
``ROWOFFSET`` counting a topic's records.

``Placement.TTD`` (the default) gives the engine that view of its log: topics exist with their real
counts, and every write - the runner's inputs and everything the engine writes: sinks, repartition and
changelog topics - lands in partition 0 (``PartitionZeroLog``). The engine is unchanged; it runs its tasks
as always, only the tasks of partition 0 see records. ``Placement.KAFKA`` leaves the log alone: records go
where their key hashes, and the runner feeds one input at a time so each is processed before the next
(our own cases run this way too, to catch what only several partitions show).

Under TTD a sink topic's records are compared as one sequence, in the order written, as ksqlDB's harness
compares them (each input is processed to completion before the next, so the engine's grouping of a
batch's writes by partition cannot reorder them); under KAFKA per partition, Kafka's only ordering
guarantee.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from typing import Any

from ksqlpy.log.base import Headers, ProducerRecord


class Placement(Enum):
    """How the runner places records in partitions (``ksqlpy test --partitioning``)."""

    TTD = "ttd"  # every record in partition 0, as ksqlDB's TopologyTestDriver
    KAFKA = "kafka"  # where the key hashes; one input processed at a time


def _to_zero(record: ProducerRecord) -> ProducerRecord:
    if record.partition == 0:
        return record
    return ProducerRecord(record.topic, record.key, record.value, record.timestamp, record.headers, 0)


class _PartitionZeroTransaction:
    """A transaction of the wrapped log whose writes all go to partition 0."""

    def __init__(self, tx: Any) -> None:
        self._tx = tx

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tx, name)

    def produce(self, record: ProducerRecord) -> None:
        self._tx.produce(_to_zero(record))

    def produce_many(self, records: Sequence[ProducerRecord]) -> None:
        self._tx.produce_many([_to_zero(r) for r in records])

    def produce_batch(self, topic: str, partition: int | None, keys: Sequence[bytes | None],
                      values: Sequence[bytes | None], timestamps: Sequence[int | None] | None = None,
                      headers: Sequence[Headers | None] | None = None) -> None:
        self._tx.produce_batch(topic, 0, keys, values, timestamps, headers)


class PartitionZeroLog:
    """Delegates everything to ``log`` except where records are written: always partition 0."""

    # writers need not place records by key: one batch in emission order keeps the order TopologyTestDriver
    # records outputs in (a windowed sink groups a batch by its keys' partitions otherwise: ``SinkWriter``)
    one_partition = True

    def __init__(self, log: Any) -> None:
        self._log = log

    @property
    def wrapped(self) -> Any:
        return self._log

    def __getattr__(self, name: str) -> Any:
        return getattr(self._log, name)

    @contextmanager
    def transaction(self) -> Iterator[_PartitionZeroTransaction]:
        with self._log.transaction() as tx:
            yield _PartitionZeroTransaction(tx)

    def produce(self, record: ProducerRecord) -> tuple[int, int]:
        return self._log.produce(_to_zero(record))  # type: ignore[no-any-return]

    def prepare_batch(self, topic: str, partition: int | None, keys: Sequence[bytes | None],
                      values: Sequence[bytes | None], timestamps: Sequence[int | None] | None = None,
                      headers: Sequence[Headers | None] | None = None) -> Any:
        """A batch the wrapped log packs before its transaction (``EmbeddedLog.prepare_batch``) is placed
        then, so it too goes to partition 0 - delegated as it was, it went where its keys hash."""
        prepare = getattr(self._log, "prepare_batch", None)
        return None if prepare is None else prepare(topic, 0, keys, values, timestamps, headers)
