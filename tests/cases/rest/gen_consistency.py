"""Generates ``consistency-tokens.json``: pull queries with ``ksql.query.pull.consistency.token.enabled``.

A table's pull query then ends with a ``consistencyToken`` element after its rows: base64 of
``{"version":0,"offsetVector":{<topic>:{<partition>:<offset>}}}``, the offsets of the last records the
table's stores took in from the topic their task reads (ksqlDB's ConsistencyOffsetVector over Kafka
Streams' store positions; from memory). Scope: every way a table is materialized (SOURCE table, CTAS
aggregate, windowed aggregate, CTAS over a table) x key lookup / absent key / scan, one and two partitions
(a lookup reads the key's partition only), the switch off, and a stream's pull query (no token).

Run: python tests/cases/rest/gen_consistency.py (writes the JSON beside it)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

ON = {"ksql.query.pull.consistency.token.enabled": True}
STATUS = {"admin": {"@type": "currentStatus"}}
STREAM = ("CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='input', partitions={p}, "
          "value_format='JSON');")


def token(vector: dict[str, dict[int, int]]) -> dict[str, Any]:
    body = {"version": 0, "offsetVector": {t: {str(p): o for p, o in sorted(parts.items())}
                                           for t, parts in vector.items()}}
    text = base64.b64encode(json.dumps(body, separators=(",", ":")).encode()).decode()
    return {"consistencyToken": {"consistencyToken": text}}


def _inputs(topic: str) -> list[dict[str, Any]]:
    return [{"topic": topic, "timestamp": ts, "key": k, "value": {"V": v}}
            for ts, k, v in ((1000, 1, 10), (2000, 2, 20), (3000, 1, 11))]


def _query(schema: str, rows: list[list[Any]], *tail: dict[str, Any]) -> dict[str, Any]:
    return {"query": [{"header": {"schema": schema}}, *({"row": {"columns": r}} for r in rows), *tail]}


# (name, statements before the queries, input topic, schema, lookup rows of ID=1, scan rows)
KINDS = [
    ("a SOURCE table", ["CREATE SOURCE TABLE T (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='t', partitions=1, "
                        "value_format='JSON');"], "t",
     "`ID` INTEGER KEY, `V` INTEGER", [[1, 11]], [[1, 11], [2, 20]]),
    ("an aggregate", [STREAM.format(p=1), "CREATE TABLE T AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID;"],
     "input", "`ID` INTEGER KEY, `C` BIGINT", [[1, 2]], [[1, 2], [2, 1]]),
    ("a windowed aggregate", [STREAM.format(p=1), "CREATE TABLE T AS SELECT ID, COUNT(*) AS C FROM S "
                              "WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY ID;"], "input",
     "`ID` INTEGER KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `C` BIGINT",
     [[1, 0, 10000, 2]], [[1, 0, 10000, 2], [2, 0, 10000, 1]]),
    ("a CTAS over a table", ["CREATE TABLE T0 (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='t0', partitions=1, "
                             "value_format='JSON');", "CREATE TABLE T AS SELECT * FROM T0 WHERE V > 0;"], "t0",
     "`ID` INTEGER KEY, `V` INTEGER", [[1, 11]], [[1, 11], [2, 20]]),
]


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name, stmts, topic, schema, lookup, scan in KINDS:
        admin = [STATUS] * sum(1 for s in stmts if s.startswith("CREATE"))
        tok = token({topic: {0: 2}})
        for what, sql, rows in (("key lookup", "SELECT * FROM T WHERE ID = 1;", lookup),
                                ("lookup of an absent key", "SELECT * FROM T WHERE ID = 9;", []),
                                ("table scan", "SELECT * FROM T;", scan)):
            out.append({"name": f"{what} on {name} ends with the consistency token", "properties": ON,
                        "statements": [*stmts, sql], "inputs": _inputs(topic),
                        "responses": [*admin, _query(schema, rows, tok)]})
    agg = [STREAM.format(p=2), "CREATE TABLE T AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID;"]
    out += [
        {"name": "a scan over two partitions: the offsets of both", "properties": ON,
         "statements": [*agg, "SELECT * FROM T;"], "inputs": _inputs("input"),
         "responses": [STATUS, STATUS, _query("`ID` INTEGER KEY, `C` BIGINT", [[1, 2], [2, 1]],
                                              token({"input": {0: 1, 1: 0}}))]},
        {"name": "a key lookup over two partitions: the key's partition only", "properties": ON,
         "statements": [*agg, "SELECT * FROM T WHERE ID = 2;"], "inputs": _inputs("input"),
         "responses": [STATUS, STATUS, _query("`ID` INTEGER KEY, `C` BIGINT", [[2, 1]], token({"input": {1: 0}}))]},
        {"name": "with the switch off a pull query has no token", "properties": {
            "ksql.query.pull.consistency.token.enabled": False},
         "statements": [*agg, "SELECT * FROM T;"], "inputs": _inputs("input"),
         "responses": [STATUS, STATUS, _query("`ID` INTEGER KEY, `C` BIGINT", [[1, 2], [2, 1]])]},
        {"name": "a stream's pull query has no token", "properties": ON,
         "statements": [STREAM.format(p=1), "SELECT * FROM S;"], "inputs": _inputs("input"),
         "responses": [STATUS, _query("`ID` INTEGER, `V` INTEGER", [[1, 10], [2, 20], [1, 11]],
                                      {"finalMessage": "Query Completed"})]},
        {"name": "a push query has no token", "properties": ON,
         "statements": [STREAM.format(p=1), "SELECT * FROM S EMIT CHANGES LIMIT 2;"], "inputs": _inputs("input"),
         "responses": [STATUS, _query("`ID` INTEGER, `V` INTEGER", [[1, 10], [2, 20]],
                                      {"finalMessage": "Limit Reached"})]},
    ]
    return out


if __name__ == "__main__":
    here = Path(__file__).parent
    (here / "consistency-tokens.json").write_text(json.dumps(
        {"comments": ["Pull queries' consistency tokens. Generated by gen_consistency.py, in ksqlDB's REST test "
                      "format, written for ksqlpy."], "tests": cases()}, indent=1) + "\n")
