"""DELIMITED: CSV quoting as ksqlDB writes it, NULL as an empty field, Java number text."""

from __future__ import annotations

import random
from decimal import Decimal as D

import pytest

from ksqlpy.serde import SerdeError, key_serde, value_serde
from ksqlpy.serde.delimited import parse_record, quote_field
from ksqlpy.types import BIGINT, BOOLEAN, BYTES, DATE, DOUBLE, INTEGER, STRING, TIME, TIMESTAMP, Decimal


def serde(*types, delimiter=None):
    return value_serde("DELIMITED", [(f"C{i}", t) for i, t in enumerate(types)], delimiter=delimiter)


def test_simple_record() -> None:
    s = serde(BIGINT, STRING, DOUBLE)
    assert s.deserialize(b"100,zero,0.5") == (100, "zero", 0.5)
    assert s.serialize((101, "x", 0.0)) == b"101,x,0.0"


def test_empty_fields_are_null_for_every_type() -> None:
    s = serde(INTEGER, STRING, DOUBLE)
    assert s.deserialize(b",,") == (None, None, None)
    assert serde(INTEGER, STRING).deserialize(b"4,") == (4, None)
    assert serde(INTEGER, STRING).deserialize(b'4,""') == (4, None)
    assert s.serialize((None, None, None)) == b",,"
    assert serde(STRING).serialize((None,)) == b""  # which does not read back: test_delimited_empty_records


def test_first_field_quoting_rule() -> None:
    # the first field is quoted unless it starts with an ASCII letter or digit; later fields are not
    s = serde(INTEGER, STRING, INTEGER)
    assert s.serialize((-1, "a", 1)) == b'"-1",a,1'
    assert s.serialize((1, "-a", -1)) == b"1,-a,-1"
    assert serde(DATE).serialize((-10,)) == b'"-10"'
    assert serde(STRING, STRING).serialize(("", "")) == b'"",'
    assert serde(STRING).serialize(("\u00e9t\u00e9",)) == '"\u00e9t\u00e9"'.encode()


@pytest.mark.parametrize("text,first,want", [
    ("plain", False, "plain"),
    ("a,b", False, '"a,b"'),
    ('say "hi"', False, '"say ""hi"""'),
    ("line\nbreak", False, '"line\nbreak"'),
    (" lead", False, '" lead"'),
    ("trail ", False, '"trail "'),
    ("#hash", False, '"#hash"'),
    ("!bang", False, '"!bang"'),
    ("$dollar", False, "$dollar"),
    ("$dollar", True, '"$dollar"'),
    ("9lives", True, "9lives"),
    ("", False, ""),
    ("", True, '""'),
])
def test_quote_field(text: str, first: bool, want: str) -> None:
    assert quote_field(text, first, ",") == want


def test_whitespace_strings_round_trip() -> None:
    s = serde(STRING, STRING, STRING, STRING)
    row = (" \t with white space \t", " \t WITH WHITE SPACE \t", "with white space", "\t wit")
    data = s.serialize(row)
    assert data == b'" \t with white space \t"," \t WITH WHITE SPACE \t",with white space,"\t wit"'
    assert s.deserialize(data) == row


def test_quoted_parsing() -> None:
    assert parse_record('"a,b",c', ",") == ["a,b", "c"]
    assert parse_record('"say ""hi""",x', ",") == ['say "hi"', "x"]
    assert parse_record('"a"  ,b', ",") == ["a", "b"]
    assert parse_record('a"b,c', ",") == ['a"b', "c"]
    assert parse_record("a,b,", ",") == ["a", "b", ""]
    assert parse_record("a,b\r\nc,d", ",") == ["a", "b"]
    assert parse_record('"multi\nline",x', ",") == ["multi\nline", "x"]
    with pytest.raises(SerdeError, match="between encapsulated token and delimiter"):
        parse_record('"a"b,c', ",")
    with pytest.raises(SerdeError, match="EOF"):
        parse_record('"open,c', ",")


def test_column_count_mismatch() -> None:
    with pytest.raises(SerdeError, match="Column count mismatch on deserialization. expected: 2, got: 3"):
        serde(INTEGER, INTEGER).deserialize(b"1,2,3")
    rows, errors = serde(INTEGER, INTEGER).deserialize_batch([b"1,2", b"1", None, b"x,1"])
    assert rows == [(1, 2), None, None, None]
    assert [i for i, _ in errors] == [1, 3]
    assert errors[1][1] == 'For input string: "x"'  # Java's Integer.parseInt


def test_types() -> None:
    s = serde(BOOLEAN, BOOLEAN, INTEGER, BIGINT, DOUBLE, Decimal(5, 2), DATE, TIME, TIMESTAMP, BYTES)
    row = s.deserialize(b"TRUE,yes,-7,9223372036854775807,1.5E3,1.010,10,86399995,1589234313000,AQID")
    assert row == (True, False, -7, 2**63 - 1, 1500.0, D("1.01"), 10, 86399995, 1589234313000, b"\x01\x02\x03")
    assert s.serialize(row) == b"true,false,-7,9223372036854775807,1500.0,1.01,10,86399995,1589234313000,AQID"
    with pytest.raises(SerdeError, match=r"Cannot fit decimal '1.005' into DECIMAL\(5, 2\) without rounding"):
        serde(Decimal(5, 2)).deserialize(b"1.005")
    with pytest.raises(SerdeError, match="For input string: \"2147483648\""):
        serde(INTEGER).deserialize(b"2147483648")
    with pytest.raises(SerdeError, match="Numeric field overflow"):
        serde(Decimal(3, 1)).deserialize(b"100")


def test_java_double_text() -> None:
    s = serde(DOUBLE, DOUBLE, DOUBLE, DOUBLE, DOUBLE)
    row = (4.9e-324, -1.7976931348623157e308, 1e7, 0.001, 1e-4)
    assert s.serialize(row) == b"4.9E-324,-1.7976931348623157E308,1.0E7,0.001,1.0E-4"
    assert s.deserialize(s.serialize(row)) == row


def test_decimal_is_written_plain() -> None:
    s = serde(Decimal(33, 16))
    v = D("12345678987654320.0000000000000000")
    assert s.serialize((v,)) == b"12345678987654320.0000000000000000"
    assert serde(Decimal(10, 9)).serialize((D("1E-9"),)) == b"0.000000001"


def test_other_delimiters() -> None:
    s = serde(INTEGER, STRING, delimiter="TAB")
    assert s.serialize((1, "a b")) == b"1\ta b"
    assert s.deserialize(b'2\t"x\ty"') == (2, "x\ty")
    p = serde(STRING, STRING, delimiter="|")
    assert p.serialize(("a|b", "c,d")) == b'"a|b"|c,d'
    assert p.deserialize(b"a,b|c") == ("a,b", "c")
    assert serde(STRING, STRING, delimiter="SPACE").deserialize(b"a b") == ("a", "b")


def test_multi_column_keys() -> None:
    k = key_serde("DELIMITED", [("NAME", STRING), ("ID", INTEGER)])
    assert k.deserialize(b"bob,10") == ("bob", 10)
    assert k.serialize(("bob", 10)) == b"bob,10"
    assert k.serialize((None, 1)) == b",1"


def test_property_round_trip() -> None:
    rng = random.Random(99)
    types = (STRING, INTEGER, BIGINT, DOUBLE, BOOLEAN, Decimal(8, 3), BYTES, STRING)
    s = serde(*types)
    alphabet = 'ab ,"\n\r\t#-|\u00e9'
    for _ in range(500):
        row = (
            "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))),
            rng.randint(-(2**31), 2**31 - 1),
            rng.randint(-(2**63), 2**63 - 1),
            rng.choice([rng.uniform(-1e9, 1e9), 1e-300, -0.5, 123456789.0]),
            rng.random() < 0.5,
            D(rng.randint(-99999999, 99999999)).scaleb(-3),
            bytes(rng.randrange(256) for _ in range(rng.randint(1, 5))),
            None,
        )
        assert s.deserialize(s.serialize(row)) == row


def test_unicode_digits_follow_java() -> None:
    s = serde(INTEGER)
    assert s.deserialize("\u0663".encode()) == (3,)  # Arabic-Indic three: Java's parseInt accepts it
    rows, errors = s.deserialize_batch(["\u00b2".encode()])  # superscript two is not a decimal digit
    assert rows == [None] and "For input string" in errors[0][1]
