"""Generates ``scalable-push-deletes.json``: what a scalable push query leaves out, over every kind of source a
persistent query writes, next to the conventional push query of the same source and records (ksqlDB's rules,
in our words; from memory of its ScalablePushRegistry and ScalablePushUtil):

- a scalable push query (``ksql.query.push.v2.enabled``, reading from ``latest``, one persistent query writing its
  source) taps that query's output records; a record whose key is NULL (for a source with key columns) or whose
  value is NULL is ignored. So a table's deletes - a tombstone in its topic, a session merged into a longer
  one, a row of a CREATE TABLE AS SELECT whose WHERE it no longer passes - never reach it, and its LIMIT
  counts only the rows it shows;
- the same query reading from ``earliest`` is a conventional push query, which shows each delete as a
  tombstone row (the key columns filled, the others NULL);
- rows that are not deletes are the same either way: a hopping window's every window, a multi-column key,
  struct fields of a registry format.

Run ``python tests/cases/rest/gen_scalable_push_deletes.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATUS = {"admin": {"@type": "currentStatus"}}
STREAM = "CREATE STREAM I (K STRING KEY, V INT) WITH (kafka_topic='input', value_format='JSON', partitions=1);"
TABLE = "CREATE TABLE I (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='input', value_format='JSON', partitions=1);"


def _in(key: Any, value: Any, ts: int) -> dict[str, Any]:
    return {"topic": "input", "key": key, "value": value, "timestamp": ts}


def _row(*columns: Any, tombstone: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {"columns": list(columns)}
    if tombstone:
        body["tombstone"] = True
    return {"row": body}


# name -> (statements before the push query, the push query, records, header schema, rows of the scalable push
# query, rows of the conventional push query over the same records)
SHAPES: dict[str, tuple[list[str], str, list[dict[str, Any]], str, list[dict[str, Any]], list[dict[str, Any]]]] = {
    "a table's tombstone": (
        [TABLE, "CREATE TABLE T AS SELECT * FROM I;"], "SELECT * FROM T EMIT CHANGES LIMIT {n};",
        [_in("a", {"V": 1}, 1), _in("a", None, 2), _in("b", {"V": 2}, 3)], "`K` STRING, `V` INTEGER",
        [_row("a", 1), _row("b", 2)], [_row("a", 1), _row("a", None, tombstone=True), _row("b", 2)]),
    "a tombstone of a key the table never had": (
        [TABLE, "CREATE TABLE T AS SELECT K, V * 10 AS W FROM I;"], "SELECT W, K FROM T EMIT CHANGES LIMIT {n};",
        [_in("z", None, 1), _in("a", {"V": 1}, 2), _in("a", None, 3), _in("b", {"V": 2}, 4)],
        "`W` INTEGER, `K` STRING",
        [_row(10, "a"), _row(20, "b")],
        [_row(None, "z", tombstone=True), _row(10, "a"), _row(None, "a", tombstone=True), _row(20, "b")]),
    "a CREATE TABLE AS SELECT row that stops passing its WHERE": (
        [TABLE, "CREATE TABLE T AS SELECT * FROM I WHERE V > 0;"], "SELECT * FROM T EMIT CHANGES LIMIT {n};",
        [_in("a", {"V": 1}, 1), _in("a", {"V": -1}, 2), _in("b", {"V": 2}, 3)], "`K` STRING, `V` INTEGER",
        [_row("a", 1), _row("b", 2)], [_row("a", 1), _row("a", None, tombstone=True), _row("b", 2)]),
    "a push query's WHERE over a table": (
        [TABLE, "CREATE TABLE T AS SELECT * FROM I;"], "SELECT * FROM T WHERE V > 0 EMIT CHANGES LIMIT {n};",
        [_in("a", {"V": 1}, 1), _in("a", {"V": -1}, 2), _in("b", {"V": 2}, 3)], "`K` STRING, `V` INTEGER",
        [_row("a", 1), _row("b", 2)], [_row("a", 1), _row("a", None, tombstone=True), _row("b", 2)]),
    "session windows merged into one": (
        [STREAM, "CREATE TABLE T AS SELECT K, SUM(V) AS S FROM I WINDOW SESSION (10 SECONDS) GROUP BY K;"],
        "SELECT * FROM T EMIT CHANGES LIMIT {n};",
        [_in("a", {"V": 1}, 1000), _in("a", {"V": 2}, 3000)],
        "`K` STRING, `WINDOWSTART` BIGINT, `WINDOWEND` BIGINT, `S` INTEGER",
        [_row("a", 1000, 1000, 1), _row("a", 1000, 3000, 3)],
        [_row("a", 1000, 1000, 1), _row("a", 1000, 1000, None, tombstone=True), _row("a", 1000, 3000, 3)]),
    "hopping windows (no deletes)": (
        [STREAM, "CREATE TABLE T AS SELECT K, SUM(V) AS S FROM I WINDOW HOPPING (SIZE 2 SECONDS, ADVANCE BY 1 SECOND) "
                 "GROUP BY K;"],
        "SELECT * FROM T EMIT CHANGES LIMIT {n};",
        [_in("a", {"V": 1}, 1500)],
        "`K` STRING, `WINDOWSTART` BIGINT, `WINDOWEND` BIGINT, `S` INTEGER",
        [_row("a", 0, 2000, 1), _row("a", 1000, 3000, 1)], [_row("a", 0, 2000, 1), _row("a", 1000, 3000, 1)]),
    "a multi-column key (no deletes)": (
        ["CREATE STREAM I (K1 STRING KEY, K2 INT KEY, V INT) WITH (kafka_topic='input', format='JSON', "
         "partitions=1);", "CREATE STREAM O AS SELECT * FROM I;"],
        "SELECT V, K2, K1 FROM O EMIT CHANGES LIMIT {n};",
        [{"topic": "input", "key": {"K1": "a", "K2": 2}, "value": {"V": 1}, "timestamp": 1}],
        "`V` INTEGER, `K2` INTEGER, `K1` STRING", [_row(1, 2, "a")], [_row(1, 2, "a")]),
    "struct fields of AVRO values (no deletes)": (
        ["CREATE STREAM I (K STRING KEY, V INT, S STRUCT<A INT>) WITH (kafka_topic='input', format='AVRO', "
         "partitions=1);", "CREATE STREAM O AS SELECT * FROM I;"],
        "SELECT K, S->A AS A, V FROM O EMIT CHANGES LIMIT {n};",
        [_in("a", {"V": 1, "S": {"A": 5}}, 1)], "`K` STRING, `A` INTEGER, `V` INTEGER",
        [_row("a", 5, 1)], [_row("a", 5, 1)]),
}


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for shape, (statements, query, records, schema, scalable, conventional) in SHAPES.items():
        for kind, reset, rows, prefix in (("scalable", "latest", scalable, "SCALABLE_PUSH_QUERY_"),
                                          ("conventional", "earliest", conventional, "transient_")):
            stmts = [*statements, query.format(n=len(rows))]
            case: dict[str, Any] = {
                "name": f"{kind} push query ({reset}) - {shape}",
                "statements": stmts,
                "inputs": records,
                "properties": {"auto.offset.reset": reset},
                "responses": [STATUS] * len(statements) + [{"query": [
                    {"header": {"schema": schema, "queryId|starts_with": prefix}}, *rows,
                    {"finalMessage": "Limit Reached"}]}],
            }
            if reset == "latest":  # the records are produced once the query streams
                case["inputConditions"] = {"waitForActivePushQuery": True}
            out.append(case)
    return out


if __name__ == "__main__":
    (HERE / "scalable-push-deletes.json").write_text(json.dumps(
        {"comments": ["What a scalable push query leaves out (a record with a NULL value: a table's deletes) next "
                      "to the conventional push query of the same records. Generated by "
                      "gen_scalable_push_deletes.py, in ksqlDB's REST test format, written for ksqlpy."],
         "tests": cases()}, indent=1) + "\n")
