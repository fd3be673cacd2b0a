"""The backfill over a KafkaLog (the DataSource opens it from the engine's bootstrap servers) gives what the
streaming runtime gives on the EmbeddedLog, and hands over to the streaming query on Kafka."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

pytest.importorskip("confluent_kafka")

from bench.backfill import collapse as collapsed  # noqa: E402
from bench.backfill import sink as sink_records  # noqa: E402
from ksqlpy.backfill import backfill  # noqa: E402
from ksqlpy.engine.engine import Engine  # noqa: E402
from tests.backfill.conftest import Record, produce, streamed  # noqa: E402

pytestmark = pytest.mark.slow


def test_backfill_on_kafka_equals_streaming_on_the_embedded_log(tmp_path: Any, bootstrap: str, spark: Any) -> None:
    sfx = uuid.uuid4().hex[:8]
    ddl = (f"CREATE STREAM s{sfx} (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s{sfx}', VALUE_FORMAT='JSON', "
           "PARTITIONS=2);")
    sql = (f"CREATE TABLE o{sfx} AS SELECT k, COUNT(*) AS c, SUM(v) AS sv FROM s{sfx} "
           "WINDOW TUMBLING (SIZE 4 SECONDS, GRACE PERIOD 1 SECOND) GROUP BY k EMIT CHANGES;")
    # (a key stays in one partition, as the default partitioner would keep it)
    records: list[Record] = [(i % 2, f"k{i % 2}{i % 5}".encode(), json.dumps({"V": i}).encode(),
                              1_000 + i * 300 - (3_000 if i % 9 == 4 else 0)) for i in range(60)]
    first, second = records[:45], records[45:]
    ref = streamed(str(tmp_path / "ref"), ddl, records, f"s{sfx}", sql)
    engine = Engine(str(tmp_path / "kafka"), {"bootstrap.servers": bootstrap, "ksql.service.id": f"bf{sfx}_"})
    try:
        engine.execute(ddl)
        produce(engine, f"s{sfx}", first)
        result = backfill(engine, sql, spark=spark)
        assert result.records_read == len(first)
        produce(engine, f"s{sfx}", second)
        engine.drain(60)
        name = f"O{sfx}".upper()
        assert collapsed(sink_records(engine, name)) == collapsed(sink_records(ref, name))
    finally:
        engine.close()


def test_a_join_replayed_on_kafka_equals_streaming_on_the_embedded_log(tmp_path: Any, bootstrap: str,
                                                                       spark: Any) -> None:
    """The replay lowering's tasks read both sources from Kafka up to the run's bounds, keep the join's outputs
    and changelogs in their private log, and the driver hands the table's store over on Kafka."""
    sfx = uuid.uuid4().hex[:8]
    ddl = (f"CREATE STREAM s{sfx} (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s{sfx}', VALUE_FORMAT='JSON', "
           "PARTITIONS=2);"
           f"CREATE TABLE t{sfx} (k STRING PRIMARY KEY, n STRING) WITH (KAFKA_TOPIC='t{sfx}', VALUE_FORMAT='JSON', "
           "PARTITIONS=2);")
    sql = (f"CREATE STREAM j{sfx} AS SELECT s.k, v, n FROM s{sfx} s LEFT JOIN t{sfx} t ON s.k = t.k "
           "EMIT CHANGES;")
    table: list[Record] = [(i % 2, f"k{i % 2}{i}".encode(), json.dumps({"N": f"n{i}"}).encode(), 1_000 + i * 250)
                           for i in range(5)]
    stream: list[Record] = [(i % 2, f"k{i % 2}{i % 5}".encode(), json.dumps({"V": i}).encode(), 1_000 + i * 100)
                            for i in range(40)]
    later: list[Record] = [(i % 2, f"k{i % 2}{i % 5}".encode(), json.dumps({"V": i}).encode(), 9_000 + i)
                           for i in range(40, 50)]

    def run(engine: Engine, backfilled: bool) -> None:
        engine.execute(ddl)
        produce(engine, f"t{sfx}", table)
        produce(engine, f"s{sfx}", stream)
        if backfilled:
            assert backfill(engine, sql, spark=spark).records_read == len(table) + len(stream)
        else:
            engine.execute(sql, {"auto.offset.reset": "earliest"})
            engine.drain(60)
        produce(engine, f"s{sfx}", later)
        engine.drain(60)

    ref = Engine(str(tmp_path / "ref"))
    engine = Engine(str(tmp_path / "kafka"), {"bootstrap.servers": bootstrap, "ksql.service.id": f"bf{sfx}_"})
    try:
        run(ref, False)
        run(engine, True)
        name = f"J{sfx}".upper()
        want = sink_records(ref, name)
        assert len(want) == 50
        assert sorted(sink_records(engine, name), key=repr) == sorted(want, key=repr)
    finally:
        engine.close()
        ref.close()
