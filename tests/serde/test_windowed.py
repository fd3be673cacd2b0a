"""Windowed keys use Kafka Streams' layouts: time = key|start, session = key|end|start (big-endian)."""

from __future__ import annotations

import struct

import pytest

from ksqlpy.serde import SerdeError, key_serde
from ksqlpy.serde.base import FormatRuleError
from ksqlpy.types import BIGINT, INTEGER, STRING


def test_tumbling_layout_and_computed_end() -> None:
    k = key_serde("KAFKA", [("K", BIGINT)], window="TUMBLING", window_size_ms=30_000)
    data = k.serialize((10,), 60_000, 90_000)
    assert data == struct.pack(">q", 10) + struct.pack(">q", 60_000)
    assert k.deserialize(data) == ((10,), 60_000, 90_000)
    assert k.windowed


def test_hopping_end_is_start_plus_size_capped_at_long_max() -> None:
    k = key_serde("JSON", [("K", STRING)], window="hopping", window_size_ms=5)
    data = k.serialize((("a",), 2**63 - 3, None))
    assert data == b'"a"' + struct.pack(">q", 2**63 - 3)
    assert k.deserialize(data) == (("a",), 2**63 - 3, 2**63 - 1)


def test_session_layout_is_key_end_start() -> None:
    k = key_serde("KAFKA", [("K", STRING)], window="SESSION")
    data = k.serialize(("user",), 1_000, 5_000)
    assert data == b"user" + struct.pack(">q", 5_000) + struct.pack(">q", 1_000)
    assert k.deserialize(data) == (("user",), 1_000, 5_000)
    assert k.serialize((("user",), 1_000, 5_000)) == data


def test_multi_column_delimited_windowed_key() -> None:
    k = key_serde("DELIMITED", [("A", STRING), ("B", INTEGER)], window="TUMBLING", window_size_ms=1000)
    data = k.serialize(("x", 1), 0, 1000)
    assert data == b"x,1" + bytes(8)
    assert k.deserialize(data) == (("x", 1), 0, 1000)


def test_errors_and_nulls() -> None:
    t = key_serde("KAFKA", [("K", INTEGER)], window="TUMBLING", window_size_ms=10)
    s = key_serde("KAFKA", [("K", INTEGER)], window="SESSION")
    assert t.deserialize(None) is None and s.deserialize(None) is None
    with pytest.raises(SerdeError, match="too short"):
        t.deserialize(b"\x00\x01")
    with pytest.raises(SerdeError, match="too short"):
        s.deserialize(bytes(12))
    with pytest.raises(FormatRuleError, match="TUMBLING windowed keys need a positive window size"):
        key_serde("KAFKA", [("K", INTEGER)], window="TUMBLING")
    # a size under a millisecond is 0 ms: the serde exists, each key it reads is an empty window (Kafka's
    # TimeWindow refuses it), as is a window starting at Long.MAX_VALUE (its end is capped there)
    z = key_serde("KAFKA", [("K", INTEGER)], window="TUMBLING", window_size_ms=0)
    with pytest.raises(SerdeError, match="Window endMs must be greater than window startMs."):
        z.deserialize(z.serialize((1,), 5, 5))
    with pytest.raises(SerdeError, match="Window endMs must be greater than window startMs."):
        t.deserialize(t.serialize((1,), 2**63 - 1, 2**63 - 1))
    # Kafka's Window constructor: no negative start, no end before the start
    with pytest.raises(SerdeError, match="Window startMs time cannot be negative."):
        t.deserialize(t.serialize((1,), -10, 0))
    with pytest.raises(SerdeError, match="Window startMs time cannot be negative."):
        s.deserialize(s.serialize((1,), -1, 5))
    with pytest.raises(SerdeError, match="Window endMs time cannot be smaller than window startMs time."):
        s.deserialize(s.serialize((1,), 5, 4))
    assert s.deserialize(s.serialize((1,), 5, 5)) == ((1,), 5, 5)
    with pytest.raises(FormatRuleError, match="Unknown window type"):
        key_serde("KAFKA", [("K", INTEGER)], window="SLIDING", window_size_ms=1)
    keys, errors = t.deserialize_batch([t.serialize((1,), 0, 10), b"x"])
    assert keys[0] == ((1,), 0, 10) and keys[1] is None and errors[0][0] == 1
