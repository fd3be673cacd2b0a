"""Repartitioning: moving grouped records to the task that owns their new key.

GROUP BY on something other than the source key, over a source with several partitions, splits the
query in two sub-topologies, as in ksqlDB (``plan.lowering``): the first groups records and writes them to
the internal topic ``<application id>-Aggregate-GroupBy-repartition`` keyed by the group key (serialized in the sink's key format, so the default partitioner places a key where ksqlDB
would); the second reads that topic, one task per partition, and aggregates.

The value is private to the query (a pickled item) and the record keeps its timestamp. Writing the
repartition records and committing the first stage's input position happen in one log transaction,
so under exactly-once nothing is lost or doubled between the stages.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

from ksqlpy.log.base import LogTransaction, RecordBatch
from ksqlpy.runtime.reader import DecodedBatch

_HIGHEST = pickle.HIGHEST_PROTOCOL


class RepartitionWriter:
    """Writes grouped items (``(key, ..., ts, headers)`` tuples) to the repartition topic."""

    def __init__(self, topic: str, key_bytes: Callable[[tuple], bytes]) -> None:
        self.topic = topic
        self.key_bytes = key_bytes

    def write(self, tx: LogTransaction, items: list[tuple]) -> int:
        """One columnar ``produce_batch`` (partitioned by key), each distinct key serialized once."""
        if not items:
            return 0
        kb, dumps = self.key_bytes, pickle.dumps
        memo: dict[Any, bytes] = {}
        keys = []
        for item in items:
            k = item[0]
            try:
                b = memo.get(k)
            except TypeError:  # an unhashable key value (STRUCT, ARRAY, MAP)
                b = kb(k)
            else:
                if b is None:
                    b = memo[k] = kb(k)
            keys.append(b)
        values = [dumps(item[:-2], _HIGHEST) for item in items]
        headers = [item[-1] or None for item in items]
        tx.produce_batch(self.topic, None, keys, values, [item[-2] for item in items],
                         headers if any(headers) else None)
        return len(items)


class RepartitionReader:
    """Turns repartition records back into items (rows of the decoded batch)."""

    def decode(self, batch: RecordBatch) -> DecodedBatch:
        loads = pickle.loads
        rows: list[Any] = [loads(v) + (ts, h) for v, ts, h in zip(batch.values, batch.timestamps, batch.headers,
                                                                   strict=True)]
        n = len(rows)
        return DecodedBatch(rows, list(batch.timestamps), [batch.partition] * n, list(batch.offsets),
                            list(batch.headers), [False] * n)


def safe_key_bytes(serialize: Callable[[tuple], bytes | None]) -> Callable[[tuple], bytes]:
    """The key serializer, falling back to ``repr`` bytes for keys the format cannot write (the bytes
    only place the record; the key itself travels in the value)."""

    def key_bytes(key: tuple) -> bytes:
        try:
            b = serialize(key)
        except Exception:  # noqa: BLE001
            b = None
        return b if b else repr(key).encode()

    return key_bytes
