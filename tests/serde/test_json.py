"""JSON values and keys: layout, ksqlDB's case-insensitive field matching and its coercions."""

from __future__ import annotations

import base64
import random
from decimal import Decimal as D

import orjson
import pytest

from ksqlpy.serde import SerdeError, key_serde, value_serde
from ksqlpy.types import (
    BIGINT,
    BOOLEAN,
    BYTES,
    DATE,
    DOUBLE,
    INTEGER,
    STRING,
    TIME,
    TIMESTAMP,
    Array,
    Decimal,
    Map,
    Struct,
)

ALL_TYPES = [
    ("B", BOOLEAN), ("I", INTEGER), ("L", BIGINT), ("F", DOUBLE), ("S", STRING), ("BY", BYTES),
    ("DT", DATE), ("TM", TIME), ("TS", TIMESTAMP), ("DEC", Decimal(6, 2)), ("ARR", Array(STRING)),
    ("M", Map(STRING, DOUBLE)), ("ST", Struct((("X", INTEGER), ("Y", Array(Decimal(3, 1)))))),
]


def one(t, **kw):
    return value_serde("JSON", [("V", t)], wrap_single_value=False, **kw)


def test_wrapped_row_layout_and_round_trip() -> None:
    s = value_serde("JSON", ALL_TYPES)
    row = (True, -5, 2**40, 1.5, "h\u00e9", b"\x00\xff", 19000, 3_600_000, 1_700_000_000_000,
           D("12.30"), ["a", None], {"k": 0.25}, {"X": 1, "Y": [D("1.5"), None]})
    data = s.serialize(row)
    assert data == (
        b'{"B":true,"I":-5,"L":1099511627776,"F":1.5,"S":"h\xc3\xa9","BY":"AP8=","DT":19000,'
        b'"TM":3600000,"TS":1700000000000,"DEC":12.30,"ARR":["a",null],"M":{"k":0.25},'
        b'"ST":{"X":1,"Y":[1.5,null]}}'
    )
    assert s.deserialize(data) == row
    rows, errors = s.deserialize_batch([data, None, data])
    assert rows == [row, None, row] and errors == []


def test_all_nulls_and_tombstones() -> None:
    s = value_serde("JSON", [("A", INTEGER), ("B", STRING)])
    assert s.serialize((None, None)) == b'{"A":null,"B":null}'
    assert s.deserialize(b"{}") == (None, None)
    assert s.deserialize(None) is None
    assert s.deserialize(b"null") is None  # a JSON null is a null row when wrapped
    assert s.serialize(None) is None


def test_unwrapped_single_values() -> None:
    assert one(BOOLEAN).deserialize(b"true") == (True,)
    assert one(BIGINT).deserialize(b"10827272222") == (10827272222,)
    assert one(Array(STRING)).deserialize(b'["a","b",null]') == (["a", "b", None],)
    assert one(Map(STRING, INTEGER)).deserialize(b'{"a":1,"c":null}') == ({"a": 1, "c": None},)
    assert one(Struct((("A", DOUBLE),))).deserialize(b'{"a":45.67}') == ({"A": 45.67},)
    assert one(STRING).deserialize(b"null") == (None,)
    assert one(STRING).serialize(("world",)) == b'"world"'
    assert one(Decimal(4, 2)).serialize((D("99.99"),)) == b"99.99"
    assert one(STRING).serialize((None,)) is None  # a null unwrapped value is a null record
    s = value_serde("JSON", [("V", INTEGER)])  # default: wrapped
    assert s.serialize((1,)) == b'{"V":1}'


def test_field_names_match_case_insensitively() -> None:
    s = value_serde("JSON", [("ID", BIGINT), ("NAME", STRING)])
    assert s.deserialize(b'{"id": 1, "Name": "x", "other": true}') == (1, "x")
    rows, _ = s.deserialize_batch([b'{"id": 1, "name": "a"}', b'{"ID": 2, "NAME": "b"}', b'{"ID": 3}'])
    assert rows == [(1, "a"), (2, "b"), (3, None)]


def test_quoted_lower_case_column_only_matches_exactly() -> None:
    s = value_serde("JSON", [("foo", INTEGER), ("BAR", INTEGER)])
    assert s.deserialize(b'{"FOO": 1, "bar": 2}') == (None, 2)
    assert s.deserialize(b'{"foo": 1, "BAR": 2}') == (1, 2)


def test_the_exact_key_wins_then_the_last_upper_cased_one() -> None:
    """Reference 4.2: exact field name first, else the JSON key upper-cased (a later key wins)."""
    s = value_serde("JSON", [("A", INTEGER)])
    assert s.deserialize(b'{"A": 1, "a": 2}') == (1,)
    assert s.deserialize(b'{"a": 2, "A": 1}') == (1,)
    assert s.deserialize(b'{"a": 2, "a": 3}') == (3,)
    assert s.deserialize_batch([b'{"a": 2, "A": 1}', b'{"A": 1, "a": 2}'])[0] == [(1,), (1,)]
    # columns "X" and quoted "x" collide when upper-cased: the exact-key fast path must not be used
    s2 = value_serde("JSON", [("X", INTEGER), ("x", INTEGER)])
    assert s2.deserialize(b'{"X": 1, "x": 2}') == (1, 2)
    assert s2.deserialize_batch([b'{"X": 1, "x": 2}'])[0] == [(1, 2)]
    assert s2.deserialize(b'{"x": 2}') == (2, 2)  # X: no exact key, "x" upper-cased
    t = Struct((("A", INTEGER), ("b", INTEGER)))
    assert one(t).deserialize(b'{"a": 2, "A": 1, "B": 3}') == ({"A": 1, "b": None},)


def test_struct_fields_match_case_insensitively_and_keep_declared_order() -> None:
    t = Struct((("B", INTEGER), ("A", Struct((("C", STRING),)))))
    assert one(t).deserialize(b'{"a": {"c": "x"}, "b": 1, "z": 0}') == ({"B": 1, "A": {"C": "x"}},)
    assert one(t).deserialize(b'{"b": 1}') == ({"B": 1, "A": None},)


@pytest.mark.parametrize("t,text,want", [
    (STRING, b"1", "1"),
    (STRING, b"true", "true"),
    (STRING, b"1.50", "1.50"),  # the literal text of the number
    (STRING, b"1e20", "1E+20"),
    (STRING, b'{"a": 1, "b": [true, null]}', '{"a":1,"b":[true,null]}'),
    (STRING, b'[1, "x", null, {"k": 2.0}]', '[1, x, null, {"k":2.0}]'),
    (INTEGER, b'"123"', 123),
    (INTEGER, b"-1.7", -1),
    (INTEGER, b"4294967297", 1),  # Java intValue wraps
    (BIGINT, b'"-42"', -42),
    (BIGINT, b"12.9", 12),
    (DOUBLE, b"3", 3.0),
    (DOUBLE, b'"2.5"', 2.5),
    (DOUBLE, b'"NaN"', "nan"),
    (TIMESTAMP, b'"1589234313000"', 1589234313000),
    (TIMESTAMP, b"10.9", 10),
    (DATE, b'"-10"', -10),
    (TIME, b"86399999", 86399999),
    (TIME, b"86400000", 86400000),  # the reader's bound is inclusive
    (TIME, b"0", 0),
    (Decimal(4, 2), b"10.1", D("10.10")),
    (Decimal(4, 2), b'"3.4"', D("3.40")),
    (Decimal(4, 2), b"1.010", D("1.01")),  # trailing zeros beyond the scale fit
    (Decimal(4, 2), b"7", D("7.00")),
    (Decimal(33, 16), b"12345678987654321.2345678987654321", D("12345678987654321.2345678987654321")),
    (BYTES, b'"AQID"', b"\x01\x02\x03"),
    (Array(STRING), b"[1, 2, 3]", ["1", "2", "3"]),
    (Array(Decimal(3, 1)), b'[1, "2.20", 3.1]', [D("1.0"), D("2.2"), D("3.1")]),
    (Map(STRING, BIGINT), b'{"a": "5", "b": 6.5}', {"a": 5, "b": 6}),
])
def test_coercions(t, text: bytes, want) -> None:
    (got,) = one(t).deserialize(text)
    if want == "nan":
        assert got != got
    else:
        assert got == want and type(got) is type(want)


@pytest.mark.parametrize("t,text,fragment", [
    (BOOLEAN, b'"true"', "sourceType: TextNode, requiredType: BOOLEAN"),
    (BOOLEAN, b"1", "sourceType: IntNode, requiredType: BOOLEAN"),
    (INTEGER, b"true", "sourceType: BooleanNode, requiredType: INTEGER"),
    (INTEGER, b'"12x"', "Can't coerce string to type. targetType: INTEGER"),
    (INTEGER, b'"99999999999"', "Can't coerce string to type. targetType: INTEGER"),
    (INTEGER, b'" 12"', "Can't coerce string to type"),
    (DOUBLE, b'"abc"', "targetType: DOUBLE"),
    (DOUBLE, b"[1]", "sourceType: ArrayNode, requiredType: DOUBLE"),
    (STRING, b"null", None),
    (Decimal(4, 2), b"123.4", "Numeric field overflow: A field with precision 4 and scale 2 must round to an "
                              "absolute value less than 10^2. Got 123.4"),
    (Decimal(4, 2), b'"abc"', "targetType: DECIMAL(4, 2)"),
    (BYTES, b'"not base64!"', "Value is not a valid Base64 encoded string: not base64!, path: $"),
    (Array(INTEGER), b'{"a": 1}', "sourceType: ObjectNode, requiredType: ARRAY<INTEGER>"),
    (Map(STRING, INTEGER), b"[1]", "requiredType: MAP<STRING, INTEGER>"),
    (Struct((("A", INTEGER),)), b'"x"', "requiredType: STRUCT<`A` INTEGER>"),
    (Decimal(4, 2), b"1.005", "Cannot fit decimal '1.005' into DECIMAL(4, 2) without rounding. (Requires 4,3)"),
    (Decimal(4, 2), b'"0.001"', "Cannot fit decimal '0.001' into DECIMAL(4, 2) without rounding. (Requires 1,3)"),
    (TIME, b"-1", "Time values must use number of milliseconds greater than 0 and less than 86400000."),
    (TIME, b"86400001", "Time values must use number of milliseconds greater than 0 and less than 86400000."),
])
def test_coercion_errors(t, text: bytes, fragment: str | None) -> None:
    if fragment is None:
        assert one(t).deserialize(text) == (None,)
        return
    with pytest.raises(SerdeError) as e:
        one(t).deserialize(text)
    assert fragment in str(e.value)


def test_errors_name_the_path_as_ksqldb() -> None:
    s = value_serde("JSON", [("OUTER", Struct((("INNER", Array(INTEGER)),))),
                             ("M", Map(STRING, Array(Decimal(2, 1))))])
    with pytest.raises(SerdeError, match=r"targetType: INTEGER, path: \$\.OUTER\.INNER\[1\]$"):
        s.deserialize(b'{"outer": {"inner": [1, "x"]}}')
    with pytest.raises(SerdeError, match=r"\(Requires 3,2\), path: \$\.M\.b\.value\[2\]$"):
        s.deserialize(b'{"M": {"a": [1.5], "b": [null, 1, 2.25]}}')
    with pytest.raises(SerdeError, match=r"sourceType: ArrayNode, requiredType: STRUCT<`OUTER` .*>, path: \$$"):
        s.deserialize(b'[1]')
    unwrapped = value_serde("JSON", [("A", Array(BOOLEAN))], wrap_single_value=False)
    with pytest.raises(SerdeError, match=r"sourceType: IntNode, requiredType: BOOLEAN, path: \$\[0\]$"):
        unwrapped.deserialize(b'[1]')


def test_batch_reports_bad_records_and_goes_on() -> None:
    s = value_serde("JSON", [("ID", INTEGER), ("D", Decimal(3, 1))])
    datas = [b'{"ID": 1, "D": 1.3}', b"not json", b"[1, 2]", b'{"ID": "x"}', None, b'{"id": 5}',
             b'{"D": 1.2000000000000000000}', b'{"D": 1.25}']
    rows, errors = s.deserialize_batch(datas)
    assert rows == [(1, D("1.3")), None, None, None, None, (5, None), (None, D("1.2")), None]
    assert [i for i, _ in errors] == [1, 2, 3, 7]
    assert "Cannot fit decimal '1.25' into DECIMAL(3, 1) without rounding. (Requires 3,2)" in errors[3][1]
    assert errors[0][1].startswith("Invalid JSON")
    assert "Can't convert type. sourceType: ArrayNode, requiredType: STRUCT<`ID` INTEGER, `D` DECIMAL(3, 1)>, " \
        "path: $" in errors[1][1]
    assert "Can't coerce string to type. targetType: INTEGER, path: $.ID" in errors[2][1]
    with pytest.raises(SerdeError, match="Invalid JSON"):
        s.deserialize(b"{")


def test_keys() -> None:
    k = key_serde("JSON", [("K", STRING)])
    assert k.serialize(("Hey",)) == b'"Hey"'
    assert k.deserialize(b'"Hey"') == ("Hey",)
    assert k.serialize((None,)) is None and k.deserialize(None) is None
    ks = key_serde("JSON", [("K", Struct((("F", DOUBLE),)))])
    assert ks.deserialize(b'{"f": 45.67}') == ({"F": 45.67},)
    assert ks.serialize(({"F": 45.67},)) == b'{"F":45.67}'
    multi = key_serde("JSON", [("ID", INTEGER), ("AGE", INTEGER)])
    assert multi.serialize((None, None)) == b'{"ID":null,"AGE":null}'
    assert multi.deserialize(b'{"id": 10, "age": 30}') == (10, 30)
    assert key_serde("JSON", [("K", Decimal(6, 4))]).serialize((D("12.3650"),)) == b"12.3650"


def _random_value(rng: random.Random, t):
    if rng.random() < 0.15:
        return None
    name = t.name
    if name == "BOOLEAN":
        return rng.random() < 0.5
    if name in ("INTEGER", "DATE"):
        return rng.randint(-(2**31), 2**31 - 1)
    if name == "TIME":
        return rng.randint(0, 86_400_000)  # milliseconds of the day
    if name in ("BIGINT", "TIMESTAMP"):
        return rng.randint(-(2**63), 2**63 - 1)
    if name == "DOUBLE":
        return rng.choice([0.0, -0.0, 1e300, -2.5e-300, rng.uniform(-1e6, 1e6)])
    if name == "STRING":
        return "".join(rng.choice('ab"\\,\n\u00e9\u4e2d\U0001f600 ') for _ in range(rng.randint(0, 8)))
    if name == "BYTES":
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 6)))
    if name == "DECIMAL":
        digits = rng.randint(0, 10 ** t.precision - 1)
        return (D(digits) * (1 if rng.random() < 0.5 else -1)).scaleb(-t.scale)
    if name == "ARRAY":
        return [_random_value(rng, t.element) for _ in range(rng.randint(0, 3))]
    if name == "MAP":
        return {f"k{i}": _random_value(rng, t.value) for i in range(rng.randint(0, 3))}
    return {n: _random_value(rng, ft) for n, ft in t.fields}


def test_property_round_trip_of_random_rows() -> None:
    rng = random.Random(1234)
    s = value_serde("JSON", ALL_TYPES)
    rows = [tuple(_random_value(rng, t) for _, t in ALL_TYPES) for _ in range(300)]
    datas = s.serialize_batch(rows)
    for row, data in zip(rows, datas, strict=True):
        assert orjson.loads(data)  # valid JSON
        assert s.deserialize(data) == row
    assert s.deserialize_batch(datas) == (rows, [])


def test_bytes_are_base64() -> None:
    raw = bytes(range(256))
    data = one(BYTES).serialize((raw,))
    assert orjson.loads(data) == base64.b64encode(raw).decode()
    assert one(BYTES).deserialize(data) == (raw,)


def test_no_columns() -> None:
    s = value_serde("JSON", [])
    assert s.deserialize(b'{"a": 1}') == () and s.serialize(()) == b"{}"
    assert s.deserialize_batch([b"{}", b"[]"])[0] == [(), None]
    k = key_serde("JSON", [])  # a keyless source with FORMAT='JSON'
    assert k.serialize(()) is None and k.deserialize(b"x") == () and k.format == "JSON"


def test_non_finite_doubles_are_written_as_strings_like_jackson() -> None:
    import math

    s = value_serde("JSON", [("D", DOUBLE), ("A", Array(DOUBLE)), ("S", Struct((("X", DOUBLE),))),
                             ("M", Map(STRING, DOUBLE)), ("I", INTEGER)])
    row = (math.nan, [1.0, math.inf, None], {"X": -math.inf}, {"k": math.nan}, 1)
    data = s.serialize(row)
    assert data == b'{"D":"NaN","A":[1.0,"Infinity",null],"S":{"X":"-Infinity"},"M":{"k":"NaN"},"I":1}'
    back = s.deserialize(data)
    assert math.isnan(back[0]) and back[1] == [1.0, math.inf, None] and back[2] == {"X": -math.inf}
    assert s.serialize_batch([row, None]) == [data, None]
    assert one(DOUBLE).serialize((-math.inf,)) == b'"-Infinity"'
    assert row[1] == [1.0, math.inf, None]  # the row itself is not modified


def test_map_null_keys_are_written_as_the_string_null() -> None:
    s = value_serde("JSON", [("M", Map(STRING, INTEGER)), ("D", DOUBLE)])
    rows = [({None: 1, "a": 2}, float("nan")), ({"b": 3}, 1.5)]
    assert orjson.loads(s.serialize(rows[0])) == {"M": {"null": 1, "a": 2}, "D": "NaN"}
    plain = value_serde("JSON", [("M", Map(STRING, INTEGER))])
    assert orjson.loads(plain.serialize(({None: 7},))) == {"M": {"null": 7}}


def test_lone_surrogates_are_written_as_their_escapes_like_jackson() -> None:
    """Half of a character cut by SUBSTRING (a lone surrogate) has no UTF-8 form; Jackson's UTF-8 writer
    escapes it, and the escape reads back as the same half. orjson refuses such a string outright."""
    s = value_serde("JSON", [("S", STRING), ("A", Array(STRING)), ("M", Map(STRING, STRING))])
    row = ("a\ud83d", ["\ude00", "ok"], {"k\ud83d": "v", None: "\ude00"})
    data = s.serialize(row)
    assert data == b'{"S":"a\\ud83d","A":["\\ude00","ok"],"M":{"k\\ud83d":"v","null":"\\ude00"}}'
    assert s.deserialize(data) == ("a\ud83d", ["\ude00", "ok"], {"k\ud83d": "v", "null": "\ude00"})
    bare = value_serde("JSON", [("S", STRING)], wrap_single_value=False)
    assert bare.serialize(("\ud83d\ude00",)) == b'"\\ud83d\\ude00"'  # the halves, escaped one by one
    assert bare.deserialize(b'"\\ud83d\\ude00"') == ("\U0001f600",)
