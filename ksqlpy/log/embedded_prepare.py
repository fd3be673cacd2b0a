"""Records packed and cut into chunks before the write transaction that stores them.

LMDB has one writer at a time per environment, across processes: worker processes of a query take turns
in their write transactions. Packing a batch's records (one header struct per record, the partition by
key hash) and building its chunks is Python work that needs no transaction: the chunk layout
(``record_codec``) does not depend on the offsets the records get. Done here, before the transaction, the
writer lock is held only for the puts and the commit (measured on q0 with two workers: the packing was
most of what a worker did inside the lock, and the other worker waited for it).

Only the common case is prepared - every record has a key, a value and a timestamp, no headers (the
runtime's sink and changelog batches); anything else is produced inside the transaction as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat

from ksqlpy.log.framing import NATIVE
from ksqlpy.log.partitioner import deal_by_key
from ksqlpy.log.record_codec import CHUNK_MAX_BYTES, CHUNK_MAX_RECORDS, HEADER, build_chunks

_hpack = HEADER.pack


@dataclass(frozen=True, slots=True)
class PreparedPartition:
    partition: int
    count: int  # records
    chunks: list[tuple[int, bytes]]  # (index of the chunk's first record, chunk bytes), as build_chunks


@dataclass(frozen=True, slots=True)
class PreparedBatch:
    """One ``produce_batch`` call, packed: the topic (its id and partition count when prepared, checked
    again in the transaction) and the chunks per partition, partitions in the order records first hit
    them. ``args`` are the call's own arguments, produced as they are if the topic changed meanwhile."""

    topic: str
    topic_id: int
    partitions: int
    parts: list[PreparedPartition]
    args: tuple


def plain(keys: Sequence[bytes | None], values: Sequence[bytes | None],
          timestamps: Sequence[int | None] | None, headers: Sequence | None) -> bool:
    """The common case: no headers, and no null key, value or timestamp (``all(x) or None not in x``: a
    truthiness test per record first, the exact one only when a falsy value such as b"" or 0 is there)."""
    return (headers is None and timestamps is not None and (all(keys) or None not in keys)
            and (all(values) or None not in values) and (all(timestamps) or None not in timestamps))


def prepare(topic: str, topic_id: int, partitions: int, partition: int | None, keys: Sequence[bytes],
            values: Sequence[bytes], timestamps: Sequence[int]) -> PreparedBatch:
    """Pack a plain batch (see ``plain``) for ``topic``; ``partition`` None partitions by key hash, as
    ``EmbeddedTransaction.produce_batch`` does."""
    if NATIVE is not None:
        try:
            return _prepare_native(topic, topic_id, partitions, partition, keys, values, timestamps)
        except (TypeError, OverflowError, ValueError):  # a value that is not exactly bytes, a timestamp past
            pass  # 64 bits: the Python packing decides (and raises what it raises)
    heads = list(map(_hpack, timestamps, map(len, keys), map(len, values), repeat(0)))
    recs = list(map(b"".join, zip(heads, keys, values, strict=False)))
    args = (topic, partition, keys, values, timestamps, None)
    if partition is None and partitions == 1:
        partition = 0
    if partition is not None:
        return PreparedBatch(topic, topic_id, partitions,
                             [PreparedPartition(partition, len(recs), build_chunks(recs))], args)
    last, buckets = deal_by_key(keys, recs, partitions)
    # the last record's partition last: the transaction reports it as the topic's last written record
    order = [q for q in range(partitions) if buckets[q] and q != last] + [last]
    return PreparedBatch(topic, topic_id, partitions,
                         [PreparedPartition(q, len(buckets[q]), build_chunks(buckets[q])) for q in order], args)


def native_prepare(topic: str, topic_id: int, partitions: int, partition: int | None, keys: Sequence[bytes],
                   values: Sequence[bytes], timestamps: Sequence[int]) -> PreparedBatch | None:
    """``prepare`` by the C framing, or None when it is not built or refuses the batch (a value that is not
    exactly bytes, a timestamp past 64 bits): the caller's Python packing decides then."""
    if NATIVE is None:
        return None
    try:
        return _prepare_native(topic, topic_id, partitions, partition, keys, values, timestamps)
    except (TypeError, OverflowError, ValueError):
        return None


def _prepare_native(topic: str, topic_id: int, partitions: int, partition: int | None, keys: Sequence[bytes],
                    values: Sequence[bytes], timestamps: Sequence[int]) -> PreparedBatch:
    """``prepare`` by the C framing (``framing``): the same chunks, no bytes object per header or record."""
    assert NATIVE is not None
    chunks = NATIVE.chunks
    args = (topic, partition, keys, values, timestamps, None)
    if partition is None and partitions == 1:
        partition = 0
    if partition is not None:
        return PreparedBatch(topic, topic_id, partitions, [PreparedPartition(
            partition, len(keys), chunks(keys, values, timestamps, None, CHUNK_MAX_RECORDS, CHUNK_MAX_BYTES))], args)
    ps = NATIVE.partitions(keys, partitions)  # Kafka's partitioner in C: no hash cache needed
    last = ps[-1]
    if ps.count(last) == len(ps):  # the whole batch in one partition (see ``deal_by_key``)
        return PreparedBatch(topic, topic_id, partitions, [PreparedPartition(
            last, len(keys), chunks(keys, values, timestamps, None, CHUNK_MAX_RECORDS, CHUNK_MAX_BYTES))], args)
    rows: list[list[int]] = [[] for _ in range(partitions)]  # each partition's record numbers, in order
    appends = [r.append for r in rows]
    for i, q in enumerate(ps):
        appends[q](i)
    order = [q for q in range(partitions) if rows[q] and q != last] + [last]
    return PreparedBatch(topic, topic_id, partitions, [PreparedPartition(
        q, len(rows[q]), chunks(keys, values, timestamps, rows[q], CHUNK_MAX_RECORDS, CHUNK_MAX_BYTES)) for q in order],
        args)
