"""Writes tests/cases/rest/join-push-queries.json: push queries (SELECT ... EMIT CHANGES) over joins of every
kind, through the REST API: the header's schema and the rows.

The rules (ksqlDB's JoinNode.resolveSelectStar and the transient query's output schema, from memory):
- ``SELECT *`` lists each source's columns under ``ALIAS_COLUMN``, left source first; a join keyed by a
  synthetic column (FULL OUTER, or neither criteria side a plain column) lists that key, ``ROWKEY``, first;
- a push query need not select the key (no 'Key missing from projection' - that rule is a sink's);
- table-table and foreign-key joins stream their changes; a stream-stream outer join pads the missing side
  with NULLs; WHERE and GROUP BY run on the joined rows.

Run ``python tests/cases/rest/gen_join_push_queries.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

T1 = "CREATE TABLE T1 (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='t1', value_format='JSON', partitions=1);"
T2 = "CREATE TABLE T2 (ID INT PRIMARY KEY, W STRING) WITH (kafka_topic='t2', value_format='JSON', partitions=1);"
L = "CREATE TABLE L (ID INT PRIMARY KEY, FK INT) WITH (kafka_topic='l', value_format='JSON', partitions=1);"
S = "CREATE STREAM S (ID INT KEY, A INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
S2 = "CREATE STREAM S2 (ID INT KEY, B INT) WITH (kafka_topic='s2', value_format='JSON', partitions=1);"


def rec(topic: str, key: Any, value: dict | None, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": value, "timestamp": ts}


TABLE_INPUTS = [rec("t1", 1, {"V": "a"}, 0), rec("t2", 2, {"W": "b"}, 1), rec("t2", 1, {"W": "c"}, 2)]
STREAM_INPUTS = [rec("s", 1, {"A": 1}, 0), rec("s2", 1, {"B": 2}, 10)]

# (name, sources, query, inputs, header schema, rows)
CASES: list[tuple[str, list[str], str, list[dict[str, Any]], str, list[list[Any]]]] = [
    ("SELECT * over a FULL OUTER table-table join lists the synthetic key ROWKEY first",
     [T1, T2], "SELECT * FROM T1 FULL OUTER JOIN T2 ON T1.ID = T2.ID EMIT CHANGES LIMIT 3;", TABLE_INPUTS,
     "`ROWKEY` INTEGER, `T1_ID` INTEGER, `T1_V` STRING, `T2_ID` INTEGER, `T2_W` STRING",
     [[1, 1, "a", None, None], [2, None, None, 2, "b"], [1, 1, "a", 1, "c"]]),
    ("SELECT * over a LEFT table-table join: no synthetic key, the right side padded until it arrives",
     [T1, T2], "SELECT * FROM T1 LEFT JOIN T2 ON T1.ID = T2.ID EMIT CHANGES LIMIT 2;", TABLE_INPUTS,
     "`T1_ID` INTEGER, `T1_V` STRING, `T2_ID` INTEGER, `T2_W` STRING",
     [[1, "a", None, None], [1, "a", 1, "c"]]),
    ("a FULL OUTER table-table join's push query need not select the key",
     [T1, T2], "SELECT V, W FROM T1 FULL OUTER JOIN T2 ON T1.ID = T2.ID EMIT CHANGES LIMIT 3;", TABLE_INPUTS,
     "`V` STRING, `W` STRING", [["a", None], [None, "b"], ["a", "c"]]),
    ("SELECT * over a foreign-key join: left columns, then right columns",
     [L, T2], "SELECT * FROM L JOIN T2 ON L.FK = T2.ID EMIT CHANGES LIMIT 1;",
     [rec("l", 7, {"FK": 1}, 0), rec("t2", 1, {"W": "c"}, 2)],
     "`L_ID` INTEGER, `L_FK` INTEGER, `T2_ID` INTEGER, `T2_W` STRING", [[7, 1, 1, "c"]]),
    ("SELECT * over a FULL OUTER stream-stream join: ROWKEY first, the unmatched record padded",
     [S, S2], "SELECT * FROM S FULL OUTER JOIN S2 WITHIN 1 SECOND ON S.ID = S2.ID EMIT CHANGES LIMIT 2;",
     STREAM_INPUTS, "`ROWKEY` INTEGER, `S_ID` INTEGER, `S_A` INTEGER, `S2_ID` INTEGER, `S2_B` INTEGER",
     [[1, 1, 1, None, None], [1, 1, 1, 1, 2]]),
    ("SELECT * over a stream-stream join on a column and an expression: keyed by the column, no ROWKEY",
     [S, S2], "SELECT * FROM S JOIN S2 WITHIN 1 SECOND ON S.A = S2.B + 1 EMIT CHANGES LIMIT 1;",
     [rec("s", 1, {"A": 3}, 0), rec("s2", 5, {"B": 2}, 10)],
     "`S_ID` INTEGER, `S_A` INTEGER, `S2_ID` INTEGER, `S2_B` INTEGER", [[1, 3, 5, 2]]),
    ("SELECT * over a stream-stream join on two expressions: the synthetic key first, holding the join value",
     [S, S2], "SELECT * FROM S JOIN S2 WITHIN 1 SECOND ON S.A - 1 = S2.B + 1 EMIT CHANGES LIMIT 1;",
     [rec("s", 1, {"A": 4}, 0), rec("s2", 5, {"B": 2}, 10)],
     "`ROWKEY` INTEGER, `S_ID` INTEGER, `S_A` INTEGER, `S2_ID` INTEGER, `S2_B` INTEGER", [[3, 1, 4, 5, 2]]),
    ("a WHERE on the padded side of a LEFT stream-table join keeps the unmatched records only",
     [S, T1], "SELECT S.ID, A, V FROM S LEFT JOIN T1 ON S.ID = T1.ID WHERE V IS NULL EMIT CHANGES LIMIT 1;",
     [rec("t1", 1, {"V": "a"}, 0), rec("s", 1, {"A": 1}, 1), rec("s", 2, {"A": 2}, 2)],
     "`S_ID` INTEGER, `A` INTEGER, `V` STRING", [[2, 2, None]]),
    ("a push query's GROUP BY over a stream-table join counts per table column",
     [S, T1], "SELECT V, COUNT(*) AS C FROM S JOIN T1 ON S.ID = T1.ID GROUP BY V EMIT CHANGES LIMIT 2;",
     [rec("t1", 1, {"V": "a"}, 0), rec("s", 1, {"A": 1}, 1), rec("s", 1, {"A": 2}, 2)],
     "`V` STRING, `C` BIGINT", [["a", 1], ["a", 2]]),
]


def _case(name: str, sources: list[str], query: str, inputs: list[dict[str, Any]], header: str,
          rows: list[list[Any]]) -> dict[str, Any]:
    result = [{"header": {"schema": header}}, *({"row": {"columns": r}} for r in rows),
              {"finalMessage": "Limit Reached"}]
    return {"name": name, "statements": [*sources, query], "inputs": inputs,
            "responses": [*({"admin": {"@type": "currentStatus"}} for _ in sources), {"query": result}]}


def main() -> None:
    tests = [_case(*c) for c in CASES]
    path = Path(__file__).with_name("join-push-queries.json")
    path.write_text(json.dumps({"comments": ["generated by gen_join_push_queries.py"], "tests": tests}, indent=1)
                    + "\n")


if __name__ == "__main__":
    main()
