"""Join store keys: the join key's bytes without the schema registry's framing, and the re-keying of
stores written by earlier versions.

A join's internal key format decides co-partitioning and the order Kafka Streams' stores iterate in (the
unmatched records of an outer join on equal timestamps, a foreign-key join's subscribers), so the stores
are keyed by the key's bytes in that format (``join_rows.key_encoder``). In a schema-registry format
(AVRO, JSON_SR, PROTOBUF) those bytes begin with a magic byte and a schema id - the id of whatever
registry and subject wrote them, which is not a property of the key: ids differ between processes, and a
schema change (an unwrapped AVRO key is the bare type now; earlier releases wrote a ``["null", T]`` union)
changes both the id and the payload. A store keyed by such bytes misses every row restored from before.

So a store key in those formats is ``TAG`` + the payload alone (the framing removed: magic, id, and for
PROTOBUF the message indexes), in the current encoding - the same for a key whoever wrote it, in the same
order as the format's bytes (every key of one store shares the framing). Keys the format cannot write stay
private pickles (``0x80 ...``), as before.

Stores written before carry framed keys (first byte 0, the magic byte; neither a ``TAG`` key nor a pickle
starts with it). ``rekey`` maps such a key to the current one; ``migrate_store`` rewrites a restored store's
entries through the store itself (changelog and local files, committed like a batch), so restarting after
the upgrade restores every row and a later rebuild from the changelog ends in the same keys.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable
from typing import Any

from ksqlpy.types import SqlType

TAG = b"\x01"
SR_FORMATS = frozenset({"AVRO", "JSON_SR", "PROTOBUF"})
_I = struct.Struct(">I")
# the entry kinds of join stores (``join_store``, ``join_fk``): the first byte of every entry's key
_WINDOW, _OUTER, _TABLE, _RESULT, _SUB = b"\x01", b"\x02", b"\x03", b"\x04", b"\x05"

Encode = Callable[[tuple], bytes]
Rekey = Callable[[bytes], bytes | None]


def payload(fmt: str, data: bytes) -> bytes:
    """A Confluent-framed record's payload: magic byte and schema id removed, and PROTOBUF's message indexes
    (a zig-zag count, then that many indexes)."""
    if fmt != "PROTOBUF":
        return data[5:]
    from ksqlpy.serde.protobuf_wire import unframe

    return unframe(data)[2]


def store_encoder(fmt: str, encode: Encode) -> Encode:
    """The store key of a join key, from ``encode`` (the key's bytes in its internal format ``fmt``):
    ``TAG`` + the payload in a schema-registry format, the bytes themselves otherwise."""
    if fmt not in SR_FORMATS:
        return encode

    def store_key(key: tuple) -> bytes:
        b = encode(key)
        return TAG + payload(fmt, b) if b[:1] == b"\x00" else b

    return store_key


def rekey(fmt: str, types: list[SqlType]) -> Rekey | None:
    """Old store key -> the current one, or None when it is current. None for a format whose keys never
    changed (not a schema-registry format)."""
    if fmt not in SR_FORMATS:
        return None
    legacy = _avro_union_payload(types[0]) if fmt == "AVRO" and len(types) == 1 else None

    def convert(kb: bytes) -> bytes | None:
        if kb[:1] != b"\x00" or len(kb) < 5:
            return None
        body = payload(fmt, kb)
        if legacy is not None:
            body = legacy(body)
        return TAG + body

    return convert


def _avro_union_payload(t: SqlType) -> Callable[[bytes], bytes]:
    """An unwrapped AVRO key's payload in the current (bare) encoding: earlier releases wrote the key as
    ``["null", T]``, the branch index (1, zig-zag ``0x02``) before the value. A payload is taken for that
    form when dropping its first byte leaves exactly one value of ``T`` and the whole of it is not one (a
    bare payload of that shape: only a one-character STRING/BYTES key whose character is NUL, read then as
    the empty key; keys written between the two releases are rare and such a key rarer)."""
    import fastavro

    from ksqlpy.serde.avro_format import avro_schema, strip_logical

    parsed = fastavro.parse_schema(strip_logical(avro_schema([("K", t)], wrap=False)), _write_hint=False)

    def whole(data: bytes) -> bool:
        buf = io.BytesIO(data)
        try:
            fastavro.schemaless_reader(buf, parsed, None)
        except Exception:  # noqa: BLE001 - not a value of the schema
            return False
        return buf.tell() == len(data)

    def convert(body: bytes) -> bytes:
        if body[:1] == b"\x02" and whole(body[1:]):
            return body[1:]
        return body

    return convert


def entry_rekey(k: bytes, main: Rekey | None, fk: Rekey | None) -> bytes | None:
    """A join store entry's key with its key bytes re-keyed (None: unchanged). ``main``: the store's key
    codec; ``fk``: a subscription entry's foreign-key codec."""
    tag = k[:1]
    if tag == _WINDOW and main is not None:  # tag, segment (8), length (4), key, timestamp + sequence
        n = _I.unpack_from(k, 9)[0]
        new = main(k[13:13 + n])
        return None if new is None else k[:9] + _I.pack(len(new)) + new + k[13 + n:]
    if tag == _OUTER and main is not None:  # tag, timestamp (8), side (1), key
        new = main(k[10:])
        return None if new is None else k[:10] + new
    if tag in (_TABLE, _RESULT) and main is not None:
        new = main(k[1:])
        return None if new is None else tag + new
    if tag == _SUB:  # tag, foreign key length (4), foreign key, left key
        n = _I.unpack_from(k, 1)[0]
        fkb, lkb = k[5:5 + n], k[5 + n:]
        nf = fk(fkb) if fk is not None else None
        nl = main(lkb) if main is not None else None
        if nf is None and nl is None:
            return None
        nf = fkb if nf is None else nf
        return _SUB + _I.pack(len(nf)) + nf + (lkb if nl is None else nl)
    return None


def migrate_store(kv: Any, main: Rekey | None, fk: Rekey | None = None) -> int:
    """Re-key the entries of a restored join store (``KeyValueStore``) written with framed keys; returns
    how many moved. Only the committed keys are read, and the values of the entries that move; an entry
    already under its current key (written later) is kept. The moves go through the store (deletes and
    puts, so the changelog too); the caller commits them."""
    if main is None and fk is None:
        return 0
    moves = []
    current = set()
    for k in list(kv.committed_keys()):
        if k[:1] == b"\x00":
            continue  # the store's own bookkeeping
        new = entry_rekey(k, main, fk)
        if new is None:
            current.add(k)
        elif new != k:
            moves.append((k, new))
    for old, new in moves:
        v = kv.get(old)
        kv.delete(old)
        if new not in current:  # an entry under the current key was written after the old one
            kv.put(new, v)
    return len(moves)
