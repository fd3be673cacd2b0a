"""Generates ``ctas-table-store.json``: pull queries over a CREATE TABLE AS SELECT without aggregation over a
table source, whose state is the source's rows as read (ksqlDB's ``KsqlTopic-Reduce`` store) with the
query's WHERE and projection applied when a pull query reads them (KsqlMaterialization's transforms).

Shapes: a projection computing functions of columns; a WHERE (rows failing it, a key updated to fail it, a
key updated to fail it and back); deletes (a tombstone, a tombstone of a key that failed WHERE); renamed key;
ROWTIME and ROWOFFSET projected (read from the stored row's record); CREATE OR REPLACE with a column added -
rows read before the replace answer with the new column computed from the stored source row. Each shape
over key/value format pairs (KAFKA/JSON, AVRO/AVRO, DELIMITED/DELIMITED, JSON/PROTOBUF, KAFKA/JSON_SR); each
answered by a key lookup and by a table scan.

Run ``python tests/cases/rest/gen_ctas_table_store.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

FORMATS = [("KAFKA", "JSON"), ("AVRO", "AVRO"), ("DELIMITED", "DELIMITED"), ("JSON", "PROTOBUF"),
           ("KAFKA", "JSON_SR")]
SOURCE = ("CREATE TABLE S (K STRING PRIMARY KEY, A INT, B STRING) WITH (kafka_topic='s', "
          "key_format='{KF}', value_format='{VF}');")


def rec(key: str, a: int | None, b: str | None, ts: int) -> dict[str, Any]:
    """A record of S (``a`` None: a tombstone)."""
    value = None if a is None else {"A": a, "B": b}
    return {"topic": "s", "key": key, "value": value, "timestamp": ts}


# name -> (the CTAS statements (and INSERTs between them), inputs, the sink's header schema, its rows by key after the inputs, the key
# column's name in the sink, the key looked up)
SHAPES: dict[str, tuple[list[str], list[dict[str, Any]], str, dict[str, list[Any]], str, str]] = {
    "functions of columns": (
        ["CREATE TABLE T AS SELECT K, A * 2 AS A2, CONCAT(B, '!') AS B2, LEN(B) AS N FROM S;"],
        [rec("k1", 1, "x", 10), rec("k2", 2, "yy", 20), rec("k1", 3, "zzz", 30)],
        "`K` STRING KEY, `A2` INTEGER, `B2` STRING, `N` INTEGER",
        {"k1": ["k1", 6, "zzz!", 3], "k2": ["k2", 4, "yy!", 2]}, "K", "k1"),
    "WHERE: failing rows, a key updated to fail and one updated back": (
        ["CREATE TABLE T AS SELECT K, A, B FROM S WHERE A > 1;"],
        [rec("k1", 5, "a", 10), rec("k2", 0, "b", 20), rec("k3", 7, "c", 30), rec("k3", 1, "d", 40),
         rec("k4", 9, "e", 50), rec("k4", 0, "f", 60), rec("k4", 8, "g", 70)],
        "`K` STRING KEY, `A` INTEGER, `B` STRING",
        {"k1": ["k1", 5, "a"], "k4": ["k4", 8, "g"]}, "K", "k4"),
    "deletes: a tombstone, a tombstone of a key failing WHERE, a key written again": (
        ["CREATE TABLE T AS SELECT K, A FROM S WHERE A <> 3;"],
        [rec("k1", 1, "a", 10), rec("k2", 2, "b", 20), rec("k3", 3, "c", 30), rec("k1", None, None, 40),
         rec("k3", None, None, 50), rec("k2", None, None, 60), rec("k2", 4, "d", 70)],
        "`K` STRING KEY, `A` INTEGER",
        {"k2": ["k2", 4]}, "K", "k2"),
    "the key renamed": (
        ["CREATE TABLE T AS SELECT K AS ID, B, A FROM S;"],
        [rec("k1", 1, "a", 10), rec("k2", 2, "b", 20)],
        "`ID` STRING KEY, `B` STRING, `A` INTEGER",
        {"k1": ["k1", "a", 1], "k2": ["k2", "b", 2]}, "ID", "k2"),
    "ROWTIME and ROWOFFSET projected: the stored row's record": (
        ["CREATE TABLE T AS SELECT K, ROWTIME AS RT, ROWOFFSET AS O, A FROM S;"],
        [rec("k1", 1, "a", 10), rec("k1", 2, "b", 25)],
        "`K` STRING KEY, `RT` BIGINT, `O` BIGINT, `A` INTEGER",
        {"k1": ["k1", 25, 1, 2]}, "K", "k1"),
    "CREATE OR REPLACE adding a column: computed from the stored source rows": (
        ["CREATE TABLE T AS SELECT K, A FROM S;",
         "INSERT INTO S (K, A, B) VALUES ('k1', 1, 'a');",
         "INSERT INTO S (K, A, B) VALUES ('k2', 2, 'b');",
         "CREATE OR REPLACE TABLE T AS SELECT K, A, UCASE(B) AS UB FROM S;"],
        [],
        "`K` STRING KEY, `A` INTEGER, `UB` STRING",
        {"k1": ["k1", 1, "A"], "k2": ["k2", 2, "B"]}, "K", "k1"),
}


def written(record: dict[str, Any], value_format: str) -> dict[str, Any]:
    """A record as the harness takes it in ``value_format`` (DELIMITED values are their text)."""
    value = record["value"]
    if value_format != "DELIMITED" or value is None:
        return record
    return {**record, "value": f"{value['A']},{value['B']}"}


def cases() -> list[dict[str, Any]]:
    out = []
    for name, (ctas, inputs, schema, rows, key_col, key) in SHAPES.items():
        for kf, vf in FORMATS:
            header = {"header": {"schema": schema}}
            looked_up = [{"row": {"columns": rows[key]}}] if key in rows else []
            out.append({
                "name": f"{name} - {kf} keys, {vf} values",
                "statements": [SOURCE.replace("{KF}", kf).replace("{VF}", vf), *ctas,
                               f"SELECT * FROM T WHERE {key_col} = '{key}';", "SELECT * FROM T;"],
                "inputs": [written(r, vf) for r in inputs],
                "responses": [{"admin": {"@type": "currentStatus"}}
                              for s in [SOURCE, *ctas] if not s.startswith("INSERT")] + [
                    {"query": [header, *looked_up]},
                    {"query": [header, *({"row": {"columns": r}} for _, r in sorted(rows.items()))]},
                ],
            })
    return out


if __name__ == "__main__":
    (HERE / "ctas-table-store.json").write_text(
        json.dumps({"comment": "generated by gen_ctas_table_store.py", "tests": cases()}, indent=1) + "\n")
