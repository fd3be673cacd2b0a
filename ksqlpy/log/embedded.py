"""EmbeddedLog: the ``Log`` interface on one LMDB environment in a directory - no broker needed.

Why LMDB: one write transaction can cover records of many topics *and* consumer-offset commits, which
is exactly what exactly-once needs (outputs, changelogs and input positions become visible together or
not at all); readers never block writers; several processes can open the same directory.

The on-disk layout is described in ``embedded_env``; a write transaction in ``embedded_txn``.

Durability: commits are not fsync'ed by default (``log.fsync``), like Kafka's default flush policy:
a process crash loses nothing committed, a power loss may lose the last transactions but never
corrupts the store. One environment is shared per directory per process (LMDB forbids opening the
same environment twice in one process). LMDB environments do not survive ``fork``: worker processes
must be started with 'spawn'/'forkserver' (or fork before the log is opened) and open the log
themselves; a forked child reopening a log its parent had open gets a clear error.
"""

from __future__ import annotations

import os
import struct
import threading
import time
from array import array
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager

import lmdb
import orjson

from ksqlpy.log.base import (
    Headers,
    Log,
    ProducerRecord,
    RecordBatch,
    TopicExistsError,
    TopicInfo,
    UnknownTopicError,
)
from ksqlpy.log.embedded_env import DEFAULT_MAP_SIZE
from ksqlpy.log.embedded_env import PK as _PK
from ksqlpy.log.embedded_env import RK as _RK
from ksqlpy.log.embedded_env import SE as _SE
from ksqlpy.log.embedded_env import Env as _Env
from ksqlpy.log.embedded_env import Q as _Q
from ksqlpy.log.embedded_env import Topic as _Topic
from ksqlpy.log.embedded_env import WriteTxn as _WriteTxn
from ksqlpy.log.embedded_prepare import PreparedBatch, plain, prepare
from ksqlpy.log.embedded_txn import EmbeddedTransaction
from ksqlpy.log.framing import NATIVE
from ksqlpy.log.record_codec import (
    HEADER,
    HEADER_SIZE,
    chunk_positions,
    chunk_timestamps,
    unpack_headers,
)
from ksqlpy.log.topic_names import check_config, check_counts, check_topic_name, resolved_counts

__all__ = ["DEFAULT_MAP_SIZE", "DEFAULT_RETENTION_MS", "EmbeddedLog", "EmbeddedTransaction"]

DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000  # Kafka's retention.ms default
_POLL_S = 0.005  # cross-process change polling interval in wait_for_data

_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_BE32 = struct.Struct(">I")
_BE64 = struct.Struct(">Q")


class EmbeddedLog(Log):
    """Topics of partitions in LMDB files under ``path``; the layout is in ``embedded_env``."""

    commits_in_threads = True  # a write transaction is per thread (``_local``); LMDB serializes writers

    def __init__(self, path: str | os.PathLike[str], *, map_size: int | None = None, fsync: bool = False) -> None:
        self.path = os.fspath(path)
        self._e = _Env.acquire(self.path, map_size or DEFAULT_MAP_SIZE, fsync)
        self._env = self._e.env
        self._cache: dict[str, _Topic] = {}
        self._cache_version = -1
        self._local = threading.local()
        self._rr: dict[str, int] = {}
        self._closed = False

    # -- metadata
    def _version(self, txn: lmdb.Transaction) -> int:
        raw = txn.get(b"v", db=self._e.meta)
        return _U64.unpack(raw)[0] if raw else 0

    def _topic_in(self, txn: lmdb.Transaction, name: str) -> _Topic:
        t = self._lookup(txn, name)
        if t is None:
            raise UnknownTopicError(f"Topic {name!r} does not exist")
        return t

    def _lookup(self, txn: lmdb.Transaction, name: str) -> _Topic | None:
        v = self._version(txn)
        if v != self._cache_version:
            self._cache = {}
            self._cache_version = v
        t = self._cache.get(name)
        if t is None:
            raw = txn.get(b"t" + name.encode("utf-8"), db=self._e.meta)
            if raw is None:
                return None
            d = orjson.loads(raw)
            t = _Topic(d["id"], name, d["partitions"], d["replicas"], d["config"])
            self._cache[name] = t
        return t

    def _bump_version(self, txn: lmdb.Transaction) -> None:
        txn.put(b"v", _U64.pack(self._version(txn) + 1), db=self._e.meta)

    def _next_sticky(self, t: _Topic) -> int:
        n = self._rr.get(t.name, -1) + 1
        self._rr[t.name] = n
        return n % t.partitions

    def _write(self) -> _WriteTxn:
        if getattr(self._local, "in_tx", False):
            raise RuntimeError("EmbeddedLog transactions cannot be nested in one thread")
        return _WriteTxn(self._e)

    def _notify(self) -> None:
        with self._e.cond:
            self._e.cond.notify_all()

    # -- topics
    def create_topic(self, name: str, partitions: int = 1, replicas: int = 1,
                     config: dict[str, str] | None = None) -> TopicInfo:
        check_topic_name(name)  # Kafka's rules and messages (topic_names.py)
        cfg = {str(k): str(v) for k, v in (config or {}).items()}
        check_config(cfg)
        check_counts(partitions, replicas)
        partitions, replicas = resolved_counts(partitions, replicas)  # -1: this "broker"'s defaults, 1 each
        try:
            return self._create(name, partitions, replicas, cfg)
        except TopicExistsError as exists:
            return self._created_meanwhile(name, partitions, exists)

    def _create(self, name: str, partitions: int, replicas: int, cfg: dict[str, str]) -> TopicInfo:
        with self._write() as txn:
            if txn.get(b"t" + name.encode("utf-8"), db=self._e.meta) is not None:
                raise TopicExistsError(f"Topic {name!r} already exists")
            raw = txn.get(b"n", db=self._e.meta)
            tid = _U32.unpack(raw)[0] if raw else 1
            txn.put(b"n", _U32.pack(tid + 1), db=self._e.meta)
            doc = {"id": tid, "partitions": partitions, "replicas": replicas, "config": cfg}
            txn.put(b"t" + name.encode("utf-8"), orjson.dumps(doc), db=self._e.meta)
            self._bump_version(txn)
        return TopicInfo(name, partitions, replicas, dict(cfg))

    def update_topic_config(self, name: str, updates: dict[str, str | None]) -> TopicInfo:
        """Set (or, with None, remove) topic config entries such as ``retention.ms``."""
        with self._write() as txn:
            t = self._topic_in(txn, name)
            cfg = dict(t.config)
            for k, v in updates.items():
                if v is None:
                    cfg.pop(k, None)
                else:
                    cfg[k] = str(v)
            doc = {"id": t.id, "partitions": t.partitions, "replicas": t.replicas, "config": cfg}
            txn.put(b"t" + name.encode("utf-8"), orjson.dumps(doc), db=self._e.meta)
            self._bump_version(txn)
        return TopicInfo(name, t.partitions, t.replicas, cfg)

    def delete_topic(self, name: str) -> None:
        with self._write() as txn:
            t = self._topic_in(txn, name)
            txn.delete(b"t" + name.encode("utf-8"), db=self._e.meta)
            prefix = _BE32.pack(t.id)  # the key prefix of this topic in parts/records/groups
            for db in (self._e.records, self._e.parts, self._e.groups):
                _delete_prefix(txn, db, prefix)
            self._bump_version(txn)
        self._notify()

    def describe_topic(self, name: str) -> TopicInfo | None:
        with self._env.begin() as txn:
            t = self._lookup(txn, name)
        return t.info() if t else None

    def list_topics(self) -> list[TopicInfo]:
        out = []
        with self._env.begin() as txn:
            cur = txn.cursor(db=self._e.meta)
            if cur.set_range(b"t"):
                for k, raw in cur:
                    if not k.startswith(b"t"):
                        break
                    d = orjson.loads(raw)
                    out.append(TopicInfo(k[1:].decode("utf-8"), d["partitions"], d["replicas"], d["config"]))
        return out

    # -- writing
    @contextmanager
    def transaction(self) -> Iterator[EmbeddedTransaction]:
        w = self._write()
        tx = EmbeddedTransaction(self, w.txn)
        self._local.in_tx = True
        try:
            yield tx
            tx._finish()
        except BaseException:
            w.abort()
            raise
        else:
            w.commit()
        finally:
            self._local.in_tx = False
        if tx.last:
            lw = getattr(self._local, "last", None)
            if lw is None:
                lw = self._local.last = {}
            lw.update(tx.last)
        self._notify()

    def prepare_batch(self, topic: str, partition: int | None, keys: Sequence[bytes | None],
                      values: Sequence[bytes | None], timestamps: Sequence[int | None] | None = None,
                      headers: Sequence[Headers | None] | None = None) -> PreparedBatch | None:
        """A ``produce_batch`` call packed outside any write transaction (``embedded_prepare``), for
        ``EmbeddedTransaction.produce_prepared``; None when the batch is not the plain common case (or
        the topic or partition is unknown): produce it inside the transaction as it is."""
        n = len(values)
        if n == 0 or len(keys) != n or timestamps is None or len(timestamps) != n \
                or not plain(keys, values, timestamps, headers):
            return None
        with self._env.begin() as txn:
            t = self._lookup(txn, topic)
        if t is None or (partition is not None and not 0 <= partition < t.partitions):
            return None
        return prepare(topic, t.id, t.partitions, partition, keys, values, timestamps)  # type: ignore[arg-type]

    def topic_layout(self, topic: str) -> tuple[int, int] | None:
        """(topic id, partition count) of ``topic`` as stored, or None: what chunks packed outside this process
        (``embedded_prepare.prepare``) are checked against before they are appended."""
        with self._env.begin() as txn:
            t = self._lookup(txn, topic)
        return None if t is None else (t.id, t.partitions)

    def produce(self, record: ProducerRecord) -> tuple[int, int]:
        with self.transaction() as tx:
            tx.produce(record)
        return tx.last[record.topic]

    def last_written(self, topic: str) -> tuple[int, int]:
        lw = getattr(self._local, "last", None) or {}
        if topic not in lw:
            raise KeyError(f"nothing was written to topic {topic!r} by this thread")
        return lw[topic]

    # -- reading
    def _partition_state(self, txn: lmdb.Transaction, topic: str, partition: int) -> tuple[_Topic, int, int]:
        t = self._topic_in(txn, topic)
        if not 0 <= partition < t.partitions:
            raise UnknownTopicError(f"topic {topic!r} has no partition {partition} (it has {t.partitions})")
        raw = txn.get(_PK.pack(t.id, partition), db=self._e.parts)
        start, end = _SE.unpack(raw) if raw else (0, 0)
        return t, start, end

    def fetch(self, topic: str, partition: int, offset: int, max_records: int = 10000) -> RecordBatch:
        """Records from ``offset`` on; an offset below the start offset reads from the start."""
        keys: list[bytes | None] = []
        values: list[bytes | None] = []
        tss: list[int] = []
        hdrs: list[Headers | None] = []
        # buffers: values are views of the map, valid in the transaction only - a chunk is read by
        # copying just the fetched records' bytes (a 50k-record chunk copied whole for each 10k fetch was
        # one C call of up to ~2 ms holding the GIL, five times per chunk)
        with self._env.begin(buffers=True) as txn:
            snap = txn.id()
            seen = getattr(self._local, "seen", None)
            if seen is None or snap < seen:
                self._local.seen = snap  # the oldest snapshot read since the last wait_for_data
            t, start, end = self._partition_state(txn, topic, partition)
            if offset < start:
                offset = start
            n = min(max_records, end - offset)
            if n <= 0:
                return RecordBatch(topic, partition, [], keys, values, tss, hdrs)
            for view, base, pos, i0, i1 in self._chunks(txn, t.id, topic, partition, offset, n, end):
                first = pos[i0]
                chunk = bytes(view[base + first:base + pos[i1]])
                _decode(chunk, -first, pos, i0, i1, keys, values, tss, hdrs)
        return RecordBatch(topic, partition, list(range(offset, offset + n)), keys, values, tss, hdrs)

    def fetch_raw(self, topic: str, partition: int, offset: int, max_records: int = 10000) -> RawBatch:
        """``fetch``'s records as stored, not decoded: per chunk touched, the fetched records' bytes and their
        positions (``record_codec``'s layout). For a reader that decodes whole columns at once (the native
        backfill); ``RawBatch.decoded()`` is the batch ``fetch`` returns."""
        segments: list[tuple[bytes, array]] = []
        with self._env.begin(buffers=True) as txn:
            t, start, end = self._partition_state(txn, topic, partition)
            if offset < start:
                offset = start
            n = min(max_records, end - offset)
            if n <= 0:
                return RawBatch(topic, partition, offset, 0, segments)
            for view, base, pos, i0, i1 in self._chunks(txn, t.id, topic, partition, offset, n, end):
                first = pos[i0]
                segments.append((bytes(view[base + first:base + pos[i1]]), array("I", pos[i0:i1 + 1])))
        return RawBatch(topic, partition, offset, n, segments)

    def _chunks(self, txn: lmdb.Transaction, tid: int, topic: str, partition: int, offset: int, n: int,
                end: int) -> Iterator[tuple[memoryview, int, memoryview | array, int, int]]:
        """The chunks holding records ``offset`` .. ``offset + n - 1`` of a partition, in order, each as
        ``(view, base, positions, i0, i1)``: the chunk's bytes (a view, valid in ``txn`` only), where its
        records begin and their positions (``record_codec.chunk_positions``), and the fetched records'
        indexes ``[i0, i1)`` in it. The walk ``fetch`` and ``fetch_raw`` share."""
        cur = txn.cursor(db=self._e.records)
        i0 = offset - self._seek_chunk(cur, tid, partition, offset)
        remaining = n
        while True:
            view = cur.value()
            base, pos = chunk_positions(view)
            i1 = min(len(pos) - 1, i0 + remaining)
            yield view, base, pos, i0, i1
            del view, pos
            remaining -= i1 - i0
            if remaining <= 0:
                return
            i0 = 0
            if not cur.next():
                raise RuntimeError(f"EmbeddedLog corrupt: {topic}-{partition} ends before offset {end}")

    @staticmethod
    def _seek_chunk(cur: lmdb.Cursor, tid: int, partition: int, offset: int) -> int:
        """Position ``cur`` on the chunk holding ``offset``; returns the chunk's first offset."""
        ok = cur.prev() if cur.set_range(_RK.pack(tid, partition, offset + 1)) else cur.last()
        key = cur.key() if ok else b""
        if key[:8] != _PK.pack(tid, partition):
            raise RuntimeError(f"EmbeddedLog corrupt: no chunk holds offset {offset} of topic id {tid}-{partition}")
        return _BE64.unpack_from(key, 8)[0]

    def end_offset(self, topic: str, partition: int) -> int:
        with self._env.begin() as txn:
            return self._partition_state(txn, topic, partition)[2]

    def start_offset(self, topic: str, partition: int) -> int:
        with self._env.begin() as txn:
            return self._partition_state(txn, topic, partition)[1]

    def committed(self, group: str, topic: str, partition: int) -> int | None:
        with self._env.begin() as txn:
            t = self._topic_in(txn, topic)
            raw = txn.get(_PK.pack(t.id, partition) + group.encode("utf-8"), db=self._e.groups)
        return _Q.unpack(raw)[0] if raw else None

    def groups(self) -> list[str]:
        with self._env.begin() as txn:
            return sorted({bytes(k[_PK.size:]).decode("utf-8")
                           for k in txn.cursor(db=self._e.groups).iternext(keys=True, values=False)})

    def delete_groups(self, groups: Collection[str]) -> None:
        names = {g.encode("utf-8") for g in groups}
        if not names:
            return
        with self.transaction() as tx:  # (a write transaction of its own: the groups of every topic)
            cur = tx._txn.cursor(db=self._e.groups)
            doomed = [bytes(k) for k in cur.iternext(keys=True, values=False) if bytes(k[_PK.size:]) in names]
            for k in doomed:
                tx._txn.delete(k, db=self._e.groups)

    def wait_for_data(self, timeout_s: float) -> None:
        """Return once a transaction committed after the oldest snapshot this thread fetched from
        since its previous wait (so no fetched partition can have unseen data), or after ``timeout_s``.

        Writers in this process wake waiters through a Condition; other processes' commits are seen
        by polling LMDB's last committed transaction id (no read transaction needed) every few ms.
        """
        env, cond = self._env, self._e.cond
        seen = getattr(self._local, "seen", None)
        if seen is None:
            seen = env.info()["last_txnid"]
        self._local.seen = None
        deadline = time.monotonic() + timeout_s
        with cond:
            while env.info()["last_txnid"] == seen:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                cond.wait(min(remaining, _POLL_S))

    # -- retention
    def delete_records(self, topic: str, partition: int, before_offset: int) -> int:
        """Delete records below ``before_offset`` (Kafka's deleteRecords); returns the new start offset."""
        with self._write() as txn:
            t, start, end = self._partition_state(txn, topic, partition)
            new_start = max(start, min(before_offset, end))
            self._advance_start(txn, t.id, partition, start, new_start, end)
        return new_start

    def _advance_start(self, txn: lmdb.Transaction, tid: int, p: int, start: int, new_start: int, end: int) -> None:
        """Move the start offset and drop the chunks that now lie wholly below it."""
        if new_start <= start:
            return
        cur = txn.cursor(db=self._e.records)
        base = self._seek_chunk(cur, tid, p, start)
        prefix = _PK.pack(tid, p)
        while base + len(chunk_positions(cur.value())[1]) - 1 <= new_start:
            if not cur.delete():
                break
            key = cur.key()
            if key[:8] != prefix:
                break
            base = _BE64.unpack_from(key, 8)[0]
        txn.put(prefix, _SE.pack(new_start, end), db=self._e.parts)

    def enforce_retention(self, now_ms: int | None = None) -> int:
        """Delete records older than each topic's ``retention.ms`` (topics with cleanup.policy delete).

        Like Kafka, deletion only advances the start offset: it stops at the first record (in offset
        order) that is still young enough. Returns the number of records deleted.
        """
        if now_ms is None:
            now_ms = int(time.time() * 1000)
        deleted = 0
        for info in self.list_topics():
            policy = info.config.get("cleanup.policy", "delete")
            retention = int(info.config.get("retention.ms", DEFAULT_RETENTION_MS))
            if "delete" not in policy.replace(" ", "").split(",") or retention < 0:
                continue
            cutoff = now_ms - retention
            with self._write() as txn:
                t = self._lookup(txn, info.name)
                if t is None:
                    continue
                for p in range(t.partitions):
                    raw = txn.get(_PK.pack(t.id, p), db=self._e.parts)
                    start, end = _SE.unpack(raw) if raw else (0, 0)
                    if start >= end:
                        continue
                    new_start = self._first_young(txn, t.id, p, start, end, cutoff)
                    self._advance_start(txn, t.id, p, start, new_start, end)
                    deleted += new_start - start
        if deleted:
            self._notify()
        return deleted

    def _first_young(self, txn: lmdb.Transaction, tid: int, p: int, start: int, end: int, cutoff: int) -> int:
        """The first offset from ``start`` whose record's timestamp is >= ``cutoff`` (or ``end``)."""
        cur = txn.cursor(db=self._e.records)
        base = self._seek_chunk(cur, tid, p, start)
        prefix = _PK.pack(tid, p)
        off = start
        while True:
            for ts in chunk_timestamps(cur.value())[off - base:]:
                if ts >= cutoff:
                    return off
                off += 1
            if off >= end or not cur.next() or cur.key()[:8] != prefix:
                return off
            base = off

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            _Env.release(self._e)

    def __enter__(self) -> EmbeddedLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _decode(chunk: bytes, base: int, pos: memoryview | array, i0: int, i1: int, keys: list[bytes | None],
            values: list[bytes | None], tss: list[int], hdrs: list[Headers | None]) -> None:
    """Append records ``i0 .. i1-1`` of a chunk to the batch columns.

    The hot read loop: positions come as one list (``tolist``), and headers - rare - are filled in
    after the loop for the records that have them instead of appending a None per record.
    """
    first = len(hdrs)
    if NATIVE is not None:  # the same loop in C (``framing``)
        with_headers = NATIVE.split(chunk, base, pos, i0, i1, keys, values, tss)
        hdrs.extend([None] * (len(tss) - first))
        for i, s, hc in with_headers:
            hdrs[i] = unpack_headers(chunk, s, hc)
        return
    unpack = HEADER.unpack_from
    ka, va, ta = keys.append, values.append, tss.append
    with_headers = []
    for p in pos[i0:i1].tolist():
        s = base + p
        ts, kl, vl, hc = unpack(chunk, s)
        ta(ts)
        s += HEADER_SIZE
        if kl >= 0:
            e = s + kl
            ka(chunk[s:e])
        else:
            e = s
            ka(None)
        if vl >= 0:
            s = e + vl
            va(chunk[e:s])
        else:
            s = e
            va(None)
        if hc:
            with_headers.append((len(tss) - 1, s, hc))
    hdrs.extend([None] * (len(tss) - first))
    for i, s, hc in with_headers:
        hdrs[i] = unpack_headers(chunk, s, hc)


class RawBatch:
    """Records of one partition as stored (``EmbeddedLog.fetch_raw``): ``segments`` of ``(data, positions)``,
    one per chunk, where record j of a segment is ``data[positions[j] - positions[0]:positions[j + 1] -
    positions[0]]`` in ``record_codec``'s layout; ``offset`` is the first record's."""

    __slots__ = ("topic", "partition", "offset", "count", "segments")

    def __init__(self, topic: str, partition: int, offset: int, count: int,
                 segments: list[tuple[bytes, array]]) -> None:
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.count = count
        self.segments = segments

    def __len__(self) -> int:
        return self.count

    def decoded(self) -> RecordBatch:
        """The same records as ``fetch`` returns them."""
        keys: list[bytes | None] = []
        values: list[bytes | None] = []
        tss: list[int] = []
        hdrs: list[Headers | None] = []
        for data, pos in self.segments:
            _decode(data, -pos[0], pos, 0, len(pos) - 1, keys, values, tss, hdrs)
        offsets = list(range(self.offset, self.offset + self.count))
        return RecordBatch(self.topic, self.partition, offsets, keys, values, tss, hdrs)


def _delete_prefix(txn: lmdb.Transaction, db: lmdb._Database, prefix: bytes) -> None:
    cur = txn.cursor(db=db)
    if not cur.set_range(prefix):
        return
    while cur.key().startswith(prefix):
        if not cur.delete():
            break
