"""The reader's batch path hands any batch it cannot read as plain rows to the per-record path."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord


def _run(tmp_path: Path, batches: list[list[tuple[bytes | None, dict | None]]]) -> list[tuple]:
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        engine.execute("CREATE STREAM ev (k BIGINT KEY, ts BIGINT, n INT) WITH (kafka_topic='ev', "
                       "key_format='KAFKA', value_format='JSON', partitions=1, timestamp='ts');")
        engine.execute("CREATE STREAM out AS SELECT k, n FROM ev;")
        for batch in batches:  # one transaction each: the query reads them as separate chunks
            with engine.log.transaction() as tx:
                for key, value in batch:
                    tx.produce(ProducerRecord("ev", key, None if value is None else orjson.dumps(value), 0,
                                              None, partition=0))
        engine.drain()
        out = engine.log.fetch("OUT", 0, 0, 100)
        return [(k, orjson.loads(v) if v is not None else None, t)
                for k, v, t in zip(out.keys, out.values, out.timestamps, strict=True)]
    finally:
        engine.close()


K1, K2 = (1).to_bytes(8, "big"), (2).to_bytes(8, "big")


@pytest.mark.parametrize("bad", [
    {"ts": None, "n": 9},  # a NULL timestamp: skipped
    {"ts": -5, "n": 9},  # a negative one: skipped
    {"n": 9},  # a missing one: skipped
])
def test_records_without_a_valid_timestamp_are_skipped_from_a_batch(tmp_path: Path, bad: dict) -> None:
    got = _run(tmp_path, [[(K1, {"ts": 10, "n": 1}), (K1, bad), (K2, {"ts": 20, "n": 2})], [(K2, bad)]])
    assert got == [(K1, {"N": 1}, 10), (K2, {"N": 2}, 20)]


def test_null_keys_and_tombstones_in_a_batch(tmp_path: Path) -> None:
    got = _run(tmp_path, [[(K1, {"ts": 10, "n": 1}), (None, {"ts": 11, "n": 2}), (K2, None),
                           (K2, {"ts": 12, "n": 3})]])
    # a stream forwards a null-keyed row and a tombstone through a plain projection
    assert [(k, v) for k, v, _ in got] == [(K1, {"N": 1}), (None, {"N": 2}), (K2, None), (K2, {"N": 3})]
