"""One local SparkSession for every backfill test (the JVM takes tens of seconds to start), and helpers
that run the same input and SQL on the streaming runtime and on the backfill (the sink is read and compared
with the benchmark's helpers, ``bench.backfill.sink`` and ``collapse``)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from ksqlpy.engine.engine import Engine
from ksqlpy.log.base import ProducerRecord

# (partition, key bytes, value bytes | None, timestamp)
Record = tuple[int, bytes | None, bytes | None, int]


def _java() -> bool:
    home = os.environ.get("JAVA_HOME")
    return shutil.which("java") is not None or bool(home and os.path.exists(os.path.join(home, "bin", "java")))


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    if not _java():
        pytest.skip("Java is not installed: the Spark backfill tests need a JVM")
    from ksqlpy.backfill.session import spark_session

    session = spark_session("local[2]", {"spark.sql.shuffle.partitions": "4"})
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def make_engine(path: str, ddl: str, records: Sequence[Record], topic: str) -> Engine:
    # EMIT FINAL and outer joins unthrottled (wall-clock throttles would make the streaming reference depend on
    # timing)
    engine = Engine(path, {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0,
                           "ksql.streams.__emit.interval.ms.kstreams.outer.join.spurious.results.fix__": 0})
    engine.execute(ddl)
    produce(engine, topic, records)
    return engine


def produce(engine: Engine, topic: str, records: Sequence[Record]) -> None:
    with engine.log.transaction() as tx:
        for p, k, v, ts in records:
            tx.produce(ProducerRecord(topic, k, v, ts, None, p))


def streamed(path: str, ddl: str, records: Sequence[Record], topic: str, sql: str) -> Engine:
    """The streaming runtime's run: the query reads everything from the earliest offset."""
    engine = make_engine(path, ddl, records, topic)
    engine.execute(sql, {"auto.offset.reset": "earliest"})
    engine.drain()
    return engine
