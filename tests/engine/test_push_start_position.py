"""A push query reading from 'latest' starts at the inputs' ends when it is issued (the lowering fixes the start
offsets), not when the engine's thread first polls it: the REST server sends the header as soon as the query is
built, and a record produced after the client has it must be seen - for plain, re-keyed and aggregating
queries over a topic of several partitions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord


@pytest.fixture
def engine(tmp_path: Path) -> Any:
    e = Engine(str(tmp_path), {"cache.max.bytes.buffering": 0})
    e.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', format='JSON', partitions=2);")
    yield e
    e.close()


def send(e: Engine, key: int, v: int, partition: int) -> None:
    e.log.produce(ProducerRecord("s", orjson.dumps(key), orjson.dumps({"V": v}), 1, None, partition))


@pytest.mark.parametrize("sql", ["SELECT * FROM S EMIT CHANGES;",
                                 "SELECT ID, COUNT(*) AS C FROM S GROUP BY ID EMIT CHANGES;",
                                 "SELECT V, COUNT(*) AS C FROM S GROUP BY V EMIT CHANGES;"])
def test_latest_is_where_the_inputs_end_when_the_query_is_issued(engine: Engine, sql: str) -> None:
    send(engine, 1, 10, 0)  # before the query: not read
    tq = engine.push_query(sql, {"auto.offset.reset": "latest"})
    send(engine, 2, 20, 1)  # after it was issued, before any poll: read
    send(engine, 3, 30, 0)
    for _ in range(20):
        tq.poll()
    rows = []
    while not tq.rows.empty():
        rows.append(tq.rows.get_nowait())
    assert sorted(r[0] for r in rows) == ([2, 3] if "GROUP BY V" not in sql else [20, 30]), rows
    tq.close()


def test_earliest_reads_what_came_before(engine: Engine) -> None:
    send(engine, 1, 10, 0)
    tq = engine.push_query("SELECT * FROM S EMIT CHANGES;", {"auto.offset.reset": "earliest"})
    for _ in range(5):
        tq.poll()
    assert tq.rows.get_nowait() == (1, 10)
    tq.close()
