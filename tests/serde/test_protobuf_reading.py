"""PROTOBUF values read into declared columns: Connect's widening only, with ksqlDB's message and path."""

from __future__ import annotations

import pytest

from ksqlpy import types as T
from ksqlpy.serde.base import SerdeError
from ksqlpy.serde.protobuf_schema import parse_proto
from ksqlpy.serde.protobuf_types import message_to_row

SCHEMA = parse_proto('syntax = "proto3"; message M { int64 A = 1; N S = 2; repeated int64 L = 3; '
                     'map<string, string> P = 4; float F = 5; message N { string X = 1; } }')
M = SCHEMA.message(None)


def read(values: dict, columns: list[tuple[str, T.SqlType]]) -> tuple:
    return message_to_row(SCHEMA, M, values, columns)


def test_widening_reads() -> None:
    assert read({"A": 5, "F": 1.5}, [("A", T.BIGINT), ("F", T.DOUBLE)]) == (5, 1.5)
    assert read({"A": 5}, [("A", T.STRING)]) == ("5",)


@pytest.mark.parametrize(("values", "column", "message"), [
    ({"A": 5}, ("A", T.INTEGER), "Cannot deserialize type int64 as type int32 for path: ->A"),
    ({}, ("A", T.INTEGER), "Cannot deserialize type int64 as type int32 for path: ->A"),
    ({"S": {"X": "q"}}, ("S", T.Struct((("X", T.INTEGER),))),
     "Cannot deserialize type string as type int32 for path: ->S->X"),
    ({"L": [1]}, ("L", T.Array(T.INTEGER)), "Cannot deserialize type int64 as type int32 for path: ->L->ARRAY"),
    ({"P": {"k": "v"}}, ("P", T.Map(T.STRING, T.DOUBLE)),
     "Cannot deserialize type string as type float64 for path: ->P->MAP_VALUE"),
    ({"A": 1}, ("A", T.Array(T.BIGINT)), "Cannot deserialize type int64 as type array for path: ->A"),
    ({"L": [1]}, ("L", T.BIGINT), "Cannot deserialize type array as type int64 for path: ->L"),
    ({"F": 1.5}, ("F", T.STRING), "Cannot deserialize type float32 as type string for path: ->F"),
    ({"A": 1}, ("A", T.Decimal(4, 1)), "Cannot deserialize type int64 as type bytes for path: ->A"),
    ({"A": 1}, ("A", T.BOOLEAN), "Cannot deserialize type int64 as type boolean for path: ->A"),
    # the type is checked before the value (validateSchema): an unset message field fails as a set one
    ({}, ("S", T.STRING), "Cannot deserialize type struct as type string for path: ->S"),
    ({}, ("S", T.Map(T.STRING, T.STRING)), "Cannot deserialize type struct as type map for path: ->S"),
    # an empty repeated or map field checks no element
    ({}, ("L", T.BOOLEAN), "Cannot deserialize type array as type boolean for path: ->L"),
])
def test_other_pairings_fail_the_record(values: dict, column: tuple[str, T.SqlType], message: str) -> None:
    with pytest.raises(SerdeError) as e:
        read(values, [column])
    assert str(e.value) == message


def test_empty_repeated_and_map_fields_check_no_element() -> None:
    assert read({}, [("L", T.Array(T.BOOLEAN)), ("P", T.Map(T.STRING, T.INTEGER))]) == ([], {})


def test_an_unset_message_field_of_a_readable_type_is_null() -> None:
    assert read({}, [("S", T.Struct((("X", T.STRING),)))]) == (None,)
