"""The expected-record rules of ksqlDB's ExpectedRecordComparator (from memory): an actual integer is
compared by its Java type (Integer: ``expected.intValue()``, Long: ``expected.longValue()``), a BigInteger
compares by value, expected strings read as Java's BigDecimal, objects by size and ``get`` per expected name.
REST responses keep the plain rules (``record=False``)."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from ksqlpy import types as T
from ksqlpy.testing.compare import ActualRecord, record_diff, value_diff
from ksqlpy.testing.exactjson import JavaLong, loads
from ksqlpy.testing.model import TestRecord
from ksqlpy.testing.specserde import KafkaCodec
from ksqlpy.testing.sr_codec import avro_to_spec


def record_match(expected: str, actual: Any) -> bool:
    return value_diff(loads(expected), loads(actual) if isinstance(actual, str) else actual, record=True) is None


@pytest.mark.parametrize(("expected", "actual"), [
    ("1.9", "1"), ("-1.9", "-1"), ("1.0", "1"), ("0.5", "0"), ("1E+1", "10"),
    ("4294967297", "1"),  # (int) 2^32 + 1 == 1: an Integer compares the low 32 bits
    ("-4294967295", "1"),
    ("18446744073709551617", "1"),  # a BigIntegerNode's intValue(): the low 32 bits too
    ("2147483648.7", "-2147483648"),  # BigDecimal.intValue: truncate, then narrow
])
def test_an_integer_actual_takes_the_expected_number_as_its_java_type_does(expected: str, actual: str) -> None:
    assert record_match(expected, actual)


def test_rest_responses_do_not_truncate() -> None:
    assert value_diff(loads("1.9"), loads("1")) is not None
    assert value_diff(loads("4294967297"), loads("1")) is not None


@pytest.mark.parametrize(("expected", "actual"), [
    ("2", "1"), ("2.1", "1"), ("-0.5", "1"),
    ("4294967297", JavaLong(1)),  # a Long narrows to 64 bits: no wrap at 32
    ("7294967296", "3000000000"),  # a JSON integer beyond int is a Long in Jackson: no wrap at 32
])
def test_numbers_that_differ_after_narrowing_do_not_match(expected: str, actual: Any) -> None:
    assert not record_match(expected, actual)


def test_a_big_integer_actual_compares_by_value() -> None:
    big = "123456789012345678901234567890"
    assert record_match(big, big) and not record_match(big, "123456789012345678901234567891")
    assert record_match(big, loads(big))  # a DECIMAL(38, 0) read back


def test_decimal_scale_and_doubles_keep_their_rules() -> None:
    assert not record_match("1", "1.0") and not record_match("1.10", "1.1") and record_match("1.10", "1.10")
    assert record_match("2.5", 2.5) and record_match("2", 2.0)  # a KAFKA DOUBLE read as float


@pytest.mark.parametrize(("text", "same"), [
    ('"3.40"', True), ('"3.4"', False), ('"+3.40"', True), ('"340E-2"', True),
    ('" 3.40"', False), ('"3.40 "', False), ('"3_4.0"', False), ('"NaN"', False),
])
def test_an_expected_string_against_a_decimal_reads_as_java_bigdecimal(text: str, same: bool) -> None:
    assert record_match(text, loads("3.40")) is same


def test_an_expected_number_never_matches_text_nor_text_a_number() -> None:
    assert not record_match("1", '"1"') and not record_match('"1"', "1") and not record_match('"1.5"', 1.5)


def test_objects_compare_by_size_and_the_expected_names() -> None:
    assert record_match('{"A": 1, "X": null}', '{"A": 1, "B": null}')  # X reads null from the actual
    assert record_match('{"A": 1, "X": null}', '{"A": 1, "B": 2}')  # B is never looked at
    assert not record_match('{"A": 1, "X": 2}', '{"A": 1, "B": 2}')
    assert not record_match('{"A": 1}', '{"A": 1, "B": null}')  # sizes differ
    assert not record_match('{"a": 1}', '{"A": 1}')  # names are exact
    assert value_diff(loads('{"A": 1, "X": null}'), loads('{"A": 1, "B": null}')) is not None  # REST


def test_record_diff_applies_the_record_rules_to_key_and_value() -> None:
    expected = TestRecord("t", key=loads("1.9"), value=loads('{"V": 4294967297}'))
    assert record_diff(expected, ActualRecord(0, 0, key=1, value={"V": 1}, timestamp=0), windowed=False) is None
    long_value = ActualRecord(0, 0, key=1, value={"V": JavaLong(1)}, timestamp=0)
    assert record_diff(expected, long_value, windowed=False) is not None


def test_readers_mark_what_java_reads_as_a_long() -> None:
    assert isinstance(KafkaCodec(T.BIGINT).decode(struct.pack(">q", 1)), JavaLong)
    assert not isinstance(KafkaCodec(T.INTEGER).decode(struct.pack(">i", 1)), JavaLong)
    assert isinstance(avro_to_spec("long", 1, {}), JavaLong)
    assert not isinstance(avro_to_spec("int", 1, {}), JavaLong)
    record = {"type": "record", "name": "R", "fields": [{"name": "L", "type": ["null", "long"]}]}
    assert isinstance(avro_to_spec(record, {"L": 5}, {})["L"], JavaLong)


def test_protobuf_readers_mark_64_bit_integers_as_longs() -> None:
    from ksqlpy.catalog import Column
    from ksqlpy.testing.protobuf_codec import ProtobufNoSrCodec

    nosr = ProtobufNoSrCodec([Column("B", T.BIGINT), Column("I", T.INTEGER)])
    row = nosr.decode(nosr.encode({"B": 1, "I": 1}))
    assert isinstance(row["B"], JavaLong) and not isinstance(row["I"], JavaLong)
