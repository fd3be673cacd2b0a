"""ARRAY and MAP functions."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from function_family import family_registry, scalar_caller

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions import array
from ksqlpy.functions import map as map_fns
from ksqlpy.functions.map import java_map_items, java_string_hash
from ksqlpy.functions.signatures import FunctionError
from ksqlpy.types import BIGINT, BOOLEAN, BYTES, DOUBLE, INTEGER, NULL, STRING, Array, Decimal, Map, Struct

REG = family_registry(array, map_fns)
call = scalar_caller(REG)
S = STRING
AI = Array(INTEGER)
AS = Array(STRING)


def rtype(name, *types):
    return REG.scalars[name].resolve(list(types)).return_type


def test_length_concat_contains():
    assert call("ARRAY_LENGTH", [AS], ["a", None]) == 2
    assert call("ARRAY_LENGTH", [AS], None) is None
    assert call("ARRAY_CONCAT", [AI, AI], [1], [2, 3]) == [1, 2, 3]
    assert call("ARRAY_CONCAT", [AI, AI], [1], None) == [1]
    assert call("ARRAY_CONCAT", [AI, AI], None, None) is None
    with pytest.raises(KsqlTypeError, match=r"'array_concat' does not accept parameters \(ARRAY<INTEGER>, ARRAY<BIGINT>\)"):
        rtype("ARRAY_CONCAT", AI, Array(BIGINT))  # a type variable never widens
    with pytest.raises(KsqlTypeError, match=r"'array_contains' does not accept parameters \(ARRAY<INTEGER>, BIGINT\)"):
        rtype("ARRAY_CONTAINS", AI, BIGINT)
    assert call("ARRAY_CONTAINS", [AI, INTEGER], [4, None], 4) is True
    assert call("ARRAY_CONTAINS", [AI, INTEGER], [4], 5) is False
    assert call("ARRAY_CONTAINS", [AI, NULL], [4, None], None) is True
    assert call("ARRAY_CONTAINS", [AI, INTEGER], None, 4) is False
    assert call("ARRAY_CONTAINS", [Array(AS), AS], [["a"], ["b", "c"]], ["b", "c"]) is True
    assert call("ARRAY_CONTAINS", [Array(BOOLEAN), BOOLEAN], [True], True) is True


def test_set_like_functions_keep_first_seen_order():
    assert call("ARRAY_DISTINCT", [AS], ["b", "a", None, "b", None]) == ["b", "a", None]
    assert call("ARRAY_DISTINCT", [Array(Map(S, INTEGER))], [{"x": 1}, {"x": 1}, {"x": 2}]) == [
        {"x": 1},
        {"x": 2},
    ]
    assert call("ARRAY_EXCEPT", [AI, AI], [3, 1, 3, 2, None], [2]) == [3, 1, None]
    assert call("ARRAY_INTERSECT", [AI, AI], [3, 1, 3, None], [None, 3]) == [3, None]
    assert call("ARRAY_UNION", [AI, AI], [2, 2, 1], [1, 5]) == [2, 1, 5]
    assert call("ARRAY_UNION", [AI, AI], [1], None) is None


def test_remove():
    assert call("ARRAY_REMOVE", [AI, INTEGER], [1, 2, 1, None], 1) == [2, None]
    assert call("ARRAY_REMOVE", [AI, INTEGER], [1, None], None) == [1]
    assert call("ARRAY_REMOVE", [Array(AS), AS], [["a"], ["a", "b"], None], ["a"]) == [["a", "b"], None]
    assert call("ARRAY_REMOVE", [AI, INTEGER], None, 1) is None


def test_join_formats_like_java():
    assert call("ARRAY_JOIN", [Array(DOUBLE)], [1.0, 1e8, None]) == "1.0,1.0E8,null"
    assert call("ARRAY_JOIN", [Array(BOOLEAN), S], [True, False], " & ") == "true & false"
    assert call("ARRAY_JOIN", [Array(Decimal(4, 2)), S], [D("1.50"), D("-0.00")], ";") == "1.50;0.00"
    assert call("ARRAY_JOIN", [AS, NULL], ["a", "b"], None) == "ab"
    assert call("ARRAY_JOIN", [AS], None) is None
    with pytest.raises(FunctionError):
        call("ARRAY_JOIN", [Array(AS)], [["nested"]])


def test_max_min_sort():
    assert call("ARRAY_MAX", [AI], [None, 3, -1]) == 3
    assert call("ARRAY_MIN", [AS], ["b", "B", None]) == "B"
    assert call("ARRAY_MAX", [AI], [None]) is None
    assert call("ARRAY_MIN", [Array(BYTES)], [b"\x01", b"\xf0"]) == b"\xf0"  # signed bytes
    assert rtype("ARRAY_MAX", Array(Decimal(3, 1))) == Decimal(3, 1)
    assert call("ARRAY_SORT", [AI], [3, None, 1, 2]) == [1, 2, 3, None]
    assert call("ARRAY_SORT", [AI, S], [3, None, 1, 2], "Desc") == [3, 2, 1, None]
    assert call("ARRAY_SORT", [AI, S], [3, 1], "descending") == [3, 1]
    assert call("ARRAY_SORT", [AI, S], [3, 1], "sideways") is None
    assert call("ARRAY_SORT", [AI, S], [3, 1], None) is None
    src = [2, 1]
    call("ARRAY_SORT", [AI], src)
    assert src == [2, 1]  # input untouched


def test_generate_series():
    assert call("GENERATE_SERIES", [INTEGER, INTEGER], 1, 4) == [1, 2, 3, 4]
    assert call("GENERATE_SERIES", [INTEGER, INTEGER], 2, -1) == [2, 1, 0, -1]
    assert call("GENERATE_SERIES", [INTEGER, INTEGER], 5, 5) == [5]
    assert call("GENERATE_SERIES", [INTEGER, INTEGER, INTEGER], 0, 10, 4) == [0, 4, 8]
    assert call("GENERATE_SERIES", [INTEGER, INTEGER, INTEGER], 10, 0, -5) == [10, 5, 0]
    assert rtype("GENERATE_SERIES", BIGINT, INTEGER) == Array(BIGINT)
    with pytest.raises(FunctionError):
        call("GENERATE_SERIES", [INTEGER, INTEGER, INTEGER], 0, 5, 0)
    with pytest.raises(FunctionError):
        call("GENERATE_SERIES", [INTEGER, INTEGER, INTEGER], 0, 5, -1)
    with pytest.raises(FunctionError, match="more than an array can hold"):  # not a MemoryError
        call("GENERATE_SERIES", [BIGINT, BIGINT], 0, 2**62)


def test_slice_is_one_based_and_inclusive():
    letters = ["a", "b", "c", "d"]
    assert call("SLICE", [AS, INTEGER, INTEGER], letters, 2, 4) == ["b", "c", "d"]
    assert call("SLICE", [AS, INTEGER, INTEGER], letters, 1, 0) == []
    assert call("SLICE", [AS, NULL, INTEGER], letters, None, 2) == ["a", "b"]
    assert call("SLICE", [AS, INTEGER, NULL], letters, 3, None) == ["c", "d"]
    assert call("SLICE", [AS, INTEGER, INTEGER], letters, 0, 2) is None
    assert call("SLICE", [AS, INTEGER, INTEGER], letters, 2, 9) is None
    assert call("SLICE", [AS, INTEGER, INTEGER], letters, 3, 2) == []
    assert call("SLICE", [AS, INTEGER, INTEGER], letters, 4, 2) is None


def test_maps():
    m = {"b": 2, "a": None}
    ms = Map(S, INTEGER)
    # walked in java.util.HashMap order (bucket of the String hash), not insertion order
    assert call("MAP_KEYS", [ms], m) == ["a", "b"]
    assert call("MAP_VALUES", [ms], m) == [None, 2]
    assert call("MAP_KEYS", [ms], {"k1": 1, "k2": 2, "k3": 3}) == ["k3", "k1", "k2"]
    assert call("MAP_KEYS", [ms], None) is None
    assert rtype("MAP_VALUES", Map(S, Array(DOUBLE))) == Array(Array(DOUBLE))
    assert call("MAP_UNION", [ms, ms], {"a": 1, "b": 2}, {"b": None, "c": 3}) == {"a": 1, "b": None, "c": 3}
    assert call("MAP_UNION", [ms, ms], None, {"c": 3}) == {"c": 3}
    assert call("MAP_UNION", [ms, ms], None, None) is None
    assert call("AS_MAP", [AS, AI], ["x", "y", "z"], [1, 2]) == {"x": 1, "y": 2, "z": None}
    assert call("AS_MAP", [AS, AI], ["x"], [1, 2]) == {"x": 1}
    assert rtype("AS_MAP", AS, Array(BOOLEAN)) == Map(S, BOOLEAN)


def test_entries():
    ms = Map(S, DOUBLE)
    assert rtype("ENTRIES", ms, BOOLEAN) == Array(Struct((("K", S), ("V", DOUBLE))))
    assert call("ENTRIES", [ms, BOOLEAN], {"z": 1.0, "a": 2.0}, True) == [
        {"K": "a", "V": 2.0},
        {"K": "z", "V": 1.0},
    ]
    assert call("ENTRIES", [ms, BOOLEAN], {"red": 1.0, "green": 2.0, "blue": 3.0}, False) == [
        {"K": "red", "V": 1.0},
        {"K": "blue", "V": 3.0},
        {"K": "green", "V": 2.0},
    ]
    assert call("ENTRIES", [ms, BOOLEAN], None, True) is None
    with pytest.raises(FunctionError):  # a primitive boolean in ksqlDB: NULL fails the call
        call("ENTRIES", [ms, BOOLEAN], {"a": 1.0}, None)


@pytest.mark.parametrize("value", [INTEGER, BIGINT, DOUBLE, BOOLEAN, S])
def test_entries_has_one_overload_per_value_type(value):
    assert rtype("ENTRIES", Map(S, value), BOOLEAN) == Array(Struct((("K", S), ("V", value))))


def test_entries_takes_string_keys_and_primitive_values_only():
    # a DECIMAL value widens to the DOUBLE overload; other keys and values fit none
    assert rtype("ENTRIES", Map(S, Decimal(4, 2)), BOOLEAN) == Array(Struct((("K", S), ("V", DOUBLE))))
    for m in (Map(INTEGER, INTEGER), Map(S, Array(INTEGER)), Map(S, BYTES)):
        with pytest.raises(KsqlTypeError, match="'entries' does not accept parameters"):
            rtype("ENTRIES", m, BOOLEAN)
    with pytest.raises(KsqlTypeError, match="ambiguous method parameters \\(null, BOOLEAN\\)"):
        rtype("ENTRIES", NULL, BOOLEAN)


def test_java_hashmap_order():
    assert java_string_hash("ksql") == 3301763  # "ksql".hashCode()
    assert java_string_hash("\U0001f600") == 1772899  # hashed as two UTF-16 units
    keys = ["c0", "b1", "a2", "d3", "zz"]
    walked = [k for k, _ in java_map_items({k: None for k in keys})]
    assert sorted(walked) == sorted(keys)
    buckets = [
        (java_string_hash(k) ^ (java_string_hash(k) >> 16)) & 7 for k in walked
    ]  # 5 entries: 8 buckets
    assert buckets == sorted(buckets)
    assert java_map_items({1: "x"}) == [(1, "x")]


def test_set_functions_compare_doubles_as_double_equals():
    # Java's collections compare with Double.equals: NaN equals NaN, -0.0 differs from 0.0
    nan = float("nan")
    AD = Array(DOUBLE)
    out = call("ARRAY_DISTINCT", [AD], [nan, float("nan"), -0.0, 0.0])
    assert len(out) == 3 and out[0] != out[0] and str(out[1:]) == "[-0.0, 0.0]"
    assert call("ARRAY_CONTAINS", [AD, DOUBLE], [float("nan")], nan) is True
    assert str(call("ARRAY_REMOVE", [AD, DOUBLE], [-0.0, 0.0, 1.0], 0.0)) == "[-0.0, 1.0]"
    assert str(call("ARRAY_EXCEPT", [AD, AD], [-0.0, 0.0], [0.0])) == "[-0.0]"
    assert len(call("ARRAY_UNION", [AD, AD], [nan], [float("nan")])) == 1
