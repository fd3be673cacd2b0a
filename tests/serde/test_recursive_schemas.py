"""A schema whose type contains itself has no SQL type: each format's inference refuses it with
UnreadableSchemaError instead of recursing until the interpreter (or, with a raised recursion limit, the
process) dies; a type used twice without a cycle is fine."""

from __future__ import annotations

import pytest

from ksqlpy import types as T
from ksqlpy.serde.avro_format import sql_type_of as avro_type
from ksqlpy.serde.base import UnreadableSchemaError
from ksqlpy.serde.protobuf_schema import parse_proto
from ksqlpy.serde.protobuf_types import sql_type_of as proto_type


def test_avro_record_containing_itself_is_refused() -> None:
    node = {"type": "record", "name": "Node", "fields": [{"name": "v", "type": "int"},
                                                        {"name": "next", "type": ["null", "Node"]}]}
    with pytest.raises(UnreadableSchemaError, match="record Node contains itself"):
        avro_type(node)


def test_avro_record_used_twice_is_no_cycle() -> None:
    schema = {"type": "record", "name": "R", "fields": [
        {"name": "a", "type": {"type": "record", "name": "P", "fields": [{"name": "x", "type": "int"}]}},
        {"name": "b", "type": "P"}]}
    p = T.Struct((("X", T.INTEGER),))
    assert avro_type(schema) == T.Struct((("A", p), ("B", p)))


def test_protobuf_message_containing_itself_is_refused() -> None:
    file = parse_proto('syntax = "proto3"; message A { B b = 1; } message B { repeated A a = 1; }')
    with pytest.raises(UnreadableSchemaError, match="message A contains itself"):
        proto_type(file, file.message(None))


def test_protobuf_message_used_twice_is_no_cycle() -> None:
    file = parse_proto('syntax = "proto3"; message R { P a = 1; P b = 2; } message P { int32 x = 1; }')
    p = T.Struct((("X", T.INTEGER),))
    assert proto_type(file, file.message(None)) == T.Struct((("A", p), ("B", p)))
