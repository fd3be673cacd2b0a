"""Writes tests/cases/rest/join-windowed-tables.json: joins of windowed tables through the REST API, and the
synthetic join key's numbering in a push query's header.

The rules (ksqldb-rules 6.2, 6.4, 6.6; from memory of ksqlDB's Analyzer, PushQueryValidator and LogicalPlanner):
- the Analyzer refuses a windowed side joined to a non-windowed one before any join is planned;
- a persistent query reading a windowed table is refused by the push-query validator, before planning - so a
  foreign-key join of windowed tables is refused that way in CREATE ... AS SELECT;
- a push query may join windowed tables on the primary key (``SELECT *`` lists each side's
  ``<ALIAS>_WINDOWSTART``/``_WINDOWEND``), but not on a foreign key: ``Foreign-key table-table joins are not
  supported on windowed tables.``;
- a synthetic key is ``ROWKEY``, or ``ROWKEY_<n+1>`` past the sources' highest ``ROWKEY_<n>`` column when a
  source has a ``ROWKEY`` column - in the header of a push query as in a sink's schema.

Run ``python tests/cases/rest/gen_join_windowed_tables.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ERROR = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"
WINDOW = "window_type='tumbling', window_size='1 second'"
W1 = ("CREATE TABLE W1 (ID INT PRIMARY KEY, FK INT, A INT) WITH (kafka_topic='w1', value_format='JSON', "
      f"partitions=1, {WINDOW});")
W2 = f"CREATE TABLE W2 (ID INT PRIMARY KEY, B INT) WITH (kafka_topic='w2', value_format='JSON', partitions=1, {WINDOW});"
T1 = "CREATE TABLE T1 (ID INT PRIMARY KEY, FK INT, A INT) WITH (kafka_topic='t1', value_format='JSON', partitions=1);"
T2 = "CREATE TABLE T2 (ID INT PRIMARY KEY, B INT) WITH (kafka_topic='t2', value_format='JSON', partitions=1);"
FK_WINDOWED = "Foreign-key table-table joins are not supported on windowed tables."
PERSISTENT_WINDOWED = "KSQL does not support persistent queries on windowed tables."


def mixed(left: str, left_window: str, right: str, right_window: str) -> str:
    return (f"Can not join windowed source to non-windowed source.\n`{left}` is {left_window}\n"
            f"`{right}` is {right_window}")


def rec(topic: str, key: Any, value: dict[str, Any] | None, ts: int, window: int | None = None) -> dict[str, Any]:
    r: dict[str, Any] = {"topic": topic, "key": key, "value": value, "timestamp": ts}
    if window is not None:
        r["window"] = {"start": window, "end": window + 1000, "type": "time"}
    return r


def admin(n: int) -> list[dict[str, Any]]:
    return [{"admin": {"@type": "currentStatus"}} for _ in range(n)]


def refused(name: str, statements: list[str], message: str) -> dict[str, Any]:
    return {"name": name, "statements": statements,
            "expectedError": {"type": ERROR, "message": message, "status": 400}}


def push(name: str, sources: list[str], query: str, inputs: list[dict[str, Any]], header: str,
         rows: list[list[Any]]) -> dict[str, Any]:
    result = [{"header": {"schema": header}}, *({"row": {"columns": r}} for r in rows),
              {"finalMessage": "Limit Reached"}]
    return {"name": name, "statements": [*sources, query], "inputs": inputs,
            "responses": [*admin(len(sources)), {"query": result}]}


def cases() -> list[dict[str, Any]]:
    out = []
    for kind in ("JOIN", "LEFT JOIN"):
        out += [
            refused(f"push query: a foreign-key {kind} of two windowed tables is refused",
                    [W1, W2, f"SELECT * FROM W1 {kind} W2 ON W1.FK = W2.ID EMIT CHANGES;"], FK_WINDOWED),
            refused(f"push query: a foreign-key {kind} on an expression of two windowed tables is refused",
                    [W1, W2, f"SELECT * FROM W1 {kind} W2 ON W1.A + 1 = W2.ID EMIT CHANGES;"], FK_WINDOWED),
            refused(f"push query: a foreign-key {kind} from a windowed table to a plain one: the windowing first",
                    [W1, T2, f"SELECT * FROM W1 {kind} T2 ON W1.FK = T2.ID EMIT CHANGES;"],
                    mixed("W1", "TUMBLING windowed", "T2", "not windowed")),
            refused(f"push query: a foreign-key {kind} from a plain table to a windowed one: the windowing first",
                    [T1, W2, f"SELECT * FROM T1 {kind} W2 ON T1.FK = W2.ID EMIT CHANGES;"],
                    mixed("T1", "not windowed", "W2", "TUMBLING windowed")),
            refused(f"persistent: a foreign-key {kind} of two windowed tables meets the windowed-table refusal",
                    [W1, W2, f"CREATE TABLE O AS SELECT W1.ID, B FROM W1 {kind} W2 ON W1.FK = W2.ID;"],
                    PERSISTENT_WINDOWED),
        ]
    out.append(push(
        "push query: a primary-key join of two windowed tables lists each side's window bounds",
        [W1, W2], "SELECT * FROM W1 JOIN W2 ON W1.ID = W2.ID EMIT CHANGES LIMIT 1;",
        [rec("w1", 1, {"FK": 5, "A": 6}, 10, window=0), rec("w2", 1, {"B": 7}, 20, window=0)],
        "`W1_ID` INTEGER, `W1_WINDOWSTART` BIGINT, `W1_WINDOWEND` BIGINT, `W1_FK` INTEGER, `W1_A` INTEGER, "
        "`W2_ID` INTEGER, `W2_WINDOWSTART` BIGINT, `W2_WINDOWEND` BIGINT, `W2_B` INTEGER",
        [[1, 0, 1000, 5, 6, 1, 0, 1000, 7]]))
    rk_l = ("CREATE TABLE L (ROWKEY INT PRIMARY KEY, ROWKEY_3 INT) WITH (kafka_topic='l', value_format='JSON', "
            "partitions=1);")
    rk_r = ("CREATE TABLE R (ROWKEY_1 INT PRIMARY KEY, B INT) WITH (kafka_topic='r', value_format='JSON', "
            "partitions=1);")
    out.append(push(
        "push query: SELECT * over a FULL OUTER join of sources with ROWKEY, ROWKEY_1 and ROWKEY_3: keyed ROWKEY_4",
        [rk_l, rk_r], "SELECT * FROM L FULL OUTER JOIN R ON L.ROWKEY = R.ROWKEY_1 EMIT CHANGES LIMIT 1;",
        [rec("l", 1, {"ROWKEY_3": 5}, 0)],
        "`ROWKEY_4` INTEGER, `L_ROWKEY` INTEGER, `L_ROWKEY_3` INTEGER, `R_ROWKEY_1` INTEGER, `R_B` INTEGER",
        [[1, 1, 5, None, None]]))
    out.append(push(
        "push query: the synthetic key ROWKEY_4 selected by name",
        [rk_l, rk_r], "SELECT ROWKEY_4 AS K, ROWKEY_3 FROM L FULL OUTER JOIN R ON L.ROWKEY = R.ROWKEY_1 "
                      "EMIT CHANGES LIMIT 1;",
        [rec("r", 2, {"B": 5}, 0)], "`K` INTEGER, `ROWKEY_3` INTEGER", [[2, None]]))
    return out


def main() -> None:
    path = Path(__file__).with_name("join-windowed-tables.json")
    path.write_text(json.dumps({"comments": ["generated by gen_join_windowed_tables.py"], "tests": cases()},
                               indent=1) + "\n")


if __name__ == "__main__":
    main()
