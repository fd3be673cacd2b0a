"""Helpers for the Python function tests: extension files written into a temp directory, engines loading them."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine


class Extensions:
    """A temp ``ksql.extension.dir`` and engines that load it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.dir = root / "ext"
        self.dir.mkdir()
        self.engines: list[Engine] = []

    def write(self, name: str, source: str) -> Path:
        path = self.dir / name
        path.write_text(textwrap.dedent(source))
        return path

    def engine(self, **properties: Any) -> Engine:
        props = {"ksql.extension.dir": str(self.dir), "auto.offset.reset": "earliest",
                 "cache.max.bytes.buffering": 0, **properties}
        e = Engine(str(self.root / f"data{len(self.engines)}"), props)
        self.engines.append(e)
        return e

    def close(self) -> None:
        for e in self.engines:
            e.close()


@pytest.fixture
def ext(tmp_path: Path) -> Iterator[Extensions]:
    x = Extensions(tmp_path)
    try:
        yield x
    finally:
        x.close()


def read(engine: Engine, name: str) -> list[tuple[Any, Any]]:
    """(key, value) of every record of a source's topic, partitions in order."""
    src = engine.catalog.source(name)
    assert src is not None
    ks, vs = engine.key_serde(src), engine.value_serde(src)
    info = engine.log.describe_topic(src.topic)
    assert info is not None
    out = []
    for p in range(info.partitions):
        b = engine.log.fetch(src.topic, p, 0, 1_000_000)
        out += [(ks.deserialize(k), None if v is None else vs.deserialize(v)) for k, v in zip(b.keys, b.values,
                                                                                                  strict=True)]
    return out


def values(engine: Engine, name: str) -> list[tuple[Any, ...]]:
    return [v for _, v in read(engine, name)]


def plog_errors(engine: Engine) -> list[dict[str, Any]]:
    return [e["message"]["recordProcessingError"] for e in engine.plog.entries
            if e["message"].get("recordProcessingError")]
