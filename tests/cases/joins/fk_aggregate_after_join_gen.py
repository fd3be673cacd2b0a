"""A GROUP BY over a foreign-key join's results, over its scope: INNER/LEFT x grouped by the left key, the
foreign key (the right table's key), or a value column of either side x the tables' key format.

A foreign-key join's result is a table keyed by the left key: each answer replaces that key's previous result
(a NULL result deletes it), and the aggregation undoes the previous result before it adds the new one - the
old row comes from the join's materialized result, as a KTable's ``sendOldValues`` reads it. The results
follow the subscription rules the other foreign-key files model: a new left row without its right row gives
nothing on INNER, a padded row on LEFT; a foreign-key change to a missing right row deletes an INNER result
(padded on LEFT); a right change reaches the left rows subscribed to it at its own time, none after they
moved away; a right delete deletes (INNER) or pads (LEFT) their results; a left delete deletes its result.

Grouped by a value column, a group gathers the results of several left keys, answered in their own tasks:
those cases read one-partition tables (one task keeps the order the harness gives).

Writes tests/cases/joins/fk-aggregate-after-join.json: ``python tests/cases/joins/fk_aggregate_after_join_gen.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FORMATS = ["KAFKA", "JSON", "DELIMITED", "AVRO", "PROTOBUF", "JSON_SR"]

R10 = ("r", 10, {"B": "b10", "H": "h1"}, 0)
L1 = ("l", 1, {"FK": 10, "G": "g1"}, 10)
L2 = ("l", 2, {"FK": 12, "G": "g1"}, 20)  # its right row never comes
L1B = ("l", 1, {"FK": 11, "G": "g2"}, 30)  # to a right row not there yet
R11 = ("r", 11, {"B": "b11", "H": "h2"}, 40)
R10B = ("r", 10, {"B": "b10b", "H": "h2"}, 50)  # nobody subscribes to 10 any more
R11X = ("r", 11, None, 60)
L1X = ("l", 1, None, 70)
RECORDS = [R10, L1, L2, L1B, R11, R10B, R11X, L1X]

Row = tuple[Any, Any]  # (left record, right record or None)
# per kind, each result the join gives: (left key, new result or None, timestamp)
RESULTS: dict[str, list[tuple[int, Row | None, int]]] = {
    "INNER": [(1, (L1, R10), 10), (1, None, 30), (1, (L1B, R11), 40), (1, None, 60), (1, None, 70)],
    "LEFT": [(1, (L1, R10), 10), (2, (L2, None), 20), (1, (L1B, None), 30), (1, (L1B, R11), 40),
             (1, (L1B, None), 60), (1, None, 70)],
}
JOIN_SQL = {"INNER": "JOIN", "LEFT": "LEFT JOIN"}
GROUPINGS: dict[str, tuple[str, str, Any]] = {
    "the left key": ("L.ID", "INT", lambda row: row[0][1]),
    "the foreign key": ("R.ID", "INT", lambda row: row[1][1] if row[1] else None),
    "a left value column": ("L.G", "STRING", lambda row: row[0][2]["G"]),
    "a right value column": ("R.H", "STRING", lambda row: row[1][2]["H"] if row[1] else None),
}


def _key(fmt: str, column: str, value: Any) -> Any:
    """A key as the test format writes it: DELIMITED keys are text, PROTOBUF keys a message."""
    if fmt == "DELIMITED":
        return str(value)
    if fmt == "PROTOBUF":
        return {column: value}
    return value


def _aggregated(kind: str, group_of: Any) -> list[tuple[Any, int, int, int]]:
    """(group, COUNT(*), COUNT(R.B), time) of each update the aggregation emits."""
    current: dict[int, Row] = {}
    state: dict[Any, tuple[int, int, int]] = {}
    out = []

    def apply(group: Any, add: Row | None, undo: Row | None, ts: int) -> None:
        c, cb, last = state.get(group, (0, 0, ts))
        for row, sign in ((undo, -1), (add, 1)):
            if row is not None:
                c, cb = c + sign, cb + sign * (row[1] is not None)
        state[group] = c, cb, max(ts, last)
        out.append((group, c, cb, max(ts, last)))

    for lkey, new, ts in RESULTS[kind]:
        old = current.pop(lkey, None)
        if new is not None:
            current[lkey] = new
        gnew = group_of(new) if new is not None else None
        gold = group_of(old) if old is not None else None
        if gnew is not None and gnew == gold:
            apply(gnew, new, old, ts)
            continue
        if gold is not None:
            apply(gold, None, old, ts)
        if gnew is not None:
            apply(gnew, new, None, ts)
    return out


def _case(kind: str, grouping: str, fmt: str) -> dict[str, Any]:
    expr, ktype, group_of = GROUPINGS[grouping]
    parts = ", partitions=1" if "value" in grouping else ""
    statements = [
        f"CREATE TABLE L (ID INT PRIMARY KEY, FK INT, G STRING) WITH (kafka_topic='l', key_format='{fmt}', "
        f"value_format='JSON'{parts});",
        f"CREATE TABLE R (ID INT PRIMARY KEY, B STRING, H STRING) WITH (kafka_topic='r', key_format='{fmt}', "
        f"value_format='JSON'{parts});",
        f"CREATE TABLE OUTPUT AS SELECT {expr} AS K, COUNT(*) AS C, COUNT(R.B) AS CB FROM L {JOIN_SQL[kind]} R "
        f"ON L.FK = R.ID GROUP BY {expr};",
    ]
    inputs = [{"topic": side, "key": _key(fmt, "ID", k), "value": v, "timestamp": ts} for side, k, v, ts in RECORDS]
    outputs = [{"topic": "OUTPUT", "key": _key(fmt, "K", g), "value": {"C": c, "CB": cb}, "timestamp": ts}
               for g, c, cb, ts in _aggregated(kind, group_of)]
    return {
        "name": f"{fmt} keys: foreign-key {kind} join grouped by {grouping}",
        "statements": statements, "inputs": inputs, "outputs": outputs,
        "post": {"sources": [{"name": "OUTPUT", "type": "table", "schema": f"K {ktype} KEY, C BIGINT, CB BIGINT",
                              "keyFormat": {"format": fmt}}]},
    }


def cases() -> list[dict[str, Any]]:
    return [_case(kind, grouping, fmt) for fmt in FORMATS for kind in RESULTS for grouping in GROUPINGS]


def main() -> None:
    out = Path(__file__).with_name("fk-aggregate-after-join.json")
    out.write_text(json.dumps({"tests": cases()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
