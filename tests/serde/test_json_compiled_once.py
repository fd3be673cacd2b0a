"""JSON serdes of the same columns share the compiled reader/writer code (``ksqlpy.codegen_cache``) but not its state: each serde
executes the code in its own namespace (its own key-layout plans, converters and functions). Each side - the reader, the
writer - is generated and compiled on its first use, not when the serde is made."""

from __future__ import annotations

import builtins
from typing import Any

import pytest

from ksqlpy import codegen_cache as cc
from ksqlpy import types as T
from ksqlpy.codegen_cache import compiled
from ksqlpy.serde.json_format import JsonValueSerde

COLUMNS = [("ID", T.BIGINT), ("NAME", T.STRING), ("D", T.DOUBLE)]


def test_same_columns_compile_once_and_keep_their_own_state() -> None:
    compiled.cache_clear()
    a, b = JsonValueSerde(COLUMNS), JsonValueSerde(COLUMNS)
    assert compiled.cache_info().misses == 0  # nothing compiled until a side is used
    assert a.deserialize(b'{"id": 1, "name": "x", "d": 2}') == (1, "x", 2.0)
    assert b.deserialize(b'{"ID": 2, "NAME": null}') == (2, None, None)
    info = compiled.cache_info()
    assert info.misses == 1 and info.hits == 1  # the reader: compiled once, shared
    assert a._row is not b._row and a._row.__globals__ is not b._row.__globals__
    assert a._row.__globals__["_plans"] and b._row.__globals__["_plans"] is not a._row.__globals__["_plans"]
    assert a.serialize((1, "x", 2.5)) == b.serialize((1, "x", 2.5)) == b'{"ID":1,"NAME":"x","D":2.5}'
    info = compiled.cache_info()
    assert info.misses == 2 and info.hits == 2  # the writer: compiled once, shared


def test_other_columns_compile_their_own_code() -> None:
    compiled.cache_clear()
    JsonValueSerde(COLUMNS).deserialize(b'{"ID": 1}')
    other = JsonValueSerde([("ID", T.BIGINT), ("NAME", T.STRING)])
    assert other.deserialize(b'{"ID": 3, "NAME": "y"}') == (3, "y")
    assert compiled.cache_info().misses == 2


def test_each_side_is_compiled_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    files: list[str] = []

    def counting(src: str, filename: str, mode: str) -> Any:
        files.append(filename)
        return builtins.compile(src, filename, mode)

    monkeypatch.setattr(cc, "compile", counting, raising=False)
    compiled.cache_clear()
    reader, writer = JsonValueSerde(COLUMNS), JsonValueSerde(COLUMNS)
    assert files == []
    rows, errors = reader.deserialize_batch([b'{"ID": 1, "NAME": "a", "D": 0.5}', None, b"{"])
    assert rows == [(1, "a", 0.5), None, None] and [i for i, _ in errors] == [2]
    assert files == ["<json serde reader ['ID', 'NAME', 'D']>"]
    assert writer.serialize_batch([(1, "a", 0.5), None]) == [b'{"ID":1,"NAME":"a","D":0.5}', None]
    assert files == ["<json serde reader ['ID', 'NAME', 'D']>", "<json serde writer ['ID', 'NAME', 'D']>"]
    assert reader._writer is None and writer._reader is None  # neither built the side it never used


def test_a_method_kept_before_first_use_still_works() -> None:
    serde = JsonValueSerde([("K", T.STRING), ("V", T.INTEGER)])
    read, read_batch, write, write_batch = serde.deserialize, serde.deserialize_batch, serde.serialize, serde.serialize_batch
    assert read(b'{"k": "a", "v": 1}') == ("a", 1)
    assert read_batch([b'{"K": "b", "V": 2}']) == ([("b", 2)], [])
    assert write(("c", 3)) == b'{"K":"c","V":3}'
    assert write_batch([("d", 4)]) == [b'{"K":"d","V":4}']
    # after first use the instance's attributes are the generated functions themselves
    assert serde.deserialize is serde._reader["deserialize"] and serde.serialize is serde._writer["serialize"]


def test_unwrapped_sides_are_lazy_too() -> None:
    serde = JsonValueSerde([("V", T.DOUBLE)], wrap=False)
    assert serde.serialize((float("nan"),)) == b'"NaN"'
    assert serde._reader is None
    assert serde.deserialize(b"1.5") == (1.5,)
