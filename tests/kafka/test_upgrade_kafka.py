"""CREATE OR REPLACE on a KafkaLog: the upgraded query keeps its consumer group and its state, with its tasks
in the engine's process and in worker processes."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("confluent_kafka")

from kafka_workload import new_suffix  # noqa: E402

from ksqlpy.engine import Engine  # noqa: E402


@pytest.mark.parametrize("workers", ["inline", "process"])
def test_an_upgraded_aggregation_on_kafka_keeps_its_counts(tmp_path: Path, bootstrap: str, workers: str) -> None:
    suffix = new_suffix()
    # one worker process: two members stopped together by the upgrade can leave the follower first, and
    # Tansu then stalls the group for good (kafka_broker.py: a departed leader); a real broker does not
    engine = Engine(str(tmp_path), {"bootstrap.servers": bootstrap, "auto.offset.reset": "earliest",
                                    "ksql.service.id": f"up{suffix}_", "cache.max.bytes.buffering": 0,
                                    "ksqlpy.workers": workers, "num.stream.threads": 1})

    def insert(*rows: tuple[int, int]) -> None:
        engine.execute(" ".join(f"INSERT INTO clicks (id, v) VALUES ({i}, {v});" for i, v in rows))
        engine.drain(60)

    def counts() -> dict[int, int]:
        [res] = engine.execute("SELECT * FROM counts;")
        return {r[0]: r[1] for r in res.data["rows"]}

    try:
        engine.execute(f"CREATE STREAM clicks (id INT KEY, v INT) WITH (kafka_topic='clicks{suffix}', "
                       "value_format='JSON', partitions=2);")
        [created] = engine.execute(f"CREATE TABLE counts WITH (kafka_topic='counts{suffix}') AS "
                                   "SELECT id, COUNT(*) AS n FROM clicks GROUP BY id;")
        insert((1, 1), (1, -1), (2, 5))
        assert counts() == {1: 2, 2: 1}
        [upgraded] = engine.execute(f"CREATE OR REPLACE TABLE counts WITH (kafka_topic='counts{suffix}') AS "
                                    "SELECT id, COUNT(*) AS n FROM clicks WHERE v > 0 GROUP BY id;")
        assert upgraded.query_id == created.query_id
        insert((1, 1), (1, -1), (2, -3))
        assert counts() == {1: 3, 2: 1}
    finally:
        engine.close()
