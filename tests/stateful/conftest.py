"""Helpers for stateful tests: an engine in a temp dir, JSON records in, decoded records out."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson
import pytest
from source_records import source_records

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord


class Harness:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def sql(self, text: str, properties: dict[str, Any] | None = None) -> Any:
        return self.engine.execute(text, properties)

    def send(self, topic: str, key: Any, value: Any, ts: int, partition: int | None = None) -> None:
        """Produce one record: a str key as KAFKA bytes, a dict value as JSON (None: tombstone)."""
        kb = None if key is None else (key.encode() if isinstance(key, str) else orjson.dumps(key))
        vb = None if value is None else orjson.dumps(value)
        self.engine.log.produce(ProducerRecord(topic, kb, vb, ts, None, partition))

    def run(self) -> None:
        self.engine.drain(10)

    def read(self, source_name: str) -> list[tuple[Any, Any, int]]:
        """(key, value, timestamp) of every record of a source's topic, partitions in order."""
        return source_records(self.engine, source_name)

    def pull(self, text: str) -> list[tuple]:
        (res,) = self.engine.execute(text)
        return [tuple(r) for r in res.data["rows"]]

    def pull_keys(self, table: str, key_column: str, keys: Iterable[str]) -> list[tuple]:
        """Every row of ``table`` under ``keys`` (give every key written: the whole state), by one key lookup
        ``WHERE <key_column> IN (...)``. A session-windowed table is read key by key - a scan of it fails, as
        ksqlDB's KsMaterializedSessionTable's does ('Table scan unsupported on session tables')."""
        literals = ", ".join("'" + k.replace("'", "''") + "'" for k in sorted(set(keys)))
        assert literals, "no key to look up"
        return self.pull(f"SELECT * FROM {table} WHERE {key_column} IN ({literals});")


@pytest.fixture
def h(tmp_path: Any) -> Iterator[Harness]:
    # the record cache off and EMIT FINAL unthrottled, as ksqlDB's own query tests run: every aggregation
    # update is an output, every record looks for closed windows (the tests of the cache and of the throttle
    # turn them on)
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest", "ksql.service.id": "test_",
                                    "cache.max.bytes.buffering": 0,
                                    "ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0})
    try:
        yield Harness(engine)
    finally:
        engine.close()
