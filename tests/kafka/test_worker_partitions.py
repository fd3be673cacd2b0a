"""A worker process opens only the stores of the partitions it runs.

Building every partition's stores in every worker made each one replay the whole query's changelogs on
start (and, on Kafka, on every rebalance) although it runs only its share.
"""

from __future__ import annotations

import os
from pathlib import Path

from ksqlpy.engine import Engine
from ksqlpy.state.environment import stores_in


def test_each_worker_has_the_stores_of_its_own_partitions_only(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest", "ksqlpy.workers": "process",
                                             "num.stream.threads": 2, "ksql.service.id": "parts_"})
    try:
        engine.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (KAFKA_TOPIC='parts_src', PARTITIONS=4, "
                       "VALUE_FORMAT='JSON');")
        engine.execute("CREATE TABLE T AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID;")
        (qid, query), = engine.queries.items()
        for i in range(40):
            engine.execute(f"INSERT INTO S (ID, V) VALUES ({i}, {i});")
        engine.drain(timeout_s=120)
        assert sorted(tuple(s["assigned"]) for s in query.workers.statuses()) == [(0, 2), (1, 3)]
        for w in query.workers.workers:
            state = os.path.join(engine.data_dir, "workers", qid, str(w.spec.index), "state", qid)
            stores = stores_in(state)  # the worker's one LMDB environment for the query's stores
            assert stores == [f"Aggregate-Materialize-{p}" for p in w.spec.partitions]
    finally:
        engine.close()
