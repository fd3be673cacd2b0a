"""The comparison rules of the QTT runner: exact numbers, strict structure, records and topics."""

from __future__ import annotations

import struct

from ksqlpy import types as T
from ksqlpy.catalog import Column
from ksqlpy.testing.compare import ActualRecord, numbers_equal, topic_diff, value_diff
from ksqlpy.testing.exactjson import loads
from ksqlpy.testing.model import TestRecord, Window
from ksqlpy.testing.schema import SchemaColumn, parse_schema, schema_diff
from ksqlpy.testing.specserde import KafkaCodec, codec, decode_windowed, encode_windowed


def same(expected: str, actual: str) -> bool:
    return value_diff(loads(expected), loads(actual)) is None


def test_decimal_scale_matters_like_bigdecimal_equals() -> None:
    assert same("1.10", "1.10")
    assert not same("1.10", "1.1")
    assert not same("1", "1.0")
    assert same("1.0", "1")  # expected non-integer vs JSON integer: by value
    assert not same("1.5", "1")


def test_doubles_printed_differently_by_java_and_python_still_match() -> None:
    assert same("1.0E7", "10000000.0")
    assert same("1.5E-4", "0.00015")
    assert same("12345678", "12345678.0")  # Java would print 1.2345678E7 (scale 0)
    assert not same("1.0E7", "10000001.0")
    assert numbers_equal(loads("2.5"), 2.5)  # a KAFKA DOUBLE decoded as float


def test_structure_is_strict() -> None:
    assert not same('{"A": 1}', '{"a": 1}')  # field names are case-sensitive
    assert not same('{"A": 1}', '{"A": 1, "B": null}')
    assert not same("[1, 2]", "[2, 1]")
    assert not same("true", "1") and not same("1", "true")
    assert not same("null", '"null"')
    assert value_diff("IQ==", b"!") is None  # BYTES compare through base64
    diff = value_diff(loads('{"A": {"B": [1, 2.50]}}'), loads('{"A": {"B": [1, 2.5]}}'), "value")
    assert diff is not None and diff.startswith("value.A.B[1]")


def test_kafka_codec_uses_the_column_type() -> None:
    int_codec = codec("KAFKA", [Column("K", T.INTEGER, key=True)])
    assert int_codec.encode(7) == struct.pack(">i", 7)
    assert int_codec.decode(struct.pack(">i", -3)) == -3
    assert "needs 4 bytes" in repr(int_codec.decode(b"\x00" * 8))
    assert KafkaCodec(T.BIGINT).encode(7) == struct.pack(">q", 7)
    assert KafkaCodec(T.DOUBLE).decode(struct.pack(">d", 1.5)) == 1.5
    assert KafkaCodec(T.STRING).encode("k") == b"k"
    assert KafkaCodec(T.BYTES).encode("IQ==") == b"!"


def test_windowed_key_layouts_follow_kafka_streams() -> None:
    time_key = encode_windowed(b"k", Window(1000, 2000, "time"))
    assert time_key == b"k" + struct.pack(">q", 1000)
    assert decode_windowed(time_key, "time", 1000) == (b"k", Window(1000, 2000, "time"))
    session_key = encode_windowed(b"k", Window(5, 9, "session"))
    assert session_key == b"k" + struct.pack(">q", 9) + struct.pack(">q", 5)
    assert decode_windowed(session_key, "session", None) == (b"k", Window(5, 9, "session"))


def _rec(key: object, value: object, ts: int | None = None) -> TestRecord:
    return TestRecord("T", key, value, ts)


def _act(p: int, key: object, value: object, ts: int = 0) -> ActualRecord:
    return ActualRecord(p, 0, key, value, ts)


def test_topic_comparison_counts_orders_and_checks_timestamps() -> None:
    expected = [_rec("a", 1, 10), _rec("b", 2)]
    assert topic_diff("T", expected, [[_act(0, "a", 1, 10), _act(0, "b", 2, 99)]], False) is None
    m = topic_diff("T", expected, [[_act(0, "a", 1, 11), _act(0, "b", 2)]], False)
    assert m is not None and m.field == "timestamp"
    m = topic_diff("T", expected, [[_act(0, "a", 1, 10)]], False)
    assert m is not None and m.field == "count"
    m = topic_diff("T", expected, [[_act(0, "a", 1, 10), _act(0, "b", 2), _act(0, "c", 3)]], False)
    assert m is not None and m.field == "count" and "first extra" in m.message
    m = topic_diff("T", expected, [[_act(0, "b", 2), _act(0, "a", 1, 10)]], False)
    assert m is not None and m.field == "key"


def test_partitions_may_interleave_but_keep_their_own_order() -> None:
    expected = [_rec("a", 1), _rec("b", 1), _rec("a", 2)]
    ok = [[_act(0, "a", 1), _act(0, "a", 2)], [_act(1, "b", 1)]]
    assert topic_diff("T", expected, ok, False) is None
    wrong_order = [[_act(0, "a", 2), _act(0, "a", 1)], [_act(1, "b", 1)]]
    m = topic_diff("T", expected, wrong_order, False)
    assert m is not None and m.field == "order"


def test_windowed_sinks_require_matching_windows() -> None:
    expected = [TestRecord("T", "k", 1, None, Window(0, 10, "time"))]
    actual = [[ActualRecord(0, 0, "k", 1, 0, Window(0, 10, "time"))]]
    assert topic_diff("T", expected, actual, True) is None
    other = [[ActualRecord(0, 0, "k", 1, 0, Window(10, 20, "time"))]]
    assert topic_diff("T", expected, other, True).field == "window"  # type: ignore[union-attr]
    assert topic_diff("T", [_rec("k", 1)], actual, True).field == "window"  # type: ignore[union-attr]


def test_schema_strings_compare_structurally() -> None:
    want = parse_schema("`ID` BIGINT KEY, V0 VARCHAR, S STRUCT<`a` INT, B ARRAY<DECIMAL(4, 2)>>")
    got = [SchemaColumn("ID", T.BIGINT, key=True), SchemaColumn("V0", T.STRING),
           SchemaColumn("S", T.Struct((("a", T.INTEGER), ("B", T.Array(T.Decimal(4, 2))))))]
    assert schema_diff(want, got) is None
    assert schema_diff(want, got[:2]) is not None
    assert schema_diff(parse_schema("ID INT PRIMARY KEY, V INT"), [SchemaColumn("V", T.INTEGER),
                                                                    SchemaColumn("ID", T.INTEGER, key=True)]) is None
    assert schema_diff(parse_schema("V INT"), [SchemaColumn("V", T.BIGINT)]) is not None


def test_decimals_may_be_expected_as_strings_with_their_scale() -> None:
    assert same('"3.40"', "3.40")
    assert not same('"3.4"', "3.40")
    assert not same('"abc"', "3.40")
    assert not same('"3.40"', '"3.4"')


def test_doubles_printed_with_java_digits_compare_as_doubles() -> None:
    assert same("4.6116860184273879E18", "4.611686018427388e+18")
    assert not same("4.6116860184273879E18", "4.611686018427389e+18")


def test_expected_names_take_the_schema_spelling_but_map_keys_do_not() -> None:
    from ksqlpy.testing.coerce import resolve_row

    cols = [Column("VAL", T.INTEGER), Column("S", T.Struct((("F1", T.STRING),))),
            Column("M", T.Map(T.STRING, T.Struct((("X", T.INTEGER),))))]
    spec = {"val": 1, "s": {"f1": "a"}, "M": {"k": {"x": 2}}}
    assert resolve_row(spec, cols) == {"VAL": 1, "S": {"F1": "a"}, "M": {"k": {"X": 2}}}
    assert resolve_row({"val": 1, "VAL": 2}, cols) == {"val": 1, "VAL": 2}  # ambiguous: left as written
    assert resolve_row({"f1": "a"}, [cols[1]]) == {"F1": "a"}  # an unwrapped single STRUCT column
    # as ksqlDB reads expected records through the sink serde: unknown fields dropped, absent ones NULL
    assert resolve_row({"nope": 1}, cols) == {"VAL": None, "S": None, "M": None}
    assert resolve_row({"val": 1}, cols) == {"VAL": 1, "S": None, "M": None}


def _double_spec(text: str, sql_type: T.SqlType = T.DOUBLE) -> object:
    from ksqlpy.testing.coerce import resolve_type

    return resolve_type(loads(text), sql_type)


def test_a_double_matches_within_a_millionth_at_any_depth() -> None:
    assert value_diff(_double_spec("0.3"), loads("0.30000000000000004")) is None
    assert value_diff(_double_spec("1"), loads("1.0")) is None
    assert value_diff(_double_spec("1.5"), 1.5000009) is None  # a KAFKA DOUBLE, read as float
    assert value_diff(_double_spec("1.5"), loads("1.500002")) is not None
    assert value_diff(_double_spec("1.0E7"), loads("10000000.0000001")) is None
    assert value_diff(_double_spec("2"), True) is not None and value_diff(_double_spec("2"), "2") is not None
    nested = T.Struct((("A", T.Array(T.DOUBLE)), ("M", T.Map(T.STRING, T.DOUBLE))))
    spec = _double_spec('{"A": [0.1, 2], "M": {"k": 0.7}}', nested)
    assert value_diff(spec, loads('{"A": [0.1000000001, 2.0], "M": {"k": 0.70000000001}}')) is None
    assert value_diff(spec, loads('{"A": [0.1, 2.1], "M": {"k": 0.7}}')) is not None


def test_only_doubles_are_approximate() -> None:
    assert value_diff(_double_spec("1.10", T.Decimal(3, 2)), loads("1.1")) is not None  # DECIMAL: exact
    assert value_diff(_double_spec("1", T.BIGINT), loads("1.0000001")) is not None
    assert value_diff(_double_spec('"NaN"'), "NaN") is None  # ksqlDB writes NaN as a string
