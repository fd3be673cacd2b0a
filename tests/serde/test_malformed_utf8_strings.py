"""Text read from bytes that are not UTF-8 becomes what Java's ``new String(bytes, UTF_8)`` makes of them, in
every format whose reader decodes the bytes itself (KAFKA, DELIMITED, PROTOBUF, PROTOBUF_NOSR): each malformed
sequence is one U+FFFD - a 3-byte sequence encoding a surrogate (ED A0 80) included, which Python's own
'replace' turns into three - and the record is read, not refused (ksqlDB's deserializers build the String
first; a DELIMITED record was refused as "not UTF-8" here)."""

from __future__ import annotations

import pytest

from ksqlpy import types as T
from ksqlpy.schema_registry import EmbeddedSchemaRegistry
from ksqlpy.serde import value_serde

# (bytes, what Java reads)
MALFORMED = [
    (b"a\xed\xa0\x80b", "a\ufffdb"),  # a surrogate's CESU-8 form: one malformed character in Java
    (b"a\xffb", "a\ufffdb"),
    (b"\xe2\x82", "\ufffd"),  # a truncated sequence
    (b"ok \xc3\xa9", "ok \u00e9"),  # valid UTF-8 unchanged
]


def _inner(raw: bytes) -> bytes:
    """A protobuf message whose field 1 (a string) holds ``raw``."""
    assert len(raw) < 128
    return b"\x0a" + bytes([len(raw)]) + raw


@pytest.mark.parametrize(("raw", "text"), MALFORMED)
def test_kafka_string(raw: bytes, text: str) -> None:
    s = value_serde("KAFKA", [("V", T.STRING)])
    assert s.deserialize(raw) == (text,)
    assert s.deserialize_batch([raw, raw]) == ([(text,), (text,)], [])


@pytest.mark.parametrize(("raw", "text"), MALFORMED)
def test_delimited(raw: bytes, text: str) -> None:
    s = value_serde("DELIMITED", [("V", T.STRING), ("N", T.INTEGER)])
    assert s.deserialize(raw + b",7") == (text, 7)
    assert s.deserialize_batch([raw + b",7"]) == ([(text, 7)], [])


@pytest.mark.parametrize(("raw", "text"), MALFORMED)
def test_protobuf_nosr(raw: bytes, text: str) -> None:
    s = value_serde("PROTOBUF_NOSR", [("V", T.STRING)])
    assert s.deserialize(_inner(raw)) == (text,)


@pytest.mark.parametrize(("raw", "text"), MALFORMED)
def test_protobuf(raw: bytes, text: str) -> None:
    s = value_serde("PROTOBUF", [("V", T.STRING)], registry=EmbeddedSchemaRegistry(), topic="t")
    framed = s.serialize(("x",))
    header = framed[: framed.index(_inner(b"x"))]
    assert s.deserialize(header + _inner(raw)) == (text,)
