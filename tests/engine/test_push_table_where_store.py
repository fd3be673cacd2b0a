"""A push query over a table with WHERE keeps each key's last row in a state store (LMDB, private to the
query, gone when it ends) - not in memory - and filters it again with each update, as ksqlDB's filter over
its materialized table source: a delete when a key stops matching or is deleted, nothing for keys whose
previous row does not match."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord
from ksqlpy.runtime.stateless import TableWhereDeletes

EARLIEST = {"auto.offset.reset": "earliest"}


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path))
    e.execute("CREATE TABLE T (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='t', partitions=2, value_format='JSON');")
    yield e
    e.close()


def _put(engine: Engine, key: int, v: int | None, ts: int = 0) -> None:
    src = engine.catalog.source("T")
    kb = engine.key_serde(src).serialize((key,))
    value = None if v is None else b'{"V": %d}' % v
    engine.log.produce(ProducerRecord("t", kb, value, ts, partition=key % 2))


def _drain(engine: Engine, tq: Any) -> list[tuple]:
    engine.drain(5)
    got = []
    while not tq.rows.empty():
        row = tq.rows.get_nowait()
        if row is None:
            break
        got.append(tuple(row))
    return got


def _filters(tq: Any) -> list[TableWhereDeletes]:
    return [t.processor for t in tq.tasks if isinstance(t.processor, TableWhereDeletes)]


def test_rows_are_those_of_kafka_streams_filter_on_a_materialized_table(engine: Engine) -> None:
    tq = engine.push_query("SELECT ID, V FROM T WHERE V > 10 EMIT CHANGES;", EARLIEST)
    for key, v in [(1, 5), (2, 20), (1, 15), (2, 3), (1, 30), (3, 1), (3, None), (1, None), (2, None)]:
        _put(engine, key, v)
    got = _drain(engine, tq)
    # per key, in order: 1 -> (15), (30), delete;  2 -> (20), delete (3 fails), nothing for its delete;
    # 3 never matched: nothing at all
    by_key: dict[int, list[Any]] = {}
    for row in got:
        by_key.setdefault(row[0], []).append(row[1])
    assert by_key == {1: [15, 30, None], 2: [20, None]}
    tq.close()


def test_the_previous_row_is_filtered_at_the_rowtime_of_the_update(engine: Engine) -> None:
    tq = engine.push_query("SELECT ID, V FROM T WHERE ROWTIME < 100 OR V > 10 EMIT CHANGES;", EARLIEST)
    # key 1: V=1 passes at 50; V=2 at 150 fails, and so does V=1 at 150: nothing. key 3: V=30 passes at 60;
    # V=4 at 160 fails, V=30 at 160 passes: a delete. key 5: V=5 passes at 70, its delete at 80 goes on.
    for key, v, ts in [(1, 1, 50), (1, 2, 150), (3, 30, 60), (3, 4, 160), (5, 5, 70), (5, None, 80)]:
        _put(engine, key, v, ts)
    got = _drain(engine, tq)
    by_key: dict[int, list[Any]] = {}
    for row in got:
        by_key.setdefault(row[0], []).append(row[1])
    assert by_key == {1: [1], 3: [30, None], 5: [5, None]}
    tq.close()


def test_last_rows_live_in_a_store_that_goes_with_the_query(engine: Engine) -> None:
    tq = engine.push_query("SELECT ID, V FROM T WHERE V >= 0 EMIT CHANGES;", EARLIEST)
    for key in range(200):
        _put(engine, key, key)
    for key in range(0, 200, 2):
        _put(engine, key, -1)  # half of them stop matching
    for key in range(0, 200, 4):
        _put(engine, key, None)  # a quarter deleted (after they stopped matching: nothing goes out)
    got = _drain(engine, tq)
    assert len(got) == 300
    filters = _filters(tq)
    assert len(filters) == 2 and not any(hasattr(f, "passing") for f in filters)
    kept = sum(len(list(f.store.items())) for f in filters)
    assert kept == 150  # each key's last row; deleted keys have none
    roots = {f.store.environment_root for f in filters}  # the query's stores share one LMDB environment
    assert roots and all(os.path.isdir(r) for r in roots)
    tq.close()
    engine.drain(1)
    assert not any(os.path.exists(r) for r in roots)


def test_a_limit_ends_the_query_and_removes_its_store(engine: Engine) -> None:
    tq = engine.push_query("SELECT ID, V FROM T WHERE V > 0 EMIT CHANGES LIMIT 2;", EARLIEST)
    for key in range(4):
        _put(engine, key, key)
    engine.drain(5)
    roots = {f.store.environment_root for f in _filters(tq)}
    assert roots and tq.done
    engine.drain(1)
    assert not any(os.path.exists(r) for r in roots)


def test_a_persistent_table_query_keeps_its_rows_in_its_own_table_not_a_filter_store(engine: Engine) -> None:
    engine.execute("CREATE TABLE F AS SELECT ID, V FROM T WHERE V > 10;")
    [q] = engine.queries.values()
    assert not any(isinstance(t.processor, TableWhereDeletes) for t in q.tasks)


def test_a_push_query_over_a_table_join_filters_with_the_previous_joined_row(engine: Engine) -> None:
    """The join's WHERE sees each change's new and previous joined rows (JoinOutput): no filter store."""
    engine.execute("CREATE TABLE U (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='u', partitions=2, "
                   "value_format='JSON');")
    tq = engine.push_query("SELECT T.ID, V, W FROM T JOIN U ON T.ID = U.ID WHERE V + W > 10 EMIT CHANGES;",
                           EARLIEST)
    src = engine.catalog.source("U")
    kb = engine.key_serde(src).serialize((1,))
    _put(engine, 1, 5, 1)
    engine.drain(5)
    for w, ts in [(1, 2), (9, 3), (2, 4)]:  # (5, 1) fails; (5, 9) passes; (5, 2) fails, previous passed
        engine.log.produce(ProducerRecord("u", kb, b'{"W": %d}' % w, ts, partition=1))
        engine.drain(5)
    _put(engine, 1, None, 5)  # the left row deleted: its previous joined row (5, 2) did not pass
    got = _drain(engine, tq)
    assert got == [(1, 5, 9), (1, None, None)]
    tq.close()
