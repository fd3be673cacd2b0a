"""Generates the cases of a table aggregation's WHERE on each key's previous row (our own cases).

Run ``python tests/cases/aggregations/gen_table_where_previous.py`` to rewrite ``table-where-previous.json``.

The rule (from memory of ksqlDB's SourceBuilder, TableFilterBuilder and TableGroupByBuilder over Kafka Streams'
KTableTransformValues, KTableFilter and KTableRepartitionMap, all sending old values from the materialized table
source): each update of a source key hands the aggregation its new row and its previous row. Both go through
the WHERE (the previous row at the ROWTIME of the record being processed, with its own ROWOFFSET), the group
key and the arguments; the previous row's contribution is taken back only if it passes now, the new row's is
added only if it passes. A previous row that passed when it came but fails now is never taken back. Scope:
ROWTIME / ROWOFFSET / column predicates, NULLs, deletes, a moved group key, a NULL group key, undo-capable
UDAFs (COUNT, SUM, AVG, COLLECT_LIST), a repartitioned and a key-grouped form.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
TABLE = ("CREATE TABLE T (ID INT PRIMARY KEY, G STRING, X INT) WITH (kafka_topic='t', value_format='{FORMAT}', "
         "partitions=1);")


def rec(key: int, value: dict[str, Any] | None, ts: int) -> dict[str, Any]:
    return {"topic": "t", "key": key, "value": value, "timestamp": ts}


def out(key: Any, value: dict[str, Any] | None, ts: int, topic: str = "A") -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": value, "timestamp": ts}


def v(g: str | None, x: int | None) -> dict[str, Any]:
    return {"G": g, "X": x}


def cases() -> list[dict[str, Any]]:
    c: list[dict[str, Any]] = []
    c.append({
        "name": "ROWTIME predicate: the previous row is filtered at the new record's ROWTIME before it is taken back",
        "statements": [TABLE, "CREATE TABLE A AS SELECT G, COUNT(X) AS C, SUM(X) AS S, COLLECT_LIST(X) AS L "
                              "FROM T WHERE ROWTIME < 100 OR X > 10 GROUP BY G;"],
        "inputs": [
            rec(1, v("a", 1), 50),     # passes: added
            rec(1, v("a", 2), 150),    # fails; the previous row fails at 150: nothing
            rec(1, v("a", 20), 200),   # passes; the previous row fails: added only (1 is never taken back)
            rec(1, v("a", 3), 250),    # fails; the previous row passes: 20 taken back
            rec(1, None, 300),         # the previous row fails: nothing
            rec(2, v("b", 4), 60),     # passes
            rec(2, v("b", 30), 70),    # passes; the previous row passes at 70: 4 for 30
            rec(2, None, 400),         # the previous row passes (30 > 10): taken back
            rec(3, v("c", 50), 80),
            rec(3, v("d", 60), 500),   # the previous row passes: taken back from c, added to d
            rec(3, v("e", 5), 600),    # fails; the previous passes: taken back from d
        ],
        "outputs": [
            out("a", {"C": 1, "S": 1, "L": [1]}, 50),
            out("a", {"C": 2, "S": 21, "L": [1, 20]}, 200),
            out("a", {"C": 1, "S": 1, "L": [1]}, 250),
            out("b", {"C": 1, "S": 4, "L": [4]}, 60),
            out("b", {"C": 1, "S": 30, "L": [30]}, 70),
            out("b", {"C": 0, "S": 0, "L": []}, 400),
            out("c", {"C": 1, "S": 50, "L": [50]}, 80),
            out("c", {"C": 0, "S": 0, "L": []}, 500),
            out("d", {"C": 1, "S": 60, "L": [60]}, 500),
            out("d", {"C": 0, "S": 0, "L": []}, 600),
        ],
        "format": ["JSON", "AVRO"],
    })
    c.append({
        "name": "ROWTIME predicate grouped by the source key (no repartition): the same rule",
        "statements": [TABLE, "CREATE TABLE A AS SELECT ID, SUM(X) AS S, COUNT(*) AS C FROM T "
                              "WHERE ROWTIME < 100 OR X > 10 GROUP BY ID;"],
        "inputs": [rec(1, v("a", 1), 50), rec(1, v("a", 2), 150), rec(1, v("a", 20), 200),
                   rec(1, v("a", 3), 250), rec(1, None, 300)],
        "outputs": [out(1, {"S": 1, "C": 1}, 50), out(1, {"S": 21, "C": 2}, 200), out(1, {"S": 1, "C": 1}, 250)],
        "format": ["JSON", "AVRO"],
    })
    c.append({
        "name": "ROWOFFSET predicate: the previous row keeps its own offset",
        "statements": [TABLE, "CREATE TABLE A AS SELECT G, SUM(X) AS S FROM T WHERE ROWOFFSET < 2 OR X > 10 "
                              "GROUP BY G;"],
        "inputs": [rec(1, v("a", 1), 10), rec(2, v("a", 2), 20), rec(1, v("a", 3), 30), rec(2, v("a", 4), 40),
                   rec(1, v("a", 40), 50), rec(1, None, 60)],
        "outputs": [out("a", {"S": 1}, 10), out("a", {"S": 3}, 20),
                    out("a", {"S": 2}, 30),    # offset 2 fails; the previous row (offset 0) passes: 1 back
                    out("a", {"S": 0}, 40),    # offset 3 fails; the previous (offset 1) passes: 2 back
                    out("a", {"S": 40}, 50),   # passes; the previous (offset 2, X 3) fails: added only
                    out("a", {"S": 0}, 60)],   # delete; the previous passes: taken back
        "format": ["JSON"],
    })
    c.append({
        "name": "column predicate with NULLs: a NULL fails the WHERE, as new row and as previous row",
        "statements": [TABLE, "CREATE TABLE A AS SELECT G, COUNT(*) AS C, SUM(X) AS S, AVG(X) AS M FROM T "
                              "WHERE X > 10 GROUP BY G;"],
        "inputs": [rec(1, v("a", None), 10), rec(1, v("a", 20), 20), rec(1, v("a", None), 30),
                   rec(1, None, 40), rec(2, v("a", 30), 50), rec(2, None, 60), rec(2, None, 70)],
        "outputs": [out("a", {"C": 1, "S": 20, "M": 20.0}, 20), out("a", {"C": 0, "S": 0, "M": 0.0}, 30),
                    out("a", {"C": 1, "S": 30, "M": 30.0}, 50), out("a", {"C": 0, "S": 0, "M": 0.0}, 60)],
        "format": ["JSON"],
    })
    c.append({
        "name": "a NULL group key: the row is excluded, as new row and as previous row",
        "statements": [TABLE, "CREATE TABLE A AS SELECT G, COUNT(*) AS C FROM T WHERE ROWTIME < 100 GROUP BY G;"],
        "inputs": [rec(1, v(None, 1), 10), rec(1, v("a", 1), 20), rec(1, v(None, 1), 30), rec(1, v("a", 1), 200),
                   rec(1, v("b", 1), 40)],
        # @200 fails, its previous row (NULL key) is excluded: nothing; @40 passes, and so does its previous row
        # (G a) at ROWTIME 40 - though it never passed when it came: taken back from a
        "outputs": [out("a", {"C": 1}, 20), out("a", {"C": 0}, 30), out("a", {"C": -1}, 40), out("b", {"C": 1}, 40)],
        "format": ["JSON"],
    })
    return c


def main() -> None:
    doc = {"comments": [__doc__.split("\n\n", 1)[1].strip()], "tests": cases()}
    (HERE / "table-where-previous.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
