"""Writes tests/cases/aggregations/duplicate-names.json: a persistent query's SELECT naming two items alike,
whichever of them becomes a key column and in whichever order.

The rule (ksqlDB's projection schema, from memory; one visible case shows it for an aggregate's key alias
followed by a value alias): every SELECT item is first a value column of the projection, in SELECT order, and
the key columns are moved out after; a name given twice is ``Duplicate value columns found in schema: `<NAME>`
<TYPE>`` for the second item, so a grouping, partitioning or key column named like an earlier value column is
refused as much as one named like a later one (ksqlpy wrote both, a key and a value column of one name). A
generated ``KSQL_COL_n`` name counts: the generator skips the names of the sources, not the SELECT's aliases.

Shapes: GROUP BY a column, GROUP BY an expression, GROUP BY two columns (JSON key), a windowed aggregation, a
stream's own key, PARTITION BY; for each, the key item before and after the value item it clashes with, and a
case with distinct names that runs.

Run ``python tests/cases/aggregations/gen_duplicate_names.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
SOURCE = ("CREATE STREAM S (ID INT KEY, V INT, W STRING) "
          "WITH (kafka_topic='s', value_format='JSON', partitions=1);")

# (shape, statement with {items}, key item, value item, the clashing name, key type, value type)
SHAPES: list[tuple[str, str, str, str, str, str]] = [
    ("GROUP BY a column", "CREATE TABLE O AS SELECT {items} FROM S GROUP BY W;", "W AS X", "COUNT(*) AS X",
     "STRING", "BIGINT"),
    ("GROUP BY an expression (its generated name)", "CREATE TABLE O AS SELECT {items} FROM S GROUP BY ABS(V);",
     "ABS(V)", "COUNT(*) AS KSQL_COL_0", "INTEGER", "BIGINT"),
    ("GROUP BY two columns", "CREATE TABLE O WITH (key_format='JSON') AS SELECT W, {items} FROM S GROUP BY W, V;",
     "V AS N", "SUM(V) AS N", "INTEGER", "INTEGER"),
    ("a windowed aggregation", "CREATE TABLE O AS SELECT {items} FROM S WINDOW TUMBLING (SIZE 1 MINUTE) "
     "GROUP BY ID;", "ID AS K", "MAX(W) AS K", "INTEGER", "STRING"),
    ("a stream's own key", "CREATE STREAM O AS SELECT {items} FROM S;", "ID AS X", "W AS X", "INTEGER", "STRING"),
    ("PARTITION BY", "CREATE STREAM O AS SELECT ID, {items} FROM S PARTITION BY V;", "V AS X", "W AS X",
     "INTEGER", "STRING"),
]


def _name(item: str) -> str:
    return item.split(" AS ")[-1] if " AS " in item else "KSQL_COL_0"


def _refused(shape: str, statement: str, key: str, value: str, key_type: str, value_type: str,
             key_first: bool) -> dict[str, Any]:
    items = f"{key}, {value}" if key_first else f"{value}, {key}"
    second_type = value_type if key_first else key_type
    order = "the key item first" if key_first else "the value item first"
    return {
        "name": f"{shape}: a key and a value column both named {_name(value)}, {order}",
        "statements": [SOURCE, statement.format(items=items)],
        "expectedException": {"type": EXCEPTION, "message": "Duplicate value columns found in schema: "
                                                             f"`{_name(value)}` {second_type}"},
    }


def _distinct_names() -> list[dict[str, Any]]:
    """The same shapes with names apart run: the value item before its key."""
    return [
        {
            "name": "GROUP BY a column: a value item before the key item, names apart",
            "statements": [SOURCE, "CREATE TABLE O AS SELECT COUNT(*) AS C, W AS X FROM S GROUP BY W;"],
            "inputs": [{"topic": "s", "key": 1, "value": {"V": 1, "W": "a"}},
                       {"topic": "s", "key": 2, "value": {"V": 2, "W": "a"}}],
            "outputs": [{"topic": "O", "key": "a", "value": {"C": 1}}, {"topic": "O", "key": "a", "value": {"C": 2}}],
            "post": {"sources": [{"name": "O", "type": "table", "schema": "X STRING KEY, C BIGINT"}]},
        },
        {
            "name": "PARTITION BY: a value item before the key item, names apart",
            "statements": [SOURCE, "CREATE STREAM O AS SELECT W AS Y, V AS X FROM S PARTITION BY V;"],
            "inputs": [{"topic": "s", "key": 1, "value": {"V": 7, "W": "a"}}],
            "outputs": [{"topic": "O", "key": 7, "value": {"Y": "a"}}],
            "post": {"sources": [{"name": "O", "type": "stream", "schema": "X INT KEY, Y STRING"}]},
        },
    ]


def cases() -> list[dict[str, Any]]:
    out = [_refused(shape, stmt, key, value, kt, vt, key_first)
           for shape, stmt, key, value, kt, vt in SHAPES for key_first in (True, False)]
    return out + _distinct_names()


if __name__ == "__main__":
    (HERE / "duplicate-names.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n", encoding="utf-8")
