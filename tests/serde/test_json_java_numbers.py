"""JSON numbers as ksqlDB's Jackson reads and writes them, in every reader path (per record, batch, msgspec, C).

Reading (KsqlJsonDeserializer, USE_BIG_DECIMAL_FOR_FLOATS): a number with a fraction or an exponent is a
``DecimalNode`` - the name its conversion errors give - and a DOUBLE column takes the BigDecimal's double, so
the literal ``-0.0`` is 0.0 (a BigDecimal has no negative zero) while an underflow (``-1e-400``) and a string
(``"-0.0"``, Double.parseDouble) keep the sign. Writing (Connect's JsonConverter, a ``DoubleNode``): a DOUBLE
is ``Double.toString`` - ``1.0E10``, ``1.0E-5`` - and NaN/infinities are strings."""

from __future__ import annotations

import math

import pytest

from ksqlpy.serde import SerdeError, value_serde
from ksqlpy.serde.json_blocks import NATIVE, json_blocks
from ksqlpy.serde.json_fast import fast_rows
from ksqlpy.types import BOOLEAN, DOUBLE, INTEGER, STRING, Array, Map, Struct


def _sign(x: float) -> str:
    return "-" if math.copysign(1.0, x) < 0 else "+"


@pytest.mark.parametrize("text,kind", [
    (b"1.5", "DecimalNode"), (b"-0.0", "DecimalNode"), (b"1e3", "DecimalNode"), (b"1e400", "DecimalNode"),
    (b"7", "IntNode"), (b"4294967296", "LongNode"), (b"18446744073709551616", "BigIntegerNode"),
])
def test_a_number_is_named_by_jacksons_node_in_conversion_errors(text: bytes, kind: str) -> None:
    serde = value_serde("JSON", [("B", BOOLEAN)])
    record = b'{"B": ' + text + b"}"
    want = f"Can't convert type. sourceType: {kind}, requiredType: BOOLEAN, path: $.B"
    with pytest.raises(SerdeError) as e:
        serde.deserialize(record)
    assert str(e.value) == want
    rows, errors = serde.deserialize_batch([record])
    assert rows == [None] and errors == [(0, want)]


ZEROS = [(b"-0.0", "+"), (b"-0", "+"), (b"-0e5", "+"), (b"-0.000E-3", "+"), (b"0.0", "+"),
         (b'"-0.0"', "-"), (b'" -0 "', "-"), (b"-1e-400", "-"), (b"-4.9e-324", "-")]


@pytest.mark.parametrize("text,sign", ZEROS)
def test_a_double_zero_has_the_sign_of_the_bigdecimals_double(text: bytes, sign: str) -> None:
    serde = value_serde("JSON", [("D", DOUBLE), ("S", STRING)])
    record = b'{"D": ' + text + b', "S": "2020-01-01"}'
    (d, _), = [serde.deserialize(record)]
    assert _sign(d) == sign
    rows, errors = serde.deserialize_batch([record] * 3)
    assert not errors and [_sign(r[0]) for r in rows] == [sign] * 3
    lower = b'{"d": ' + text + b', "s": "x"}'
    rows, errors = serde.deserialize_batch([lower] * 3)
    assert not errors and [_sign(r[0]) for r in rows] == [sign] * 3
    unwrapped = value_serde("JSON", [("D", DOUBLE)], wrap_single_value=False)
    assert _sign(unwrapped.deserialize(text)[0]) == sign


@pytest.mark.parametrize("text,sign", ZEROS)
def test_nested_doubles_follow_the_same_rule(text: bytes, sign: str) -> None:
    t = text.decode()
    serde = value_serde("JSON", [("A", Array(DOUBLE)), ("M", Map(STRING, DOUBLE)), ("T", Struct((("X", DOUBLE),)))])
    record = f'{{"A": [1.5, {t}], "M": {{"k": {t}}}, "T": {{"x": {t}}}}}'.encode()
    a, m, s = serde.deserialize(record)
    assert (_sign(a[1]), _sign(m["k"]), _sign(s["X"])) == (sign, sign, sign)
    rows, _ = serde.deserialize_batch([record])
    assert rows[0] is not None and _sign(rows[0][0][1]) == sign


def test_the_msgspec_path_leaves_a_negative_zero_literal_to_the_generic_reader() -> None:
    cols = [("D", DOUBLE), ("N", INTEGER)]
    fast = fast_rows(cols)
    assert fast is not None
    assert fast([b'{"D": 1.5, "N": 1}', b'{"D": -0.0, "N": 2}']) is None
    fast.skip = 0
    got = fast([b'{"D": 1.5, "N": 1}', b'{"D": -0, "N": -0}'])  # (the integer -0 is 0 to both readers)
    assert got is not None and [_sign(r[0]) for r in got] == ["+", "+"]
    rows, _ = value_serde("JSON", cols).deserialize_batch([b'{"D": 1.5, "N": 1}', b'{"D": -0.0, "N": 2}'])
    assert [_sign(r[0]) for r in rows] == ["+", "+"]


@pytest.mark.skipif(NATIVE is None, reason="the _jsonblocks extension is not built")
def test_the_c_decoder_refuses_a_negative_zero() -> None:
    dec = json_blocks([("D", DOUBLE), ("S", STRING)], [True, True], None)
    assert dec is not None
    assert dec([b'{"D": -0.0, "S": "a"}'], [(1,)], [5], 0, [0]) is None
    dec.skip = 0
    got = dec([b'{"D": -0, "S": "a"}', b'{"D": 0.5, "S": "b"}'], [(1,), (2,)], [5, 5], 0, [0, 1])
    assert got is not None and _sign(got[0][0][0]) == "+"


@pytest.mark.parametrize("value,text", [
    (1e10, b"1.0E10"), (-1.2345678e10, b"-1.2345678E10"), (1e7, b"1.0E7"), (9999999.5, b"9999999.5"),
    (1234567.0, b"1234567.0"), (0.001, b"0.001"), (9.9e-4, b"9.9E-4"), (1e-5, b"1.0E-5"), (1e16, b"1.0E16"),
    (1e20, b"1.0E20"), (5e-324, b"4.9E-324"), (0.0, b"0.0"), (-0.0, b"-0.0"), (1.5, b"1.5"),
    (math.nan, b'"NaN"'), (math.inf, b'"Infinity"'), (-math.inf, b'"-Infinity"'),
])
def test_a_double_is_written_as_double_to_string(value: float, text: bytes) -> None:
    cols = [("D", DOUBLE), ("A", Array(DOUBLE)), ("M", Map(STRING, DOUBLE)), ("T", Struct((("X", DOUBLE),)))]
    serde = value_serde("JSON", cols)
    row = (value, [value], {"k": value}, {"X": value})
    want = b'{"D":' + text + b',"A":[' + text + b'],"M":{"k":' + text + b'},"T":{"X":' + text + b"}}"
    assert serde.serialize(row) == want
    assert serde.serialize_batch([row, row]) == [want, want]
    flat = value_serde("JSON", [("D", DOUBLE), ("N", INTEGER)])
    assert flat.serialize_batch([(value, 1), (1.5, 2)])[0] == b'{"D":' + text + b',"N":1}'
    assert value_serde("JSON", [("D", DOUBLE)], wrap_single_value=False).serialize((value,)) == text
    back = serde.deserialize(want)
    assert back is not None and (back[0] == value or value != value)


@pytest.mark.parametrize("literal,reason", [
    ("12.3450", "Cannot fit decimal '12.3450' into DECIMAL(4, 2) without rounding. (Requires 6,4)"),
    ("1.239", "Cannot fit decimal '1.239' into DECIMAL(4, 2) without rounding. (Requires 4,3)"),
    ("0.005", "Cannot fit decimal '0.005' into DECIMAL(4, 2) without rounding. (Requires 1,3)"),
    ("1e3", "Numeric field overflow: A field with precision 4 and scale 2 must round to an absolute value less "
            "than 10^2. Got 1000"),
    ("100.00", "Numeric field overflow: A field with precision 4 and scale 2 must round to an absolute value less "
               "than 10^2. Got 100.00"),
])
def test_a_decimal_that_does_not_fit_is_reported_with_the_literals_digits(literal: str, reason: str) -> None:
    """DecimalUtil.ensureFit prints the BigDecimal of the literal (toPlainString, precision, scale), not of a
    double: 12.3450 keeps its zero, 1e3 is 1000."""
    from ksqlpy.types import Decimal

    serde = value_serde("JSON", [("X", Decimal(4, 2)), ("A", Array(Decimal(4, 2)))])
    with pytest.raises(SerdeError) as e:
        serde.deserialize(f'{{"X": {literal}}}'.encode())
    assert str(e.value) == f"{reason}, path: $.X"
    _, errors = serde.deserialize_batch([f'{{"A": [1.5, {literal}]}}'.encode()])
    assert errors == [(0, f"{reason}, path: $.A[1]")]
    assert serde.deserialize(b'{"X": 12.3400, "A": [-0.50, 1e1]}') is not None
