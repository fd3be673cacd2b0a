"""Non-windowed GROUP BY over streams and tables: nulls, HAVING, undo, timestamps."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlStatementError
from tests.stateful.conftest import Harness

STREAM = "CREATE STREAM S (K STRING KEY, G STRING, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"


def test_null_value_stream_records_are_ignored(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S GROUP BY K;")
    h.send("s", "a", {"V": 1}, 1)
    h.send("s", "a", None, 2)
    h.send("s", "a", {"V": 1}, 3)
    h.run()
    assert [(k, v, ts) for k, v, ts in h.read("T")] == [(("a",), (1,), 1), (("a",), (2,), 3)]


def test_any_null_group_column_drops_the_record(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T WITH (KEY_FORMAT='JSON') AS SELECT K, G, COUNT(*) AS C FROM S GROUP BY K, G;")
    h.send("s", "a", {"G": None}, 1)
    h.send("s", None, {"G": "x"}, 2)
    h.send("s", "a", {"G": "x"}, 3)
    h.run()
    assert h.read("T") == [(("a", "x"), (1,), 3)]


def test_group_by_literal_is_the_key(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT 1 AS ONE, COUNT(*) AS C FROM S GROUP BY 1;")
    h.send("s", "a", {"V": 1}, 1)
    h.send("s", "b", {"V": 1}, 2)
    h.run()
    assert [(k, v) for k, v, _ in h.read("T")] == [((1,), (1,)), ((1,), (2,))]


def test_output_timestamp_is_max_contributing(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, SUM(V) AS SV FROM S GROUP BY K;")
    for v, ts in ((1, 10), (2, 5), (3, 20)):
        h.send("s", "a", {"V": v}, ts)
    h.run()
    assert [ts for _, _, ts in h.read("T")] == [10, 10, 20]


def test_having_tombstone_sees_the_old_value_before_in_place_updates(h: Harness) -> None:
    """COLLECT_LIST updates its accumulator in place: the old row's HAVING must be evaluated first."""
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COLLECT_LIST(V) AS L FROM S GROUP BY K HAVING ARRAY_LENGTH(COLLECT_LIST(V)) < 2;")
    h.send("s", "a", {"V": 1}, 1)
    h.send("s", "a", {"V": 2}, 2)
    h.send("s", "a", {"V": 3}, 3)
    h.run()
    assert h.read("T") == [(("a",), ([1],), 1), (("a",), None, 2)]


def test_table_update_in_same_group_is_one_output(h: Harness) -> None:
    h.sql("CREATE TABLE SRC (ID STRING PRIMARY KEY, G STRING, V INT) WITH (kafka_topic='t', value_format='JSON', "
          "partitions=1);")
    h.sql("CREATE TABLE T AS SELECT G, SUM(V) AS SV, COUNT(*) AS C FROM SRC GROUP BY G;")
    h.send("t", "1", {"G": "x", "V": 5}, 1)
    h.send("t", "2", {"G": "x", "V": 1}, 2)
    h.send("t", "1", {"G": "x", "V": 7}, 3)  # same group: undo 5, add 7, one update
    h.send("t", "2", {"G": "y", "V": 1}, 4)  # moves: x loses it, y gains it
    h.send("t", "1", None, 5)  # delete: x loses it
    h.run()
    assert h.read("T") == [
        (("x",), (5, 1), 1), (("x",), (6, 2), 2), (("x",), (8, 2), 3),
        (("x",), (7, 1), 4), (("y",), (1, 1), 4), (("x",), (0, 0), 5),
    ]


def test_table_source_rejects_aggregates_without_undo(h: Harness) -> None:
    h.sql("CREATE TABLE SRC (ID STRING PRIMARY KEY, G STRING, V INT) WITH (kafka_topic='t', value_format='JSON', "
          "partitions=1);")
    with pytest.raises(KsqlStatementError, match="LATEST_BY_OFFSET, MIN and MAX cannot be applied to a table"):
        h.sql("CREATE TABLE T AS SELECT G, LATEST_BY_OFFSET(V), MIN(V), MAX(V) FROM SRC GROUP BY G;")


def test_kafka_value_format_source_rejects_group_by(h: Harness) -> None:
    h.sql("CREATE STREAM K1 (K STRING KEY, D STRING) WITH (kafka_topic='k', value_format='KAFKA', partitions=1);")
    with pytest.raises(KsqlStatementError, match="'KAFKA' value format. This format does not yet support GROUP BY"):
        h.sql("CREATE TABLE T WITH (value_format='JSON') AS SELECT D, COUNT(*) FROM K1 GROUP BY D;")


def test_select_star_needs_every_column_grouped(h: Harness) -> None:
    h.sql(STREAM)
    with pytest.raises(KsqlStatementError, match="not part of GROUP BY: G, V"):
        h.sql("CREATE TABLE T AS SELECT *, COUNT(*) FROM S GROUP BY K;")


def test_delimited_rejects_structured_intermediate_state(h: Harness) -> None:
    h.sql("CREATE STREAM D (K STRING KEY, V INT) WITH (kafka_topic='d', value_format='DELIMITED', partitions=1);")
    with pytest.raises(KsqlStatementError, match="intermediate type that the value format can not handle"):
        h.sql("CREATE TABLE T AS SELECT K, AVG(V) AS A FROM D GROUP BY K;")


def test_duplicate_group_by(h: Harness) -> None:
    h.sql(STREAM)
    with pytest.raises(KsqlStatementError, match="Duplicate GROUP BY expression: S.G"):
        h.sql("CREATE TABLE T AS SELECT COUNT(*) FROM S GROUP BY G, S.G;")


def test_push_query_aggregation(h: Harness) -> None:
    h.sql(STREAM)
    h.send("s", "a", {"V": 1}, 1)
    h.send("s", "a", {"V": 2}, 2)
    q = h.engine.push_query("SELECT K, SUM(V) AS SV FROM S GROUP BY K EMIT CHANGES LIMIT 2;",
                            {"auto.offset.reset": "earliest"})
    h.run()
    assert list(q) == [("a", 1), ("a", 3)]


def test_updates_carry_the_input_record_headers(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S GROUP BY K;")
    h.engine.log.produce(__import__("ksqlpy.log.base", fromlist=["ProducerRecord"]).ProducerRecord(
        "s", b"a", b'{"V": 1}', 1, [("h", b"1")]))
    h.run()
    (q,) = h.engine.queries.values()
    batch = h.engine.log.fetch(q.sink.topic, 0, 0)
    assert batch.headers == [[("h", b"1")]]


def test_record_cache_when_buffering_is_set(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("SET 'cache.max.bytes.buffering'='10000000';")
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S GROUP BY K;")
    for k in ("a", "b", "a", "a", "c", "b"):
        h.send("s", k, {"V": 1}, 1)
    h.run()  # one batch: one update per key, in the order of the last updates
    assert [(k, v) for k, v, _ in h.read("T")] == [(("a",), (3,)), (("c",), (1,)), (("b",), (2,))]


def test_drop_deletes_internal_topics_and_state(h: Harness) -> None:
    import os

    h.sql("CREATE STREAM M (K STRING KEY, G STRING) WITH (kafka_topic='m', value_format='JSON', partitions=2);")
    h.sql("CREATE TABLE T AS SELECT G, COUNT(*) AS C FROM M GROUP BY G;")
    h.send("m", "a", {"G": "x"}, 1)
    h.run()
    internal = [t.name for t in h.engine.log.list_topics() if t.name.startswith("_confluent-ksql-test_query_CTAS_T_0")]
    assert len(internal) == 2  # changelog and repartition
    state = os.path.join(h.engine.data_dir, "state", "CTAS_T_0")
    assert os.path.isdir(state)
    h.sql("DROP TABLE T;")
    assert not [t for t in h.engine.log.list_topics() if t.name in internal]
    assert not os.path.exists(state)
