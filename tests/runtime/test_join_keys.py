"""Join store keys (``runtime.join_keys``): registry-independent, and older framed keys re-keyed."""

from __future__ import annotations

import io
import struct
from decimal import Decimal
from typing import Any

import fastavro
import pytest

from ksqlpy import types as T
from ksqlpy.runtime.join_keys import TAG, migrate_store, rekey, store_encoder
from ksqlpy.runtime.join_rows import key_encoder
from ksqlpy.schema_registry import EmbeddedSchemaRegistry
from ksqlpy.serde import key_serde
from ksqlpy.serde.avro_format import avro_schema, strip_logical, to_avro

KEYS: list[tuple[T.SqlType, Any]] = [
    (T.INTEGER, 7), (T.INTEGER, -1), (T.INTEGER, 1), (T.BIGINT, 1 << 40), (T.DOUBLE, 2.5), (T.BOOLEAN, True),
    (T.STRING, "k1"), (T.STRING, ""), (T.STRING, "x"), (T.BYTES, b"\x01\x02"), (T.Decimal(4, 2), Decimal("12.34")),
    (T.DATE, 19000), (T.TIMESTAMP, 1_700_000_000_000),
    (T.Struct((("A", T.INTEGER), ("B", T.STRING))), {"A": 1, "B": "b"}),
]


def _framed(schema: Any, sid: int, datum: Any) -> bytes:
    out = io.BytesIO()
    out.write(struct.pack(">bI", 0, sid))
    fastavro.schemaless_writer(out, fastavro.parse_schema(strip_logical(schema), _write_hint=False), datum)
    return out.getvalue()


@pytest.mark.parametrize(("t", "v"), KEYS, ids=[f"{t}-{v!r}" for t, v in KEYS])
def test_an_avro_key_of_either_release_rekeys_to_the_current_store_key(t: T.SqlType, v: Any) -> None:
    bare = avro_schema([("K", t)], wrap=False)
    names: dict[str, Any] = {}
    datum = to_avro(bare, v, t, names)
    current = store_encoder("AVRO", key_encoder("AVRO", [t]))((v,))
    assert current[:1] == TAG
    convert = rekey("AVRO", [t])
    assert convert is not None
    assert convert(current) is None  # already current
    assert convert(_framed(["null", bare], 41, datum)) == current  # the earlier release: a union root
    assert convert(_framed(bare, 3, datum)) == current  # framed bare bytes, any schema id


def test_store_keys_do_not_depend_on_the_registry() -> None:
    other = EmbeddedSchemaRegistry()
    for i in range(5):
        other.register("x-key", f'{{"type": "record", "name": "R{i}", "fields": []}}', "AVRO")
    for fmt in ("AVRO", "JSON_SR", "PROTOBUF"):
        for t, v in ((T.INTEGER, 5), (T.STRING, "abc")):
            a = key_serde(fmt, [("K", t)], registry=EmbeddedSchemaRegistry(), topic="a").serialize((v,))
            b = key_serde(fmt, [("K", t)], registry=other, topic="b").serialize((v,))
            assert a != b  # the framing differs (schema ids)
            convert = rekey(fmt, [t])
            assert convert is not None
            assert convert(a) == convert(b) == store_encoder(fmt, key_encoder(fmt, [t]))((v,))


def test_store_keys_keep_the_formats_order() -> None:
    keys = [1, 2, 10, 300, 70000]
    for fmt in ("AVRO", "JSON_SR", "PROTOBUF"):
        framed = [key_encoder(fmt, [T.INTEGER])((k,)) for k in keys]
        stored = [store_encoder(fmt, key_encoder(fmt, [T.INTEGER]))((k,)) for k in keys]
        assert sorted(range(len(keys)), key=lambda i: framed[i]) == sorted(range(len(keys)), key=lambda i: stored[i])


def test_formats_without_a_registry_keep_their_bytes() -> None:
    for fmt in ("KAFKA", "JSON", "DELIMITED"):
        enc = key_encoder(fmt, [T.INTEGER])
        assert store_encoder(fmt, enc) is enc
        assert rekey(fmt, [T.INTEGER]) is None


class _Kv:
    """The slice of ``KeyValueStore`` the migration uses."""

    def __init__(self, entries: dict[bytes, Any]) -> None:
        self.entries = dict(entries)

    def committed_keys(self) -> Any:
        return iter(sorted(self.entries))

    def get(self, k: bytes) -> Any:
        return self.entries.get(k)

    def put(self, k: bytes, v: Any) -> None:
        self.entries[k] = v

    def delete(self, k: bytes) -> None:
        del self.entries[k]


def test_every_kind_of_join_store_entry_is_rekeyed() -> None:
    enc = key_encoder("JSON_SR", [T.INTEGER])
    old, new = enc((5,)), store_encoder("JSON_SR", enc)((5,))
    fk_old = key_encoder("AVRO", [T.STRING])(("f",))
    fk_new = store_encoder("AVRO", key_encoder("AVRO", [T.STRING]))(("f",))
    i = struct.Struct(">I").pack
    kv = _Kv({
        b"\x00observed": 1,
        b"\x01" + b"S" * 8 + i(len(old)) + old + b"T" * 12: "window",
        b"\x02" + b"T" * 8 + b"\x01" + old: "outer",
        b"\x03" + old: "table",
        b"\x04" + old: "result",
        b"\x05" + i(len(fk_old)) + fk_old + old: "subscription",
        b"\x03" + new: "current",
    })
    assert migrate_store(kv, rekey("JSON_SR", [T.INTEGER]), rekey("AVRO", [T.STRING])) == 5
    assert kv.entries == {
        b"\x00observed": 1,
        b"\x01" + b"S" * 8 + i(len(new)) + new + b"T" * 12: "window",
        b"\x02" + b"T" * 8 + b"\x01" + new: "outer",
        b"\x03" + new: "current",  # (one key in both forms: the current one is the later)
        b"\x04" + new: "result",
        b"\x05" + i(len(fk_new)) + fk_new + new: "subscription",
    }


@pytest.mark.parametrize("fmt", ["AVRO", "JSON_SR", "PROTOBUF"])
def test_repartition_keys_are_placed_alike_in_every_process(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The keys of a join's and a GROUP BY's repartition topics: the process-local registry numbers schemas
    in the order of first use, so another schema used first (another query's key) gave the same key
    another id - and another partition, away from its stored rows."""
    import ksqlpy.serde as serde_pkg
    from ksqlpy.log.partitioner import partition_for_key
    from ksqlpy.runtime.aggregate import key_bytes

    def encoded() -> tuple[list[bytes], list[bytes]]:
        join = key_encoder(fmt, [T.INTEGER])
        group = key_bytes([("K", T.INTEGER)], fmt, None)
        return [join((k,)) for k in range(20)], [group((k,)) for k in range(20)]

    monkeypatch.setattr(serde_pkg, "_LOCAL", [])
    first = encoded()
    busy = EmbeddedSchemaRegistry()
    for i in range(3):
        busy.register("other-key", f'{{"type": "record", "name": "R{i}", "fields": []}}', "AVRO")
    monkeypatch.setattr(serde_pkg, "_LOCAL", [busy])
    assert encoded() == first
    assert first[0][7][1:5] == b"\x00\x00\x00\x01"  # the id the first schema of a process got
    assert [partition_for_key(b, 4) for b in first[0]] == [partition_for_key(b, 4) for b in encoded()[0]]
