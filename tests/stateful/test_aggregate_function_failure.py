"""An aggregate function that fails stops its query, as a UDAF exception stops a Kafka Streams task in
ksqlDB (a ``StreamsException``); a failing *argument expression* of an aggregate is an ordinary expression
error (NULL plus a processing-log entry) and the query goes on. Over every aggregation shape."""

from __future__ import annotations

import pytest

from ksqlpy.errors import StreamsError
from tests.stateful.conftest import Harness

STREAM = ("CREATE STREAM S (K STRING KEY, D DECIMAL(4,1), I INT) "
          "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
TABLE = ("CREATE TABLE TB (K STRING PRIMARY KEY, G STRING, D DECIMAL(4,1)) "
         "WITH (kafka_topic='tb', value_format='JSON', partitions=1);")

SHAPES = {
    "stream": "CREATE TABLE T AS SELECT K, SUM(D) AS X FROM S GROUP BY K;",
    "tumbling": "CREATE TABLE T AS SELECT K, SUM(D) AS X FROM S WINDOW TUMBLING (SIZE 1 HOUR) GROUP BY K;",
    "hopping": "CREATE TABLE T AS SELECT K, SUM(D) AS X FROM S WINDOW HOPPING (SIZE 1 HOUR, ADVANCE BY 30 MINUTES) "
               "GROUP BY K;",
    "session": "CREATE TABLE T AS SELECT K, SUM(D) AS X FROM S WINDOW SESSION (1 HOUR) GROUP BY K;",
    "final": "CREATE TABLE T AS SELECT K, SUM(D) AS X FROM S WINDOW TUMBLING (SIZE 1 HOUR) GROUP BY K EMIT FINAL;",
    "having": "CREATE TABLE T AS SELECT K, SUM(D) AS X FROM S GROUP BY K HAVING COUNT(*) > 0;",
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_an_overflowing_decimal_sum_stops_the_query(h: Harness, shape: str) -> None:
    h.sql(STREAM)
    h.sql(SHAPES[shape])
    h.send("s", "a", {"D": 600.5}, 1)
    h.run()
    h.send("s", "a", {"D": 500.1}, 2)  # 1100.6 does not fit DECIMAL(4,1)
    with pytest.raises(StreamsError) as caught:
        h.run()
    assert "Exception caught in process" in str(caught.value)
    assert "Numeric field overflow" in str(caught.value)
    assert not h.engine.plog.entries or all("Numeric field overflow" not in str(e) for e in h.engine.plog.entries)


def test_a_table_aggregation_stops_too(h: Harness) -> None:
    h.sql(TABLE)
    h.sql("CREATE TABLE T AS SELECT G, SUM(D) AS X FROM TB GROUP BY G;")
    h.send("tb", "a", {"G": "g", "D": 600.5}, 1)
    h.send("tb", "b", {"G": "g", "D": 500.1}, 2)
    with pytest.raises(StreamsError, match="Numeric field overflow"):
        h.run()


def test_the_failed_batch_is_not_half_applied_and_the_retry_fails_again(h: Harness) -> None:
    h.sql(STREAM)
    h.sql(SHAPES["stream"])
    h.send("s", "a", {"D": 1.0}, 1)
    h.run()
    before = h.read("T")
    h.send("s", "b", {"D": 2.0}, 2)  # same batch as the failing record: not written either
    h.send("s", "a", {"D": 999.0}, 3)
    for _ in range(2):
        with pytest.raises(StreamsError):
            h.run()
    assert h.read("T") == before


def test_a_failing_argument_expression_is_null_and_the_query_goes_on(h: Harness) -> None:
    h.sql(STREAM)
    h.sql("CREATE TABLE T AS SELECT K, SUM(10 / I) AS X, COUNT(*) AS C FROM S GROUP BY K;")
    h.send("s", "a", {"I": 0}, 1)  # 10 / 0: the argument is NULL, SUM ignores it
    h.send("s", "a", {"I": 5}, 2)
    h.run()
    assert [v for _, v, _ in h.read("T")] == [(0, 1), (2, 2)]
    assert any("by zero" in str(e) for e in h.engine.plog.entries)
