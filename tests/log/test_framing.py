"""The log's record framing in C (``ksqlpy.log.framing``, ``_framing.c``) writes the bytes and reads the columns
the Python framing does: random batches (empty, long and over-long keys and values, negative and 64-bit
timestamps, several chunks, a subset of records in a given order), chunks with null keys, tombstones and
headers read from any record range; what it cannot take (not bytes, a timestamp past 64 bits, a chunk cut
short) raises, and the prepared batch then falls back to the Python packing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import ksqlpy.log.embedded as embedded
import ksqlpy.log.embedded_prepare as embedded_prepare
from ksqlpy.log import EmbeddedLog
from ksqlpy.log.framing import NATIVE
from ksqlpy.log.record_codec import (
    CHUNK_MAX_BYTES,
    CHUNK_MAX_RECORDS,
    HEADER,
    build_chunks,
    chunk_positions,
    pack_record,
)

pytestmark = pytest.mark.skipif(NATIVE is None, reason="the C framing is not built (setup.py: no compiler)")


def _records(rng: random.Random, n: int, big: bool = False) -> tuple[list[bytes], list[bytes], list[int]]:
    sizes = [0, 1, 7, 60, 200] + ([CHUNK_MAX_BYTES // 3, CHUNK_MAX_BYTES + 5] if big else [])
    keys = [rng.randbytes(rng.choice(sizes[:4])) for _ in range(n)]
    values = [rng.randbytes(rng.choice(sizes)) for _ in range(n)]
    tss = [rng.choice([0, 1, -1, 2**63 - 1, -(2**63), rng.randrange(2**41)]) for _ in range(n)]
    return keys, values, tss


def _python_chunks(keys: list[bytes], values: list[bytes], tss: list[int]) -> list[tuple[int, bytes]]:
    return build_chunks([HEADER.pack(t, len(k), len(v), 0) + k + v for k, v, t in zip(keys, values, tss, strict=True)])


@pytest.mark.parametrize("seed", range(12))
def test_chunks_are_the_python_framings_bytes(seed: int) -> None:
    rng = random.Random(seed)
    big = seed % 3 == 0  # values past the byte limit: a few records (cut by bytes), else many small ones (by count)
    n = rng.choice([1, 2, 12, 40] if big else [1, 2, 50, CHUNK_MAX_RECORDS, CHUNK_MAX_RECORDS + 1, 3 * CHUNK_MAX_RECORDS + 5])
    keys, values, tss = _records(rng, n, big=big)
    assert NATIVE.chunks(keys, values, tss, None, CHUNK_MAX_RECORDS, CHUNK_MAX_BYTES) == _python_chunks(keys, values, tss)
    rows = sorted(rng.sample(range(n), rng.randint(1, n)))  # a partition's records, as dealt by key
    sub = ([keys[i] for i in rows], [values[i] for i in rows], [tss[i] for i in rows])
    assert NATIVE.chunks(keys, values, tss, rows, CHUNK_MAX_RECORDS, CHUNK_MAX_BYTES) == _python_chunks(*sub)
    # small limits: cut by count, by bytes, and a record alone past the byte limit
    for limits in ((1, 10**9), (3, 100), (10**6, 0), (7, 250)):
        got = NATIVE.chunks(keys[:40], values[:40], tss[:40], None, *limits)
        recs = [HEADER.pack(t, len(k), len(v), 0) + k + v for k, v, t in zip(keys[:40], values[:40], tss[:40], strict=True)]
        want, start = [], 0
        while start < len(recs):  # build_chunks' rule with these limits
            end, size = start, 0
            while end < len(recs) and end - start < limits[0] and size + len(recs[end]) <= limits[1]:
                size += len(recs[end])
                end += 1
            end = max(end, start + 1)
            want.append((start, build_chunks(recs[start:end])[0][1]))
            start = end
        assert got == want


def test_what_the_c_packing_refuses_raises() -> None:
    with pytest.raises(TypeError):
        NATIVE.chunks([b"k", "s"], [b"v", b"v"], [1, 2], None, 10, 1000)
    with pytest.raises(TypeError):
        NATIVE.chunks([b"k"], [bytearray(b"v")], [1], None, 10, 1000)
    with pytest.raises(OverflowError):
        NATIVE.chunks([b"k"], [b"v"], [2**63], None, 10, 1000)
    with pytest.raises(TypeError):
        NATIVE.chunks([b"k"], [b"v"], [None], None, 10, 1000)
    with pytest.raises(ValueError):
        NATIVE.chunks([b"k", b"k"], [b"v"], [1, 2], None, 10, 1000)
    with pytest.raises(IndexError):
        NATIVE.chunks([b"k"], [b"v"], [1], [1], 10, 1000)


def _python_split(chunk: bytes, base: int, pos: object, i0: int, i1: int) -> tuple[list, list, list, list]:
    keys, values, tss, hdrs = [], [], [], []
    saved = embedded.NATIVE
    embedded.NATIVE = None
    try:
        embedded._decode(chunk, base, pos, i0, i1, keys, values, tss, hdrs)  # type: ignore[arg-type]
    finally:
        embedded.NATIVE = saved
    return keys, values, tss, hdrs


@pytest.mark.parametrize("seed", range(8))
def test_split_reads_the_columns_the_python_loop_reads(seed: int) -> None:
    rng = random.Random(seed)
    recs = []
    for _ in range(rng.randint(1, 300)):
        key = rng.choice([None, b"", rng.randbytes(rng.randint(1, 30))])
        value = rng.choice([None, b"", rng.randbytes(rng.randint(1, 300))])
        headers = rng.choice([None, None, [], [("h", b"x"), ("n", None)], [("\u00e9", rng.randbytes(3))]])
        recs.append(pack_record(rng.choice([0, -5, 2**62, rng.randrange(2**41)]), key, value, headers))
    chunk = build_chunks(recs)[0][1]
    base, pos = chunk_positions(chunk)
    n = len(recs)
    for i0, i1 in ((0, n), (0, 0), (n // 3, n), (n // 2, n // 2 + 1)):
        # as the fetch hands it over: the records' bytes copied out, positions relative to the first one
        first = pos[i0] if i0 < n else pos[n]
        data = bytes(chunk[base + first:base + pos[i1]])
        k, v, t, h = [b"x"], [b"y"], [1], [None]  # appended to, as a fetch's columns across chunks
        with_headers = NATIVE.split(data, -first, pos, i0, i1, k, v, t)
        hdrs = h + [None] * (len(t) - 1)
        for i, s, hc in with_headers:
            hdrs[i] = embedded.unpack_headers(data, s, hc)
        pk, pv, pt, ph = _python_split(data, -first, pos, i0, i1)
        assert (k[1:], v[1:], t[1:], hdrs[1:]) == (pk, pv, pt, ph)
        assert all(type(x) is bytes for x in k[1:] + v[1:] if x is not None)


def test_a_chunk_cut_short_raises() -> None:
    chunk = build_chunks([pack_record(1, b"key", b"value", None)] * 3)[0][1]
    base, pos = chunk_positions(chunk)
    with pytest.raises(ValueError):
        NATIVE.split(chunk[:-2], base, pos, 0, 3, [], [], [])
    with pytest.raises(IndexError):
        NATIVE.split(chunk, base, pos, 0, 9, [], [], [])


def test_a_batch_the_c_packing_refuses_is_packed_by_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A value that is not exactly bytes (a bytearray, which the Python join takes) goes the Python way;
    the stored records are those of the Python packing either way."""
    stored = []
    for native in (embedded_prepare.NATIVE, None):
        monkeypatch.setattr(embedded_prepare, "NATIVE", native)
        log = EmbeddedLog(tmp_path / f"log{native is None}")
        try:
            log.create_topic("t", 3)
            for values in ([b"a", b"b", b"c"], [b"a", bytearray(b"b"), b"c"]):
                prepared = log.prepare_batch("t", None, [b"k1", b"k2", b"k3"], values, [5, 6, 7])
                assert prepared is not None
                with log.transaction() as tx:
                    tx.produce_prepared(prepared)
            stored.append([list(zip(b.keys, b.values, b.timestamps, strict=True))
                           for b in (log.fetch("t", p, 0, 100) for p in range(3))])
        finally:
            log.close()
    assert stored[0] == stored[1] and sum(map(len, stored[0])) == 6


@pytest.mark.parametrize("partitions", [1, 2, 4, 7, 100])
def test_partitions_are_kafkas_default_partitioner(partitions: int) -> None:
    from ksqlpy.log.partitioner import partition_for_key

    rng = random.Random(partitions)
    keys = [rng.randbytes(rng.randint(0, 70)) for _ in range(5000)] + [b"", b"21", b"abc", b"\x00\xff" * 9]
    assert NATIVE.partitions(keys, partitions) == [partition_for_key(k, partitions) for k in keys]
    with pytest.raises(TypeError):
        NATIVE.partitions([b"k", None], partitions)
    with pytest.raises(ValueError):
        NATIVE.partitions([b"k"], 0)
