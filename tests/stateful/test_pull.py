"""Pull queries on materialized tables and on streams, through the Engine API."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlStatementError
from tests.stateful.conftest import Harness

STREAM = "CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"


def _fill(h: Harness) -> None:
    for k, v, ts in (("a", 1, 1000), ("b", 2, 1500), ("a", 3, 2500), ("c", 4, 2600)):
        h.send("s", k, {"V": v}, ts)
    h.run()


def test_key_lookup_in_and_scan(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, SUM(V) AS SV FROM S GROUP BY K;")
    _fill(h)
    assert h.pull("SELECT * FROM T WHERE K='a';") == [("a", 4)]
    assert h.pull("SELECT K, SV, ROWTIME FROM T WHERE K='a';") == [("a", 4, 2500)]
    assert sorted(h.pull("SELECT * FROM T WHERE K IN ('a', 'c', 'zz');")) == [("a", 4), ("c", 4)]
    assert h.pull("SELECT * FROM T WHERE K='missing';") == []
    assert h.pull("SELECT * FROM T;") == [("a", 4), ("b", 2), ("c", 4)]  # scans in key-bytes order
    assert h.pull("SELECT K FROM T WHERE SV > 3;") == [("a",), ("c",)]
    assert h.pull("SELECT * FROM T LIMIT 2;") == [("a", 4), ("b", 2)]


def test_result_names_key_columns(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, SUM(V) AS SV FROM S GROUP BY K;")
    (res,) = h.engine.execute("SELECT SV, K FROM T WHERE K='a';")
    assert res.data["keys"] == ["K"]


def test_windowed_lookup_with_bounds(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY K;")
    _fill(h)
    assert h.pull("SELECT * FROM T WHERE K='a';") == [("a", 1000, 2000, 1), ("a", 2000, 3000, 1)]
    assert h.pull("SELECT * FROM T WHERE K='a' AND WINDOWSTART >= 1500;") == [("a", 2000, 3000, 1)]
    assert h.pull("SELECT * FROM T WHERE K='a' AND WINDOWEND <= 2000;") == [("a", 1000, 2000, 1)]
    assert h.pull("SELECT K, C FROM T WHERE WINDOWSTART = '1970-01-01T00:00:02';") == [("a", 1), ("c", 1)]


def test_session_table_lookup(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW SESSION (600 MILLISECONDS) GROUP BY K;")
    _fill(h)
    assert h.pull("SELECT * FROM T WHERE K='a';") == [("a", 1000, 1000, 1), ("a", 2500, 2500, 1)]


def test_scan_disabled_explains_why(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, SUM(V) AS SV FROM S GROUP BY K;")
    _fill(h)
    h.sql("SET 'ksql.query.pull.table.scan.enabled'='false';")
    with pytest.raises(KsqlStatementError, match="WHERE clause missing key column for disjunct"):
        h.pull("SELECT * FROM T WHERE SV > 1;")
    with pytest.raises(KsqlStatementError, match="must currently be '='"):
        h.pull("SELECT * FROM T WHERE K != 'a';")
    assert h.pull("SELECT * FROM T WHERE K = 'b';") == [("b", 2)]
    assert h.pull("SELECT * FROM T WHERE K < 'b';") == [("a", 4)]  # a range scan on a STRING key
    with pytest.raises(KsqlStatementError, match="Like condition must be between strings"):
        h.pull("SELECT * FROM T WHERE '12' LIKE '12';")  # key extraction needs `column LIKE 'pattern'`
    h.sql("SET 'ksql.query.pull.table.scan.enabled'='true';")
    assert len(h.pull("SELECT * FROM T WHERE '12' LIKE '12';")) == 3  # with scans, a constant filter


def test_type_errors_are_pull_query_errors(h: Harness) -> None:
    h.sql("CREATE STREAM N (ID INT KEY, V INT) WITH (kafka_topic='n', value_format='JSON', partitions=1);")
    h.sql("CREATE TABLE T AS SELECT ID, COUNT(*) AS C FROM N GROUP BY ID;")
    with pytest.raises(KsqlStatementError, match=r"Cannot compare ID \(INTEGER\) to '10' \(STRING\)"):
        h.pull("SELECT * FROM T WHERE ID='10';")
    with pytest.raises(KsqlStatementError, match="can not be converted to the type of the key column"):
        h.pull("SELECT * FROM T WHERE ID IN ('10', 8);")


def test_plain_table_is_not_queryable(h: Harness) -> None:
    h.sql("CREATE TABLE X (ID STRING PRIMARY KEY, V INT) WITH (kafka_topic='x', value_format='JSON', partitions=1);")
    with pytest.raises(KsqlStatementError, match="isn't queryable"):
        h.pull("SELECT * FROM X;")


def test_source_table_is_materialized_by_a_cst_query(h: Harness) -> None:
    h.sql("CREATE SOURCE TABLE X (ID STRING PRIMARY KEY, V INT) WITH (kafka_topic='x', value_format='JSON', "
          "partitions=1);")
    assert any(q.startswith("CST_X_") for q in h.engine.queries)
    h.send("x", "1", {"V": 1}, 1)
    h.send("x", "2", {"V": 2}, 2)
    h.send("x", "1", None, 3)
    h.run()
    assert h.pull("SELECT * FROM X;") == [("2", 2)]
    h.sql("DROP TABLE X;")
    assert not h.engine.queries


def test_non_aggregate_ctas_is_materialized(h: Harness) -> None:
    h.sql("CREATE TABLE X (ID STRING PRIMARY KEY, V INT) WITH (kafka_topic='x', value_format='JSON', partitions=1);")
    h.sql("CREATE TABLE Y AS SELECT ID, V * 10 AS V10 FROM X WHERE V > 1;")
    h.send("x", "1", {"V": 1}, 1)
    h.send("x", "2", {"V": 2}, 2)
    h.send("x", "3", {"V": 3}, 3)
    h.send("x", "3", {"V": 0}, 4)  # fails the filter: deleted from Y
    h.run()
    assert h.pull("SELECT * FROM Y;") == [("2", 20)]


def test_pull_on_stream_scans_to_end(h: Harness) -> None:
    h.sql(STREAM)
    _fill(h)
    assert h.pull("SELECT K, V FROM S WHERE V > 1;") == [("b", 2), ("a", 3), ("c", 4)]
    assert h.pull("SELECT K FROM S LIMIT 1;") == [("a",)]
    with pytest.raises(KsqlStatementError, match="ROWOFFSET"):
        h.pull("SELECT K, ROWOFFSET FROM S;")
    with pytest.raises(KsqlStatementError, match="don't support GROUP BY"):
        h.pull("SELECT K, COUNT(*) FROM S GROUP BY K;")
    # an aggregate without GROUP BY is grouped by a constant, so it is the same refusal
    with pytest.raises(KsqlStatementError, match="Pull queries don't support GROUP BY clauses"):
        h.pull("SELECT COUNT(*) FROM S;")


def test_multi_partition_table_pull(h: Harness) -> None:
    h.sql("CREATE STREAM M (K STRING KEY, G STRING) WITH (kafka_topic='m', value_format='JSON', partitions=3);")
    h.sql("CREATE TABLE T AS SELECT G, COUNT(*) AS C FROM M GROUP BY G;")
    for i in range(30):
        h.send("m", f"k{i}", {"G": f"g{i % 4}"}, i)
    h.run()
    assert sorted(h.pull("SELECT * FROM T;")) == [("g0", 8), ("g1", 8), ("g2", 7), ("g3", 7)]
    assert h.pull("SELECT * FROM T WHERE G='g1';") == [("g1", 8)]


def test_table_scan_visits_partitions_in_order(h: Harness) -> None:
    """ksqlDB scans a table store by store: partition 0's rows (in key-bytes order) before partition 1's,
    so LIMIT keeps the first partitions' rows, not the globally smallest keys."""
    from ksqlpy.log.partitioner import murmur2

    h.sql("CREATE STREAM S4 (K STRING KEY, V INT) WITH (kafka_topic='s4', value_format='JSON', partitions=4);")
    h.sql("CREATE TABLE T4 AS SELECT K, SUM(V) AS SV FROM S4 GROUP BY K;")
    h.sql("CREATE TABLE P4 AS SELECT K, SUM(V) AS SV FROM S4 WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY K;")
    h.sql("CREATE TABLE F4 AS SELECT * FROM T4 WHERE SV > 0;")
    keys = [f"k{i}" for i in range(12)]
    for i, k in enumerate(keys):
        h.send("s4", k, {"V": 1}, 1000 + i, partition=(murmur2(k.encode()) & 0x7FFFFFFF) % 4)
    h.run()
    store_order = sorted(keys, key=lambda k: ((murmur2(k.encode()) & 0x7FFFFFFF) % 4, k.encode()))
    assert store_order != sorted(keys)  # the case tells the two orders apart
    assert [r[0] for r in h.pull("SELECT * FROM T4;")] == store_order
    assert [r[0] for r in h.pull("SELECT * FROM T4 LIMIT 5;")] == store_order[:5]
    assert [r[0] for r in h.pull("SELECT * FROM P4 LIMIT 5;")] == store_order[:5]
    assert [r[0] for r in h.pull("SELECT * FROM F4 LIMIT 5;")] == store_order[:5]
