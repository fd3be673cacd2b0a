"""The default partitioner must agree with Kafka's Java producer byte for byte."""

from __future__ import annotations

import random

import pytest

from ksqlpy.log import partitioner
from ksqlpy.log.partitioner import deal_by_key, key_hash, murmur2, partition_for_key, to_positive

# Expected values from Kafka's own unit test of Utils.murmur2 (clients/.../utils/UtilsTest.java).
KAFKA_VECTORS = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
}


@pytest.mark.parametrize("data,expected", list(KAFKA_VECTORS.items()))
def test_murmur2_matches_kafka(data: bytes, expected: int) -> None:
    assert murmur2(data) == expected


def test_murmur2_is_a_signed_32_bit_int_for_every_tail_length() -> None:
    rng = random.Random(7)
    for n in range(0, 40):
        h = murmur2(bytes(rng.randrange(256) for _ in range(n)))
        assert -(2**31) <= h < 2**31


def test_to_positive_clears_the_sign_bit_rather_than_negating() -> None:
    assert to_positive(-1) == 0x7FFFFFFF
    assert to_positive(-973932308) == (-973932308) & 0x7FFFFFFF
    assert to_positive(5) == 5


def test_partition_for_key_is_positive_murmur_mod_partitions() -> None:
    for data, h in KAFKA_VECTORS.items():
        for n in (1, 3, 6, 12):
            assert partition_for_key(data, n) == (h & 0x7FFFFFFF) % n


def test_key_hash_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(partitioner, "_CACHE_MAX", 4)
    partitioner._CACHE.clear()
    for i in range(10):
        assert key_hash(b"k%d" % i) == murmur2(b"k%d" % i) & 0x7FFFFFFF
    assert len(partitioner._CACHE) <= 4


@pytest.mark.parametrize("partitions", [1, 3, 8])
def test_deal_by_key_puts_each_record_where_the_partitioner_says_in_order(partitions: int) -> None:
    """The batch form (each new key hashed once, records dealt by list operations) agrees record by record
    with partition_for_key, keeps each partition's records in their batch order and names the last
    record's partition - also for repeated keys and keys whose hash is not cached yet."""
    keys = [f"k{i % 7}-{i // 7 % 3}".encode() for i in range(50)] + [b"", b"fresh-key", b"k0-0"]
    recs = [b"r%d" % i for i in range(len(keys))]
    last, buckets = deal_by_key(keys, recs, partitions)
    want: list[list[bytes]] = [[] for _ in range(partitions)]
    for k, r in zip(keys, recs, strict=True):
        want[partition_for_key(k, partitions)].append(r)
    assert buckets == want
    assert last == partition_for_key(keys[-1], partitions)


@pytest.mark.parametrize("partitions", [1, 4])
def test_deal_by_key_of_a_batch_that_lands_in_one_partition(partitions: int) -> None:
    """A batch whose every key falls in one partition (a key-preserving query over one input partition)
    is that partition's list whole, in order, the others empty - also when the first keys are not cached;
    one key elsewhere at either end deals record by record again."""
    keys = [f"one-{i}".encode() for i in range(400)]
    target = partition_for_key(keys[0], partitions)
    same = [k for k in keys if partition_for_key(k, partitions) == target]
    recs = [b"r%d" % i for i in range(len(same))]
    last, buckets = deal_by_key(same, recs, partitions)
    assert last == target and buckets[target] == recs and buckets[target] is not recs
    assert all(not b for q, b in enumerate(buckets) if q != target)
    other = next((k for k in keys if partition_for_key(k, partitions) != target), None)
    if other is not None:
        for ks in ([other, *same], [*same, other]):
            rs = [b"x%d" % i for i in range(len(ks))]
            last, buckets = deal_by_key(ks, rs, partitions)
            want: list[list[bytes]] = [[] for _ in range(partitions)]
            for k, r in zip(ks, rs, strict=True):
                want[partition_for_key(k, partitions)].append(r)
            assert buckets == want and last == partition_for_key(ks[-1], partitions)


def test_murmur2_matches_the_reference_formulation_over_random_keys() -> None:
    """The hashed loop (each mask taken once per step) against the algorithm written step by step, for
    every tail length and keys past the precompiled word layouts."""
    import random
    import struct

    def reference(data: bytes) -> int:
        m, mask = 0x5BD1E995, 0xFFFFFFFF
        h = (0x9747B28C ^ len(data)) & mask
        n4 = len(data) // 4
        for i in range(n4):
            k = struct.unpack_from("<I", data, 4 * i)[0]
            k = (k * m) & mask
            k ^= k >> 24
            k = (k * m) & mask
            h = (h * m) & mask
            h ^= k
        tail = data[4 * n4:]
        if len(tail) == 3:
            h ^= tail[2] << 16
        if len(tail) >= 2:
            h ^= tail[1] << 8
        if tail:
            h ^= tail[0]
            h = (h * m) & mask
        h ^= h >> 13
        h = (h * m) & mask
        h ^= h >> 15
        return h - (1 << 32) if h >= 1 << 31 else h

    rnd = random.Random(7)
    for n in [*range(0, 70), 255, 256, 257, 260, 1000]:
        for _ in range(5):
            data = bytes(rnd.randrange(256) for _ in range(n))
            assert murmur2(data) == reference(data), n


def test_native_murmur2_agrees_with_the_python_one_over_random_keys() -> None:
    """A new key is hashed by librdkafka when it loads (``partitioner._positive``); whichever is in use
    gives the Python loop's hash for keys of every length and tail."""
    rng = random.Random(11)
    for n in list(range(0, 70)) * 30:
        key = bytes(rng.randrange(256) for _ in range(n))
        assert partitioner._positive(key) == murmur2(key) & 0x7FFFFFFF


def test_positive_by_tells_the_top_hash_from_zero() -> None:
    """Modulo 2**31 - 1 the hash 2**31 - 1 reads 0: a second call modulo 2**31 - 2 tells it from a hash of 0."""
    hashes = {b"top": 0x7FFFFFFF, b"zero": 0, b"one": 1, b"mid": 123456789}

    def fake(rkt: object, key: bytes, n: int, partitions: int, a: object, b: object) -> int:
        assert n == len(key)
        return hashes[key] % partitions

    positive = partitioner.positive_by(fake)
    assert {k: positive(k) for k in hashes} == hashes
