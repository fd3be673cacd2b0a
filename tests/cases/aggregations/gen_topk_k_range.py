"""Generates topk-k-range.json: TOPK and TOPKDISTINCT with k <= 0, over every element type they take.

ksqlDB's TopkKudaf / TopkDistinctKudaf (from memory of their source) check no range of k: the statement is
accepted and k only enters the per-record algorithm, modelled here as written there:

* ``aggregate``: a NULL value leaves the list; the list is *full* when its size equals k
  (``currentSize == topKSize``); a full list drops a value not above its last (smallest) element, else the
  last element is replaced (``list.set(size - 1, v)``), a list not full appends; then it is sorted descending.
  TOPKDISTINCT also skips a value already in the list (after the full-list test).
  - k < 0: the size never equals k, so the list keeps every (distinct) non-NULL value, largest first;
  - k = 0: the empty list is full, and ``set(-1, v)`` / ``get(-1)`` throws IndexOutOfBoundsException
    ("Index -1 out of bounds for length 0") at the first non-NULL value: the query stops (StreamsException).
* ``merge`` (session windows merge every session a record reaches into a fresh aggregate) allocates
  ``new ArrayList<>(Math.min(k, size1 + size2))``: for k < 0 a record joining an existing session fails with
  IllegalArgumentException ("Illegal Capacity: -1").

Run ``python tests/cases/aggregations/gen_topk_k_range.py`` after changing it.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
STREAMS_EXCEPTION = "org.apache.kafka.streams.errors.StreamsException"
# (column type, values with NULLs and a repeat, in the JSON spelling of the case)
TYPES: list[tuple[str, list[Any]]] = [
    ("INT", [5, None, 3, 7, 3]),
    ("BIGINT", [5000000000, None, -3, 7, -3]),
    ("DOUBLE", [1.5, None, -2.25, 4.0, -2.25]),
    ("STRING", ["m", None, "c", "x", "c"]),
    ("DECIMAL(4, 2)", [1.25, None, 10.55, -3.75, 10.55]),
]


def _key(t: str, v: Any) -> Any:
    return Decimal(str(v)) if t.startswith("DECIMAL") else v


def _negative_k(values: list[Any], t: str, distinct: bool) -> list[list[Any]]:
    """The list after each record for k < 0: every (distinct) non-NULL value so far, largest first."""
    out, acc = [], []  # type: list[list[Any]], list[Any]
    for v in values:
        if v is not None and not (distinct and v in acc):
            acc = sorted([*acc, v], key=lambda x: _key(t, x), reverse=True)
        out.append(list(acc))
    return out


def _stream(t: str) -> str:
    return (f"CREATE STREAM INPUT (ID INT KEY, V {t}, W STRING) WITH (kafka_topic='input', value_format='JSON', "
            "partitions=1);")


def _negative_cases() -> list[dict[str, Any]]:
    cases = []
    for t, values in TYPES:
        for fn, distinct in (("TOPK", False), ("TOPKDISTINCT", True)):
            cases.append({
                "name": f"{fn}(V, -1) of {t}: the list is never full and keeps every "
                        f"{'distinct ' if distinct else ''}value",
                "statements": [_stream(t), f"CREATE TABLE OUTPUT AS SELECT ID, {fn}(V, -1) AS R FROM INPUT "
                                           "GROUP BY ID;"],
                "inputs": [{"topic": "input", "key": 1, "value": {"V": v, "W": "w"}, "timestamp": i}
                           for i, v in enumerate(values)],
                "outputs": [{"topic": "OUTPUT", "key": 1, "value": {"R": r}, "timestamp": i}
                            for i, r in enumerate(_negative_k(values, t, distinct))],
            })
    # TOPK with other columns: structs ordered by the sort column
    values = [5, None, 3, 7]
    rows = []
    acc: list[tuple[int, str]] = []
    for i, v in enumerate(values):
        if v is not None:
            acc = sorted([*acc, (v, f"w{i}")], key=lambda e: e[0], reverse=True)
        rows.append([{"SORT_COL": s, "COL0": w} for s, w in acc])
    cases.append({
        "name": "TOPK(V, W, -1): structs of every row, largest sort column first",
        "statements": [_stream("INT"), "CREATE TABLE OUTPUT AS SELECT ID, TOPK(V, W, -1) AS R FROM INPUT GROUP BY ID;"],
        "inputs": [{"topic": "input", "key": 1, "value": {"V": v, "W": f"w{i}"}, "timestamp": i}
                   for i, v in enumerate(values)],
        "outputs": [{"topic": "OUTPUT", "key": 1, "value": {"R": r}, "timestamp": i} for i, r in enumerate(rows)],
    })
    cases.append({
        "name": "TOPK(V, -2) in tumbling windows: every value of each window",
        "statements": [_stream("INT"), "CREATE TABLE OUTPUT AS SELECT ID, TOPK(V, -2) AS R FROM INPUT "
                                       "WINDOW TUMBLING (SIZE 10 MILLISECONDS) GROUP BY ID;"],
        "inputs": [{"topic": "input", "key": 1, "value": {"V": v}, "timestamp": ts}
                   for v, ts in ((4, 1), (9, 2), (6, 3), (1, 12))],
        "outputs": [{"topic": "OUTPUT", "key": 1, "value": {"R": r}, "timestamp": ts,
                     "window": {"start": start, "end": start + 10, "type": "time"}}
                    for r, ts, start in (([4], 1, 0), ([9, 4], 2, 0), ([9, 6, 4], 3, 0), ([1], 12, 10))],
    })
    return cases


def _failing_cases() -> list[dict[str, Any]]:
    cases = []
    for t, values in TYPES:
        first = next(v for v in values if v is not None)
        for fn in ("TOPK", "TOPKDISTINCT"):
            cases.append({
                "name": f"{fn}(V, 0) of {t}: NULLs leave the empty list, the first value fails",
                "statements": [_stream(t), f"CREATE TABLE OUTPUT AS SELECT ID, {fn}(V, 0) AS R FROM INPUT "
                                           "GROUP BY ID;"],
                "inputs": [{"topic": "input", "key": 1, "value": {"V": None}, "timestamp": 0},
                           {"topic": "input", "key": 1, "value": {"V": first}, "timestamp": 1}],
                "outputs": [{"topic": "OUTPUT", "key": 1, "value": {"R": []}, "timestamp": 0}],
                "expectedException": {"type": STREAMS_EXCEPTION, "message": "Exception caught in process",
                                      "causeMessage": "Index -1 out of bounds for length 0"},
            })
    for fn in ("TOPK", "TOPKDISTINCT"):
        cases.append({
            "name": f"{fn}(V, -1) in session windows: a record joining a session fails in the merger",
            "statements": [_stream("INT"), f"CREATE TABLE OUTPUT AS SELECT ID, {fn}(V, -1) AS R FROM INPUT "
                                           "WINDOW SESSION (10 MILLISECONDS) GROUP BY ID;"],
            "inputs": [{"topic": "input", "key": 1, "value": {"V": 4}, "timestamp": 0},
                       {"topic": "input", "key": 1, "value": {"V": 9}, "timestamp": 5}],
            "outputs": [{"topic": "OUTPUT", "key": 1, "value": {"R": [4]}, "timestamp": 0,
                         "window": {"start": 0, "end": 0, "type": "session"}}],
            "expectedException": {"type": STREAMS_EXCEPTION, "message": "Exception caught in process",
                                  "causeMessage": "Illegal Capacity: -1"},
        })
    return cases


def cases() -> list[dict[str, Any]]:
    return _negative_cases() + _failing_cases()


if __name__ == "__main__":
    (HERE / "topk-k-range.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n", encoding="utf-8")
