"""Generated source is compiled once per text (``ksqlpy.codegen_cache``): equal texts share one code object,
each use still runs it in its own namespace (its own functions and globals), and a text that does not
compile raises every time it is asked for."""

from __future__ import annotations

import builtins
from typing import Any

import pytest

import ksqlpy.codegen_cache as cc
from ksqlpy.codegen_cache import compiled
from ksqlpy.serde.json_format import JsonValueSerde
from ksqlpy.types import BIGINT, STRING


def test_equal_texts_share_one_code_object_and_keep_their_namespaces() -> None:
    src = "def f(x):\n    return x + k\n"
    code = compiled(src, "<t-share>")
    assert compiled(src, "<t-share>") is code
    assert compiled(src, "<t-other>") is not code  # the file name is part of the key (tracebacks)
    a: dict[str, Any] = {"k": 1}
    b: dict[str, Any] = {"k": 10}
    exec(code, a)  # noqa: S102
    exec(code, b)  # noqa: S102
    assert a["f"] is not b["f"] and a["f"](1) == 2 and b["f"](1) == 11


def test_a_text_that_does_not_compile_raises_each_time() -> None:
    for _ in range(2):
        with pytest.raises(SyntaxError):
            compiled("def f(:\n", "<t-bad>")


def test_serdes_of_the_same_columns_compile_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def counting(src: str, filename: str, mode: str) -> Any:
        calls.append(filename)
        return builtins.compile(src, filename, mode)

    monkeypatch.setattr(cc, "compile", counting, raising=False)
    cc.compiled.cache_clear()
    columns = [("ID_CACHE_T", BIGINT), ("NAME", STRING)]
    first, second = JsonValueSerde(columns), JsonValueSerde(columns)
    assert calls == []  # each side compiles on first use
    assert first.deserialize(b'{"ID_CACHE_T": 1, "NAME": "a"}') == (1, "a")
    assert second.deserialize(b'{"ID_CACHE_T": 2, "NAME": "b"}') == (2, "b")
    assert len(calls) == 1
    assert second.serialize((2, "b")) == first.serialize((2, "b")) == b'{"ID_CACHE_T":2,"NAME":"b"}'
    assert len(calls) == 2
    JsonValueSerde([("ID_CACHE_T", BIGINT)]).serialize((3,))
    assert len(calls) == 3
