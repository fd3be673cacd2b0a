"""Helpers for join tests: an engine in a temp dir, records in by source schema, decoded records out."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

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
        """(key, value, timestamp) of every record of a source's topic, partition after partition."""
        src = self.engine.catalog.source(source)
        assert src is not None
        ks, vs = self.engine.key_serde(src), self.engine.value_serde(src)
        out = []
        info = self.engine.log.describe_topic(src.topic)
        assert info is not None
        for p in range(info.partitions):
            batch = self.engine.log.fetch(src.topic, p, 0, 1_000_000)
            for k, v, ts in zip(batch.keys, batch.values, batch.timestamps, strict=True):
                key = ks.deserialize(k)
                out.append((key[0] if key is not None and len(key) == 1 else key,
                            None if v is None else vs.deserialize(v), ts))
        return out


@pytest.fixture
def h(tmp_path: Any) -> Iterator[Harness]:
    harness = Harness(str(tmp_path))
    try:
        yield harness
    finally:
        harness.engine.close()
