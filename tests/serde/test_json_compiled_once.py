"""JSON serdes of the same columns share the compiled reader/writer code (``ksqlpy.codegen_cache``) but not its state: each serde
executes the code in its own namespace (its own key-layout plans, converters and functions)."""

from __future__ import annotations

from ksqlpy import types as T
from ksqlpy.codegen_cache import compiled
from ksqlpy.serde.json_format import JsonValueSerde

COLUMNS = [("ID", T.BIGINT), ("NAME", T.STRING), ("D", T.DOUBLE)]


def test_same_columns_compile_once_and_keep_their_own_state() -> None:
    compiled.cache_clear()
    a, b = JsonValueSerde(COLUMNS), JsonValueSerde(COLUMNS)
    info = compiled.cache_info()
    assert info.misses == 1 and info.hits == 1
    assert a._row is not b._row and a._row.__globals__ is not b._row.__globals__
    assert a.deserialize(b'{"id": 1, "name": "x", "d": 2}') == (1, "x", 2.0)
    assert a._row.__globals__["_plans"] and not b._row.__globals__["_plans"]  # only a has seen a layout
    assert b.deserialize(b'{"ID": 2, "NAME": null}') == (2, None, None)
    assert a.serialize((1, "x", 2.5)) == b.serialize((1, "x", 2.5)) == b'{"ID":1,"NAME":"x","D":2.5}'


def test_other_columns_compile_their_own_code() -> None:
    compiled.cache_clear()
    JsonValueSerde(COLUMNS)
    other = JsonValueSerde([("ID", T.BIGINT), ("NAME", T.STRING)])
    assert compiled.cache_info().misses == 2
    assert other.deserialize(b'{"ID": 3, "NAME": "y"}') == (3, "y")
