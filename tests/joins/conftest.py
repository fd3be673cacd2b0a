"""Helpers for join tests: an engine in a temp dir, records in by source schema, decoded records out."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from source_records import source_records

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord

PROPS = {"auto.offset.reset": "earliest", "ksql.service.id": "jt_"}


class Harness:
    def __init__(self, data_dir: str, props: dict[str, Any] | None = None) -> None:
        self.data_dir = data_dir
        self.props = {**PROPS, **(props or {})}
        self.engine = Engine(data_dir, self.props)

    def restart(self, statements: list[str]) -> None:
        """A new engine over the same data directory, re-running ``statements`` (as a server replays them)."""
        self.engine.close()
        self.engine = Engine(self.data_dir, self.props)
        for s in statements:
            self.engine.execute(s)

    def sql(self, text: str) -> Any:
        return self.engine.execute(text)

    def send(self, source: str, key: Any, value: dict | None, ts: int) -> None:
        """Produce one record to a source's topic, serialized with the source's own formats."""
        src = self.engine.catalog.source(source)
        assert src is not None
        kb = None if key is None else self.engine.key_serde(src).serialize(key if isinstance(key, tuple) else (key,))
        vb = None
        if value is not None:
            cols = [c.name for c in src.value_columns]
            vb = self.engine.value_serde(src).serialize(tuple(value.get(c) for c in cols))
        self.engine.log.produce(ProducerRecord(src.topic, kb, vb, ts))

    def run(self) -> None:
        self.engine.drain(30)

    def read(self, source: str) -> list[tuple[Any, Any, int]]:
        """(key, value, timestamp) of every record of a source's topic, partition after partition; a key of
        one column as its value."""
        return [(key[0] if key is not None and len(key) == 1 else key, value, ts)
                for key, value, ts in source_records(self.engine, source)]


@pytest.fixture
def h(tmp_path: Any) -> Iterator[Harness]:
    harness = Harness(str(tmp_path))
    try:
        yield harness
    finally:
        harness.engine.close()
