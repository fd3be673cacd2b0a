"""Generates the COLLECT_LIST / COLLECT_SET (and HISTOGRAM) limit cases (our own cases, ksqlDB's test format).

Run ``python tests/cases/aggregations/gen_collect_limits.py`` to rewrite ``collect-limits.json`` next to it.

The rule (ksqlDB's ``CollectListUdaf`` / ``CollectSetUdaf`` ``configure``, from memory of their source): the
limit is ``ksql.functions.collect_list.limit`` / ``ksql.functions.collect_set.limit``; a number is read with
``intValue()``, text with ``Integer.parseInt``; unset or negative means Integer.MAX_VALUE (no limit); 0 keeps the
array empty. A value past the limit is dropped (COLLECT_SET: a value already held is dropped too), NULL included.
Each limit applies to its own function only. Scope: both functions x unset / negative / zero / small limits, as
numbers and as text, in plain, windowed (EMIT FINAL) and table (undo) aggregations, and no 1000 cap by default.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FUNCTIONS = {"COLLECT_LIST": "ksql.functions.collect_list.limit", "COLLECT_SET": "ksql.functions.collect_set.limit"}
# the property's value as a case sets it (None: unset) -> the limit ksqlDB's configure ends with
LIMITS: dict[str, tuple[int | str | None, int | None]] = {
    "unset": (None, None),
    "-1": (-1, None),
    "Integer.MIN_VALUE": (-2147483648, None),
    "0": (0, 0),
    "1": (1, 1),
    "3": (3, 3),
    "text '2'": ("2", 2),
    "text '-5'": ("-5", None),
    "text '0'": ("0", 0),
}
VALUES = [1, 1, 2, None, 3, 2, 4]
SOURCE = "CREATE STREAM INPUT (ID BIGINT KEY, V INT) WITH (kafka_topic='input_topic', value_format='JSON');"


def _collect(function: str, limit: int | None, values: list[int | None]) -> list[list[int | None]]:
    """The array after each value."""
    acc: list[int | None] = []
    out = []
    for v in values:
        full = limit is not None and len(acc) >= limit
        if not full and (function == "COLLECT_LIST" or v not in acc):
            acc.append(v)
        out.append(list(acc))
    return out


def _properties(function: str, value: int | str | None, other: int | str | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {} if value is None else {FUNCTIONS[function]: value}
    if other is not None:  # the other function's limit must not apply
        props.update({k: other for f, k in FUNCTIONS.items() if f != function})
    return props


def _stream_case(function: str, label: str) -> dict[str, Any]:
    value, limit = LIMITS[label]
    case: dict[str, Any] = {
        "name": f"{function} with limit {label}",
        "statements": [SOURCE, f"CREATE TABLE OUTPUT AS SELECT ID, {function}(V) AS C FROM INPUT GROUP BY ID;"],
        "inputs": [{"topic": "input_topic", "key": 0, "value": {"V": v}} for v in VALUES],
        "outputs": [{"topic": "OUTPUT", "key": 0, "value": {"C": c}} for c in _collect(function, limit, VALUES)],
    }
    props = _properties(function, value, other=1)
    if props:
        case["properties"] = props
    return case


def _no_default_cap(function: str) -> dict[str, Any]:
    """1001 distinct values in one window, emitted once when it closes: all 1001 are kept."""
    values = list(range(1001))
    return {
        "name": f"{function} keeps more than 1000 values when its limit is unset",
        "properties": {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0},
        "statements": [SOURCE, f"CREATE TABLE OUTPUT AS SELECT ID, {function}(V) AS C FROM INPUT "
                               "WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY ID EMIT FINAL;"],
        "inputs": [{"topic": "input_topic", "key": 0, "value": {"V": v}, "timestamp": 1000} for v in values]
        + [{"topic": "input_topic", "key": 0, "value": {"V": -1}, "timestamp": 10000}],
        "outputs": [{"topic": "OUTPUT", "key": 0, "value": {"C": values}, "timestamp": 1000,
                     "window": {"start": 0, "end": 10000, "type": "time"}}],
    }


def _histogram_limit() -> dict[str, Any]:
    """HISTOGRAM's limit is fixed (HistogramUdaf.LIMIT, 1000, no property): a new value past 1000 distinct ones
    is dropped, a value already counted keeps counting."""
    values = [f"v{i}" for i in range(1001)] + ["v0", "v1000", "v999"]
    counts = {f"v{i}": 1 for i in range(1000)}
    counts["v0"], counts["v999"] = 2, 2
    source = SOURCE.replace("V INT", "V STRING")
    return {
        "name": "HISTOGRAM keeps 1000 distinct values whatever the collect limits say",
        "properties": {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0,
                       "ksql.functions.collect_list.limit": -1, "ksql.functions.collect_set.limit": -1},
        "statements": [source, "CREATE TABLE OUTPUT AS SELECT ID, HISTOGRAM(V) AS C FROM INPUT "
                               "WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY ID EMIT FINAL;"],
        "inputs": [{"topic": "input_topic", "key": 0, "value": {"V": v}, "timestamp": 1000} for v in values]
        + [{"topic": "input_topic", "key": 0, "value": {"V": "x"}, "timestamp": 10000}],
        "outputs": [{"topic": "OUTPUT", "key": 0, "value": {"C": counts}, "timestamp": 1000,
                     "window": {"start": 0, "end": 10000, "type": "time"}}],
    }


def _windowed_case(function: str, label: str) -> dict[str, Any]:
    """Each window keeps its own array, limited separately."""
    value, limit = LIMITS[label]
    first, second = VALUES[:4], VALUES[4:]
    case: dict[str, Any] = {
        "name": f"{function} with limit {label} per tumbling window",
        "statements": [SOURCE, f"CREATE TABLE OUTPUT AS SELECT ID, {function}(V) AS C FROM INPUT "
                               "WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY ID;"],
        "inputs": [{"topic": "input_topic", "key": 0, "value": {"V": v}, "timestamp": 1000} for v in first]
        + [{"topic": "input_topic", "key": 0, "value": {"V": v}, "timestamp": 11000} for v in second],
        "outputs": [{"topic": "OUTPUT", "key": 0, "value": {"C": c}, "timestamp": 1000,
                     "window": {"start": 0, "end": 10000, "type": "time"}} for c in _collect(function, limit, first)]
        + [{"topic": "OUTPUT", "key": 0, "value": {"C": c}, "timestamp": 11000,
            "window": {"start": 10000, "end": 20000, "type": "time"}} for c in _collect(function, limit, second)],
    }
    if value is not None:
        case["properties"] = _properties(function, value)
    return case


def _table_undo_case(label: str) -> dict[str, Any]:
    """COLLECT_LIST over a table: an update undoes the old value (the last equal element), then adds the new one
    if the array has room - a value the limit kept out is never in the array. An update within one group is
    one output (as ksqlDB's visible table aggregations show)."""
    value, limit = LIMITS[label]
    rows = [(1, 10), (2, 20), (3, 30), (1, 40), (3, None)]  # (row id, V); the last is a tombstone
    current: dict[int, int] = {}
    acc: list[int] = []
    outputs = []

    def emit() -> None:
        outputs.append({"topic": "OUTPUT", "key": 0, "value": {"C": list(acc)}})

    for rid, v in rows:
        if rid in current:
            old = current.pop(rid)
            if old in acc:
                del acc[len(acc) - 1 - acc[::-1].index(old)]
            if v is None:
                emit()
                continue
        if v is not None:
            current[rid] = v
            if limit is None or len(acc) < limit:
                acc.append(v)
            emit()
    case: dict[str, Any] = {
        "name": f"COLLECT_LIST over a table with limit {label}: undo and updates",
        "statements": [
            "CREATE TABLE INPUT (RID BIGINT PRIMARY KEY, G BIGINT, V INT) WITH (kafka_topic='input_topic', "
            "value_format='JSON');",
            "CREATE TABLE OUTPUT AS SELECT G, COLLECT_LIST(V) AS C FROM INPUT GROUP BY G;",
        ],
        "inputs": [{"topic": "input_topic", "key": rid, "value": None if v is None else {"G": 0, "V": v}}
                   for rid, v in rows],
        "outputs": [{**o, "key": 0} for o in outputs],
    }
    if value is not None:
        case["properties"] = _properties("COLLECT_LIST", value)
    return case


def cases() -> list[dict[str, Any]]:
    out = [_stream_case(f, label) for f in FUNCTIONS for label in LIMITS]
    out += [_windowed_case(f, label) for f in FUNCTIONS for label in ("unset", "0", "1", "-1")]
    out += [_table_undo_case(label) for label in ("unset", "-1", "0", "1", "text '2'")]
    out += [_no_default_cap(f) for f in FUNCTIONS]
    out.append(_histogram_limit())
    return out


if __name__ == "__main__":
    (HERE / "collect-limits.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")
