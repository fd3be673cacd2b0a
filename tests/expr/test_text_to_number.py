"""Text to numbers, by Java's parsing rules, the same wherever ksqlDB reads a number from text.

DOUBLE is ``Double.parseDouble`` (NaN, Infinity, blanks around, ``d``/``f`` suffixes, hexadecimal with a binary
exponent, ``1e5``, ``.5``, ``5.``) in the value formats' readers, and the same grammar in CAST, which then refuses
a NaN or infinite result (ksqlDB's rule, not Java's); INT and BIGINT are ``Integer.parseInt``/``Long.parseLong`` of the trimmed
text (``+5``, Unicode decimal digits, nothing else); DECIMAL is ``new BigDecimal`` of the trimmed text (``1e3``,
``+5``; no NaN). The scope: CAST, and the value formats that coerce a string to a number (JSON, DELIMITED).
Comparisons never coerce.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import orjson
import pytest

from ksqlpy import javatext
from ksqlpy import types as T
from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError
from ksqlpy.expr.casts import converter
from ksqlpy.log.base import ProducerRecord

DOUBLES = [
    ("1.5", 1.5), ("  1.5\t", 1.5), ("-2", -2.0), ("+2", 2.0), ("1e5", 1e5), ("1E-2", 0.01), (".5", 0.5),
    ("5.", 5.0), ("2d", 2.0), ("2.5F", 2.5), ("1e3d", 1000.0), ("0x1.8p1", 3.0), ("-0X10P0", -16.0),
    ("0x.8p0d", 0.5), ("NaN", math.nan), ("-NaN", math.nan), ("Infinity", math.inf), ("+Infinity", math.inf),
    ("-Infinity", -math.inf), ("1e400", math.inf), ("-0x1p2000", -math.inf), ("\x01 7 \x1f", 7.0),
]
NOT_DOUBLES = ["", "  ", "nan", "inf", "infinity", "INFINITY", "1_000", "1e", "e5", ".", "0x10", "0x1.8", "1.5.2",
               "1 5", "NaNd", "Infinityf", "\u0661", "1,5", "--1", "0b101"]


@pytest.mark.parametrize(("text", "value"), DOUBLES)
def test_java_double_grammar(text: str, value: float) -> None:
    got = javatext.parse_double(text)
    assert (math.isnan(got) and math.isnan(value)) or got == value


@pytest.mark.parametrize("text", NOT_DOUBLES)
def test_not_java_doubles(text: str) -> None:
    with pytest.raises(ValueError, match="For input string|empty String"):
        javatext.parse_double(text)


@pytest.mark.parametrize(("text", "value"), [(t, v) for t, v in DOUBLES if math.isfinite(v)])
def test_cast_to_double_follows_the_java_grammar(text: str, value: float) -> None:
    conv = converter(T.STRING, T.DOUBLE)
    assert conv is not None and conv(text) == value


@pytest.mark.parametrize("text", [t for t, v in DOUBLES if not math.isfinite(v)] + [" NaN ", "-1e999d", "0x1p2000"])
def test_cast_to_double_refuses_nan_and_infinity(text: str) -> None:
    """ksqlDB's CAST rejects a NaN or infinite result, although ``Double.parseDouble`` reads it (rules 2.6)."""
    conv = converter(T.STRING, T.DOUBLE)
    assert conv is not None
    with pytest.raises(ValueError, match="to DOUBLE"):
        conv(text)


@pytest.mark.parametrize("text", NOT_DOUBLES)
def test_cast_to_double_refuses_what_java_does_not_parse(text: str) -> None:
    conv = converter(T.STRING, T.DOUBLE)
    assert conv is not None
    with pytest.raises(ValueError):
        conv(text)


@pytest.mark.parametrize(("dst", "text", "value"), [
    (T.INTEGER, "+5", 5), (T.INTEGER, " -7 ", -7), (T.INTEGER, "2147483647", 2147483647),
    (T.INTEGER, "\u0661\u0662", 12),  # Character.digit takes any Unicode decimal digit
    (T.BIGINT, "+9223372036854775807", 9223372036854775807),
    (T.Decimal(6, 2), "1e3", Decimal("1000.00")), (T.Decimal(6, 2), " +5 ", Decimal("5.00")),
    (T.Decimal(6, 2), ".5", Decimal("0.50")), (T.Decimal(6, 2), "5.", Decimal("5.00")),
    (T.Decimal(6, 2), "-1.25E1", Decimal("-12.50")),
])
def test_cast_to_integral_and_decimal(dst: T.SqlType, text: str, value: object) -> None:
    conv = converter(T.STRING, dst)
    assert conv is not None and conv(text) == value


@pytest.mark.parametrize(("dst", "text"), [
    (T.INTEGER, "1e3"), (T.INTEGER, "1.0"), (T.INTEGER, "2147483648"), (T.INTEGER, "0x10"), (T.INTEGER, "1_0"),
    (T.INTEGER, ""), (T.BIGINT, "9223372036854775808"), (T.BIGINT, "5L"),
    (T.Decimal(6, 2), "NaN"), (T.Decimal(6, 2), "Infinity"), (T.Decimal(6, 2), "1_0"), (T.Decimal(6, 2), "0x1p3"),
    (T.Decimal(6, 2), "2d"), (T.Decimal(6, 2), ""),
])
def test_cast_refusals(dst: T.SqlType, text: str) -> None:
    conv = converter(T.STRING, dst)
    assert conv is not None
    with pytest.raises((ValueError, ArithmeticError)):
        conv(text)


# --------------------------------------------------------------------------- in queries and value formats


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    yield e
    e.close()


def test_cast_in_a_query(engine: Engine) -> None:
    engine.execute("CREATE STREAM s (k INT KEY, t STRING) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    engine.execute("CREATE STREAM o AS SELECT k, CAST(CAST(t AS DOUBLE) AS STRING) AS d, "
                   "CAST(t AS DOUBLE) * 2 AS twice FROM s;")
    for i, t in enumerate([" 0x1p4 ", "2.5d", "nan", "NaN", "-Infinity"]):
        engine.execute(f"INSERT INTO s (k, t) VALUES ({i}, '{t}');")
    engine.drain()
    rows = [orjson.loads(v) for v in engine.log.fetch("O", 0, 0, 10).values]
    assert [r["D"] for r in rows] == ["16.0", "2.5", None, None, None]
    assert [r["TWICE"] for r in rows] == [32.0, 5.0, None, None, None]
    causes = [x["message"]["recordProcessingError"]["cause"] for x in engine.plog.entries]
    # a failing CAST is NULL on its own (logged), and NULL * 2 then fails the column as Java's unboxing does
    npe = ["java.lang.NullPointerException"]
    assert causes == [['For input string: "nan"'], ['For input string: "nan"'], npe,
                      ["Cannot cast 'NaN' to DOUBLE"], ["Cannot cast 'NaN' to DOUBLE"], npe,
                      ["Cannot cast '-Infinity' to DOUBLE"], ["Cannot cast '-Infinity' to DOUBLE"], npe]


@pytest.mark.parametrize(("fmt", "encode"), [
    ("JSON", lambda text: orjson.dumps({"D": text})),
    ("DELIMITED", lambda text: text.encode()),
])
def test_value_formats_read_doubles_from_text_by_the_same_rule(engine: Engine, fmt: str, encode: object) -> None:
    engine.execute(f"CREATE STREAM s (d DOUBLE) WITH (kafka_topic='s', value_format='{fmt}', partitions=1);")
    engine.execute("CREATE STREAM o WITH (value_format='JSON') AS SELECT CAST(d AS STRING) AS t FROM s;")
    texts = ["NaN", "Infinity", "0x1p3", "5.", "1_0"]
    for i, text in enumerate(texts):
        engine.log.produce(ProducerRecord("s", None, encode(text), i))  # type: ignore[operator]
    engine.drain()
    rows = [orjson.loads(v) for v in engine.log.fetch("O", 0, 0, 10).values]
    assert rows == [{"T": "NaN"}, {"T": "Infinity"}, {"T": "8.0"}, {"T": "5.0"}]  # 1_0 is a deserialization error
    assert [x["message"]["type"] for x in engine.plog.entries] == [0]


def test_comparisons_do_not_coerce_text(engine: Engine) -> None:
    engine.execute("CREATE STREAM s (d DOUBLE) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    with pytest.raises(KsqlError, match=r"Cannot compare D \(DOUBLE\) to 'NaN' \(STRING\)"):
        engine.execute("SELECT * FROM s WHERE d = 'NaN' EMIT CHANGES;")
