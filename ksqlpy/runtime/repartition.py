"""Repartitioning: moving grouped records to the task that owns their new key.

GROUP BY on something other than the source key, over a source with several partitions, splits the
query in two sub-topologies, as in ksqlDB (``plan.lowering``): the first groups records and writes them to
the internal topic ``<application id>-Aggregate-GroupBy-repartition`` keyed by the group key (serialized in its internal key format, ``plan.group_key``, so the default
partitioner places a key where ksqlDB would); the second reads that topic, one task per partition, and aggregates.

The value is private to the query (the item, marshalled or pickled: ``encode_values``) and the record
keeps its timestamp. Writing the repartition records and committing the first stage's input position
happen in one log transaction, so under exactly-once nothing is lost or doubled between the stages.
"""

from __future__ import annotations

import marshal
import pickle
from collections.abc import Callable, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any

from ksqlpy.log.base import LogTransaction, RecordBatch
from ksqlpy.runtime.reader import DecodedBatch
from ksqlpy.state.codec import marshal_many

_HIGHEST = pickle.HIGHEST_PROTOCOL
_PICKLED = b"\x80"  # the first byte of every pickle of protocol 2 and later
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
        values = encode_values(list(map(_PAYLOAD, items)))
        headers = list(map(_HEADERS, items))
        tx.produce_batch(self.topic, None, keys, values, list(map(_TS, items)),
                         [h or None for h in headers] if any(headers) else None)
        return len(items)


class RepartitionReader:
    """Turns repartition records back into items (rows of the decoded batch)."""

    def decode(self, batch: RecordBatch) -> DecodedBatch:
        # the pickled ``(key, ...)`` then ``(ts, headers)``: both by C-level ``map`` over the batch
        rows: list[Any] = list(map(tuple.__add__, decode_values(batch.values),
                                   zip(batch.timestamps, batch.headers, strict=True)))
        n = len(rows)
        return DecodedBatch(rows, list(batch.timestamps), [batch.partition] * n, list(batch.offsets),
                            list(batch.headers), [False] * n)


def encode_values(payloads: list[tuple]) -> list[bytes]:
    """The repartition values of a batch: ``marshal`` (about twice as fast both ways as pickle) when it
    writes every one - it writes only the exact built-in types, which it reads back exactly -, else
    (a DECIMAL, a subclass, a nesting too deep) pickles. marshal's version 2, as store values
    (``state.codec.marshal_many``): no per-value table of shared objects to build and free, the common
    values written by the C writer."""
    try:
        return marshal_many(payloads)
    except ValueError:
        return list(map(pickle.dumps, payloads, repeat(_HIGHEST)))


def decode_values(values: Sequence[bytes | None]) -> list[tuple]:
    """``encode_values`` reversed; each record on its own when the batch mixes the two encodings (a
    pickle starts with its PROTO opcode, 0x80, which no marshal type code is - marshal refuses it), as
    records written before marshal was used do."""
    try:
        return list(map(marshal.loads, values))  # type: ignore[arg-type]
    except (ValueError, EOFError, TypeError):
        return [pickle.loads(v) if v[:1] == _PICKLED else marshal.loads(v) for v in values]  # type: ignore[index,arg-type]


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
