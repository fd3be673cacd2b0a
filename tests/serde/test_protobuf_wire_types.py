"""A protobuf field sent in another wire type than its declaration is an unknown field to protobuf's parser
(Java's ``MessageReflection.mergeFieldFrom``): skipped, the field reads as unset. Both readers - the
schema-registry one (``protobuf_wire.decode``) and PROTOBUF_NOSR - at the top level and inside map entries;
a repeated scalar also takes the packed form."""

from __future__ import annotations

import pytest

from ksqlpy import types as T
from ksqlpy.serde.base import SerdeError
from ksqlpy.serde.protobuf_nosr import ProtobufNoSrSerde
from ksqlpy.serde.protobuf_schema import parse_proto
from ksqlpy.serde.protobuf_wire import decode

SCHEMA = parse_proto('syntax = "proto3"; message M { int32 A = 1; string S = 2; double D = 3; '
                     'repeated int32 L = 4; map<string, int64> P = 5; N X = 6; fixed32 F = 7; '
                     'message N { int32 Y = 1; } }')
M = SCHEMA.message(None)

VARINT_1 = b"\x08\x05"        # field 1, varint 5
LEN_1 = b"\x0a\x03abc"        # field 1, length-delimited "abc"
FIXED64_1 = b"\x09" + b"\x00" * 8  # field 1, 64-bit
FIXED64_2 = b"\x11" + b"\x00" * 8  # field 2, 64-bit
VARINT_3 = b"\x18\x07"        # field 3, varint 7
VARINT_6 = b"\x30\x01"        # field 6 (a message), varint 1
VARINT_7 = b"\x38\x01"        # field 7 (fixed32), varint 1


@pytest.mark.parametrize(("data", "absent"), [
    (LEN_1, "A"), (FIXED64_2, "S"), (VARINT_3, "D"), (VARINT_6, "X"), (VARINT_7, "F"),
])
def test_registry_reader_skips_a_field_of_another_wire_type(data: bytes, absent: str) -> None:
    assert absent not in decode(SCHEMA, M, data)


def test_registry_reader_takes_repeated_scalars_packed_or_not() -> None:
    assert decode(SCHEMA, M, b"\x20\x01\x22\x02\x02\x03")["L"] == [1, 2, 3]


def test_registry_reader_skips_map_entry_fields_of_another_wire_type() -> None:
    entry = b"\x0a\x01k" + b"\x12\x01v"  # key "k", value sent length-delimited where an int64 is declared
    assert decode(SCHEMA, M, b"\x2a" + bytes([len(entry)]) + entry)["P"] == {"k": 0}


@pytest.mark.parametrize(("column", "data", "expected"), [
    (T.INTEGER, LEN_1, 0), (T.BOOLEAN, LEN_1, False), (T.DOUBLE, VARINT_1, 0.0), (T.STRING, VARINT_1, ""),
    (T.BYTES, VARINT_1, None), (T.Struct((("Y", T.INTEGER),)), VARINT_1, None), (T.DATE, VARINT_1, None),
    (T.Array(T.DOUBLE), VARINT_1, []), (T.Map(T.STRING, T.INTEGER), VARINT_1, {}),
    (T.Array(T.INTEGER), VARINT_1, [5]), (T.Array(T.INTEGER), LEN_1, [97, 98, 99]), (T.BYTES, LEN_1, b"abc"),
])
def test_nosr_reader_skips_a_field_of_another_wire_type(column: T.SqlType, data: bytes, expected: object) -> None:
    assert ProtobufNoSrSerde([("C", column)]).deserialize(data) == (expected,)


@pytest.mark.parametrize(("nullable", "expected"), [("OPTIONAL", None), ("WRAPPER", None), (None, 0)])
def test_nosr_reader_skipped_primitive_under_each_representation(nullable: str | None, expected: object) -> None:
    assert ProtobufNoSrSerde([("C", T.INTEGER)], nullable).deserialize(FIXED64_1) == (expected,)


def test_nosr_wrapper_value_of_another_wire_type_reads_the_default() -> None:
    wrapper = b"\x0a\x02\x0a\x00"  # field 1: a wrapper message whose value is length-delimited, not a varint
    assert ProtobufNoSrSerde([("C", T.INTEGER)], "WRAPPER").deserialize(wrapper) == (0,)


GROUP_9 = b"\x4b" + b"\x08\x07" + b"\x4c"  # field 9: a group (start 3, a varint inside, end 4)


@pytest.mark.parametrize("data", [GROUP_9 + VARINT_1, VARINT_1 + GROUP_9, b"\x4b\x53\x54\x4c" + VARINT_1])
def test_groups_are_skipped_whole(data: bytes) -> None:
    """Proto2 groups (nested ones too) are never fields of ksqlDB's schemas: skipped like unknown fields."""
    assert decode(SCHEMA, M, data) == {"A": 5}
    assert ProtobufNoSrSerde([("C", T.INTEGER)]).deserialize(data) == (5,)


@pytest.mark.parametrize(("data", "message"), [
    (b"\x00\x05", "invalid tag \\(zero\\)"), (b"\x0e\x05", "invalid wire type"), (b"\x0f", "invalid wire type"),
    (b"\x4c" + VARINT_1, "end-group tag did not match"), (b"\x4b\x08\x07\x54", "end-group tag did not match"),
    (b"\x4b\x08\x07", "truncated"),
])
def test_malformed_tags_fail_the_record(data: bytes, message: str) -> None:
    """What protobuf's parser refuses (from memory of CodedInputStream's messages) fails the record."""
    with pytest.raises(SerdeError, match=message):
        decode(SCHEMA, M, data)
    with pytest.raises(SerdeError, match=message):
        ProtobufNoSrSerde([("C", T.INTEGER)]).deserialize(data)
