"""Worker processes run a query from its physical topology: no SQL text, no catalog, no engine.

The same statements run once in the engine process and once in two worker processes (embedded log and
Kafka); the sinks must hold the same records. Shapes: a join followed by GROUP BY on a non-key (three
sub-topologies, two repartition topics), a windowed aggregation, a foreign-key join.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import uuid
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord
from ksqlpy.plan.topology import Topology
from ksqlpy.runtime.workers import WorkerSpec

SOURCES = [
    "CREATE STREAM ORDERS (ID INT KEY, CUSTOMER INT, AMOUNT INT) WITH (KAFKA_TOPIC='{p}orders', "
    "VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE TABLE CUSTOMERS (ID INT PRIMARY KEY, REGION STRING) WITH (KAFKA_TOPIC='{p}customers', "
    "VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE TABLE ACCOUNTS (ID INT PRIMARY KEY, CUSTOMER INT, BALANCE INT) WITH (KAFKA_TOPIC='{p}accounts', "
    "VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE STREAM PRICED (ID INT KEY, CUSTOMER INT, AMOUNT DECIMAL(6, 2)) WITH (KAFKA_TOPIC='{p}priced', "
    "VALUE_FORMAT='JSON', PARTITIONS=4);",
]
QUERIES = {
    "join_group_by": "CREATE TABLE SALES WITH (KAFKA_TOPIC='{p}sales') AS SELECT C.REGION, COUNT(*) AS N, "
                     "SUM(O.AMOUNT) AS TOTAL FROM ORDERS O JOIN CUSTOMERS C ON O.CUSTOMER = C.ID GROUP BY C.REGION;",
    "windowed": "CREATE TABLE PER_MINUTE WITH (KAFKA_TOPIC='{p}per_minute') AS SELECT CUSTOMER, COUNT(*) AS N "
                "FROM ORDERS WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY CUSTOMER;",
    "foreign_key": "CREATE TABLE OWNERS WITH (KAFKA_TOPIC='{p}owners') AS SELECT A.ID, A.BALANCE, C.REGION "
                   "FROM ACCOUNTS A JOIN CUSTOMERS C ON A.CUSTOMER = C.ID;",
    # INSERT INTO casts a DECIMAL(4, 1) to the sink's DECIMAL(6, 2): a cast the statement adds after analysis,
    # which a worker re-analysing the statement's text never had
    "insert_cast": "INSERT INTO PRICED SELECT ID, CUSTOMER, CAST(AMOUNT AS DECIMAL(4, 1)) AS AMOUNT FROM ORDERS;",
}
SINKS = {"join_group_by": "sales", "windowed": "per_minute", "foreign_key": "owners", "insert_cast": "priced"}


def _produce(engine: Engine, prefix: str) -> None:
    def key(i: int) -> bytes:
        return i.to_bytes(4, "big", signed=True)

    with engine.log.transaction() as tx:
        for c in range(12):
            tx.produce(ProducerRecord(f"{prefix}customers", key(c), json.dumps({"REGION": f"r{c % 3}"}).encode(), c))
        for a in range(20):
            tx.produce(ProducerRecord(f"{prefix}accounts", key(a),
                                      json.dumps({"CUSTOMER": a % 12, "BALANCE": a * 10}).encode(), a))
    with engine.log.transaction() as tx:
        for i in range(300):
            value = {"CUSTOMER": (i * 7) % 12, "AMOUNT": i % 50}
            tx.produce(ProducerRecord(f"{prefix}orders", key(i), json.dumps(value).encode(), 1000 + i * 997))


def _table(engine: Engine, topic: str) -> dict[bytes, bytes | None]:
    """The last value of each key of ``topic`` (a key lives in one partition; the order in which a
    repartitioned aggregation sees records of several partitions - so its intermediate updates - may
    differ between runs, the final table may not)."""
    out: dict[bytes, bytes | None] = {}
    info = engine.log.describe_topic(topic)
    assert info is not None
    for p in range(info.partitions):
        offset = engine.log.start_offset(topic, p)
        while True:
            b = engine.log.fetch(topic, p, offset, 10_000)
            if not b.offsets:
                break
            out.update(zip(b.keys, b.values, strict=True))
            offset = b.next_offset
    return out


def _run(data: Path, shape: str, props: dict[str, Any]) -> tuple[dict[bytes, bytes | None], Topology]:
    prefix = f"w{uuid.uuid4().hex[:6]}_"
    engine = Engine(str(data), {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": 0,
                                "ksql.service.id": prefix, **props})
    try:
        for sql in SOURCES:
            engine.execute(sql.format(p=prefix))
        _produce(engine, prefix)
        engine.execute(QUERIES[shape].format(p=prefix))
        (query,) = engine.queries.values()
        engine.drain(timeout_s=180)
        return _table(engine, f"{prefix}{SINKS[shape]}"), query.topology
    finally:
        engine.close()


def _worker_props(**extra: Any) -> dict[str, Any]:
    return {"ksqlpy.workers": "process", "num.stream.threads": 2, **extra}


@pytest.mark.parametrize("shape", sorted(QUERIES))
def test_worker_processes_compute_what_the_engine_computes(tmp_path: Path, shape: str) -> None:
    inline, topology = _run(tmp_path / "inline", shape, {})
    workers, _ = _run(tmp_path / "workers", shape, _worker_props())
    assert inline and workers == inline
    assert pickle.loads(pickle.dumps(topology)) == topology


def test_a_worker_spec_is_the_topology_and_properties_only() -> None:
    """What a worker receives carries no statement text and no catalog: it builds from the topology."""
    names = {f.name for f in dataclasses.fields(WorkerSpec)}
    assert "topology" in names
    assert not names & {"sql", "catalog_state", "statement", "plan"}


def test_worker_processes_on_kafka_compute_what_the_engine_computes(tmp_path: Path, bootstrap: str) -> None:
    inline, _ = _run(tmp_path / "inline", "join_group_by", {})
    kafka = {"bootstrap.servers": bootstrap}
    workers, _ = _run(tmp_path / "workers", "join_group_by", _worker_props(**kafka))
    assert workers == inline  # keys and values are the same bytes on both logs
