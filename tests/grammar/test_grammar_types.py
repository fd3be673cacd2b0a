"""Type strings and schema strings parse into ksqlpy types."""

from __future__ import annotations

import pytest

from ksqlpy import types as T
from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import ast as A
from ksqlpy.grammar import parse_duration_nanos, parse_duration_text, parse_schema, parse_type


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("BOOLEAN", T.BOOLEAN),
        ("int", T.INTEGER),
        ("INTEGER", T.INTEGER),
        ("BIGINT", T.BIGINT),
        ("DOUBLE", T.DOUBLE),
        ("VARCHAR", T.STRING),
        ("STRING", T.STRING),
        ("BYTES", T.BYTES),
        ("DATE", T.DATE),
        ("TIME", T.TIME),
        ("TIMESTAMP", T.TIMESTAMP),
        ("DECIMAL(4, 2)", T.Decimal(4, 2)),
        ("ARRAY<STRING>", T.Array(T.STRING)),
        ("MAP<STRING, ARRAY<INT>>", T.Map(T.STRING, T.Array(T.INTEGER))),
        ("STRUCT<A INT, `b` ARRAY<STRING>>", T.Struct((("A", T.INTEGER), ("b", T.Array(T.STRING))))),
        ("STRUCT<>", T.Struct(())),
        ("ARRAY<STRUCT<>>", T.Array(T.Struct(()))),
        ("VARCHAR(STRING)", T.STRING),
        ("my_type", A.TypeName("MY_TYPE")),
        ("`MyType`", A.TypeName("MyType")),
        ("STRUCT<key STRING, value BYTES>", T.Struct((("KEY", T.STRING), ("VALUE", T.BYTES)))),
    ],
)
def test_parse_type(text: str, expected: T.SqlType) -> None:
    assert parse_type(text) == expected


@pytest.mark.parametrize(
    "text", ["NULL", "ARRAY<NULL>", "MAP<STRING, NULL>", "STRUCT<f NULL>", "DECIMAL", "INT (KEY)", "INT INT"]
)
def test_invalid_types(text: str) -> None:
    with pytest.raises(KsqlParseError):
        parse_type(text)


def test_parse_schema_with_constraints() -> None:
    columns = parse_schema(
        "`ID` BIGINT KEY, V0 INT, `k2` STRING PRIMARY KEY, H ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS, "
        "H1 BYTES HEADER('a')"
    )
    assert [(c.name, c.type, c.key, c.primary_key) for c in columns[:3]] == [
        ("ID", T.BIGINT, True, False),
        ("V0", T.INTEGER, False, False),
        ("k2", T.STRING, True, True),
    ]
    assert columns[3].headers and columns[4].header_key == "a"
    assert parse_schema("") == []
    with pytest.raises(KsqlParseError):
        parse_schema("A INT B INT")


def test_duration_text() -> None:
    assert parse_duration_text("20 SECONDS") == 20_000
    assert parse_duration_text("1 hour") == 3_600_000
    assert parse_duration_text("5 MILLISECONDS") == 5
    with pytest.raises(ValueError, match=r"Invalid duration: '30 bobs'. Unknown time unit: 'BOBS'"):
        parse_duration_text("30 bobs")
    with pytest.raises(ValueError, match="Expected 2 tokens"):
        parse_duration_text("30")


@pytest.mark.parametrize(("text", "nanos", "millis"), [
    # exact in nanoseconds, milliseconds truncated toward zero as Java's Duration.toMillis
    ("10 NANOSECONDS", 10, 0),
    ("1500000 nanosecond", 1_500_000, 1),
    ("-1500000 NANOSECONDS", -1_500_000, -1),
    ("7000001 NANOSECONDS", 7_000_001, 7),
    ("3 microseconds", 3_000, 0),
    ("-0 SECONDS", 0, 0),
    ("9223372036854775807 MILLISECONDS", 9_223_372_036_854_775_807_000_000, 9_223_372_036_854_775_807),
    ("2 DAYS", 172_800_000_000_000, 172_800_000),
])
def test_duration_nanos_and_millis(text: str, nanos: int, millis: int) -> None:
    assert parse_duration_nanos(text) == nanos
    assert parse_duration_text(text) == millis


@pytest.mark.parametrize(("text", "expected"), [
    # SqlBase.g4's left-recursive ``type ARRAY`` (from memory; kept from Presto's grammar): T ARRAY is ARRAY<T>
    ("INT ARRAY", T.Array(T.INTEGER)),
    ("STRING ARRAY ARRAY", T.Array(T.Array(T.STRING))),
    ("STRUCT<A INT> ARRAY", T.Array(T.Struct((("A", T.INTEGER),)))),
    ("MAP<STRING, DECIMAL(3, 1) ARRAY>", T.Map(T.STRING, T.Array(T.Decimal(3, 1)))),
    ("ARRAY<BIGINT> ARRAY", T.Array(T.Array(T.BIGINT))),
])
def test_a_postfix_array(text: str, expected: T.SqlType) -> None:
    assert parse_type(text) == expected
