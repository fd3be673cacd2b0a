"""A GROUP BY over a join's rows, over its scope: every stream join kind (stream-stream INNER/LEFT/RIGHT/FULL
without GRACE, stream-table INNER/LEFT) x what is grouped by (the left or the right join expression - kept in
the join's task, no repartition - or a value column of either side, through ``Aggregate-GroupBy-repartition``)
x the sources' key format.

The rule (ksqlDB's ``AggregateNode`` over ``JoinNode``): the aggregation sees each joined row once, as the join
emits it - null-padded rows of the outer kinds included - and a row whose grouping value is NULL is dropped
(a padded row grouped by the padded side's column: the right side of a LEFT join's unmatched row, the left
side of a RIGHT join's, either of a FULL join's), even when the grouping is the join key and no repartition
runs; ``COUNT(*)`` counts every row kept, ``COUNT(R.B)`` only the ones the right side matched. The result is
keyed in the sources' key format. The joined rows follow Kafka Streams' joins as the other generated join
files model them (stream-stream without GRACE: an unmatched outer record at once; stream-table: stream
records only, against the table's current row).

Writes tests/cases/joins/aggregate-after-join.json: ``python tests/cases/joins/aggregate_after_join_gen.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FORMATS = ["KAFKA", "JSON", "DELIMITED", "AVRO", "PROTOBUF", "JSON_SR"]

# the records, in processing order: (side, key, value, timestamp)
L1A = ("l", 1, {"A": "a1", "G": "g1"}, 100)
L2 = ("l", 2, {"A": "a2", "G": "g2"}, 200)
L1B = ("l", 1, {"A": "a1b", "G": "g1"}, 400)
R1A = ("r", 1, {"B": "b1", "H": "h1"}, 0)
R3 = ("r", 3, {"B": "b3", "H": "h3"}, 300)
R1B = ("r", 1, {"B": "b1b", "H": "h1"}, 500)
RECORDS = [R1A, L1A, L2, R3, L1B, R1B]

# the joined rows each kind emits for RECORDS: (left record or None, right record or None, timestamp)
JOINED: dict[str, list[tuple[Any, Any, int]]] = {
    "stream-stream INNER": [(L1A, R1A, 100), (L1B, R1A, 400), (L1A, R1B, 500), (L1B, R1B, 500)],
    "stream-stream LEFT": [(L1A, R1A, 100), (L2, None, 200), (L1B, R1A, 400), (L1A, R1B, 500), (L1B, R1B, 500)],
    "stream-stream RIGHT": [(None, R1A, 0), (L1A, R1A, 100), (None, R3, 300), (L1B, R1A, 400), (L1A, R1B, 500),
                            (L1B, R1B, 500)],
    "stream-stream FULL": [(None, R1A, 0), (L1A, R1A, 100), (L2, None, 200), (None, R3, 300), (L1B, R1A, 400),
                           (L1A, R1B, 500), (L1B, R1B, 500)],
    "stream-table INNER": [(L1A, R1A, 100), (L1B, R1A, 400)],
    "stream-table LEFT": [(L1A, R1A, 100), (L2, None, 200), (L1B, R1A, 400)],
}
JOIN_SQL = {
    "stream-stream INNER": "JOIN R WITHIN 1 MINUTE", "stream-stream LEFT": "LEFT JOIN R WITHIN 1 MINUTE",
    "stream-stream RIGHT": "RIGHT JOIN R WITHIN 1 MINUTE", "stream-stream FULL": "FULL OUTER JOIN R WITHIN 1 MINUTE",
    "stream-table INNER": "JOIN R", "stream-table LEFT": "LEFT JOIN R",
}
# what is grouped by: (expression, key type, the group value of a joined row)
GROUPINGS: dict[str, tuple[str, str, Any]] = {
    "the left join key": ("L.ID", "INT", lambda lr, rr: lr[1] if lr else None),
    "the right join key": ("R.ID", "INT", lambda lr, rr: rr[1] if rr else None),
    "a left value column": ("L.G", "STRING", lambda lr, rr: lr[2]["G"] if lr else None),
    "a right value column": ("R.H", "STRING", lambda lr, rr: rr[2]["H"] if rr else None),
}


def _key(fmt: str, column: str, value: Any) -> Any:
    """A key as the test format writes it: DELIMITED keys are text, PROTOBUF keys a message."""
    if fmt == "DELIMITED":
        return str(value)
    if fmt == "PROTOBUF":
        return {column: value}
    return value


def _case(kind: str, grouping: str, fmt: str) -> dict[str, Any]:
    expr, ktype, group_of = GROUPINGS[grouping]
    right_kind, right_key = ("TABLE", "PRIMARY KEY") if kind.startswith("stream-table") else ("STREAM", "KEY")
    statements = [
        f"CREATE STREAM L (ID INT KEY, A STRING, G STRING) WITH (kafka_topic='l', key_format='{fmt}', "
        "value_format='JSON');",
        f"CREATE {right_kind} R (ID INT {right_key}, B STRING, H STRING) WITH (kafka_topic='r', key_format='{fmt}', "
        "value_format='JSON');",
        f"CREATE TABLE OUTPUT AS SELECT {expr} AS K, COUNT(*) AS C, COUNT(R.B) AS CB FROM L {JOIN_SQL[kind]} "
        f"ON L.ID = R.ID GROUP BY {expr};",
    ]
    inputs = [{"topic": side, "key": _key(fmt, "ID", k), "value": v, "timestamp": ts} for side, k, v, ts in RECORDS]
    counts: dict[Any, tuple[int, int]] = {}
    outputs = []
    for lr, rr, ts in JOINED[kind]:
        group = group_of(lr, rr)
        if group is None:
            continue  # a NULL grouping value: the row is dropped
        c, cb = counts.get(group, (0, 0))
        counts[group] = c + 1, cb + (rr is not None)
        outputs.append({"topic": "OUTPUT", "key": _key(fmt, "K", group),
                        "value": {"C": counts[group][0], "CB": counts[group][1]}, "timestamp": ts})
    return {
        "name": f"{fmt} keys: {kind} join grouped by {grouping}",
        "statements": statements, "inputs": inputs, "outputs": outputs,
        "post": {"sources": [{"name": "OUTPUT", "type": "table", "schema": f"K {ktype} KEY, C BIGINT, CB BIGINT",
                              "keyFormat": {"format": fmt}}]},
    }


def cases() -> list[dict[str, Any]]:
    return [_case(kind, grouping, fmt) for fmt in FORMATS for kind in JOINED for grouping in GROUPINGS]


def main() -> None:
    out = Path(__file__).with_name("aggregate-after-join.json")
    out.write_text(json.dumps({"tests": cases()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
