"""GROUP BY after a join runs in the task completing the join (no internal topic of the join's results),
and through a repartition topic only when the group key is not the join key - as in ksqlDB. Checked over
4 partitions, where a group split across tasks would show as several partial counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord
from ksqlpy.plan.topology import TopicKind

SOURCES = [
    "CREATE STREAM ORDERS (ID INT KEY, CUSTOMER INT, AMOUNT INT) WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', "
    "PARTITIONS=4);",
    "CREATE TABLE CUSTOMERS (ID INT PRIMARY KEY, REGION STRING) WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', "
    "PARTITIONS=4);",
]
ORDERS = [(i, (i * 5) % 9, i % 13) for i in range(200)]  # (id, customer, amount)
REGION = {c: f"r{c % 4}" for c in range(9)}


def _engine(tmp_path: Path) -> Engine:
    engine = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": 0})
    for sql in SOURCES:
        engine.execute(sql)
    with engine.log.transaction() as tx:
        for c, region in REGION.items():
            tx.produce(ProducerRecord("customers", c.to_bytes(4, "big"), json.dumps({"REGION": region}).encode(), 0))
    with engine.log.transaction() as tx:
        for i, customer, amount in ORDERS:
            value = json.dumps({"CUSTOMER": customer, "AMOUNT": amount}).encode()
            tx.produce(ProducerRecord("orders", i.to_bytes(4, "big"), value, 10 + i))
    return engine


def _final(engine: Engine, table: str) -> dict[object, tuple]:
    source = engine.catalog.require(table)
    ks, vs = engine.key_serde(source), engine.value_serde(source)
    out = {}
    for p in range(engine.log.describe_topic(source.topic).partitions):  # type: ignore[union-attr]
        b = engine.log.fetch(source.topic, p, 0, 100_000)
        for k, v in zip(b.keys, b.values, strict=True):
            out[ks.deserialize(k)[0]] = vs.deserialize(v)
    return out


@pytest.mark.parametrize("group_by", ["C.ID", "O.CUSTOMER"])
def test_group_by_the_join_key_aggregates_where_the_join_completes(tmp_path: Path, group_by: str) -> None:
    engine = _engine(tmp_path)
    try:
        engine.execute(f"CREATE TABLE T AS SELECT {group_by} AS CUSTOMER, COUNT(*) AS N, SUM(O.AMOUNT) AS TOTAL "
                       f"FROM ORDERS O JOIN CUSTOMERS C ON O.CUSTOMER = C.ID GROUP BY {group_by};")
        engine.drain()
        (query,) = engine.queries.values()
        kinds = [t.kind for t in query.topology.topics]
        assert kinds.count(TopicKind.REPARTITION) == 1  # the stream side's, for the join; none for the grouping
        expected = {c: (sum(1 for _, cc, _ in ORDERS if cc == c), sum(a for _, cc, a in ORDERS if cc == c))
                    for c in REGION}
        assert _final(engine, "T") == expected
    finally:
        engine.close()


def test_group_by_another_column_after_a_join_repartitions(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    try:
        engine.execute("CREATE TABLE T AS SELECT C.REGION, COUNT(*) AS N FROM ORDERS O JOIN CUSTOMERS C "
                       "ON O.CUSTOMER = C.ID GROUP BY C.REGION;")
        engine.drain()
        (query,) = engine.queries.values()
        assert [t.described for t in query.topology.topics if t.kind is TopicKind.REPARTITION] == [
            "Join-repartition", "Aggregate-GroupBy-repartition"]
        expected = {r: (sum(1 for _, c, _ in ORDERS if REGION[c] == r),) for r in set(REGION.values())}
        assert _final(engine, "T") == expected
    finally:
        engine.close()
