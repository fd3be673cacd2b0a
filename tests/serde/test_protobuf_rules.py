"""Protobuf rules over both protobuf formats: map keys are strings, an unset bytes field reads NULL, the
nullable representation (OPTIONAL / WRAPPER) makes primitive fields NULL-able in PROTOBUF_NOSR too, and
field options parse whatever order they are written in."""

from __future__ import annotations

import pytest

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError
from ksqlpy.schema_registry import EmbeddedSchemaRegistry
from ksqlpy.schema_registry.sources import sql_type_of
from ksqlpy.serde import check_format, value_serde
from ksqlpy.serde.formats import type_text
from ksqlpy.serde.protobuf_schema import parse_proto

PROTOBUFS = ["PROTOBUF", "PROTOBUF_NOSR"]
MAP_KEY_MESSAGE = ("PROTOBUF format only supports MAP types with STRING keys. "
                   "See https://github.com/confluentinc/ksql/issues/6177.")


@pytest.mark.parametrize("fmt", PROTOBUFS)
@pytest.mark.parametrize("t", [
    T.Map(T.INTEGER, T.STRING), T.Map(T.BIGINT, T.INTEGER), T.Array(T.Map(T.BOOLEAN, T.INTEGER)),
    T.Struct((("M", T.Map(T.INTEGER, T.INTEGER)),)), T.Map(T.STRING, T.Map(T.INTEGER, T.INTEGER)),
])
def test_map_keys_are_strings(fmt: str, t: T.SqlType) -> None:
    with pytest.raises(KsqlStatementError) as err:
        check_format(fmt, is_key=False, columns=[("V", t)])
    assert str(err.value) == (f"Value format does not support schema.\nformat: {fmt}\n"
                              f"schema: Persistence{{columns=[`V` {type_text(t)}], features=[]}}\n"
                              f"reason: {MAP_KEY_MESSAGE}")


@pytest.mark.parametrize("fmt", PROTOBUFS)
def test_string_keyed_maps_are_fine(fmt: str) -> None:
    check_format(fmt, is_key=False, columns=[("V", T.Map(T.STRING, T.Struct((("M", T.Map(T.STRING, T.INTEGER)),))))])


def _serde(fmt: str, cols: list[tuple[str, T.SqlType]], nullable: str | None = None):  # type: ignore[no-untyped-def]
    registry = EmbeddedSchemaRegistry() if fmt == "PROTOBUF" else None
    return value_serde(fmt, cols, registry=registry, topic="t", nullable=nullable)


@pytest.mark.parametrize("fmt", PROTOBUFS)
def test_an_unset_bytes_field_reads_null(fmt: str) -> None:
    s = _serde(fmt, [("B", T.BYTES), ("I", T.INTEGER), ("S", T.STRING)])
    assert s.deserialize(s.serialize((None, None, None))) == (None, 0, "")
    assert s.deserialize(s.serialize((b"", 0, ""))) == (None, 0, "")
    assert s.deserialize(s.serialize((b"\x01", 1, "x"))) == (b"\x01", 1, "x")


PRIMITIVES = [("I", T.INTEGER), ("L", T.BIGINT), ("D", T.DOUBLE), ("B", T.BOOLEAN), ("S", T.STRING), ("Y", T.BYTES)]
NESTED = [("ST", T.Struct(tuple(PRIMITIVES)))]
DEFAULTS = (0, 0, 0.0, False, "", b"")


@pytest.mark.parametrize("fmt", PROTOBUFS)
@pytest.mark.parametrize("nullable", ["OPTIONAL", "WRAPPER", "optional"])
def test_a_nullable_representation_keeps_null_and_default_apart(fmt: str, nullable: str) -> None:
    s = _serde(fmt, PRIMITIVES + NESTED, nullable)
    nulls = (None,) * len(PRIMITIVES)
    struct_nulls = dict.fromkeys([n for n, _ in PRIMITIVES])
    struct_defaults = dict(zip([n for n, _ in PRIMITIVES], DEFAULTS, strict=True))
    assert s.deserialize(s.serialize((*nulls, struct_nulls))) == (*nulls, struct_nulls)
    assert s.deserialize(s.serialize((*DEFAULTS, struct_defaults))) == (*DEFAULTS, struct_defaults)


def test_wrapped_fields_are_wrapper_messages_on_the_wire() -> None:
    s = _serde("PROTOBUF_NOSR", [("I", T.INTEGER), ("S", T.STRING)], "WRAPPER")
    assert s.serialize((150, "a")) == bytes([0x0A, 0x03, 0x08, 0x96, 0x01, 0x12, 0x03, 0x0A, 0x01, 0x61])
    assert s.serialize((0, None)) == bytes([0x0A, 0x00])  # a present default: an empty wrapper
    optional = _serde("PROTOBUF_NOSR", [("I", T.INTEGER)], "OPTIONAL")
    assert optional.serialize((0,)) == bytes([0x08, 0x00])  # written although it is the default
    plain = _serde("PROTOBUF_NOSR", [("I", T.INTEGER)])
    assert plain.serialize((0,)) == b"" and plain.deserialize(b"") == (0,)


DECIMALS = """syntax = "proto3";
import "confluent/meta.proto";
import "confluent/type/decimal.proto";
message M {
  confluent.type.Decimal A = 1 [(confluent.field_meta) = { params: [{ key: "precision", value: "4" }, { key: "scale", value: "2" }] }];
  confluent.type.Decimal B = 2 [(confluent.field_meta) = { params: [{ value: "2", key: "scale" }, { value: "4", key: "precision" }] }];
  confluent.type.Decimal C = 3 [deprecated = true, (confluent.field_meta) = { doc: "d", params: [{ key: "scale", value: "2" }, { key: "precision", value: "4" }] }];
  confluent.type.Decimal D = 4 [(confluent.field_meta).params = { value: "4", key: "precision" }, (confluent.field_meta).params = { key: "scale", value: "2" }];
}
"""


def test_field_options_parse_in_any_order() -> None:
    fields = parse_proto(DECIMALS).messages[0].fields
    assert [f.params for f in fields] == [{"precision": "4", "scale": "2"}] * 4
    registry = EmbeddedSchemaRegistry()
    registry.register("t-value", DECIMALS, "PROTOBUF")
    assert list(sql_type_of(registry.latest("t-value")).fields) == [(n, T.Decimal(4, 2)) for n in "ABCD"]
