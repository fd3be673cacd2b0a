"""Key-value state store on LMDB with a per-batch cache and a changelog topic.

One store per (query, store name, task partition). Reads go through an in-memory cache that holds the
batch's updates; ``flush(tx)`` puts the changed keys on the changelog inside the batch's log
transaction, and ``commit_local()`` (after that transaction committed) writes them to LMDB in one write
transaction together with the changelog offset they correspond to (the checkpoint). On open, a store
catches up by replaying its changelog from the checkpoint; with its files gone it rebuilds from offset 0.
Values are pickled: they are accumulators and rows, private to ksqlpy.
"""

from __future__ import annotations

import os
import pickle
import struct
from collections.abc import Iterator
from typing import Any

import lmdb

from ksqlpy.log.base import Log, LogTransaction, ProducerRecord

_DELETED = object()
_CHECKPOINT = b"checkpoint"


class KeyValueStore:
    def __init__(self, directory: str, log: Log, changelog_topic: str, partition: int) -> None:
        os.makedirs(directory, exist_ok=True)
        self.env = lmdb.open(directory, map_size=1 << 36, max_dbs=2, subdir=True, sync=False, metasync=False,
                             readahead=False)
        self.data = self.env.open_db(b"data")
        self.meta = self.env.open_db(b"meta")
        self.log = log
        self.topic = changelog_topic
        self.partition = partition
        self.cache: dict[bytes, Any] = {}
        self.dirty: dict[bytes, Any] = {}
        self._restore()

    # ---------------------------------------------------------------- restore
    def checkpoint(self) -> int:
        with self.env.begin(db=self.meta) as txn:
            raw = txn.get(_CHECKPOINT)
        return struct.unpack(">q", raw)[0] if raw else 0

    def _restore(self) -> None:
        """Replay the changelog from the checkpoint so the local files match what was committed."""
        if not self.log.topic_exists(self.topic):
            return
        offset = max(self.checkpoint(), self.log.start_offset(self.topic, self.partition))
        end = self.log.end_offset(self.topic, self.partition)
        while offset < end:
            batch = self.log.fetch(self.topic, self.partition, offset, 50_000)
            if not batch.offsets:
                break
            with self.env.begin(write=True) as txn:
                for k, v in zip(batch.keys, batch.values, strict=True):
                    if k is None:
                        continue
                    if v is None:
                        txn.delete(k, db=self.data)
                    else:
                        txn.put(k, v, db=self.data)
                offset = batch.next_offset
                txn.put(_CHECKPOINT, struct.pack(">q", offset), db=self.meta)

    # ---------------------------------------------------------------- access
    def get(self, key: bytes) -> Any:
        v = self.cache.get(key, None)
        if v is not None:
            return None if v is _DELETED else v
        with self.env.begin(db=self.data, buffers=False) as txn:
            raw = txn.get(key)
        if raw is None:
            return None
        value = pickle.loads(raw)
        if len(self.cache) < 100_000:
            self.cache[key] = value
        return value

    def put(self, key: bytes, value: Any) -> None:
        self.cache[key] = value
        self.dirty[key] = value

    def delete(self, key: bytes) -> None:
        self.cache[key] = _DELETED
        self.dirty[key] = _DELETED

    def items(self, prefix: bytes = b"") -> Iterator[tuple[bytes, Any]]:
        """Committed entries (plus this batch's changes) whose key starts with ``prefix``, in key order."""
        seen = set()
        merged: dict[bytes, Any] = {}
        with self.env.begin(db=self.data) as txn:
            cur = txn.cursor()
            if cur.set_range(prefix):
                for k, v in cur:
                    if not k.startswith(prefix):
                        break
                    merged[bytes(k)] = pickle.loads(v)
        for k, v in self.dirty.items():
            if k.startswith(prefix):
                merged[k] = v
        for k in sorted(merged):
            v = merged[k]
            if v is _DELETED or k in seen:
                continue
            seen.add(k)
            yield k, v

    # ---------------------------------------------------------------- commit
    def flush(self, tx: LogTransaction) -> None:
        """Write this batch's changes to the changelog inside ``tx``."""
        for k, v in self.dirty.items():
            payload = None if v is _DELETED else pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL)
            tx.produce(ProducerRecord(self.topic, k, payload, None, None, self.partition))

    def commit_local(self) -> None:
        """Apply this batch's changes to LMDB with the changelog offset they reach (one write txn)."""
        if not self.dirty:
            return
        end = self.log.end_offset(self.topic, self.partition)
        with self.env.begin(write=True) as txn:
            for k, v in self.dirty.items():
                if v is _DELETED:
                    txn.delete(k, db=self.data)
                else:
                    txn.put(k, pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL), db=self.data)
            txn.put(_CHECKPOINT, struct.pack(">q", end), db=self.meta)
        self.dirty.clear()
        if len(self.cache) > 100_000:
            self.cache.clear()

    def abort(self) -> None:
        """Forget uncommitted changes (the batch's log transaction failed)."""
        self.dirty.clear()
        self.cache.clear()

    def close(self) -> None:
        self.env.close()
