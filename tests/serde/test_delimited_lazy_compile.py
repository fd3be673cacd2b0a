"""DELIMITED serdes generate their reader and writer at construction (an unsupported type is refused there) but
compile each side on its first use (``ksqlpy.codegen_cache``, once per text): a query makes a serde for every
source and sink it touches and uses one side of most."""

from __future__ import annotations

import builtins
from typing import Any

import pytest

from ksqlpy import codegen_cache as cc
from ksqlpy import types as T
from ksqlpy.serde.base import FormatRuleError
from ksqlpy.serde.delimited import DelimitedValueSerde

COLUMNS = [("ID", T.BIGINT), ("NAME", T.STRING), ("D", T.DOUBLE)]


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    files: list[str] = []

    def counting(src: str, filename: str, mode: str) -> Any:
        files.append(filename)
        return builtins.compile(src, filename, mode)

    monkeypatch.setattr(cc, "compile", counting, raising=False)
    cc.compiled.cache_clear()
    return files


def test_each_side_compiles_on_first_use_once_per_text(compiles: list[str]) -> None:
    reader, writer = DelimitedValueSerde(COLUMNS), DelimitedValueSerde(COLUMNS)
    assert compiles == []
    assert reader.deserialize_batch([b"1,a,2.5", b"x,y", None]) == (
        [(1, "a", 2.5), None, None], [(1, "Column count mismatch on deserialization. expected: 3, got: 2")])
    assert compiles == ["<delimited serde reader ['ID', 'NAME', 'D']>"]
    assert writer.serialize_batch([(1, "a", 1e10), (None, None, None)]) == [b"1,a,1.0E10", b",,"]
    assert writer.deserialize(b",b,") == (None, "b", None)  # the reader's text again: no compile
    assert reader.serialize((2, '"q"', None)) == b'2,"""q""",'
    assert compiles == ["<delimited serde reader ['ID', 'NAME', 'D']>", "<delimited serde writer ['ID', 'NAME', 'D']>"]


def test_a_method_kept_before_first_use_still_works() -> None:
    serde = DelimitedValueSerde([("K", T.STRING), ("V", T.INTEGER)], delimiter="|")
    read, read_batch, write, write_batch = serde.deserialize, serde.deserialize_batch, serde.serialize, serde.serialize_batch
    assert read(b"a|1") == ("a", 1)
    assert read_batch([b"b|2"]) == ([("b", 2)], [])
    assert write(("c", 3)) == b"c|3"
    assert write_batch([("d", None)]) == [b"d|"]
    assert serde.deserialize is serde._sides["reader"]["deserialize"]


def test_an_unsupported_type_is_still_refused_when_the_serde_is_made() -> None:
    with pytest.raises(FormatRuleError, match="does not support type 'ARRAY'"):
        DelimitedValueSerde([("A", T.Array(T.INTEGER))])
