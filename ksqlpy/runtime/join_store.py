"""State of the join operators, on ``KeyValueStore`` (LMDB + changelog + checkpoint).

- ``WindowStore``: one side of a stream-stream join, records by (key, timestamp). Keys are laid out by
  time segment so expired segments are dropped with one range scan, as Kafka Streams' segmented window
  stores do; a fetch only sees records newer than the store's stream time minus its retention
  (``observed - retention < ts``), which is what ksqlDB's late records observe.
- ``OuterStore``: the unmatched records of LEFT/RIGHT/FULL stream-stream joins with a GRACE PERIOD,
  waiting for their window to close, ordered by (timestamp, side, key) like Kafka Streams'.
- ``TableStore``: a materialized table side: key -> (row, timestamp).

Window fetches must not scan the batch's pending writes one by one (a batch can hold thousands), so the
window store keeps its own per-key index of records written since the last commit.
"""

from __future__ import annotations

import pickle
import struct
from collections.abc import Iterator
from typing import Any

from ksqlpy.state.store import KeyValueStore

_OFF = 1 << 63
_loads = pickle.loads
_Q = struct.Struct(">Q")
_I = struct.Struct(">I")
_QI = struct.Struct(">QI")
_META_OBSERVED = b"\x00observed"
_META_SEQ = b"\x00seq"
_WINDOW = b"\x01"
_OUTER = b"\x02"
_TABLE = b"\x03"


def _u64(v: int) -> bytes:
    return struct.pack(">Q", v + _OFF)


def _kb(kb: bytes) -> bytes:
    return struct.pack(">I", len(kb)) + kb


class WindowStore:
    def __init__(self, kv: KeyValueStore, retention: int) -> None:
        self.kv = kv
        self.retention = retention
        self.segment = max(retention // 2, 60_000)
        self.observed: int = -(1 << 62)  # what an empty store holds; ``load()`` reads the restored store
        self.seq = 0
        self.pending: dict[bytes, list[tuple[int, int, Any]]] = {}
        self.purged_segment: int | None = None
        self._read: Any = None  # one LMDB read transaction per batch
        self._cursor: Any = None

    def _seg(self, ts: int) -> int:
        return ts // self.segment

    def floor(self) -> int:
        """The oldest timestamp still visible."""
        return self.observed - self.retention + 1

    def put(self, kb: bytes, ts: int, row: Any) -> None:
        if ts > self.observed:
            self.observed = ts
        if ts <= self.observed - self.retention:
            return  # expired on arrival
        self.seq += 1
        seq = self.seq
        key = b"".join((_WINDOW, _Q.pack(ts // self.segment + _OFF), _I.pack(len(kb)), kb,
                        _QI.pack(ts + _OFF, seq & 0xFFFFFFFF)))
        self.kv.put(key, row)
        pend = self.pending.get(kb)
        if pend is None:
            self.pending[kb] = [(ts, seq, row)]
        else:
            pend.append((ts, seq, row))

    def fetch(self, kb: bytes, lo: int, hi: int) -> list[tuple[int, Any]]:
        """(timestamp, row) of the records of ``kb`` with ``lo <= ts <= hi``, oldest first."""
        floor = self.observed - self.retention + 1
        if lo < floor:
            lo = floor
        if lo > hi:
            return []
        found: list[tuple[int, int, Any]] = []
        kk = _I.pack(len(kb)) + kb
        cur = self._cursor
        if cur is None:
            self._read = self.kv.env.begin(db=self.kv.data, buffers=False)
            cur = self._cursor = self._read.cursor()
        seg = self.segment
        low = _Q.pack(lo + _OFF)
        for s in range(lo // seg, hi // seg + 1):
            prefix = _WINDOW + _Q.pack(s + _OFF) + kk
            if not cur.set_range(prefix + low):
                continue
            n = len(prefix)
            for k, v in cur:
                if not k.startswith(prefix):
                    break
                ts, seq = _QI.unpack_from(k, n)
                ts -= _OFF
                if ts > hi:
                    break
                found.append((ts, seq, _loads(v)))
        pend = self.pending.get(kb)
        if pend:
            for e in pend:
                if lo <= e[0] <= hi:
                    found.append(e)
            if len(found) > 1:
                found.sort(key=lambda e: (e[0], e[1]))
        return [(ts, row) for ts, _, row in found]

    def release(self) -> None:
        """End the batch's read transaction (before the batch's writes reach LMDB)."""
        if self._read is not None:
            self._cursor = None
            self._read.abort()
            self._read = None

    def before_flush(self) -> None:
        self.release()
        self.kv.put(_META_OBSERVED, self.observed)
        self.kv.put(_META_SEQ, self.seq)

    def after_commit(self) -> None:
        self.pending.clear()
        self._purge()

    def load(self) -> None:
        """Read the meta state (newest timestamp seen, sequence) from the restored store."""
        observed = self.kv.get(_META_OBSERVED)
        self.observed = observed if observed is not None else -(1 << 62)
        self.seq = self.kv.get(_META_SEQ) or 0

    def abort(self) -> None:
        self.release()
        self.pending.clear()
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
