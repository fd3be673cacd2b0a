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
    ({"A": 5}, ("A", T.INTEGER), "Cannot deserialize type int64 as type INTEGER for path: A"),
    ({}, ("A", T.INTEGER), "Cannot deserialize type int64 as type INTEGER for path: A"),
    ({"S": {"X": "q"}}, ("S", T.Struct((("X", T.INTEGER),))),
     "Cannot deserialize type string as type INTEGER for path: S->X"),
    ({"L": [1]}, ("L", T.Array(T.INTEGER)), "Cannot deserialize type int64 as type INTEGER for path: L->ARRAY"),
    ({"P": {"k": "v"}}, ("P", T.Map(T.STRING, T.DOUBLE)),
     "Cannot deserialize type string as type DOUBLE for path: P->MAP_VALUE"),
    ({"A": 1}, ("A", T.Array(T.BIGINT)), "Cannot deserialize type int64 as type ARRAY<BIGINT> for path: A"),
    ({"L": [1]}, ("L", T.BIGINT), "Cannot deserialize type array as type BIGINT for path: L"),
    ({"F": 1.5}, ("F", T.STRING), "Cannot deserialize type float32 as type STRING for path: F"),
])
def test_other_pairings_fail_the_record(values: dict, column: tuple[str, T.SqlType], message: str) -> None:
    with pytest.raises(SerdeError) as e:
        read(values, [column])
    assert str(e.value) == message
