"""``Engine.drain()`` waits for queries that run in worker processes.

A user's script inserts rows and reads the results after ``drain()``; with ``ksqlpy.workers=process`` the
query runs elsewhere, so drain has to wait until the workers have committed everything the inputs hold.
Drain is called right after the query starts (the workers are still starting up) and right after more
input arrives; no sleep or polling in the test.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from ksqlpy.engine import Engine


def _table(engine: Engine, topic: str) -> dict[int, int]:
    """The sink's last COUNT per key, read from the log (what a consumer of the output sees)."""
    info = engine.log.describe_topic(topic)
    assert info is not None
    key_serde = engine.key_serde(engine.catalog.require("T"))
    value_serde = engine.value_serde(engine.catalog.require("T"))
    out: dict[int, int] = {}
    for p in range(info.partitions):
        offset = engine.log.start_offset(topic, p)
        while True:
            b = engine.log.fetch(topic, p, offset, 10_000)
            if not b.offsets:
                break
            for k, v in zip(b.keys, b.values, strict=True):
                out[key_serde.deserialize(k)[0]] = value_serde.deserialize(v)[0]
            offset = b.next_offset
    return out


def _run(engine: Engine) -> None:
    suffix = uuid.uuid4().hex[:8]
    engine.execute(f"CREATE STREAM S (ID INT KEY, V INT) WITH (KAFKA_TOPIC='drain_src_{suffix}', PARTITIONS=4, "
                   "VALUE_FORMAT='JSON');")
    engine.execute(f"CREATE TABLE T WITH (KAFKA_TOPIC='drain_out_{suffix}') AS SELECT ID, COUNT(*) AS C "
                   "FROM S GROUP BY ID;")
    (query,) = engine.queries.values()
    assert query.workers is not None  # the query runs in worker processes, not in drain's own loop
    for i in range(200):
        engine.execute(f"INSERT INTO S (ID, V) VALUES ({i % 8}, {i});")
    engine.drain(timeout_s=120)
    assert _table(engine, f"drain_out_{suffix}") == {k: 25 for k in range(8)}
    for i in range(80):  # more input once the workers run: drain waits for it too
        engine.execute(f"INSERT INTO S (ID, V) VALUES ({i % 8}, {i});")
    engine.drain(timeout_s=120)
    assert _table(engine, f"drain_out_{suffix}") == {k: 35 for k in range(8)}


def _props(**extra: object) -> dict[str, object]:
    return {"ksql.service.id": "drain_", "auto.offset.reset": "earliest", "ksqlpy.workers": "process",
            "num.stream.threads": 2, "cache.max.bytes.buffering": 0, **extra}


def test_drain_waits_for_worker_processes_on_the_embedded_log(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "data"), _props())
    try:
        _run(engine)
    finally:
        engine.close()


@pytest.mark.parametrize("guarantee", ["at_least_once", "exactly_once_v2"])
def test_drain_waits_for_worker_processes_on_kafka(tmp_path: Path, bootstrap: str, guarantee: str) -> None:
    # a long commit interval: drain must see the workers' commit when they catch up, not at the interval
    engine = Engine(str(tmp_path / "data"), _props(**{
        "bootstrap.servers": bootstrap, "ksql.streams.session.timeout.ms": 2000,
        "processing.guarantee": guarantee, "commit.interval.ms": 60_000,
        "ksql.service.id": f"drain_{guarantee}_",
        # tansu shows aborted records: exactly-once is refused there unless at-least-once is accepted
        "ksqlpy.processing.guarantee.accept.at.least.once": "true"}))
    try:
        _run(engine)
    finally:
        engine.close()
