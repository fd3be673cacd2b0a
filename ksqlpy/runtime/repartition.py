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
from itertools import repeat
from operator import itemgetter
from typing import Any

from ksqlpy.log.base import LogTransaction, RecordBatch
from ksqlpy.runtime.reader import DecodedBatch

_HIGHEST = pickle.HIGHEST_PROTOCOL
# an item is ``(key, ..., ts, headers)``; the repartition value is the part before the timestamp
_KEY, _TS, _HEADERS, _PAYLOAD = itemgetter(0), itemgetter(-2), itemgetter(-1), itemgetter(slice(None, -2))


class RepartitionWriter:
    """Writes grouped items (``(key, ..., ts, headers)`` tuples) to the repartition topic."""

    def __init__(self, topic: str, key_bytes: Callable[[tuple], bytes]) -> None:
        self.topic = topic
        self.key_bytes = key_bytes

    def write(self, tx: LogTransaction, items: list[tuple]) -> int:
        """One columnar ``produce_batch`` (partitioned by key), each distinct key serialized once; the
        columns are cut from the items and the values pickled by C-level ``map`` calls."""
        if not items:
            return 0
        kb = self.key_bytes
        ks = list(map(_KEY, items))
        try:
            memo = dict.fromkeys(ks)
        except TypeError:  # an unhashable key value (STRUCT, ARRAY, MAP)
            keys = list(map(kb, ks))
        else:
            for k in memo:
                memo[k] = kb(k)
            keys = list(map(memo.__getitem__, ks))
        values = list(map(pickle.dumps, map(_PAYLOAD, items), repeat(_HIGHEST)))
        headers = list(map(_HEADERS, items))
        tx.produce_batch(self.topic, None, keys, values, list(map(_TS, items)),
                         [h or None for h in headers] if any(headers) else None)
        return len(items)


class RepartitionReader:
    """Turns repartition records back into items (rows of the decoded batch)."""

    def decode(self, batch: RecordBatch) -> DecodedBatch:
        # the pickled ``(key, ...)`` then ``(ts, headers)``: both by C-level ``map`` over the batch
        rows: list[Any] = list(map(tuple.__add__, map(pickle.loads, batch.values),
                                   zip(batch.timestamps, batch.headers, strict=True)))
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
