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
