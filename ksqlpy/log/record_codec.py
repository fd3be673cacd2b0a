"""Byte layout of stored records, shared by the writer and the batch reader.

Records are stored in *chunks*: the records one transaction wrote to one partition (split at
``CHUNK_MAX_RECORDS`` / ``CHUNK_MAX_BYTES``) form one LMDB value, like a Kafka record batch. One put
per chunk instead of one per record makes LMDB's share of produce and fetch small::

    uint32 LE  count
    uint32 LE  positions[count + 1]   record i is data[positions[i]:positions[i+1]]
    data       the records, back to back

One record: a fixed little-endian header then the variable parts, no per-field tags, so packing is
one ``struct.pack`` plus a concatenation and unpacking one ``unpack_from`` plus slices::

    int64  timestamp (epoch ms)
    int32  key length    (-1 = null key)
    int32  value length  (-1 = null value, a tombstone)
    uint16 header count
    key bytes | value bytes | headers: (uint16 name length, int32 value length or -1, name, value)*
"""

from __future__ import annotations

import struct
import sys
from array import array
from bisect import bisect_right
from itertools import accumulate

from ksqlpy.log.base import Headers

CHUNK_MAX_RECORDS = 4096
CHUNK_MAX_BYTES = 1 << 20
_U32 = struct.Struct("<I")
_LITTLE = sys.byteorder == "little"

HEADER = struct.Struct("<qiiH")
HEADER_SIZE = HEADER.size  # 18
_H_ENTRY = struct.Struct("<Hi")
_pack = HEADER.pack


def pack_record(timestamp: int, key: bytes | None, value: bytes | None, headers: Headers | None) -> bytes:
    """The stored form of one record."""
    if not headers:
        if key is None:
            if value is None:
                return _pack(timestamp, -1, -1, 0)
            return _pack(timestamp, -1, len(value), 0) + value
        if value is None:
            return _pack(timestamp, len(key), -1, 0) + key
        return _pack(timestamp, len(key), len(value), 0) + key + value
    parts = [
        _pack(timestamp, -1 if key is None else len(key), -1 if value is None else len(value), len(headers)),
        key or b"",
        value or b"",
    ]
    for name, hv in headers:
        nb = name.encode("utf-8")
        parts.append(_H_ENTRY.pack(len(nb), -1 if hv is None else len(hv)))
        parts.append(nb)
        if hv is not None:
            parts.append(bytes(hv))
    return b"".join(parts)


def unpack_headers(data: bytes, pos: int, count: int) -> Headers:
    """Decode ``count`` headers starting at byte ``pos`` of a stored record."""
    out: Headers = []
    entry = _H_ENTRY.unpack_from
    for _ in range(count):
        nl, vl = entry(data, pos)
        pos += 6
        name = data[pos:pos + nl].decode("utf-8")
        pos += nl
        if vl < 0:
            out.append((name, None))
        else:
            out.append((name, data[pos:pos + vl]))
            pos += vl
    return out


def unpack_record(data: bytes) -> tuple[int, bytes | None, bytes | None, Headers | None]:
    """(timestamp, key, value, headers) of one stored record (the slow, single-record path)."""
    ts, kl, vl, hc = HEADER.unpack_from(data)
    pos = HEADER_SIZE
    key = None
    if kl >= 0:
        key = data[pos:pos + kl]
        pos += kl
    value = None
    if vl >= 0:
        value = data[pos:pos + vl]
        pos += vl
    return ts, key, value, (unpack_headers(data, pos, hc) if hc else None)


def _one_chunk(recs: list[bytes]) -> bytes:
    pos = array("I", accumulate(map(len, recs), initial=0))
    if not _LITTLE:
        pos.byteswap()
    return _U32.pack(len(recs)) + pos.tobytes() + b"".join(recs)


def build_chunks(recs: list[bytes]) -> list[tuple[int, bytes]]:
    """Chunks holding ``recs`` in order, as (index of the chunk's first record, chunk bytes). A chunk
    ends before the record that would take it past ``CHUNK_MAX_RECORDS`` or ``CHUNK_MAX_BYTES`` (a
    record alone larger than that is a chunk of its own); the cuts are found by bisecting the running
    byte total, per chunk rather than per record."""
    n = len(recs)
    cum = list(accumulate(map(len, recs), initial=0))  # cum[i]: bytes of the records before i
    if n <= CHUNK_MAX_RECORDS and cum[-1] <= CHUNK_MAX_BYTES:
        return [(0, _one_chunk(recs))]
    out = []
    start = 0
    while start < n:
        end = min(n, start + CHUNK_MAX_RECORDS, bisect_right(cum, cum[start] + CHUNK_MAX_BYTES) - 1)
        end = max(end, start + 1)
        out.append((start, _one_chunk(recs[start:end])))
        start = end
    return out


def chunk_count(chunk: bytes) -> int:
    return _U32.unpack_from(chunk)[0]


def chunk_positions(chunk: bytes) -> tuple[int, memoryview | array]:
    """(byte offset of the data area, positions) of a chunk; positions index like a list of int."""
    n = _U32.unpack_from(chunk)[0]
    end = 8 + 4 * n
    if _LITTLE:
        return end, memoryview(chunk)[4:end].cast("I")
    a = array("I", chunk[4:end])
    a.byteswap()
    return end, a


def chunk_timestamps(chunk: bytes) -> list[int]:
    """Timestamps of all records of a chunk (retention scans)."""
    base, pos = chunk_positions(chunk)
    unpack = struct.Struct("<q").unpack_from
    return [unpack(chunk, base + pos[i])[0] for i in range(len(pos) - 1)]
