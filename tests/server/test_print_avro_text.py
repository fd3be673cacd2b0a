"""PRINT renders an Avro record as Avro's GenericData.toString does (server/printing.py)."""

from __future__ import annotations

from ksqlpy.server.printing import _avro_text


def test_record_fields_in_order_with_spaces() -> None:
    assert _avro_text({"NAME": "x", "N": 3, "OK": True, "NONE": None}) == \
        '{"NAME": "x", "N": 3, "OK": true, "NONE": null}'


def test_nested_arrays_maps_doubles() -> None:
    assert _avro_text({"A": [1.0, 2.5e-5], "M": {"k": {"s": "v"}}}) == \
        '{"A": [1.0, 2.5E-5], "M": {"k": {"s": "v"}}}'


def test_strings_escaped() -> None:
    assert _avro_text('a"b\\c\nd/e\x01') == '"a\\"b\\\\c\\nd\\/e\\u0001"'


def test_bytes_as_latin1_object() -> None:
    assert _avro_text(b"\x04\xe2") == '{"bytes": "\\u0004\xe2"}'
