"""Pull queries on tables kept by worker processes (``ksqlpy.workers=process``) read this process's copies of
the stores, each caught up with its changelog as the query first reads it (``pull_partitions.StandbyReads``):
a key lookup catches up and reads only the partition its key hashes to, a key not found there or a scan
every partition. The answers are the inline engine's, for every kind of materialization."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.materialized import materializing_query
from ksqlpy.engine.pull_partitions import key_partition, partition_count

SOURCES = """
CREATE STREAM s (id INT KEY, k VARCHAR, v INT) WITH (kafka_topic='s', partitions=4, value_format='JSON');
CREATE TABLE src (id INT PRIMARY KEY, v INT) WITH (kafka_topic='src', partitions=4, value_format='JSON');
CREATE TABLE agg AS SELECT id, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY id;
CREATE TABLE agg2 WITH (key_format='JSON') AS SELECT id, k, COUNT(*) AS n FROM s GROUP BY id, k;
CREATE TABLE win AS SELECT id, COUNT(*) AS n FROM s WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY id;
CREATE TABLE copy AS SELECT * FROM src WHERE v >= 0;
"""

PULLS = [
    "SELECT * FROM agg WHERE id = 3;",
    "SELECT * FROM agg WHERE id = 999;",  # a key no partition holds
    "SELECT * FROM agg WHERE id IN (1, 2, 5, 999);",
    "SELECT * FROM agg;",
    "SELECT * FROM agg2 WHERE id = 4 AND k = 'b';",
    "SELECT * FROM agg2 WHERE id = 4;",  # not the whole key: a scan
    "SELECT * FROM win WHERE id = 6;",
    "SELECT * FROM win WHERE id = 6 AND WINDOWSTART >= 60000;",
    "SELECT * FROM copy WHERE id = 7;",
    "SELECT * FROM copy WHERE id = 1000;",
    "SELECT * FROM copy;",
]


def _insert(engine: Engine, first: int, last: int) -> None:
    for i in range(first, last):
        engine.execute(f"INSERT INTO s (ROWTIME, id, k, v) VALUES ({i * 7000}, {i % 10}, '{'abc'[i % 3]}', {i});")
        engine.execute(f"INSERT INTO src (ROWTIME, id, v) VALUES ({i * 7000}, {i % 13}, {i});")


def _answers(engine: Engine) -> list[Any]:
    return [sorted(map(repr, engine.execute(sql)[0].data["rows"])) for sql in PULLS]


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory) -> Any:
    made = []
    for workers in (False, True):
        d = tmp_path_factory.mktemp("workers" if workers else "inline")
        props = {"auto.offset.reset": "earliest", **({"ksqlpy.workers": "process"} if workers else {})}
        engine = Engine(str(Path(d) / "data"), props)
        engine.execute(SOURCES)
        made.append(engine)
    yield made
    for engine in made:
        engine.close()


def test_worker_run_tables_answer_as_the_inline_engine(engines: list[Engine]) -> None:
    inline, workers = engines
    assert all(getattr(q, "workers", None) is not None for q in workers.queries.values())
    for batch in ((0, 40), (40, 90)):  # the second batch: the copies catch up with what the workers wrote since
        for engine in engines:
            _insert(engine, *batch)
            engine.drain(60)
        got, want = _answers(workers), _answers(inline)
        assert got == want
        assert all(want[i] for i in (0, 2, 3, 4, 6, 8, 10)) and not want[1] and not want[9]


def _stores(engine: Engine, table: str) -> dict[int, Any]:
    q = materializing_query(engine, engine.catalog.source(table.upper()))
    assert q is not None
    return {kv.partition: kv for kv in q.materialization.built.stores}


def test_a_key_lookup_catches_up_only_its_partition(engines: list[Engine]) -> None:
    inline, workers = engines
    stores = _stores(workers, "agg")
    mat = materializing_query(workers, workers.catalog.source("AGG")).materialization
    for engine in engines:
        _insert(engine, 90, 130)  # every id gets new counts, in every partition
        engine.drain(60)
    log = workers.log

    def behind() -> set[int]:  # the partitions whose copy has not replayed its changelog to the end
        return {p for p, kv in stores.items() if kv.checkpoint() < log.end_offset(kv.topic, kv.partition)}

    assert len(behind()) >= 2
    rows = workers.execute("SELECT * FROM agg WHERE id = 3;")[0].data["rows"]
    assert rows and rows == inline.execute("SELECT * FROM agg WHERE id = 3;")[0].data["rows"]
    home = key_partition(mat, (3,), partition_count(mat))
    assert home is not None and home not in behind() and behind()  # only its partition caught up
    # a key no partition holds reads (and catches up) every partition, as a scan does
    assert workers.execute("SELECT * FROM agg WHERE id = 999;")[0].data["rows"] == []
    assert behind() == set()


def test_a_worker_run_querys_store_lags_are_its_workers_not_the_copies(engines: list[Engine]) -> None:
    # the workers write the changelog: their stores are at its end, whatever this process's copies replayed
    from ksqlpy.engine.metrics import store_lags

    _, workers = engines
    _insert(workers, 130, 150)
    workers.drain(60)
    q = materializing_query(workers, workers.catalog.source("AGG"))
    lags = store_lags(workers, q)
    parts = [p for store in lags.values() for p in store.values()]
    assert parts and sum(p["endOffsetPosition"] for p in parts) > 0
    assert all(p["offsetLag"] == 0 and p["currentOffsetPosition"] == p["endOffsetPosition"] for p in parts)
