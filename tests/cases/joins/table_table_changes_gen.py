"""Table-table joins on the primary key over their scope: every join kind x every joinable value format, one
sequence of changes - inserts, an update that changes nothing, deletes of absent keys on either side, a
delete on either side and its repetition, a key deleted and re-added on either side, a row on one side only.

The expected rows come from a record-at-a-time model of Kafka Streams' KTable-KTable join processors (3.x)
as ksqlDB runs them (RIGHT as ``right.leftJoin(left)``): a source table forwards (new, old) for every record,
a tombstone of an absent key included (new and old both NULL); each side looks the other side's row up:
- INNER: nothing while the other row is absent, else the joined row - NULL (a delete) when the new value is;
- LEFT, left change: the joined row, NULL-padded when the right row is absent, a delete when the new value
  is NULL - but nothing when the right row is absent and old and new are both NULL;
  right change: nothing while the left row is absent, else the left row joined with the new right value
  (NULL-padded on a right delete);
- FULL: as LEFT's left change, from either side (a delete only when neither row is left).
Output time: the later of the two rows' times when the other row is present, else the change's own.

Writes tests/cases/joins/table-table-changes.json: ``python tests/cases/joins/table_table_changes_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

FORMATS = ["JSON", "AVRO", "PROTOBUF", "PROTOBUF_NOSR", "JSON_SR", "DELIMITED"]
KINDS = {"INNER": "JOIN", "LEFT": "LEFT JOIN", "RIGHT": "RIGHT JOIN", "FULL": "FULL OUTER JOIN"}
KEY_SELECT = {"INNER": "L.K AS K", "LEFT": "L.K AS K", "RIGHT": "R.K AS K", "FULL": "ROWKEY AS K"}

# (side, key, value or None for a tombstone, timestamp)
CHANGES: list[tuple[str, int, Any, int]] = [
    ("L", 1, "a", 100), ("R", 1, 10, 200), ("L", 1, "a", 300),  # the same row again, later
    ("R", 2, 20, 400), ("L", 3, None, 450), ("R", 3, None, 460),  # deletes of keys never written
    ("R", 1, None, 500), ("R", 1, None, 550), ("L", 1, "b", 600), ("R", 1, 11, 650),
    ("L", 1, None, 700), ("L", 1, None, 720), ("L", 1, "c", 800), ("R", 2, None, 900), ("L", 2, "d", 950),
]

Row = tuple[Any, Any]  # (V, W)


def run(kind: str) -> list[tuple[int, Row | None, int]]:
    """The rows (key, (V, W) or None for a delete, ts) ksqlDB writes."""
    tables: dict[str, dict[int, tuple[Any, int]]] = {"L": {}, "R": {}}
    out: list[tuple[int, Row | None, int]] = []
    # Kafka Streams' left side: the left table, the right one for RIGHT (right.leftJoin(left))
    kafka_left = "R" if kind == "RIGHT" else "L"
    for side, key, new, ts in CHANGES:
        old_entry = tables[side].get(key)
        old = old_entry[0] if old_entry else None
        if new is None:
            tables[side].pop(key, None)
        else:
            tables[side][key] = (new, ts)
        other = tables["R" if side == "L" else "L"].get(key)
        other_value = other[0] if other else None

        def joined(mine: Any, theirs: Any, s: str = side) -> Row:
            return (mine, theirs) if s == "L" else (theirs, mine)

        result_ts = max(ts, other[1]) if other else ts
        if kind == "INNER":
            if other is None:
                continue
            out.append((key, joined(new, other_value) if new is not None else None, result_ts))
        elif kind in ("LEFT", "RIGHT"):
            if side == kafka_left:
                if other is None and new is None and old is None:
                    continue
                out.append((key, joined(new, other_value) if new is not None else None, result_ts))
            else:
                if other is None:
                    continue
                out.append((key, joined(new, other_value), result_ts))
        else:
            if other is None and new is None and old is None:
                continue
            out.append((key, joined(new, other_value) if new is not None or other is not None else None, result_ts))
    return out


def value(fmt: str, row: Row | None) -> Any:
    if row is None:
        return None
    v, w = row
    if fmt == "DELIMITED":
        return f"{'' if v is None else v},{'' if w is None else w}"
    if fmt.startswith("PROTOBUF"):  # unset fields read as their defaults
        return {"V": "" if v is None else v, "W": 0 if w is None else w}
    return {"V": v, "W": w}


def source_value(fmt: str, side: str, v: Any) -> Any:
    if v is None:
        return None
    if fmt == "DELIMITED":
        return str(v)
    return {"V": v} if side == "L" else {"W": v}


def rec(topic: str, key: Any, val: Any, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": val, "timestamp": ts}


def cases() -> list[dict[str, Any]]:
    tests = []
    for kind, join in KINDS.items():
        rows = run(kind)
        for fmt in FORMATS:
            tests.append({
                "name": f"{kind} table-table join, {fmt} values: updates, deletes and re-added keys",
                "statements": [
                    f"CREATE TABLE L (K INT PRIMARY KEY, V STRING) WITH (kafka_topic='l', value_format='{fmt}');",
                    f"CREATE TABLE R (K INT PRIMARY KEY, W INT) WITH (kafka_topic='r', value_format='{fmt}');",
                    f"CREATE TABLE OUT WITH (PARTITIONS=1) AS SELECT {KEY_SELECT[kind]}, V, W FROM L {join} R "
                    "ON L.K = R.K;"],
                "inputs": [rec(side.lower(), k, source_value(fmt, side, v), ts) for side, k, v, ts in CHANGES],
                "outputs": [rec("OUT", k, value(fmt, row), ts) for k, row, ts in rows],
            })
    return tests


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("table-table-changes.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
