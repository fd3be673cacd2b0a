"""Kafka's default partitioner, so keyed records land in the same partition on EmbeddedLog and Kafka.

Co-partitioning (joins) and key-based ordering are only correct if every writer agrees on
``partition(key)``; Kafka's Java producer and librdkafka's ``murmur2_random`` use
``(murmur2(key_bytes) & 0x7fffffff) % partitions``, so we do too. Pure Python murmur2 costs about a
microsecond per short key, so results are memoised in a bounded dict: streaming keys repeat a lot; a new
key is hashed by librdkafka's murmur2 when one is installed (confluent-kafka bundles it), checked against
the Python one when loaded.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import Any

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
_TOP = 0x7FFFFFFF


def _positive_python(key: bytes) -> int:
    return murmur2(key) & _TOP


def positive_by(partitioner: Any) -> Callable[[bytes], int]:
    """``to_positive(murmur2(key))`` from a function with the signature and result of librdkafka's
    ``rd_kafka_msg_partitioner_murmur2`` (see ``_native_positive``)."""

    def positive(key: bytes) -> int:
        h = partitioner(None, key, len(key), _TOP, None, None)
        if h == 0 and partitioner(None, key, len(key), _TOP - 1, None, None) == 1:
            return _TOP  # the hash 2**31 - 1 is 0 modulo 2**31 - 1, and 1 modulo 2**31 - 2
        return h  # type: ignore[no-any-return]

    return positive


def _native_positive() -> Callable[[bytes], int] | None:
    """``to_positive(murmur2(key))`` computed by librdkafka (the one bundled with confluent-kafka, or the
    system's), whose public ``rd_kafka_msg_partitioner_murmur2`` is ``(murmur2(key) & 0x7fffffff) % n``:
    called with ``n = 2**31 - 1`` it is the hash itself, but for the hash ``2**31 - 1``, which reads 0 -
    told apart from a hash of 0 by a second call with ``n = 2**31 - 2``. ~4x faster than the Python loop
    per new key. None when no librdkafka loads or it disagrees with ``murmur2`` on Kafka's test vectors."""
    import ctypes
    import ctypes.util
    import glob
    import importlib.util
    import os

    paths = []
    spec = importlib.util.find_spec("confluent_kafka")
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            paths += sorted(glob.glob(os.path.join(os.path.dirname(loc), "confluent_kafka.libs", "librdkafka*.so*")))
    found = ctypes.util.find_library("rdkafka")
    if found:
        paths.append(found)
    for path in paths:
        try:
            fn = ctypes.PyDLL(path).rd_kafka_msg_partitioner_murmur2
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_int32
        fn.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int32, ctypes.c_void_p,
                       ctypes.c_void_p]

        positive = positive_by(fn)
        probes = [b"", b"21", b"abc", b"foobar", b"a-little-bit-long-string", b"\x00\xff" * 9, bytes(range(37))]
        if all(positive(k) == _positive_python(k) for k in probes):
            return positive
    return None


try:
    _positive: Callable[[bytes], int] = _native_positive() or _positive_python
except Exception:  # noqa: BLE001 - any trouble loading it: the Python loop
    _positive = _positive_python


def key_hash(key: bytes) -> int:
    """``to_positive(murmur2(key))``, memoised (the cache is dropped wholesale when full)."""
    h = _CACHE.get(key)
    if h is None:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        h = _CACHE[key] = _positive(key)
    return h


def partition_for_key(key: bytes, partitions: int) -> int:
    """The partition Kafka's default partitioner picks for a non-null serialized key."""
    return key_hash(key) % partitions


def key_partitions(keys: Sequence[bytes], partitions: int) -> list[int]:
    """Kafka's partitioner for each key of a batch, each key missing from the cache hashed once per batch (a
    batch repeats keys: a windowed aggregate's updates)."""
    get = _CACHE.get
    ps = [get(k) for k in keys]
    if not all(ps) and None in ps:  # a cached hash of 0 only costs the exact test
        miss = dict.fromkeys(k for k, h in zip(keys, ps, strict=False) if h is None)
        for k in miss:
            miss[k] = key_hash(k)
        ps = [miss[k] if h is None else h for k, h in zip(keys, ps, strict=False)]
    return [h % partitions for h in ps]


def deal_by_key(keys: Sequence[bytes], recs: Sequence[Any], partitions: int) -> tuple[int, list[list[Any]]]:
    """Records dealt into one list per partition by their keys, in order, and the last record's partition.

    Kafka's partitioner per record (``key_partitions``) and the rest by list operations - the hot path of a
    keyed batch write, shared by the embedded log's transaction and its prepared batches."""
    ps = key_partitions(keys, partitions)
    buckets: list[list[Any]] = [[] for _ in range(partitions)]
    last = ps[-1]
    if ps.count(last) == len(ps):  # one partition for the whole batch (a key-preserving query of one input
        buckets[last] = list(recs)  # partition, keyed by the default partitioner): no per-record deal
        return last, buckets
    appends = [b.append for b in buckets]
    for q, r in zip(ps, recs, strict=False):
        appends[q](r)
    return last, buckets
