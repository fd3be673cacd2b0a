"""A GROUP BY over a table-table join's changes, over its scope: INNER/LEFT/RIGHT/FULL x grouped by either
join expression or a value column of either side x the tables' key format.

A table join's change carries its old row beside the new one (Kafka Streams' KTable-KTable join processors
with ``sendOldValues``, which the aggregation's ``groupBy`` turns on), and the aggregation undoes the old row
before it adds the new (``KTableRepartitionMap``: one update when both rows land in the same group, else a
subtraction and an addition, old first; ``KTableAggregate``). The changes modelled, per kind (ksqlDB runs
RIGHT as ``right.leftJoin(left)``):

- INNER: nothing while the other side's row is absent; else (joined new or NULL, joined old or NULL);
- LEFT, left change: (new joined or padded, old joined or padded), nothing only when both are NULL and the
  right row is absent; right change: nothing without a left row, else (left with the new right row or
  padded, left with the old right row or padded) - the old row is never NULL there;
- FULL: either side as LEFT's left change, a row padded on whichever side is absent.

A grouping value that is NULL (a padded side's column) is no group: that half of the update is skipped.
Counts reaching 0 stay as rows with 0. Output time: the later of the change's and the group's last.

Writes tests/cases/joins/table-aggregate-after-join.json: ``python tests/cases/joins/table_aggregate_after_join_gen.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FORMATS = ["KAFKA", "JSON", "DELIMITED", "AVRO", "PROTOBUF", "JSON_SR"]

L1A = ("l", 1, {"A": "a1", "G": "g1"}, 0)
R1A = ("r", 1, {"B": "b1", "H": "h1"}, 10)
L1B = ("l", 1, {"A": "a1b", "G": "g2"}, 20)  # moves key 1 to another left group
R1B = ("r", 1, {"B": "b1b", "H": "h2"}, 30)  # moves key 1 to another right group
L2 = ("l", 2, {"A": "a2", "G": "g1"}, 40)  # a left row without a right one
R3 = ("r", 3, {"B": "b3", "H": "h1"}, 50)  # a right row without a left one
L1X = ("l", 1, None, 60)  # deletes
R1X = ("r", 1, None, 70)
RECORDS = [L1A, R1A, L1B, R1B, L2, R3, L1X, R1X]

Row = tuple[Any, Any]  # (left record or None, right record or None)
# per kind, the changes the join emits for RECORDS: (new row or None, old row or None, timestamp)
CHANGES: dict[str, list[tuple[Row | None, Row | None, int]]] = {
    "INNER": [((L1A, R1A), None, 10), ((L1B, R1A), (L1A, R1A), 20), ((L1B, R1B), (L1B, R1A), 30),
              (None, (L1B, R1B), 60)],
    "LEFT": [((L1A, None), None, 0), ((L1A, R1A), (L1A, None), 10), ((L1B, R1A), (L1A, R1A), 20),
             ((L1B, R1B), (L1B, R1A), 30), ((L2, None), None, 40), (None, (L1B, R1B), 60)],
    "RIGHT": [((L1A, R1A), None, 10), ((L1B, R1A), (L1A, R1A), 20), ((L1B, R1B), (L1B, R1A), 30),
              ((None, R3), None, 50), ((None, R1B), (L1B, R1B), 60), (None, (None, R1B), 70)],
    "FULL": [((L1A, None), None, 0), ((L1A, R1A), (L1A, None), 10), ((L1B, R1A), (L1A, R1A), 20),
             ((L1B, R1B), (L1B, R1A), 30), ((L2, None), None, 40), ((None, R3), None, 50),
             ((None, R1B), (L1B, R1B), 60), (None, (None, R1B), 70)],
}
JOIN_SQL = {"INNER": "JOIN", "LEFT": "LEFT JOIN", "RIGHT": "RIGHT JOIN", "FULL": "FULL OUTER JOIN"}
GROUPINGS: dict[str, tuple[str, str, Any]] = {
    "the left join key": ("L.ID", "INT", lambda row: row[0][1] if row[0] else None),
    "the right join key": ("R.ID", "INT", lambda row: row[1][1] if row[1] else None),
    "a left value column": ("L.G", "STRING", lambda row: row[0][2]["G"] if row[0] else None),
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
    state: dict[Any, tuple[int, int, int]] = {}
    out = []

    def apply(group: Any, row: Row, sign: int, ts: int, undo: Row | None = None) -> None:
        c, cb, last = state.get(group, (0, 0, ts))
        if undo is not None:  # one update: the old row out, the new one in
            c, cb = c - 1, cb - (undo[1] is not None)
        c, cb = c + sign, cb + sign * (row[1] is not None)
        state[group] = c, cb, max(ts, last)
        out.append((group, c, cb, max(ts, last)))

    for new, old, ts in CHANGES[kind]:
        gnew = group_of(new) if new is not None else None
        gold = group_of(old) if old is not None else None
        if gnew is not None and gold is not None and gnew == gold:
            apply(gnew, new, 1, ts, undo=old)
            continue
        if gold is not None:
            apply(gold, old, -1, ts)
        if gnew is not None:
            apply(gnew, new, 1, ts)
    return out


def _case(kind: str, grouping: str, fmt: str) -> dict[str, Any]:
    expr, ktype, group_of = GROUPINGS[grouping]
    # grouped by a value column, a change may leave one group for another: the two updates come from the
    # repartition topic's partitions of the two groups, in no order across them - one partition keeps ksqlDB's
    # harness order (old first); grouped by a join key, a key's changes stay in its own task
    parts = ", partitions=1" if "value" in grouping else ""
    statements = [
        f"CREATE TABLE L (ID INT PRIMARY KEY, A STRING, G STRING) WITH (kafka_topic='l', key_format='{fmt}', "
        f"value_format='JSON'{parts});",
        f"CREATE TABLE R (ID INT PRIMARY KEY, B STRING, H STRING) WITH (kafka_topic='r', key_format='{fmt}', "
        f"value_format='JSON'{parts});",
        f"CREATE TABLE OUTPUT AS SELECT {expr} AS K, COUNT(*) AS C, COUNT(R.B) AS CB FROM L {JOIN_SQL[kind]} R "
        f"ON L.ID = R.ID GROUP BY {expr};",
    ]
    inputs = [{"topic": side, "key": _key(fmt, "ID", k), "value": v, "timestamp": ts} for side, k, v, ts in RECORDS]
    outputs = [{"topic": "OUTPUT", "key": _key(fmt, "K", g), "value": {"C": c, "CB": cb}, "timestamp": ts}
               for g, c, cb, ts in _aggregated(kind, group_of)]
    return {
        "name": f"{fmt} keys: table-table {kind} join grouped by {grouping}",
        "statements": statements, "inputs": inputs, "outputs": outputs,
        "post": {"sources": [{"name": "OUTPUT", "type": "table", "schema": f"K {ktype} KEY, C BIGINT, CB BIGINT",
                              "keyFormat": {"format": fmt}}]},
    }


def cases() -> list[dict[str, Any]]:
    return [_case(kind, grouping, fmt) for fmt in FORMATS for kind in CHANGES for grouping in GROUPINGS]


def main() -> None:
    out = Path(__file__).with_name("table-aggregate-after-join.json")
    out.write_text(json.dumps({"tests": cases()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
