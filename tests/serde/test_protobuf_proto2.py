"""What protobuf-java's parser makes of enum numbers a schema does not declare and of missing proto2
``required`` fields (DynamicMessage.parseFrom, from memory): an open (proto3) enum keeps the number as a
value named ``UNKNOWN_ENUM_VALUE_<Enum>_<n>``; a closed (proto2) enum's unknown number is an unknown field -
the field unset, the repeated element or map entry dropped; a missing required field fails the parse."""

from __future__ import annotations

import pytest

from ksqlpy.serde.base import SerdeError
from ksqlpy.serde.protobuf_schema import parse_proto
from ksqlpy.serde.protobuf_wire import decode

BODY = (b"\x08\x07"            # A = 7 (undeclared)
        b"\x12\x02\x01\x07"    # R = packed [1, 7]
        b"\x18\x07\x18\x01"    # Q = 7, 1 (unpacked)
        b"\x22\x05\x0a\x01x\x10\x07"  # MP {"x": 7}
        b"\x22\x05\x0a\x01y\x10\x01")  # MP {"y": 1}
FIELDS = "A = 1; repeated E R = 2 [packed = true]; repeated E Q = 3 [packed = false]; map<string, E> MP = 4;"


def _decode(syntax: str) -> dict:  # type: ignore[type-arg]
    label = "optional " if syntax == "proto2" else ""
    text = f'syntax = "{syntax}"; enum E {{ ZERO = 0; ONE = 1; }} message M {{ {label}E {FIELDS} }}'
    file = parse_proto(text)
    return decode(file, file.message("M"), BODY)


def test_open_enum_keeps_an_undeclared_number_as_its_own_value() -> None:
    unknown = "UNKNOWN_ENUM_VALUE_E_7"
    assert _decode("proto3") == {"A": unknown, "R": ["ONE", unknown], "Q": [unknown, "ONE"],
                                 "MP": {"x": unknown, "y": "ONE"}}


def test_closed_enum_drops_an_undeclared_number() -> None:
    assert _decode("proto2") == {"R": ["ONE"], "Q": ["ONE"], "MP": {"y": "ONE"}}


def test_a_file_without_syntax_is_proto2() -> None:
    file = parse_proto("enum E { ZERO = 0; } message M { optional E A = 1; }")
    assert decode(file, file.message("M"), b"\x08\x07") == {}


def test_missing_required_field_fails_the_parse_at_any_depth() -> None:
    file = parse_proto('syntax = "proto2"; message M { required int32 A = 1; optional N X = 2; '
                       'message N { required int32 Y = 1; } }')
    m = file.message("M")
    assert decode(file, m, b"\x08\x01") == {"A": 1}
    with pytest.raises(SerdeError, match="Message missing required fields: A"):
        decode(file, m, b"")
    with pytest.raises(SerdeError, match="Message missing required fields: Y"):
        decode(file, m, b"\x08\x01\x12\x00")


def test_fields_with_presence_are_written_at_their_default() -> None:
    from ksqlpy.serde.protobuf_wire import encode

    file = parse_proto('syntax = "proto2"; message M { required int32 A = 1; optional string B = 2; '
                       'repeated int32 C = 3; }')
    m = file.message("M")
    data = encode(file, m, {"A": 0, "B": ""})
    assert data == b"\x08\x00\x12\x00"
    assert decode(file, m, data) == {"A": 0, "B": ""}
