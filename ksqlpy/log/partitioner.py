"""Kafka's default partitioner, so keyed records land in the same partition on EmbeddedLog and Kafka.

Co-partitioning (joins) and key-based ordering are only correct if every writer agrees on
``partition(key)``; Kafka's Java producer and librdkafka's ``murmur2_random`` use
``(murmur2(key_bytes) & 0x7fffffff) % partitions``, so we do too. Pure Python murmur2 costs about a
microsecond per short key, so results are memoised in a bounded dict: streaming keys repeat a lot.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

_M = 0x5BD1E995
_SEED = 0x9747B28C
_MASK = 0xFFFFFFFF


_WORDS = [struct.Struct(f"<{n}I") for n in range(65)]  # the little-endian words of keys up to 256 bytes


def murmur2(data: bytes) -> int:
    """Kafka's ``Utils.murmur2``: the 32-bit MurmurHash2 of ``data`` as a signed Java int. (Each mask is
    taken once per step: ``((h * m) & mask) ^ k`` is ``((h * m) ^ k) & mask`` for a 32-bit ``k``.)"""
    length = len(data)
    h = _SEED ^ length
    n4 = length >> 2
    m, mask = _M, _MASK
    if n4:
        words = _WORDS[n4] if n4 < len(_WORDS) else struct.Struct(f"<{n4}I")
        for k in words.unpack_from(data):
            k = (k * m) & mask
            h = ((h * m) ^ (((k ^ (k >> 24)) * m) & mask)) & mask
    rest = length & 3
    if rest:
        base = length & ~3
        if rest == 3:
            h ^= data[base + 2] << 16
        if rest >= 2:
            h ^= data[base + 1] << 8
        h ^= data[base]
        h = (h * m) & mask
    h ^= h >> 13
    h = (h * m) & mask
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


def deal_by_key(keys: Sequence[bytes], recs: Sequence[bytes], partitions: int) -> tuple[int, list[list[bytes]]]:
    """Records dealt into one list per partition by their keys, in order, and the last record's partition.

    Kafka's partitioner per record, with each key missing from the cache hashed once per batch (a batch
    repeats keys: a windowed aggregate's updates) and the rest by list operations - the hot path of a
    keyed batch write, shared by the embedded log's transaction and its prepared batches."""
    get = _CACHE.get
    ps = [get(k) for k in keys]
    if not all(ps) and None in ps:  # a cached hash of 0 only costs the exact test
        miss = dict.fromkeys(k for k, h in zip(keys, ps, strict=False) if h is None)
        for k in miss:
            miss[k] = key_hash(k)
        ps = [miss[k] if h is None else h for k, h in zip(keys, ps, strict=False)]
    ps = [h % partitions for h in ps]
    buckets: list[list[bytes]] = [[] for _ in range(partitions)]
    appends = [b.append for b in buckets]
    for q, r in zip(ps, recs, strict=False):
        appends[q](r)
    return ps[-1], buckets
