"""GROUP BY of a stream's own key columns, in order, is ksqlDB's groupByKey: no group-by mapper runs, so a key
with NULL columns (a record whose Kafka key is present) is a group like any other, and only a record without a
Kafka key is skipped (Kafka Streams' stream aggregation, no processing-log entry). Any other grouping - another
order, an expression, a table source (KTable.groupBy), a windowed source - goes through the mapper, which
excludes a key with a NULL column and logs it. From memory of ksqlDB's SchemaKStream.groupBy (repartitionNeeded)
and StreamGroupByBuilder (StreamGroupByKey: groupByKey; StreamGroupBy: GroupByParamsFactory's mapper).

Run: python3 tests/cases/aggregations/gen_group_by_key_nulls.py (writes group-by-key-nulls.json beside it)."""

from __future__ import annotations

import json
import os
from typing import Any

STREAM = ("CREATE STREAM SALES (REGION STRING KEY, SHOP INT KEY, AMOUNT INT) "
          "WITH (kafka_topic='sales', format='{fmt}', partitions=1);")
TABLE = ("CREATE TABLE SHOPS (REGION STRING PRIMARY KEY, SHOP INT PRIMARY KEY, AMOUNT INT) "
         "WITH (kafka_topic='sales', format='{fmt}', partitions=1);")

# (key, amount, timestamp): a key with one NULL column, no Kafka key, a full key, the first again, all NULL
ROWS: list[tuple[Any, int, int]] = [
    ({"REGION": None, "SHOP": 7}, 5, 1000),
    (None, 100, 2000),
    ({"REGION": "north", "SHOP": 7}, 2, 3000),
    ({"REGION": None, "SHOP": 7}, 1, 4000),
    ({"REGION": None, "SHOP": None}, 3, 5000),
]


def inputs() -> list[dict[str, Any]]:
    return [{"topic": "sales", "key": k, "value": {"AMOUNT": a}, "timestamp": ts} for k, a, ts in ROWS]


def out(key: dict[str, Any], total: int, ts: int, window: dict[str, Any] | None = None) -> dict[str, Any]:
    rec: dict[str, Any] = {"topic": "TOTALS", "key": key, "value": {"TOTAL": total}, "timestamp": ts}
    if window is not None:
        rec["window"] = window
    return rec


def by_key(fmt: str) -> dict[str, Any]:
    return {
        "name": f"{fmt}: a stream grouped by its own key columns in order keeps a key with NULL columns as a group",
        "statements": [STREAM.format(fmt=fmt),
                       "CREATE TABLE TOTALS AS SELECT REGION, SHOP, SUM(AMOUNT) AS TOTAL FROM SALES "
                       "GROUP BY REGION, SHOP;"],
        "inputs": inputs(),
        "outputs": [out({"REGION": None, "SHOP": 7}, 5, 1000),
                    out({"REGION": "north", "SHOP": 7}, 2, 3000),
                    out({"REGION": None, "SHOP": 7}, 6, 4000),
                    out({"REGION": None, "SHOP": None}, 3, 5000)],
    }


def reordered() -> dict[str, Any]:
    return {
        "name": "JSON: the same key columns in another order go through the mapper, which excludes NULL columns",
        "statements": [STREAM.format(fmt="JSON"),
                       "CREATE TABLE TOTALS AS SELECT SHOP, REGION, SUM(AMOUNT) AS TOTAL FROM SALES "
                       "GROUP BY SHOP, REGION;"],
        "inputs": inputs(),
        "outputs": [out({"SHOP": 7, "REGION": "north"}, 2, 3000)],
    }


def one_column_expression() -> dict[str, Any]:
    return {
        "name": "JSON: a key column inside an expression is a mapper's grouping: NULL excluded",
        "statements": [STREAM.format(fmt="JSON"),
                       "CREATE TABLE TOTALS AS SELECT REGION, SHOP + 0 AS S, SUM(AMOUNT) AS TOTAL FROM SALES "
                       "GROUP BY REGION, SHOP + 0;"],
        "inputs": inputs(),
        "outputs": [{"topic": "TOTALS", "key": {"REGION": "north", "S": 7}, "value": {"TOTAL": 2},
                     "timestamp": 3000}],
    }


def tumbling() -> dict[str, Any]:
    w = {"start": 0, "end": 60000, "type": "time"}
    return {
        "name": "JSON: a tumbling window over the stream's own key keeps a key with NULL columns",
        "statements": [STREAM.format(fmt="JSON"),
                       "CREATE TABLE TOTALS AS SELECT REGION, SHOP, SUM(AMOUNT) AS TOTAL FROM SALES "
                       "WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY REGION, SHOP;"],
        "inputs": inputs(),
        "outputs": [out({"REGION": None, "SHOP": 7}, 5, 1000, w),
                    out({"REGION": "north", "SHOP": 7}, 2, 3000, w),
                    out({"REGION": None, "SHOP": 7}, 6, 4000, w),
                    out({"REGION": None, "SHOP": None}, 3, 5000, w)],
    }


def session() -> dict[str, Any]:
    return {
        "name": "JSON: sessions over the stream's own key merge a key with NULL columns like any other",
        "statements": [STREAM.format(fmt="JSON"),
                       "CREATE TABLE TOTALS AS SELECT REGION, SHOP, SUM(AMOUNT) AS TOTAL FROM SALES "
                       "WINDOW SESSION (5 SECONDS) GROUP BY REGION, SHOP;"],
        "inputs": inputs(),
        "outputs": [out({"REGION": None, "SHOP": 7}, 5, 1000, {"start": 1000, "end": 1000, "type": "session"}),
                    out({"REGION": "north", "SHOP": 7}, 2, 3000, {"start": 3000, "end": 3000, "type": "session"}),
                    {"topic": "TOTALS", "key": {"REGION": None, "SHOP": 7}, "value": None, "timestamp": 1000,
                     "window": {"start": 1000, "end": 1000, "type": "session"}},
                    out({"REGION": None, "SHOP": 7}, 6, 4000, {"start": 1000, "end": 4000, "type": "session"}),
                    out({"REGION": None, "SHOP": None}, 3, 5000, {"start": 5000, "end": 5000, "type": "session"})],
    }


def table_source() -> dict[str, Any]:
    return {
        "name": "JSON: a table grouped by its own primary key is regrouped (KTable.groupBy): NULL columns excluded",
        "statements": [TABLE.format(fmt="JSON"),
                       "CREATE TABLE TOTALS AS SELECT REGION, SHOP, SUM(AMOUNT) AS TOTAL FROM SHOPS "
                       "GROUP BY REGION, SHOP;"],
        "inputs": inputs(),
        "outputs": [out({"REGION": "north", "SHOP": 7}, 2, 3000)],
    }


def where_then_key() -> dict[str, Any]:
    return {
        "name": "JSON: a WHERE before a grouping by the stream's own key does not make it a mapper's",
        "statements": [STREAM.format(fmt="JSON"),
                       "CREATE TABLE TOTALS AS SELECT REGION, SHOP, COUNT(*) AS TOTAL FROM SALES "
                       "WHERE AMOUNT < 50 GROUP BY REGION, SHOP;"],
        "inputs": inputs(),
        "outputs": [out({"REGION": None, "SHOP": 7}, 1, 1000),
                    out({"REGION": "north", "SHOP": 7}, 1, 3000),
                    out({"REGION": None, "SHOP": 7}, 2, 4000),
                    out({"REGION": None, "SHOP": None}, 1, 5000)],
    }


def single_key() -> dict[str, Any]:
    return {
        "name": "KAFKA: a stream grouped by its one key column skips a record without a Kafka key",
        "statements": ["CREATE STREAM SALES (REGION STRING KEY, AMOUNT INT) "
                       "WITH (kafka_topic='sales', value_format='JSON', partitions=1);",
                       "CREATE TABLE TOTALS AS SELECT REGION, SUM(AMOUNT) AS TOTAL FROM SALES GROUP BY REGION;"],
        "inputs": [{"topic": "sales", "key": None, "value": {"AMOUNT": 4}, "timestamp": 1000},
                   {"topic": "sales", "key": "south", "value": {"AMOUNT": 6}, "timestamp": 2000}],
        "outputs": [{"topic": "TOTALS", "key": "south", "value": {"TOTAL": 6}, "timestamp": 2000}],
    }


def main() -> None:
    tests = [by_key("JSON"), by_key("AVRO"), by_key("JSON_SR"), reordered(), one_column_expression(), tumbling(),
             session(), table_source(), where_then_key(), single_key()]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "group-by-key-nulls.json"), "w") as f:
        json.dump({"comments": [__doc__.split("\n\n")[0].replace("\n", " ")], "tests": tests}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
