"""Stream-table joins over their scope: INNER and LEFT x every joinable value format, one sequence - stream
records before the table row exists, after it, after an update that changes nothing, after its delete
(and a repeated delete), after it is re-added; stream records older than the table's latest change; a
stream record with a NULL value; a tombstone of a key the table never held.

The expected rows come from ksqlDB's (non-versioned) KStream-KTable join, record at a time: only stream
records produce rows, each joined with the table's current row for its key - none (INNER: no row; LEFT:
padded with NULLs) when the table holds none - at the stream record's time, whatever the table row's time;
table changes update the table only; a stream record with a NULL value is dropped.

Writes tests/cases/joins/stream-table-changes.json: ``python tests/cases/joins/stream_table_changes_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

FORMATS = ["JSON", "AVRO", "PROTOBUF", "PROTOBUF_NOSR", "JSON_SR", "DELIMITED"]
KINDS = {"INNER": "JOIN", "LEFT": "LEFT JOIN"}

# (input, key, value or None for a NULL value / tombstone, timestamp)
CHANGES: list[tuple[str, int, Any, int]] = [
    ("S", 1, "s1", 100), ("T", 1, 10, 200), ("S", 1, "s2", 300), ("T", 1, 10, 400), ("S", 1, "s3", 500),
    ("T", 1, 11, 900), ("S", 1, "s4", 600),  # older than the table's change: still its current row
    ("T", 1, None, 1000), ("S", 1, "s5", 1100), ("T", 1, None, 1200), ("S", 1, "s6", 1300),
    ("T", 1, 12, 1400), ("S", 1, "s7", 1500), ("S", 1, None, 1600), ("T", 2, None, 1700), ("S", 2, "s8", 1800),
]


def run(kind: str) -> list[tuple[int, tuple[Any, Any], int]]:
    """The rows (key, (X, Y), ts) ksqlDB writes."""
    table: dict[int, Any] = {}
    out = []
    for side, key, value, ts in CHANGES:
        if side == "T":
            if value is None:
                table.pop(key, None)
            else:
                table[key] = value
            continue
        if value is None:
            continue
        if key in table:
            out.append((key, (value, table[key]), ts))
        elif kind == "LEFT":
            out.append((key, (value, None), ts))
    return out


def value(fmt: str, row: tuple[Any, Any]) -> Any:
    x, y = row
    if fmt == "DELIMITED":
        return f"{x},{'' if y is None else y}"
    if fmt.startswith("PROTOBUF"):  # unset fields read as their defaults
        return {"X": x, "Y": 0 if y is None else y}
    return {"X": x, "Y": y}


def source_value(fmt: str, side: str, v: Any) -> Any:
    if v is None:
        return None
    if fmt == "DELIMITED":
        return str(v)
    return {"X": v} if side == "S" else {"Y": v}


def rec(topic: str, key: Any, val: Any, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": val, "timestamp": ts}


def cases() -> list[dict[str, Any]]:
    tests = []
    for kind, join in KINDS.items():
        rows = run(kind)
        for fmt in FORMATS:
            tests.append({
                "name": f"{kind} stream-table join, {fmt} values: table updates, deletes and late stream records",
                "statements": [
                    f"CREATE STREAM S (K INT KEY, X STRING) WITH (kafka_topic='s', value_format='{fmt}');",
                    f"CREATE TABLE T (K INT PRIMARY KEY, Y INT) WITH (kafka_topic='t', value_format='{fmt}');",
                    f"CREATE STREAM OUT WITH (PARTITIONS=1) AS SELECT S.K AS K, X, Y FROM S {join} T ON S.K = T.K;"],
                "inputs": [rec(side.lower(), k, source_value(fmt, side, v), ts) for side, k, v, ts in CHANGES],
                "outputs": [rec("OUT", k, value(fmt, row), ts) for k, row, ts in rows],
            })
    return tests


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("stream-table-changes.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
