"""A DECIMAL in protobuf: the ``confluent.field_meta`` option as Confluent's ProtobufSchema prints it, and the
``confluent.type.Decimal`` message a value is written as (the value's own precision, the column's scale), in
PROTOBUF, PROTOBUF_NOSR and the protobuf query responses alike."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ksqlpy import types as T
from ksqlpy.schema_registry import EmbeddedSchemaRegistry
from ksqlpy.serde import value_serde
from ksqlpy.serde.protobuf_schema import parse_proto
from ksqlpy.serde.protobuf_types import schema_text, value_precision
from ksqlpy.serde.protobuf_wire import decode, unframe

OPTION_4_2 = ('[(confluent.field_meta) = {\n    params: [\n      {\n        key: "precision",\n        value: "4"\n'
              '      },\n      {\n        key: "scale",\n        value: "2"\n      }\n    ]\n  }];\n')


def test_the_option_is_a_map_printed_over_several_lines() -> None:
    text = schema_text([("D", T.Decimal(4, 2))])
    assert text == ('syntax = "proto3";\n\nimport "confluent/meta.proto";\nimport "confluent/type/decimal.proto";\n\n'
                    "message ConnectDefault1 {\n  confluent.type.Decimal D = 1 " + OPTION_4_2 + "}\n")


def test_the_option_lines_follow_the_field_in_a_nested_message_and_on_repeated_and_map_fields() -> None:
    text = schema_text([("S", T.Struct((("D", T.Decimal(10, 3)),))), ("A", T.Array(T.Decimal(3, 1))),
                        ("M", T.Map(T.STRING, T.Decimal(5, 0)))], map_entries=False)
    assert ('    confluent.type.Decimal D = 1 [(confluent.field_meta) = {\n      params: [\n        {\n'
            '          key: "precision",\n          value: "10"\n        },\n') in text
    assert '\n    }];\n  }\n}\n' in text  # the nested field's option closes at its indent
    assert '  repeated confluent.type.Decimal A = 2 [(confluent.field_meta) = {\n    params: [\n' in text
    assert '  map<string, confluent.type.Decimal> M = 3 [(confluent.field_meta) = {\n' in text


def test_the_printed_schema_reads_back_as_the_columns() -> None:
    cols = [("D", T.Decimal(4, 2)), ("S", T.Struct((("E", T.Decimal(10, 3)),))), ("A", T.Array(T.Decimal(3, 1)))]
    file = parse_proto(schema_text(cols))
    params = {f.name: f.params for f in file.messages[0].fields}
    assert params["D"] == {"precision": "4", "scale": "2"} and params["A"] == {"precision": "3", "scale": "1"}
    nested = file.types[file.messages[0].fields[1].type]
    assert nested.fields[0].params == {"precision": "10", "scale": "3"}


@pytest.mark.parametrize(("unscaled", "precision"), [(150, 3), (-150, 3), (0, 1), (5, 1), (1234567890, 10)])
def test_value_precision_is_the_digits_of_the_unscaled_value(unscaled: int, precision: int) -> None:
    assert value_precision(unscaled) == precision


@pytest.mark.parametrize("fmt", ["PROTOBUF", "PROTOBUF_NOSR"])
@pytest.mark.parametrize(("value", "raw", "precision"), [
    (Decimal("1.50"), b"\x00\x96", 3), (Decimal("-1.50"), b"\xff\x6a", 3), (Decimal("0.00"), b"\x00", 1),
    (Decimal("99.99"), b"\x27\x0f", 4)])
def test_the_message_holds_the_values_precision_and_the_columns_scale(fmt: str, value: Decimal, raw: bytes,
                                                                        precision: int) -> None:
    cols = [("D", T.Decimal(4, 2))]
    if fmt == "PROTOBUF":
        serde = value_serde(fmt, cols, registry=EmbeddedSchemaRegistry(), topic="t")
        payload = unframe(serde.serialize((value,)))[2]
    else:
        serde = value_serde(fmt, cols)
        payload = serde.serialize((value,))
    file = parse_proto(schema_text(cols))
    assert decode(file, file.messages[0], payload) == {"D": {"value": raw, "precision": precision, "scale": 2}}
    assert serde.deserialize(serde.serialize((value,))) == (value,)
