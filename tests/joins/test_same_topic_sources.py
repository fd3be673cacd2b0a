"""Two sources over one topic in one query: streams join (Kafka Streams merges their source nodes); a table
with any other source is refused as building the topology refuses it - for every statement that builds one,
and before a CREATE ... AS SELECT creates its sink's topic or registers the sink."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlStatementError
from tests.joins.conftest import Harness

MESSAGE = "Invalid topology: Topic t has already been registered by another source."
SOURCES = [
    "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);",
    "CREATE TABLE T (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);",
]
JOIN = "SELECT S.ID AS ID, V, W FROM S JOIN T ON S.ID = T.ID"


def test_a_refused_create_as_select_creates_nothing(h: Harness) -> None:
    for s in SOURCES:
        h.sql(s)
    with pytest.raises(KsqlStatementError, match="Invalid topology: Topic t has already been registered"):
        h.sql(f"CREATE STREAM OUT AS {JOIN};")
    assert h.engine.catalog.source("OUT") is None
    assert not h.engine.log.topic_exists("OUT")
    assert not h.engine.queries


@pytest.mark.parametrize("statement", [f"{JOIN} EMIT CHANGES;", f"EXPLAIN {JOIN} EMIT CHANGES;",
                                       f"EXPLAIN CREATE STREAM OUT AS {JOIN};"])
def test_push_queries_and_explain_build_the_topology_too(h: Harness, statement: str) -> None:
    for s in SOURCES:
        h.sql(s)
    with pytest.raises(KsqlStatementError) as e:
        h.sql(statement)
    assert MESSAGE in str(e.value)
    assert not h.engine.transient


def test_two_streams_over_one_topic_join(h: Harness) -> None:
    h.sql(SOURCES[0])
    h.sql("CREATE STREAM S2 (ID INT KEY, V INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);")
    h.send("S", 1, {"V": 5}, 0)
    h.sql("CREATE STREAM OUT AS SELECT S.ID AS ID, S.V AS A, S2.V AS B FROM S JOIN S2 WITHIN 1 SECOND "
          "ON S.ID = S2.ID;")
    h.run()
    assert [(k, v, ts) for k, v, ts in h.read("OUT")] == [(1, (5, 5), 0)]
