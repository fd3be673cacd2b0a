"""PROTOBUF_NOSR single columns written unwrapped (a single key; a value with WRAP_SINGLE_VALUE=false).

The Connect schema ksqlDB's ProtobufNoSRConverter hands to ProtobufData is then the column's own schema:
a STRUCT column is the root message itself (its fields numbered from 1), not a message holding it as
field 1. Other types keep the one-field message. NULL is no message (null bytes). From memory of ksqlDB's
ConnectFormat (applySinglesUnwrapping), ProtobufNoSRConverter and Confluent's ProtobufData (a root STRUCT
schema is the message).
"""

from __future__ import annotations

import pytest

from ksqlpy import types as T
from ksqlpy.serde import key_serde, value_serde

INNER = T.Struct((("A", T.INTEGER), ("B", T.STRING)))
NESTED = T.Struct((("X", T.BIGINT), ("S", INNER)))
# field 1 = varint 5, field 2 = "hi"
INNER_BYTES = b"\x08\x05\x12\x02hi"


def test_unwrapped_struct_value_is_the_root_message() -> None:
    serde = value_serde("PROTOBUF_NOSR", [("V", INNER)], wrap_single_value=False)
    assert serde.serialize(({"A": 5, "B": "hi"},)) == INNER_BYTES
    assert serde.deserialize(INNER_BYTES) == ({"A": 5, "B": "hi"},)


def test_wrapped_struct_value_is_field_one() -> None:
    serde = value_serde("PROTOBUF_NOSR", [("V", INNER)], wrap_single_value=True)
    wrapped = b"\x0a" + bytes([len(INNER_BYTES)]) + INNER_BYTES
    assert serde.serialize(({"A": 5, "B": "hi"},)) == wrapped
    assert serde.deserialize(wrapped) == ({"A": 5, "B": "hi"},)


def test_single_struct_key_is_the_root_message() -> None:
    serde = key_serde("PROTOBUF_NOSR", [("K", NESTED)])
    row = ({"X": 7, "S": {"A": 5, "B": "hi"}},)
    data = b"\x08\x07\x12" + bytes([len(INNER_BYTES)]) + INNER_BYTES
    assert serde.serialize(row) == data
    assert serde.deserialize(data) == row


def test_unwrapped_struct_reads_like_the_columns_of_its_fields() -> None:
    """The root message's fields are what a multi-column value of the same fields reads."""
    data = value_serde("PROTOBUF_NOSR", [("V", INNER)], wrap_single_value=False).serialize(({"A": 5, "B": "hi"},))
    assert value_serde("PROTOBUF_NOSR", [("A", T.INTEGER), ("B", T.STRING)]).deserialize(data) == (5, "hi")


def test_unwrapped_struct_null_is_null_bytes_and_defaults_are_empty() -> None:
    serde = value_serde("PROTOBUF_NOSR", [("V", INNER)], wrap_single_value=False)
    assert serde.serialize((None,)) is None
    assert serde.deserialize(None) is None
    assert serde.serialize(({"A": 0, "B": None},)) == b""
    assert serde.deserialize(b"") == ({"A": 0, "B": ""},)


@pytest.mark.parametrize(("nullable", "data"), [
    ("OPTIONAL", b"\x08\x00"),        # a present default is written
    ("WRAPPER", b"\x0a\x00"),         # an Int32Value wrapper holding the default
])
def test_unwrapped_struct_nullable_representation_applies_to_its_fields(nullable: str, data: bytes) -> None:
    serde = value_serde("PROTOBUF_NOSR", [("V", INNER)], wrap_single_value=False, nullable=nullable)
    assert serde.serialize(({"A": 0, "B": None},)) == data
    assert serde.deserialize(data) == ({"A": 0, "B": None},)


@pytest.mark.parametrize(("column", "value", "data"), [
    (T.INTEGER, 5, b"\x08\x05"),
    (T.STRING, "hi", b"\x0a\x02hi"),
    (T.Array(T.INTEGER), [1, 2], b"\x0a\x02\x01\x02"),
])
def test_other_unwrapped_types_stay_a_one_field_message(column: T.SqlType, value: object, data: bytes) -> None:
    for serde in (value_serde("PROTOBUF_NOSR", [("V", column)], wrap_single_value=False),
                  key_serde("PROTOBUF_NOSR", [("V", column)])):
        assert serde.serialize((value,)) == data
        assert serde.deserialize(data) == (value,)
