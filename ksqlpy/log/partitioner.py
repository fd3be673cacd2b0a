"""Kafka's default partitioner, so keyed records land in the same partition on EmbeddedLog and Kafka.

Co-partitioning (joins) and key-based ordering are only correct if every writer agrees on
``partition(key)``; Kafka's Java producer and librdkafka's ``murmur2_random`` use
``(murmur2(key_bytes) & 0x7fffffff) % partitions``, so we do too. Pure Python murmur2 costs about a
microsecond per short key, so results are memoised in a bounded dict: streaming keys repeat a lot.
"""

from __future__ import annotations

import struct

_M = 0x5BD1E995
_SEED = 0x9747B28C
_MASK = 0xFFFFFFFF


def murmur2(data: bytes) -> int:
    """Kafka's ``Utils.murmur2``: the 32-bit MurmurHash2 of ``data`` as a signed Java int."""
    length = len(data)
    h = (_SEED ^ length) & _MASK
    n4 = length >> 2
    if n4:
        for k in struct.unpack_from(f"<{n4}I", data):
            k = (k * _M) & _MASK
            k ^= k >> 24
            k = (k * _M) & _MASK
            h = ((h * _M) & _MASK) ^ k
    rest = length & 3
    if rest:
        base = length & ~3
        if rest == 3:
            h ^= data[base + 2] << 16
        if rest >= 2:
            h ^= data[base + 1] << 8
        h ^= data[base]
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h - 0x100000000 if h & 0x80000000 else h


def to_positive(n: int) -> int:
    """Kafka's ``Utils.toPositive``: clear the sign bit (not ``abs``)."""
    return n & 0x7FFFFFFF


_CACHE: dict[bytes, int] = {}
_CACHE_MAX = 1 << 16


def key_hash(key: bytes) -> int:
    """``to_positive(murmur2(key))``, memoised (the cache is dropped wholesale when full)."""
    h = _CACHE.get(key)
    if h is None:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        h = _CACHE[key] = murmur2(key) & 0x7FFFFFFF
    return h


def partition_for_key(key: bytes, partitions: int) -> int:
    """The partition Kafka's default partitioner picks for a non-null serialized key."""
    return key_hash(key) % partitions
