"""The GROUP BY step of a stream aggregation's execution plan (what CREATE OR REPLACE compares, ksqlDB's step
names in its refusals) follows the plan's decision (``partitioning.group_by_repartition``, ksqlDB's
``SchemaKStream.groupBy``/repartitionNeeded): groupByKey (``StreamGroupByKey``) when the grouping is the input's
key - a stream join's result grouped by the column its key is named after included - else ``StreamGroupByV2``;
a table's, a table join's too, is ``TableGroupBy``."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.upgrades import plan_steps

SOURCES = [
    "CREATE STREAM S (ID INT KEY, V INT, W STRING) WITH (kafka_topic='s', value_format='JSON', partitions=1);",
    "CREATE STREAM R (ID INT KEY, X INT) WITH (kafka_topic='r', value_format='JSON', partitions=1);",
    "CREATE TABLE T (ID INT PRIMARY KEY, Y INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);",
    "CREATE TABLE U (ID INT PRIMARY KEY, Z INT) WITH (kafka_topic='u', value_format='JSON', partitions=1);",
]


@pytest.mark.parametrize(("query", "step"), [
    ("SELECT ID, COUNT(*) AS C FROM S GROUP BY ID", "StreamGroupByKey"),
    ("SELECT W, COUNT(*) AS C FROM S GROUP BY W", "StreamGroupByV2"),
    ("SELECT S.ID AS ID, COUNT(*) AS C FROM S JOIN T ON S.ID = T.ID GROUP BY S.ID", "StreamGroupByKey"),
    ("SELECT T.ID AS ID, COUNT(*) AS C FROM S JOIN T ON S.ID = T.ID GROUP BY T.ID", "StreamGroupByKey"),
    ("SELECT S.ID AS ID, COUNT(*) AS C FROM S JOIN R WITHIN 1 MINUTE ON S.ID = R.ID GROUP BY S.ID",
     "StreamGroupByKey"),
    ("SELECT R.ID AS ID, COUNT(*) AS C FROM S LEFT JOIN R WITHIN 1 MINUTE ON S.ID = R.ID GROUP BY R.ID",
     "StreamGroupByKey"),
    ("SELECT S.W, COUNT(*) AS C FROM S JOIN T ON S.ID = T.ID GROUP BY S.W", "StreamGroupByV2"),
    ("SELECT T.ID AS ID, COUNT(*) AS C FROM T JOIN U ON T.ID = U.ID GROUP BY T.ID", "TableGroupBy"),
    ("SELECT Y, COUNT(*) AS C FROM T GROUP BY Y", "TableGroupBy"),
])
def test_the_group_by_step(tmp_path: Any, query: str, step: str) -> None:
    engine = Engine(str(tmp_path), {"ksql.service.id": "steps_"})
    try:
        for sql in SOURCES:
            engine.execute(sql)
        engine.execute(f"CREATE TABLE G AS {query};")
        (q,) = engine.queries.values()
        names = [s.name for s in plan_steps(q.plan, q.sink)]
        assert [n for n in names if "GroupBy" in n] == [step]
    finally:
        engine.close()
