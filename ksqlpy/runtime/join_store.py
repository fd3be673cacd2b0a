"""State of the join operators, on ``KeyValueStore`` (LMDB + changelog + checkpoint).

- ``WindowStore``: one side of a stream-stream join, records by (key, timestamp). Keys are laid out by
  time segment so expired segments are dropped with one range scan, as Kafka Streams' segmented window
  stores do; a fetch only sees records newer than the store's stream time minus its retention
  (``observed - retention < ts``), which is what ksqlDB's late records observe.
- ``OuterStore``: the unmatched records of LEFT/RIGHT/FULL stream-stream joins with a GRACE PERIOD,
  waiting for their window to close, ordered by (timestamp, side, key) like Kafka Streams'.
- ``TableStore``: a materialized table side: key -> (row, timestamp).

A join probes the other side's window store once per record: the window store answers from an in-memory
index over its LMDB file (see ``WindowStore``), so a probe does not read LMDB.
"""

from __future__ import annotations

import struct
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from heapq import heappop, heappush
from operator import itemgetter
from typing import Any

from ksqlpy.runtime.join_native import NATIVE
from ksqlpy.state.codec import decode
from ksqlpy.state.store import KeyValueStore

_OFF = 1 << 63
_loads = decode
_Q = struct.Struct(">Q")
_I = struct.Struct(">I")
_QI = struct.Struct(">QI")
_HEAD = struct.Struct(">cQI")  # a window entry's key up to its key bytes: tag, segment, key length
_META_OBSERVED = b"\x00observed"
_META_SEQ = b"\x00seq"
_WINDOW = b"\x01"
_OUTER = b"\x02"
_TABLE = b"\x03"
_MAX_CACHED = 100_000  # records a window store's index keeps (as many as a KeyValueStore's cache)
_ALL = -(1 << 63)  # cached_from of an index holding every visible record
_SEQ_END = 1 << 33  # above every sequence number in a key (32 bits)
_ts_seq = itemgetter(0, 1)


def _u64(v: int) -> bytes:
    return struct.pack(">Q", v + _OFF)


def _key_ts(k: bytes) -> int:
    """The timestamp in a window entry's key (segment, key length, key, timestamp, sequence)."""
    return _Q.unpack_from(k, 13 + _I.unpack_from(k, 9)[0])[0] - _OFF


class WindowStore:
    """One side of a stream-stream join: LMDB (+ changelog) holds the records, an in-memory index answers
    the probes.

    The index holds every visible record with ``ts >= cached_from``, per key in (timestamp, sequence)
    order, so a probe is a dict lookup and two bisections instead of an LMDB range read per record. It is
    written through on ``put`` (the batch's own records included), rebuilt from LMDB by ``load()`` (after
    the restore phase replayed the changelog, and after an abort dropped a batch), and bounded: records
    leave it when they expire (the window retention) and, past ``max_cached`` records, the oldest time
    buckets leave it too and ``cached_from`` moves past them. A probe reaching below ``cached_from`` (an
    out-of-order record within the grace period, on a store over its bound) reads that part from LMDB
    plus the batch's own older records (``pending``), as every probe did before.
    """

    def __init__(self, kv: KeyValueStore, retention: int, max_cached: int = _MAX_CACHED) -> None:
        self.kv = kv
        self._kv_put = kv.put
        self.retention = retention
        self.segment = max(retention // 2, 60_000)
        self.max_cached = max_cached
        self.bucket = max(1, min(1000, retention // 16))  # the index's eviction granularity (ms)
        self.observed: int = -(1 << 62)  # what an empty store holds; ``load()`` reads the restored store
        self.seq = 0
        self.index: dict[bytes, list[tuple[int, int, Any]]] = {}
        self.cached_from = _ALL  # every visible record at or after this time is in ``index``
        self.cached = 0  # records in ``index``
        self._buckets: dict[int, set[bytes]] = {}  # time bucket -> keys with indexed records in it
        self._heap: list[int] = []  # the buckets, oldest first
        self.pending: dict[bytes, list[tuple[int, int, Any]]] = {}  # uncommitted records below cached_from
        self.purged_segment: int | None = None
        self._read: Any = None  # one LMDB read transaction per batch (probes below cached_from)
        self._cursor: Any = None
        # records ``adder`` indexed but did not write to the store yet (probes read the index alone):
        # written in one go before the store flushes (``write_puts``), or before a ``put`` writes one
        self._puts: tuple[list[bytes], list[int], list[int], list[Any]] = ([], [], [], [])

    def _seg(self, ts: int) -> int:
        return ts // self.segment

    def floor(self) -> int:
        """The oldest timestamp still visible."""
        return self.observed - self.retention + 1

    def put(self, kb: bytes, ts: int, row: Any) -> None:
        if self._puts[0]:
            self.write_puts()
        if ts > self.observed:
            self.observed = ts
        if ts <= self.observed - self.retention:
            return  # expired on arrival
        self.seq += 1
        seq = self.seq & 0xFFFFFFFF  # what the LMDB key holds, so both orders agree
        self._kv_put(_HEAD.pack(_WINDOW, ts // self.segment + _OFF, len(kb)) + kb + _QI.pack(ts + _OFF, seq), row)
        e = (ts, seq, row)
        if ts < self.cached_from:
            pend = self.pending.get(kb)
            if pend is None:
                self.pending[kb] = [e]
            else:
                pend.append(e)
            return
        entries = self.index.get(kb)
        if entries is None:
            self.index[kb] = [e]
        else:
            last = entries[-1]
            if last[0] < ts or (last[0] == ts and last[1] < seq):
                entries.append(e)
            else:  # out of order
                entries.insert(bisect_right(entries, (ts, seq)), e)
        self.cached += 1
        b = ts // self.bucket
        keys = self._buckets.get(b)
        if keys is None:
            self._buckets[b] = {kb}
            heappush(self._heap, b)
        else:
            keys.add(kb)

    def takes_batch(self, tss: list[int]) -> bool:
        """Whether ``adder`` may take records with these timestamps, in any order and split in any runs: none
        can expire on arrival, the sequence does not wrap, and every one belongs in the index (else each
        goes through ``put``)."""
        if not tss:
            return True
        top = max(tss)
        low = min(tss)
        observed = self.observed if self.observed > top else top
        return low > observed - self.retention and self.seq + len(tss) <= 0xFFFFFFFF and low >= self.cached_from

    def adder(self) -> Callable[[bytes, int, Any], None]:
        """``add(kb, ts, row)``: ``put`` of one record that ``takes_batch`` admitted - indexed at once, written
        to the store with the kept-back records (``write_puts``); the newest time is the store's at once (a
        probe of this store reads its floor from it). The operator's loop over a run, or over a whole batch
        of runs, calls it per record."""
        index, buckets, heap, width = self.index, self._buckets, self._heap, self.bucket
        pkb, pts, pseq, prow = (c.append for c in self._puts)

        def add(kb: bytes, ts: int, row: Any) -> None:
            if ts > self.observed:
                self.observed = ts
            q = self.seq = self.seq + 1
            self.cached += 1
            pkb(kb)
            pts(ts)
            pseq(q)
            prow(row)
            # ``put``'s indexing, inlined: a shared helper's call per record cost q8 +0.4 % instructions
            e = (ts, q, row)
            entries = index.get(kb)
            if entries is None:
                index[kb] = [e]
            else:
                last = entries[-1]
                if last[0] < ts or (last[0] == ts and last[1] < q):
                    entries.append(e)
                else:  # out of order
                    entries.insert(bisect_right(entries, (ts, q)), e)
            b = ts // width
            keys = buckets.get(b)
            if keys is None:
                buckets[b] = {kb}
                heappush(heap, b)
            else:
                keys.add(kb)

        return add

    def write_puts(self) -> None:
        """Write the records ``adder`` kept back to the store, in their order (LMDB keys by one
        comprehension, the store's dicts by one update each)."""
        kbs, tss, seqs, rows = self._puts
        if not kbs:
            return
        seg, head, tail, window, off = self.segment, _HEAD.pack, _QI.pack, _WINDOW, _OFF
        keys = None
        if NATIVE is not None:
            try:
                keys = NATIVE.window_keys(kbs, tss, seqs, seg)
            except (OverflowError, TypeError, ValueError):  # beyond its layout: the struct packing decides
                keys = None
        if keys is None:
            keys = [head(window, ts // seg + off, len(kb)) + kb + tail(ts + off, q)
                    for kb, ts, q in zip(kbs, tss, seqs, strict=True)]
        self.kv.put_many(keys, rows, cached=False)
        for column in self._puts:
            column.clear()

    def fetch(self, kb: bytes, lo: int, hi: int) -> list[tuple[int, int, Any]]:
        """(timestamp, sequence, row) of the records of ``kb`` with ``lo <= ts <= hi``, oldest first."""
        floor = self.observed - self.retention + 1
        if lo < floor:
            lo = floor
        if lo > hi:
            return []
        if lo < self.cached_from:
            return self._fetch_below(kb, lo, hi)
        entries = self.index.get(kb)
        if not entries:
            return []
        if entries[0][0] >= lo and entries[-1][0] <= hi:
            return entries
        return entries[bisect_left(entries, (lo,)):bisect_right(entries, (hi, _SEQ_END))]

    def _fetch_below(self, kb: bytes, lo: int, hi: int) -> list[tuple[int, int, Any]]:
        """A probe reaching below ``cached_from``: that part from LMDB and this batch's older records."""
        top = min(hi, self.cached_from - 1)
        found: list[tuple[int, int, Any]] = []
        kk = _I.pack(len(kb)) + kb
        cur = self._cursor
        if cur is None:
            self._read = self.kv.env.begin(db=self.kv.data, buffers=False)
            cur = self._cursor = self._read.cursor()
        seg = self.segment
        low = _Q.pack(lo + _OFF)
        for s in range(lo // seg, top // seg + 1):
            prefix = _WINDOW + _Q.pack(s + _OFF) + kk
            if not cur.set_range(prefix + low):
                continue
            n = len(prefix)
            for k, v in cur:
                if not k.startswith(prefix):
                    break
                ts, seq = _QI.unpack_from(k, n)
                ts -= _OFF
                if ts > top:
                    break
                found.append((ts, seq, _loads(v)))
        pend = self.pending.get(kb)
        if pend:
            found += [e for e in pend if lo <= e[0] <= top]
        if top < hi:
            entries = self.index.get(kb)
            if entries:
                found += entries[:bisect_right(entries, (hi, _SEQ_END))]
        if len(found) > 1:
            found.sort(key=_ts_seq)
        return found

    def release(self) -> None:
        """End the batch's read transaction (before the batch's writes reach LMDB)."""
        if self._read is not None:
            self._cursor = None
            self._read.abort()
            self._read = None

    def before_flush(self) -> None:
        self.write_puts()
        self.release()
        self.kv.put(_META_OBSERVED, self.observed)
        self.kv.put(_META_SEQ, self.seq)

    def after_commit(self) -> None:
        """The batch's records are in LMDB now: forget the older ones kept aside, drop expired segments
        from the files and expired or surplus records from the index."""
        self.pending.clear()
        self._purge()
        self._evict()

    def load(self) -> None:
        """Read the meta state (newest timestamp seen, sequence) and rebuild the index from the restored
        (or last committed) store."""
        observed = self.kv.get(_META_OBSERVED)
        self.observed = observed if observed is not None else -(1 << 62)
        self.seq = self.kv.get(_META_SEQ) or 0
        self.index, self._buckets, self._heap = {}, {}, []
        self.cached, self.pending = 0, {}
        for column in self._puts:
            column.clear()
        self.release()
        floor = self.floor()
        start = _WINDOW + _u64(self._seg(floor))
        width = self.bucket
        counts: dict[int, int] = {}
        with self.kv.env.begin(db=self.kv.data, buffers=False) as txn:
            cur = txn.cursor()
            if cur.set_range(start):  # first pass: how many records per bucket (keys only)
                for k in cur.iternext(keys=True, values=False):
                    if k[:1] != _WINDOW:
                        break
                    ts = _key_ts(k)
                    if ts >= floor:
                        b = ts // width
                        counts[b] = counts.get(b, 0) + 1
            self.cached_from = _ALL
            total = 0
            for b in sorted(counts, reverse=True):
                total += counts[b]
                if total > self.max_cached:
                    self.cached_from = (b + 1) * width
                    break
            lowest = max(floor, self.cached_from)
            index, buckets = self.index, self._buckets
            if cur.set_range(start):  # second pass: the records the index keeps, in key order per key
                for k, v in cur:
                    if k[:1] != _WINDOW:
                        break
                    n = _I.unpack_from(k, 9)[0]
                    ts, seq = _QI.unpack_from(k, 13 + n)
                    ts -= _OFF
                    if ts < lowest:
                        continue
                    kb = k[13:13 + n]
                    e = (ts, seq, _loads(v))
                    entries = index.get(kb)
                    if entries is None:
                        index[kb] = [e]
                    else:
                        entries.append(e)  # segments ascend, and within one the key's records do
                    self.cached += 1
                    b = ts // width
                    keys = buckets.get(b)
                    if keys is None:
                        buckets[b] = {kb}
                    else:
                        keys.add(kb)
        self._heap = sorted(buckets)

    def abort(self) -> None:
        self.release()
        self.load()

    def _purge(self) -> None:
        """Drop expired segments from the local files (the changelog keeps them; a restore purges again)."""
        live = self._seg(self.floor())
        start = self.purged_segment
        if start is not None and start >= live:
            return
        kv = self.kv
        lo = _WINDOW + (_u64(start) if start is not None else b"")
        hi = _WINDOW + _u64(live)
        with kv.env.begin(write=True, db=kv.data) as txn:
            cur = txn.cursor()
            if cur.set_range(lo):
                while cur.key() < hi and cur.key().startswith(_WINDOW):
                    if not cur.delete():
                        break
        self.purged_segment = live

    def _evict(self) -> None:
        """Drop from the index the buckets wholly expired, then the oldest while over ``max_cached``."""
        heap, width = self._heap, self.bucket
        expired_below = self.floor() // width  # buckets ending at or before the floor
        while heap and (heap[0] < expired_below or self.cached > self.max_cached):
            b = heappop(heap)
            end = (b + 1) * width
            index = self.index
            for kb in self._buckets.pop(b):
                entries = index.get(kb)
                if entries is None:
                    continue
                i = bisect_left(entries, (end,))
                if i:
                    self.cached -= i
                    if i == len(entries):
                        del index[kb]
                    else:
                        del entries[:i]
            if end > self.cached_from:
                self.cached_from = end


class OuterStore:
    """Unmatched outer-join records by (ts, side, key): side 0 = right, 1 = left, as Kafka Streams orders."""

    def __init__(self, kv: KeyValueStore) -> None:
        self.kv = kv

    @staticmethod
    def _key(ts: int, left: bool, kb: bytes) -> bytes:
        return _OUTER + _u64(ts) + (b"\x01" if left else b"\x00") + kb

    def add(self, ts: int, left: bool, kb: bytes, key: tuple, row: Any) -> None:
        k = self._key(ts, left, kb)
        entries = list(self.kv.get(k) or [])
        entries.append((key, row))
        self.kv.put(k, entries)

    def remove(self, ts: int, left: bool, kb: bytes) -> None:
        k = self._key(ts, left, kb)
        if self.kv.get(k) is not None:
            self.kv.delete(k)

    def entries(self) -> Iterator[tuple[bytes, int, bool, list[tuple[tuple, Any]]]]:
        """(store key, ts, is_left, [(key, row)...]) in store order."""
        for k, v in self.kv.items(_OUTER):
            ts = struct.unpack_from(">Q", k, 1)[0] - _OFF
            yield k, ts, k[9] == 1, v

    def delete_key(self, k: bytes) -> None:
        self.kv.delete(k)


class TableStore:
    """key bytes -> (row, ts) of one materialized table side."""

    def __init__(self, kv: KeyValueStore) -> None:
        self.kv = kv

    def get(self, kb: bytes) -> tuple[Any, int] | None:
        return self.kv.get(_TABLE + kb)

    def put(self, kb: bytes, row: Any, ts: int) -> None:
        self.kv.put(_TABLE + kb, (row, ts))

    def delete(self, kb: bytes) -> None:
        self.kv.delete(_TABLE + kb)

    def items(self, prefix: bytes = b"") -> Iterator[tuple[bytes, Any]]:
        for k, v in self.kv.items(_TABLE + prefix):
            yield k[1:], v
