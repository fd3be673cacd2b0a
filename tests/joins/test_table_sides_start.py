"""A join reads its table sides from their start whatever ``auto.offset.reset`` says (ksqlDB builds a joined
table complete); its stream sides start where the property says. Rows written before the query exists join."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord

SOURCES = [
    "CREATE STREAM S (ID INT KEY, V INT, FK STRING) WITH (kafka_topic='s', value_format='JSON', partitions=2);",
    "CREATE TABLE T (ID INT PRIMARY KEY, W INT, FK STRING) WITH (kafka_topic='t', value_format='JSON', partitions=2);",
    "CREATE TABLE T2 (ID INT PRIMARY KEY, X INT) WITH (kafka_topic='t2', value_format='JSON', partitions=2);",
    "CREATE TABLE R (ID STRING PRIMARY KEY, Y INT) WITH (kafka_topic='r', value_format='JSON', partitions=3);",
]


@pytest.fixture(params=["latest", None])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    props = {} if request.param is None else {"auto.offset.reset": request.param}
    e = Engine(str(tmp_path), props)
    for sql in SOURCES:
        e.execute(sql)
    yield e
    e.close()


def _send(e: Engine, source: str, key: object, value: dict) -> None:
    src = e.catalog.source(source)
    assert src is not None
    cols = [c.name for c in src.value_columns]
    e.log.produce(ProducerRecord(src.topic, e.key_serde(src).serialize((key,)),
                                 e.value_serde(src).serialize(tuple(value.get(c) for c in cols)), 1))


def _values(e: Engine, source: str) -> list[tuple]:
    src = e.catalog.source(source)
    assert src is not None
    vs = e.value_serde(src)
    info = e.log.describe_topic(src.topic)
    assert info is not None
    out = []
    for p in range(info.partitions):
        batch = e.log.fetch(src.topic, p, 0, 1000)
        out += [None if v is None else vs.deserialize(v) for v in batch.values]
    return out


@pytest.mark.parametrize("on", ["S.ID = T.ID", "S.V = T.ID"], ids=["keyed", "stream re-keyed"])
def test_a_stream_table_join_sees_table_rows_written_before_it(engine: Engine, on: str) -> None:
    _send(engine, "T", 1, {"W": 10})
    _send(engine, "S", 1, {"V": 1})  # before the query: a stream at 'latest' never sees it
    engine.execute(f"CREATE STREAM J AS SELECT S.ID AS SID, T.ID AS TID, W FROM S LEFT JOIN T ON {on};")
    engine.drain(30)
    _send(engine, "S", 1, {"V": 1})
    engine.drain(30)
    assert _values(engine, "J") == [(1, 10)]


def test_a_table_table_join_reads_both_tables_from_their_start(engine: Engine) -> None:
    _send(engine, "T", 1, {"W": 10})
    _send(engine, "T2", 1, {"X": 20})
    engine.execute("CREATE TABLE J AS SELECT T.ID, W, X FROM T JOIN T2 ON T.ID = T2.ID;")
    engine.drain(30)
    assert _values(engine, "J") == [(10, 20)]


def test_a_foreign_key_join_reads_both_tables_from_their_start(engine: Engine) -> None:
    _send(engine, "R", "a", {"Y": 7})
    _send(engine, "T", 1, {"W": 10, "FK": "a"})
    engine.execute("CREATE TABLE J AS SELECT T.ID, W, Y FROM T JOIN R ON T.FK = R.ID;")
    engine.drain(30)
    assert _values(engine, "J") == [(10, 7)]


def test_a_stream_stream_join_starts_its_streams_as_configured(engine: Engine) -> None:
    _send(engine, "S", 1, {"V": 1})
    engine.execute("CREATE STREAM S2 (ID INT KEY, Z INT) WITH (kafka_topic='s2', value_format='JSON', "
                   "partitions=2);")
    _send(engine, "S2", 1, {"Z": 2})
    engine.execute("CREATE STREAM J AS SELECT S.ID, V, Z FROM S JOIN S2 WITHIN 1 HOUR ON S.ID = S2.ID;")
    engine.drain(30)
    assert _values(engine, "J") == []
