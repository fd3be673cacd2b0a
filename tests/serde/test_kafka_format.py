"""KAFKA format: Kafka's standard primitive serializers, one column."""

from __future__ import annotations

import math
import struct

import pytest

from ksqlpy.serde import SerdeError, key_serde, value_serde
from ksqlpy.types import BIGINT, BYTES, DOUBLE, INTEGER, STRING


@pytest.mark.parametrize("t,value,raw", [
    (INTEGER, 33, b"\x00\x00\x00\x21"),
    (INTEGER, -1, b"\xff\xff\xff\xff"),
    (BIGINT, 998877665544332211, struct.pack(">q", 998877665544332211)),
    (DOUBLE, 654.321, struct.pack(">d", 654.321)),
    (STRING, "h\u00e9", "h\u00e9".encode()),
    (STRING, "", b""),
    (BYTES, b"\x00\x01", b"\x00\x01"),
])
def test_round_trip(t, value, raw: bytes) -> None:
    for s in (value_serde("KAFKA", [("V", t)]), key_serde("KAFKA", [("K", t)])):
        assert s.serialize((value,)) == raw
        assert s.deserialize(raw) == (value,)


def test_nulls() -> None:
    s = key_serde("KAFKA", [("K", STRING)])
    assert s.serialize((None,)) is None
    assert s.deserialize(None) is None
    v = value_serde("KAFKA", [("V", INTEGER)])
    assert v.serialize(None) is None and v.deserialize(None) is None


def test_wrong_sizes_are_errors() -> None:
    with pytest.raises(SerdeError, match="Size of data received by IntegerDeserializer is not 4"):
        value_serde("KAFKA", [("V", INTEGER)]).deserialize(b"\x00\x01")
    with pytest.raises(SerdeError, match="LongDeserializer is not 8"):
        value_serde("KAFKA", [("V", BIGINT)]).deserialize(b"")
    rows, errors = value_serde("KAFKA", [("V", DOUBLE)]).deserialize_batch([b"1234", struct.pack(">d", 1.5)])
    assert rows == [None, (1.5,)] and errors[0][0] == 0


def test_out_of_range_int_cannot_be_written() -> None:
    with pytest.raises(SerdeError, match="INTEGER"):
        value_serde("KAFKA", [("V", INTEGER)]).serialize((2**31,))


def test_invalid_utf8_reads_with_replacement_like_java() -> None:
    assert value_serde("KAFKA", [("V", STRING)]).deserialize(b"a\xffb") == ("a\ufffdb",)


def test_special_doubles() -> None:
    s = value_serde("KAFKA", [("V", DOUBLE)])
    (nan,) = s.deserialize(s.serialize((math.nan,)))
    assert nan != nan
    assert s.deserialize(s.serialize((-math.inf,))) == (-math.inf,)


def test_keyless_key() -> None:
    k = key_serde("KAFKA", [])
    assert k.serialize(()) is None
    assert k.deserialize(b"whatever") == ()


def test_string_batches_read_and_write_as_record_by_record() -> None:
    """A STRING batch is decoded and encoded in one C loop; the same values as one record at a time
    (invalid UTF-8 as U+FFFD, memoryviews, nulls), and the batch refuses what a record refuses."""
    import random

    rng = random.Random(7)
    datas: list = [b"", b"a\xffb", "h\u00e9\U0001f600".encode(), memoryview(b"view"), b"\xed\xa0\x80", b"\x00"]
    datas += [bytes(rng.randrange(256) for _ in range(rng.randrange(12))) for _ in range(300)]
    for s in (value_serde("KAFKA", [("V", STRING)]), key_serde("KAFKA", [("K", STRING)])):
        expect = [s.deserialize(d) for d in datas]
        assert s.deserialize_batch(datas) == (expect, [])
        assert s.deserialize_batch(datas + [None]) == (expect + [None], [])
        assert s.serialize_batch(expect) == [s.serialize(r) for r in expect]
    v = value_serde("KAFKA", [("V", STRING)])
    assert v.serialize_batch([("a",), (None,), None]) == [b"a", None, None]
    # a lone surrogate (half of a character cut by SUBSTRING) has no UTF-8 form: String.getBytes writes '?'
    assert v.serialize_batch([("a",), ("\ud800",)]) == [b"a", b"?"]
