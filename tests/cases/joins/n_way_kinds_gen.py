"""Writes tests/cases/joins/n-way-kinds.json: n-way joins mixing kinds, their keys and when each step reads
the other side's state.

The rules (Kafka Streams' join processors and ksqlDB's JoinNode, from memory):
- each step joins the result so far with the next source; a stream-table step reads the table as it is when
  the stream row reaches it - for a row a LEFT stream-stream step holds back until its window closes, that is
  the table's state at the close, not at the row's own time;
- a step on another column of the result so far re-keys it (a stream side repartitioned by the expression);
  the result is keyed by the step's key, named after the viable key column the projection selects;
- a table-table chain keeps the first step's key for a later step on the same column; a FULL OUTER step keys
  by the synthetic ROWKEY, and a left row's delete goes through every step as a delete.

Run ``python tests/cases/joins/n_way_kinds_gen.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def rec(topic: str, key: Any, value: dict | None, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": value, "timestamp": ts}


def out(key: Any, value: dict | None, ts: int) -> dict[str, Any]:
    return rec("O", key, value, ts)


def table(name: str, key_type: str, column: str) -> str:
    return (f"CREATE TABLE {name} (ID {key_type} PRIMARY KEY, {column} STRING) "
            f"WITH (kafka_topic='{name.lower()}', value_format='JSON', partitions=1);")


S = "CREATE STREAM S (ID INT KEY, A INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
S2 = "CREATE STREAM S2 (ID INT KEY, B INT) WITH (kafka_topic='s2', value_format='JSON', partitions=1);"

CASES: list[dict[str, Any]] = [
    {
        "name": "stream-table INNER then LEFT: a right delete pads later rows, a stream row before its table row "
                "joins nothing",
        "statements": [S, table("T2", "INT", "V"), table("T3", "INT", "W"),
                       "CREATE STREAM O AS SELECT S.ID, A, V, W FROM S JOIN T2 ON S.ID = T2.ID "
                       "LEFT JOIN T3 ON S.ID = T3.ID;"],
        "inputs": [rec("t2", 1, {"V": "v1"}, 0), rec("t3", 1, {"W": "w1"}, 1), rec("s", 1, {"A": 1}, 10),
                   rec("t3", 1, None, 15), rec("s", 1, {"A": 2}, 20), rec("s", 2, {"A": 3}, 30),
                   rec("t2", 2, {"V": "v2"}, 35), rec("s", 2, {"A": 4}, 40)],
        "outputs": [out(1, {"A": 1, "V": "v1", "W": "w1"}, 10), out(1, {"A": 2, "V": "v1", "W": None}, 20),
                    out(2, {"A": 4, "V": "v2", "W": None}, 40)],
        "post": {"sources": [{"name": "O", "type": "stream",
                              "schema": "S_ID INTEGER KEY, A INTEGER, V STRING, W STRING"}]},
    },
    {
        "name": "a second step on the first table's value column re-keys the stream rows by it; the result is "
                "keyed by the selected T3.ID",
        "statements": [S, table("T2", "INT", "V"), table("T3", "STRING", "W"),
                       "CREATE STREAM O AS SELECT S.ID, T3.ID, W FROM S JOIN T2 ON S.ID = T2.ID "
                       "JOIN T3 ON T2.V = T3.ID;"],
        "inputs": [rec("t2", 1, {"V": "x"}, 0), rec("t3", "x", {"W": "wx"}, 1), rec("s", 1, {"A": 1}, 10),
                   rec("t2", 1, {"V": "y"}, 11), rec("s", 1, {"A": 2}, 20), rec("t3", "y", {"W": "wy"}, 21),
                   rec("s", 1, {"A": 3}, 30)],
        "outputs": [out("x", {"S_ID": 1, "W": "wx"}, 10), out("y", {"S_ID": 1, "W": "wy"}, 30)],
        "post": {"sources": [{"name": "O", "type": "stream",
                              "schema": "T3_ID STRING KEY, S_ID INTEGER, W STRING"}]},
    },
    {
        "name": "LEFT stream-stream then stream-table: the padded row, emitted when its window closes, reads the "
                "table as it is then",
        "statements": [S, S2, table("T3", "INT", "W"),
                       "CREATE STREAM O AS SELECT S.ID, A, B, W FROM S LEFT JOIN S2 WITHIN 1 SECOND GRACE PERIOD "
                       "0 SECONDS ON S.ID = S2.ID JOIN T3 ON S.ID = T3.ID;"],
        "inputs": [rec("t3", 1, {"W": "w1"}, 0), rec("s", 1, {"A": 1}, 0), rec("t3", 1, {"W": "w2"}, 500),
                   rec("s2", 2, {"B": 9}, 2000)],
        "outputs": [out(1, {"A": 1, "B": None, "W": "w2"}, 0)],
        "post": {"sources": [{"name": "O", "type": "stream",
                              "schema": "S_ID INTEGER KEY, A INTEGER, B INTEGER, W STRING"}]},
    },
    {
        "name": "table-table LEFT then FULL OUTER on the first key: keyed by ROWKEY, a left delete deletes",
        "statements": [table("T1", "INT", "V"), table("T2", "INT", "W"), table("T3", "INT", "X"),
                       "CREATE TABLE O AS SELECT ROWKEY AS K, V, W, X FROM T1 LEFT JOIN T2 ON T1.ID = T2.ID "
                       "FULL OUTER JOIN T3 ON T1.ID = T3.ID;"],
        "inputs": [rec("t1", 1, {"V": "a"}, 1), rec("t3", 2, {"X": "c"}, 2), rec("t2", 1, {"W": "b"}, 3),
                   rec("t1", 1, None, 4)],
        "outputs": [out(1, {"V": "a", "W": None, "X": None}, 1), out(2, {"V": None, "W": None, "X": "c"}, 2),
                    out(1, {"V": "a", "W": "b", "X": None}, 3), out(1, None, 4)],
        "post": {"sources": [{"name": "O", "type": "table",
                              "schema": "K INTEGER PRIMARY KEY, V STRING, W STRING, X STRING"}]},
    },
]


def main() -> None:
    path = Path(__file__).with_name("n-way-kinds.json")
    path.write_text(json.dumps({"comments": ["generated by n_way_kinds_gen.py"], "tests": CASES}, indent=1) + "\n")


if __name__ == "__main__":
    main()
