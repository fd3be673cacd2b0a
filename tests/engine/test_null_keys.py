"""A null (absent) Kafka key is not a key whose columns are all NULL.

The reader marks the records read without a key; a query that keeps its input's key hands them to the
writer with no key (``None``), which writes a null key; tables drop them but keep a key of NULL columns.
The cases across formats and statement kinds are in tests/cases/null-keys.json; these pin the pieces.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord
from ksqlpy.runtime.reader import DecodedBatch
from ksqlpy.runtime.stateless import StatelessProcessor, _key_runs


@pytest.fixture
def engine(tmp_path: Path) -> Any:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    yield e
    e.close()


def _produce(engine: Engine, topic: str, records: list[tuple[bytes | None, Any]]) -> None:
    with engine.log.transaction() as tx:  # one batch: the reader sees null and non-null keys together
        for i, (key, value) in enumerate(records):
            tx.produce(ProducerRecord(topic, key, None if value is None else orjson.dumps(value), i, None,
                                      partition=0))


def _keys(engine: Engine, topic: str) -> list[bytes | None]:
    return list(engine.log.fetch(topic, 0, 0, 100).keys)


@pytest.mark.parametrize("batch_sizes", [None, 1])
def test_null_and_null_column_keys_stay_apart_in_one_batch(engine: Engine, batch_sizes: int | None) -> None:
    engine.execute("CREATE STREAM S (A INT KEY, B STRING KEY, V INT) WITH (kafka_topic='s', format='JSON', "
                   "partitions=1);")
    engine.execute("CREATE STREAM OUT AS SELECT * FROM S WHERE V > 0;")
    nulls = b'{"A":null,"B":null}'
    _produce(engine, "s", [(None, {"V": 1}), (b'{"A":1,"B":"x"}', {"V": 2}), (nulls, {"V": 3}), (None, {"V": 4}),
                           (None, {"V": 0}), (b'{"A":2,"B":"y"}', {"V": 5})])
    engine.drain()
    assert _keys(engine, "OUT") == [None, b'{"A":1,"B":"x"}', nulls, None, b'{"A":2,"B":"y"}']


def test_a_table_drops_null_keys_only(engine: Engine) -> None:
    engine.execute("CREATE TABLE T (A INT PRIMARY KEY, B STRING PRIMARY KEY, V INT) WITH (kafka_topic='t', "
                   "format='JSON', partitions=1);")
    engine.execute("CREATE TABLE OUT AS SELECT * FROM T;")
    nulls = b'{"A":null,"B":null}'
    _produce(engine, "t", [(None, {"V": 1}), (nulls, {"V": 2}), (b'{"A":1,"B":"x"}', {"V": 3})])
    engine.drain()
    assert _keys(engine, "OUT") == [nulls, b'{"A":1,"B":"x"}']


def test_a_push_query_shows_null_key_columns(engine: Engine) -> None:
    engine.execute("CREATE STREAM S (A INT KEY, B STRING KEY, V INT) WITH (kafka_topic='s', format='JSON', "
                   "partitions=1);")
    _produce(engine, "s", [(None, {"V": 1}), (b'{"A":1,"B":"x"}', {"V": 2})])
    [res] = engine.execute("SELECT * FROM S EMIT CHANGES LIMIT 2;")
    engine.drain()
    rows = list(res.data)
    assert rows == [(None, None, 1), (1, "x", 2)]


def test_key_runs_cover_the_batch_in_order() -> None:
    assert _key_runs(5, [0, 1, 3]) == [(0, 2, True), (2, 3, False), (3, 4, True), (4, 5, False)]
    assert _key_runs(3, []) == [(0, 3, False)]
    assert _key_runs(2, [1]) == [(0, 1, False), (1, 2, True)]
    assert _key_runs(1, [0]) == [(0, 1, True)]


def test_processor_gives_null_keyed_records_no_key_and_keeps_error_indices() -> None:
    seen: list[tuple] = []

    def pipeline(rows, tss, parts, offs, hdrs, tombs, out, err):  # type: ignore[no-untyped-def]
        for i, r in enumerate(rows):
            if r[1] is None:
                err(i, "V", ValueError("bad"))
            out.append(((r[0],), (r[1],), tss[i]))

    class Plog:
        def expression_error(self, qid: str, what: Any, exc: BaseException, row: Any = None) -> None:
            seen.append(row)

    d = DecodedBatch([(1, 10), (None, 20), (None, None), (4, 40)], [1, 2, 3, 4], [0] * 4, [0, 1, 2, 3],
                     [None] * 4, [False] * 4, [1, 2])
    keeping = StatelessProcessor(pipeline, Plog(), "q", keep_null_keys=True)  # type: ignore[arg-type]
    assert keeping.process(d, None) == [((1,), (10,), 1), (None, (20,), 2), (None, (None,), 3), ((4,), (40,), 4)]
    assert seen == [(None, None)]  # the error names the batch's record, not its index in the run
    rekeying = StatelessProcessor(pipeline, Plog(), "q")  # type: ignore[arg-type]
    assert rekeying.process(d, None)[1] == ((None,), (20,), 2)
