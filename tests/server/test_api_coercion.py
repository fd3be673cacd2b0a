"""/inserts-stream's coercion of JSON values (server/api_coercion.py): every SQL type against every kind of
JSON value Vert.x decodes (Integer, Long, BigInteger, Double, String, Boolean, object, array), what is taken
and what is refused with ksqlDB's words; field names as identifiers."""

from __future__ import annotations

import decimal
from typing import Any

import pytest

from ksqlpy import types as T
from ksqlpy.server.api_coercion import CoercionRefused, coerce, column_values

DEC = T.Decimal(4, 2)
STRUCT = T.Struct((("X", T.INTEGER), ("y", T.STRING)))
ARR = T.Array(T.INTEGER)
MAP = T.Map(T.STRING, T.INTEGER)
ALL = [T.BOOLEAN, T.INTEGER, T.BIGINT, T.DOUBLE, DEC, T.STRING, T.TIMESTAMP, T.DATE, T.TIME, T.BYTES, ARR, MAP,
       STRUCT]
VALUES: list[Any] = [True, 1, 3_000_000_000, 2 ** 70, 1.5, "x", {"X": 1}, [1]]

# (value, type) -> the coerced value; every other pair of VALUES x ALL is refused
TAKEN: dict[tuple[str, str], Any] = {
    ("True", "BOOLEAN"): True,
    ("1", "INTEGER"): 1, ("1", "BIGINT"): 1, ("1", "DOUBLE"): 1.0, ("1", "DECIMAL(4, 2)"): decimal.Decimal("1.00"),
    ("3000000000", "BIGINT"): 3_000_000_000, ("3000000000", "DOUBLE"): 3e9,
    ("1.5", "DOUBLE"): 1.5, ("1.5", "DECIMAL(4, 2)"): decimal.Decimal("1.50"),
    ("'x'", "STRING"): "x",
    ("{'X': 1}", "MAP<STRING, INTEGER>"): {"X": 1}, ("{'X': 1}", "STRUCT<`X` INTEGER, `y` STRING>"): {"X": 1, "y": None},
    ("[1]", "ARRAY<INTEGER>"): [1],
}
# (Java class, toString) of each value as Vert.x decodes it
JAVA = {"True": ("java.lang.Boolean", "true"), "1": ("java.lang.Integer", "1"),
        "3000000000": ("java.lang.Long", "3000000000"), repr(2 ** 70): ("java.math.BigInteger", str(2 ** 70)),
        "1.5": ("java.lang.Double", "1.5"), "'x'": ("java.lang.String", "x"),
        "{'X': 1}": ("io.vertx.core.json.JsonObject", '{"X":1}'), "[1]": ("io.vertx.core.json.JsonArray", "[1]")}


@pytest.mark.parametrize("t", ALL, ids=str)
@pytest.mark.parametrize("v", VALUES, ids=repr)
def test_each_json_value_against_each_type(v: Any, t: T.SqlType) -> None:
    key = (repr(v), str(t))
    if key in TAKEN:
        assert coerce(v, t) == TAKEN[key]
        return
    with pytest.raises(CoercionRefused) as e:
        coerce(v, t)
    cls, text = JAVA[repr(v)]
    assert str(e.value) == f"Can't coerce a field of type class {cls} ({text}) into type {t}"


@pytest.mark.parametrize(("text", "t", "want"), [
    ("2020-01-02T03:04:05", T.TIMESTAMP, 1577934245000), ("2020-01-02T03:04:05.006Z", T.TIMESTAMP, 1577934245006),
    ("2020-01-02", T.TIMESTAMP, 1577923200000), ("2020-01-02", T.DATE, 18263), ("03:04:05", T.TIME, 11045000),
    ("AQI=", T.BYTES, b"\x01\x02"), ("AQI", T.BYTES, b"\x01\x02"), ("aGVsbG8", T.BYTES, b"hello")])
def test_strings_become_time_types_and_bytes(text: str, t: T.SqlType, want: Any) -> None:
    assert coerce(text, t) == want


@pytest.mark.parametrize(("text", "t"), [("yesterday", T.TIMESTAMP), ("2020-13-01", T.DATE), ("25:00", T.TIME),
                                         ("not base64!", T.BYTES), ("aGVsb", T.BYTES), ("AA=", T.BYTES),
                                         ("aGVs=", T.BYTES)])
def test_strings_that_do_not_parse_are_refused(text: str, t: T.SqlType) -> None:
    with pytest.raises(CoercionRefused, match=f"Can't coerce a field of type class java.lang.String .* into type {t}"):
        coerce(text, t)


def test_decimals_fit_without_rounding() -> None:
    assert coerce(12.25, DEC) == decimal.Decimal("12.25")
    for v in (1.255, 123.4, 100):
        with pytest.raises(CoercionRefused):
            coerce(v, DEC)


def test_nested_values_coerce_element_by_element_and_a_bad_element_refuses_the_whole() -> None:
    nested = T.Struct((("A", T.Array(T.Map(T.STRING, T.BIGINT))),))
    assert coerce({"a": [{"k": 1}, None]}, nested) == {"A": [{"k": 1}, None]}
    with pytest.raises(CoercionRefused, match=r'JsonObject \(\{"a":\[\{"k":"1"\}\]\}\)'):
        coerce({"a": [{"k": "1"}]}, nested)


def test_field_names_are_identifiers() -> None:
    assert column_values({"id": 1, "`v`": 2, "`W`": 3, "x": 4, "X": 5}) == {"ID": 1, "v": 2, "W": 3, "X": 5}
    assert coerce(None, T.INTEGER) is None


@pytest.mark.parametrize(("text", "want"), [("12.34", "12.34"), ("1.2", "1.20"), ("-.5", "-0.50"), ("+7", "7.00"),
                                            ("1e1", "10.00"), ("0.10", "0.10")])
def test_a_string_holding_a_number_is_a_decimal(text: str, want: str) -> None:
    """ApiSqlValueCoercer's DECIMAL takes the number's text (new BigDecimal(text)), never rounded."""
    assert coerce(text, DEC) == decimal.Decimal(want)
    assert coerce({"D": text}, T.Struct((("D", DEC),))) == {"D": decimal.Decimal(want)}


@pytest.mark.parametrize("text", ["12.345", "100", "abc", "1,2", " 1", "NaN", "Infinity", "0x10", "", "1e"])
def test_a_string_that_is_no_fitting_number_is_no_decimal(text: str) -> None:
    with pytest.raises(CoercionRefused, match=r"class java.lang.String \(.*\) into type DECIMAL\(4, 2\)"):
        coerce(text, DEC)


def test_a_string_is_no_number_at_any_depth() -> None:
    """Only DECIMAL takes text: a string inside a STRUCT/MAP/ARRAY is refused for INT as at the top, and the
    refusal names the whole top-level value."""
    for value, t in [({"a": "7"}, T.Struct((("A", T.INTEGER),))), (["7"], T.Array(T.INTEGER)),
                     ({"k": "7"}, T.Map(T.STRING, T.BIGINT)), ({"a": 7}, T.Struct((("A", T.STRING),)))]:
        with pytest.raises(CoercionRefused, match=r"^Can't coerce a field of type class io.vertx.core.json.Json"):
            coerce(value, t)
