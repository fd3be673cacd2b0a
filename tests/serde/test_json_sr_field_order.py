"""JSON_SR STRUCT field order where properties lack ``connect.index``: JsonSchemaData meets them in the JSON
Schema library's HashMap order and places each at the count so far (see json_sr_field_order_gen.py)."""

from ksqlpy import types as T
from ksqlpy.serde.json_sr import _hash_map_order, _java_hash, connect_fields, sql_type_of


def test_java_string_hash_matches_java() -> None:
    # String.hashCode: "hello" 99162322, "Aa" and "BB" both 2112 (the high half is 0, nothing folded in)
    assert _java_hash("hello") == 99162322 ^ (99162322 >> 16)
    assert _java_hash("Aa") == _java_hash("BB") == 2112


def test_hash_map_order_by_bucket_then_insertion() -> None:
    assert _hash_map_order(["Z", "A", "M"]) == ["A", "Z", "M"]  # buckets 10, 1, 13
    assert _hash_map_order(["Q", "A"]) == ["Q", "A"]  # one bucket (1): as inserted
    # twelve names fit 16 buckets ("C3" 2128 -> 0 first); the thirteenth grows the map to 32 ("C11" 65954 -> 2)
    assert _hash_map_order([f"C{i}" for i in range(1, 13)])[:3] == ["C3", "C4", "C5"]
    assert _hash_map_order([f"C{i}" for i in range(1, 14)])[:5] == ["C11", "C10", "C13", "C12", "C1"]


def test_missing_index_takes_the_count_so_far_and_replaces() -> None:
    props = {"A": {"type": "integer", "connect.index": 1}, "B": {"type": "integer"}, "C": {"type": "string",
                                                                                        "connect.index": 0}}
    assert [n for n, _ in connect_fields(props)] == ["C", "B"]
    assert sql_type_of({"type": "object", "properties": props}) == T.Struct((("C", T.STRING), ("B", T.BIGINT)))


def test_connect_map_without_value_schema_is_refused() -> None:
    import pytest

    from ksqlpy.serde.base import UnreadableSchemaError

    for extra in ({}, {"additionalProperties": True}):
        with pytest.raises(UnreadableSchemaError, match="valueSchema cannot be null."):
            sql_type_of({"type": "object", "connect.type": "map", **extra})
