"""Window and session stores: layouts over a ``KeyValueStore`` for windowed aggregations.

Keys are the store-private key bytes of a group (``kb``) plus window bounds encoded so byte order is
numeric order. Each layout has a key-first part (lookups and pull queries by key) and a time-first
index (emitting closed windows in time order and purging what retention has expired), the two
access paths Kafka Streams' window and session stores offer.

Window store:   ``W kb start``        -> value     index ``I start kb``        -> 1 (written once)
Session store:  ``S kb end start``    -> value     index ``E end kb start``    -> 1

The index entries follow from the others, so they stay out of the changelog (``TIME_INDEX``, given to
the ``KeyValueStore``): a restore derives them from the window and session entries it replays.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

from ksqlpy.state.store import KeyValueStore, _prefix_end

_T = struct.Struct(">Q")
_BIAS = 1 << 63


def t8(v: int) -> bytes:
    """A signed 64-bit time as 8 bytes that sort like the number."""
    return _T.pack(v + _BIAS)


def from_t8(b: bytes, offset: int = 0) -> int:
    return _T.unpack_from(b, offset)[0] - _BIAS


class TimeIndex:
    """The time-first index entries of window and session stores, derived from their key-first ones."""

    prefixes = (b"I", b"E")

    @staticmethod
    def derive(key: bytes) -> tuple[bytes, ...]:
        tag = key[:1]
        if tag == b"W":  # W kb start -> I start kb
            return (b"I" + key[-8:] + key[1:-8],)
        if tag == b"S":  # S kb end start -> E end kb start
            return (b"E" + key[-16:-8] + key[1:-16] + key[-8:],)
        return ()


TIME_INDEX = TimeIndex()


class WindowStore:
    """(key, window start) -> value for TUMBLING/HOPPING windows."""

    def __init__(self, kv: KeyValueStore) -> None:
        self.kv = kv

    def get(self, kb: bytes, start: int) -> Any:
        return self.kv.get(b"W" + kb + t8(start))

    def put(self, kb: bytes, start: int, value: Any, *, new: bool) -> None:
        """Store a window's value; ``new`` (first write of this window) also indexes it by time."""
        self.kv.put(b"W" + kb + t8(start), value)
        if new:
            self.kv.put(b"I" + t8(start) + kb, 1)

    def fetch(self, kb: bytes, lo: int | None = None, hi: int | None = None) -> Iterator[tuple[int, Any]]:
        """Windows of one key with ``lo <= start <= hi`` in start order: (start, value)."""
        prefix = b"W" + kb
        n = len(prefix) + 8
        first = prefix + (t8(lo) if lo is not None else b"")
        last = prefix + t8(hi + 1) if hi is not None else _prefix_end(prefix)
        for k, v in self.kv.range(first, last):
            if len(k) == n:
                yield from_t8(k, n - 8), v

    def fetch_all(self, lo: int | None = None, hi: int | None = None) -> Iterator[tuple[bytes, int, Any]]:
        """Every window with ``lo <= start <= hi`` in (start, key) order: (kb, start, value)."""
        first = b"I" + (t8(lo) if lo is not None else b"")
        last = b"I" + t8(hi + 1) if hi is not None else b"J"
        for k, _ in self.kv.range(first, last):
            start = from_t8(k, 1)
            kb = k[9:]
            v = self.kv.get(b"W" + kb + k[1:9])
            if v is not None:
                yield kb, start, v

    def all_keys(self) -> Iterator[tuple[bytes, int, Any]]:
        """Every window in (key, start) order: (kb, start, value)."""
        for k, v in self.kv.range(b"W", b"X"):
            yield k[1:-8], from_t8(k, len(k) - 8), v

    def purge(self, before: int) -> int:
        """Delete windows whose start is below ``before`` (retention); returns how many."""
        doomed = [k for k, _ in self.kv.range(b"I", b"I" + t8(before))]
        for k in doomed:
            self.kv.delete(k)
            self.kv.delete(b"W" + k[9:] + k[1:9])
        return len(doomed)


class SessionStore:
    """(key, session end, session start) -> value for SESSION windows."""

    def __init__(self, kv: KeyValueStore) -> None:
        self.kv = kv

    def find(self, kb: bytes, earliest_end: int, latest_start: int) -> list[tuple[int, int, Any]]:
        """Sessions of one key with ``end >= earliest_end`` and ``start <= latest_start``, by end time:
        (start, end, value). Sessions of a key never overlap, so starts ascend with ends."""
        prefix = b"S" + kb
        n = len(prefix) + 16
        out = []
        for k, v in self.kv.range(prefix + t8(earliest_end), _prefix_end(prefix)):
            if len(k) != n:
                continue
            start = from_t8(k, n - 8)
            if start > latest_start:
                break
            out.append((start, from_t8(k, n - 16), v))
        return out

    def fetch(self, kb: bytes) -> Iterator[tuple[int, int, Any]]:
        """Every session of one key by end time: (start, end, value)."""
        prefix = b"S" + kb
        n = len(prefix) + 16
        for k, v in self.kv.range(prefix, _prefix_end(prefix)):
            if len(k) == n:
                yield from_t8(k, n - 8), from_t8(k, n - 16), v

    def put(self, kb: bytes, start: int, end: int, value: Any) -> None:
        self.kv.put(b"S" + kb + t8(end) + t8(start), value)
        self.kv.put(b"E" + t8(end) + kb + t8(start), 1)

    def remove(self, kb: bytes, start: int, end: int) -> None:
        self.kv.delete(b"S" + kb + t8(end) + t8(start))
        self.kv.delete(b"E" + t8(end) + kb + t8(start))

    def ended(self, lo: int | None, hi: int) -> Iterator[tuple[bytes, int, int, Any]]:
        """Sessions with ``lo <= end <= hi`` in (end, key, start) order: (kb, start, end, value)."""
        first = b"E" + (t8(lo) if lo is not None else b"")
        for k, _ in list(self.kv.range(first, b"E" + t8(hi + 1))):
            end = from_t8(k, 1)
            kb, sb = k[9:-8], k[-8:]
            v = self.kv.get(b"S" + kb + k[1:9] + sb)
            if v is not None:
                yield kb, from_t8(sb), end, v

    def all_sessions(self) -> Iterator[tuple[bytes, int, int, Any]]:
        """Every session in (key, end) order: (kb, start, end, value)."""
        for k, v in self.kv.range(b"S", b"T"):
            yield k[1:-16], from_t8(k, len(k) - 8), from_t8(k, len(k) - 16), v

    def purge(self, before_end: int) -> int:
        """Delete sessions that ended before ``before_end`` (retention); returns how many."""
        doomed = [k for k, _ in self.kv.range(b"E", b"E" + t8(before_end))]
        for k in doomed:
            self.kv.delete(k)
            self.kv.delete(b"S" + k[9:-8] + k[1:9] + k[-8:])
        return len(doomed)
