"""PROTOBUF_NOSR: wire bytes, proto3 null defaults, every type through the engine serde and the harness codec."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from ksqlpy import types as T
from ksqlpy.serde import value_serde
from ksqlpy.testing.protobuf_codec import ProtobufNoSrCodec


def test_the_classic_wire_example() -> None:
    s = value_serde("PROTOBUF_NOSR", [("A", T.INTEGER)])
    assert s.serialize((150,)) == bytes([0x08, 0x96, 0x01])
    assert s.deserialize(bytes([0x08, 0x96, 0x01])) == (150,)


def test_nulls_are_absent_and_read_back_as_proto3_defaults_but_bytes() -> None:
    cols = [("I", T.INTEGER), ("L", T.BIGINT), ("D", T.DOUBLE), ("S", T.STRING), ("B", T.BOOLEAN),
            ("Y", T.BYTES), ("A", T.Array(T.INTEGER)), ("M", T.Map(T.STRING, T.INTEGER)),
            ("TS", T.TIMESTAMP), ("DEC", T.Decimal(4, 2))]
    s = value_serde("PROTOBUF_NOSR", cols)
    assert s.serialize((None,) * len(cols)) == b""
    assert s.deserialize(b"") == (0, 0, 0.0, "", False, None, [], {}, None, None)  # unset BYTES: NULL


def test_every_type_round_trips() -> None:
    struct = T.Struct((("X", T.INTEGER), ("Y", T.STRING)))
    cols = [("I", T.INTEGER), ("NEG", T.INTEGER), ("L", T.BIGINT), ("D", T.DOUBLE), ("S", T.STRING),
            ("B", T.BOOLEAN), ("Y", T.BYTES), ("DEC", T.Decimal(5, 2)), ("NDEC", T.Decimal(5, 2)),
            ("DATE", T.DATE), ("TIME", T.TIME), ("TS", T.TIMESTAMP), ("ARR", T.Array(T.BIGINT)),
            ("SARR", T.Array(T.STRING)), ("M", T.Map(T.STRING, T.DOUBLE)), ("ST", struct),
            ("SA", T.Array(struct))]
    row = (7, -3, 2**40, 1.5, "héllo", True, b"\x00\x01", Decimal("123.45"), Decimal("-0.50"), -10,
           45_296_789, 1_526_075_913_123, [1, -1, 300], ["a", "", "c"], {"k": 2.5}, {"X": -1, "Y": "y"},
           [{"X": 1, "Y": "a"}, {"X": 2, "Y": "b"}])
    s = value_serde("PROTOBUF_NOSR", cols)
    data = s.serialize(row)
    assert s.deserialize(data) == row
    columns = [SimpleNamespace(name=n, type=t) for n, t in cols]
    decoded = ProtobufNoSrCodec(columns).decode(data)
    assert decoded["NEG"] == -3 and decoded["DEC"] == Decimal("123.45") and decoded["DATE"] == -10
    assert decoded["TS"] == 1_526_075_913_123 and decoded["TIME"] == 45_296_789
    assert decoded["SA"] == [{"X": 1, "Y": "a"}, {"X": 2, "Y": "b"}]


def test_harness_codec_writes_what_the_engine_reads() -> None:
    cols = [("NAME", T.STRING), ("VALUE", T.BIGINT), ("WHEN", T.TIMESTAMP)]
    columns = [SimpleNamespace(name=n, type=t) for n, t in cols]
    data = ProtobufNoSrCodec(columns).encode({"name": "zero", "value": -5, "when": 10})
    assert value_serde("PROTOBUF_NOSR", cols).deserialize(data) == ("zero", -5, 10)


def test_unknown_fields_are_skipped() -> None:
    s = value_serde("PROTOBUF_NOSR", [("A", T.INTEGER)])
    assert s.deserialize(bytes([0x08, 0x01, 0x12, 0x01, 0x41])) == (1,)
