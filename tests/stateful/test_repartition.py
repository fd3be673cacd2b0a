"""GROUP BY on a non-key over several partitions goes through a repartition topic (second sub-topology)."""

from __future__ import annotations

from tests.stateful.conftest import Harness

REPARTITION = "_confluent-ksql-test_query_CTAS_T_0-Aggregate-GroupBy-repartition"


def test_stream_group_by_non_key_repartitions(h: Harness) -> None:
    h.sql("CREATE STREAM M (K STRING KEY, G STRING, V INT) WITH (kafka_topic='m', value_format='JSON', "
          "partitions=3);")
    h.sql("CREATE TABLE T AS SELECT G, SUM(V) AS SV FROM M GROUP BY G;")
    assert h.engine.log.topic_exists(REPARTITION)
    for i in range(40):
        h.send("m", f"k{i}", {"G": f"g{i % 3}", "V": 1}, i)
    h.run()
    final = {}
    for k, v, _ in h.read("T"):
        final[k] = v
    assert final == {("g0",): (14,), ("g1",): (13,), ("g2",): (13,)}
    (q,) = h.engine.queries.values()
    assert [t.task_id for t in q.tasks] == ["0_0", "0_1", "0_2", "1_0", "1_1", "1_2"]


def test_group_by_source_key_does_not_repartition(h: Harness) -> None:
    h.sql("CREATE STREAM M (K STRING KEY, V INT) WITH (kafka_topic='m', value_format='JSON', partitions=3);")
    h.sql("CREATE TABLE T AS SELECT K, SUM(V) AS SV FROM M GROUP BY K;")
    assert not h.engine.log.topic_exists(REPARTITION)


def test_table_group_by_repartitions_with_undo(h: Harness) -> None:
    h.sql("CREATE TABLE SRC (ID STRING PRIMARY KEY, G STRING) WITH (kafka_topic='t', value_format='JSON', "
          "partitions=2);")
    h.sql("CREATE TABLE T AS SELECT G, COUNT(*) AS C FROM SRC GROUP BY G;")
    assert h.engine.log.topic_exists(REPARTITION)
    for i in range(10):
        h.send("t", f"id{i}", {"G": "x"}, i)
    for i in range(4):
        h.send("t", f"id{i}", {"G": "y"}, 100 + i)
    h.send("t", "id9", None, 200)
    h.run()
    assert sorted(h.pull("SELECT * FROM T;")) == [("x", 5), ("y", 4)]
