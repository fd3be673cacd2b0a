"""A table stage filtered with the previous row (a CTAS over a table, a push query over one) compiles its WHERE
alone and the stage without it - what runs - and not the whole stage besides (``stateless.SplitStage`` gives
the whole stage's rows from the two, which pull queries read the stored source rows through)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord
from ksqlpy.plan.codegen import StageSpec
from ksqlpy.plan.topology import StatelessStage
from ksqlpy.runtime import stateless
from ksqlpy.runtime.reader import DecodedBatch

TABLE = "CREATE TABLE T (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='t', partitions=2, value_format='JSON');"


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[StageSpec]:
    specs: list[StageSpec] = []
    real = stateless.build_stateless

    def counting(spec: StageSpec) -> Any:
        specs.append(spec)
        return real(spec)

    monkeypatch.setattr(stateless, "build_stateless", counting)
    return specs


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute(TABLE)
    yield e
    e.close()


def _put(engine: Engine, key: int, v: int | None, ts: int) -> None:
    src = engine.catalog.source("T")
    value = None if v is None else b'{"V": %d}' % v
    engine.log.produce(ProducerRecord("t", engine.key_serde(src).serialize((key,)), value, ts, partition=key % 2))


def test_a_filtered_table_ctas_compiles_the_where_and_the_projection_only(engine: Engine,
                                                                          compiled: list[StageSpec]) -> None:
    engine.execute("CREATE TABLE F AS SELECT ID, V * 2 AS D FROM T WHERE V > 1;")
    for key, v, ts in ((1, 5, 10), (2, 1, 20), (3, 7, 30), (3, 0, 40)):
        _put(engine, key, v, ts)
    engine.drain(5)
    assert len(compiled) == 2  # the WHERE alone and the stage without it (were 3: the whole stage too)
    assert sum(1 for s in compiled if s.where is not None) == 1
    (res,) = engine.execute("SELECT * FROM F;")
    assert sorted(tuple(r) for r in res.data["rows"]) == [(1, 10)]  # pull: the stored rows through both
    (res,) = engine.execute("SELECT * FROM F WHERE ID = 2;")
    assert res.data["rows"] == []


def test_an_unfiltered_table_ctas_compiles_its_stage_once(engine: Engine, compiled: list[StageSpec]) -> None:
    engine.execute("CREATE TABLE F AS SELECT ID, V * 2 AS D FROM T;")
    _put(engine, 1, 5, 10)
    engine.drain(5)
    assert len(compiled) == 1


def test_split_stage_gives_the_whole_stages_rows(engine: Engine) -> None:
    """The same rows, deletes for the rows failing the WHERE and for tombstones included, in input order."""
    engine.execute("CREATE TABLE F AS SELECT ID, V * 2 AS D FROM T WHERE V > 1;")
    (query,) = [q for q in engine.queries.values() if q.sink_name == "F"]
    stage = next(op for s in query.built.topology.sub_topologies for op in s.operators
                 if isinstance(op, StatelessStage))
    functions, plog = engine.functions, engine.plog
    rows = [(1, 5), (2, 1), (3, None), (4, 0)]
    batch = DecodedBatch(rows, [10, 20, 30, 40], [0] * 4, [0, 1, 2, 3], [None] * 4, [False, False, False, True])
    whole = stateless.stateless_processor(stage, functions, plog, "q")
    split = stateless.SplitStage(stateless.where_processor(stage, functions, plog, "q"),
                                 stateless.projection_processor(stage, functions, plog, "q"))
    assert split.process(batch, None) == whole.process(batch, None)
    assert [r[1] for r in whole.process(batch, None)] == [(10,), None, None, None]
