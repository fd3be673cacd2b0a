"""Generates probes of the aggregates that take any type over ARRAY, MAP and STRUCT values (our own cases).

Run ``python tests/cases/aggregations/gen_composite_aggregates.py`` to rewrite ``composite-aggregates.json``
next to it. COUNT, COUNT_DISTINCT, COLLECT_LIST, COLLECT_SET, ATTR and EARLIEST/LATEST_BY_OFFSET (with n and
ignoreNulls) accept every type; over a composite value they compare as Java's ``equals`` does - by content,
a MAP whatever order its entries came in, a NULL element or field as a value of its own. The model below is
written from those rules, independent of the engine:

* a stream aggregation of each aggregate over each composite type, in JSON and AVRO, with a NULL value and
  two equal values spelled differently (a MAP's entries in another order);
* a table aggregation (undo) for the ones that can take a row back - COUNT, COUNT(*), COLLECT_LIST (removes
  the last equal value, List.lastIndexOf) and ATTR - with an update that removes an equal value written
  earlier by another row, a move to another group and tombstones;
* session windows merging two sessions through a bridging record: each aggregate merges by content
  (COLLECT_SET and COUNT_DISTINCT drop the equal value of the other session, ATTR agrees across them),
  the by-offset ones by arrival.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FORMATS = ["JSON", "AVRO"]

# (SQL type, the type as the sink's schema prints it, values in arrival order: index 3 equals index 0)
TYPES: list[tuple[str, str, list[Any]]] = [
    ("ARRAY<STRING>", "ARRAY<STRING>", [["a", "b"], None, ["a", None], ["a", "b"], []]),
    ("MAP<STRING, INT>", "MAP<STRING, INTEGER>", [{"x": 1, "y": 2}, None, {"x": 1}, {"y": 2, "x": 1}, {"x": None}]),
    ("STRUCT<A INT, B STRING>", "STRUCT<A INTEGER, B STRING>",
     [{"A": 1, "B": "p"}, None, {"A": None, "B": "p"}, {"A": 1, "B": "p"}, {"A": 2, "B": None}]),
]


def key(v: Any) -> Any:
    """Java equality of a composite value: lists by position, maps and structs by their entries."""
    if isinstance(v, list):
        return ("L", tuple(key(x) for x in v))
    if isinstance(v, dict):
        return ("M", tuple(sorted((k, key(x)) for k, x in v.items())))
    return v


@dataclass
class Model:
    init: Callable[[], Any]
    add: Callable[[Any, Any], Any]
    result: Callable[[Any], Any]
    undo: Callable[[Any, Any], Any] | None = None


def _without_last(a: tuple[Any, ...], v: Any) -> tuple[Any, ...]:
    items = list(a)
    for i in range(len(items) - 1, -1, -1):
        if key(items[i]) == key(v):
            del items[i]
            break
    return tuple(items)


def _count() -> Model:
    return Model(lambda: 0, lambda a, v: a + (v is not None), lambda a: a, lambda a, v: a - (v is not None))


def _count_rows() -> Model:
    return Model(lambda: 0, lambda a, v: a + 1, lambda a: a, lambda a, v: a - 1)


def _count_distinct() -> Model:
    return Model(lambda: (), lambda a, v: a if v is None or key(v) in {key(x) for x in a} else (*a, v), len)


def _collect_list() -> Model:
    return Model(lambda: (), lambda a, v: (*a, v), list, _without_last)


def _collect_set() -> Model:
    return Model(lambda: (), lambda a, v: a if key(v) in {key(x) for x in a} else (*a, v), list)


def _attr() -> Model:
    def result(a: tuple[Any, ...]) -> Any:
        return a[0] if len({key(v) for v in a}) == 1 else None
    return Model(lambda: (), lambda a, v: (*a, v), result, _without_last)


def _by_offset(earliest: bool, n: int | None, ignore_nulls: bool) -> Model:
    def add(a: tuple[Any, ...], v: Any) -> tuple[Any, ...]:
        if v is None and ignore_nulls:
            return a
        if n is None:
            return a if earliest and a else (v,)
        return (a if len(a) >= n else (*a, v)) if earliest else (*a, v)[-n:]

    def result(a: tuple[Any, ...]) -> Any:
        return (a[0] if a else None) if n is None else list(a)
    return Model(lambda: (), add, result)


# (SQL, label, model, whether the result is an ARRAY of the type (else the type itself / BIGINT))
STREAM_AGGS: list[tuple[str, str, Callable[[], Model], str]] = [
    ("COUNT(V)", "COUNT", _count, "BIGINT"),
    ("COUNT_DISTINCT(V)", "COUNT_DISTINCT", _count_distinct, "BIGINT"),
    ("COLLECT_LIST(V)", "COLLECT_LIST", _collect_list, "ARRAY"),
    ("COLLECT_SET(V)", "COLLECT_SET", _collect_set, "ARRAY"),
    ("ATTR(V)", "ATTR", _attr, "SAME"),
    ("EARLIEST_BY_OFFSET(V)", "EARLIEST_BY_OFFSET", lambda: _by_offset(True, None, True), "SAME"),
    ("LATEST_BY_OFFSET(V)", "LATEST_BY_OFFSET", lambda: _by_offset(False, None, True), "SAME"),
    ("LATEST_BY_OFFSET(V, false)", "LATEST_BY_OFFSET keeping NULLs", lambda: _by_offset(False, None, False),
     "SAME"),
    ("EARLIEST_BY_OFFSET(V, 2)", "EARLIEST_BY_OFFSET, 2 of them", lambda: _by_offset(True, 2, True), "ARRAY"),
    ("LATEST_BY_OFFSET(V, 2, false)", "LATEST_BY_OFFSET, 2 of them keeping NULLs",
     lambda: _by_offset(False, 2, False), "ARRAY"),
]
TABLE_AGGS = [("COUNT(V)", "COUNT", _count, "BIGINT"), ("COUNT(*)", "COUNT(*)", _count_rows, "BIGINT"),
              ("COLLECT_LIST(V)", "COLLECT_LIST", _collect_list, "ARRAY"), ("ATTR(V)", "ATTR", _attr, "SAME")]
SESSION_AGGS = [a for a in STREAM_AGGS if a[1] in (
    "COUNT_DISTINCT", "COLLECT_LIST", "COLLECT_SET", "ATTR", "EARLIEST_BY_OFFSET", "LATEST_BY_OFFSET")]


def out_type(kind: str, schema: str) -> str:
    return {"BIGINT": "BIGINT", "ARRAY": f"ARRAY<{schema}>", "SAME": schema}[kind]


def stream_cases() -> list[dict[str, Any]]:
    cases = []
    for sql_type, schema, values in TYPES:
        for sql, label, model, kind in STREAM_AGGS:
            for fmt in FORMATS:
                m = model()
                state = m.init()
                inputs, outputs = [], []
                for i, v in enumerate(values):
                    state = m.add(state, v)
                    inputs.append({"topic": "input", "key": 1, "value": {"V": v}, "timestamp": i})
                    outputs.append({"topic": "OUTPUT", "key": 1, "value": {"R": m.result(state)}, "timestamp": i})
                cases.append({
                    "name": f"{label} of {sql_type} into {fmt}",
                    "statements": [
                        f"CREATE STREAM INPUT (ID INT KEY, V {sql_type}) WITH (kafka_topic='input', "
                        f"value_format='{fmt}');",
                        f"CREATE TABLE OUTPUT AS SELECT ID, {sql} AS R FROM INPUT GROUP BY ID;",
                    ],
                    "inputs": inputs, "outputs": outputs,
                    "post": {"sources": [{"name": "OUTPUT", "type": "table",
                                          "schema": f"ID INTEGER KEY, R {out_type(kind, schema)}"}]},
                })
    return cases


# a source table's rows (key, (group, index of the value) or None): r3's value equals r1's (written
# differently for a MAP); r1's update takes back the last equal value in the list - r3's place, not r1's
_TABLE_EVENTS: list[tuple[str, tuple[str, int] | None]] = [
    ("r1", ("a", 0)), ("r2", ("a", 2)), ("r3", ("a", 3)), ("r1", ("a", 4)), ("r2", ("b", 2)), ("r4", ("a", 1)),
    ("r3", None), ("r2", None), ("r9", None)]


def table_cases() -> list[dict[str, Any]]:
    cases = []
    for sql_type, schema, values in TYPES:
        for sql, label, model, kind in TABLE_AGGS:
            for fmt in FORMATS:
                m = model()
                assert m.undo is not None
                rows: dict[str, tuple[str, int]] = {}
                state: dict[str, Any] = {}
                inputs, outputs = [], []
                for ts, (k, new) in enumerate(_TABLE_EVENTS):
                    inputs.append({"topic": "input", "key": k, "timestamp": ts,
                                   "value": None if new is None else {"G": new[0], "V": values[new[1]]}})
                    old = rows.pop(k, None)
                    if new is not None:
                        rows[k] = new
                    if old is not None:
                        state[old[0]] = m.undo(state[old[0]], values[old[1]])
                        if new is None or new[0] != old[0]:
                            outputs.append({"topic": "OUTPUT", "key": old[0], "timestamp": ts,
                                            "value": {"R": m.result(state[old[0]])}})
                    if new is not None:
                        state[new[0]] = m.add(state.get(new[0], m.init()), values[new[1]])
                        outputs.append({"topic": "OUTPUT", "key": new[0], "timestamp": ts,
                                        "value": {"R": m.result(state[new[0]])}})
                cases.append({
                    "name": f"table aggregation undo: {label} of {sql_type} into {fmt}",
                    "statements": [
                        f"CREATE TABLE INPUT (ID STRING PRIMARY KEY, G STRING, V {sql_type}) WITH "
                        f"(kafka_topic='input', value_format='{fmt}');",
                        f"CREATE TABLE OUTPUT AS SELECT G, {sql} AS R FROM INPUT GROUP BY G;",
                    ],
                    "inputs": inputs, "outputs": outputs,
                    "topics": [{"name": "input", "partitions": 1}],
                    "post": {"sources": [{"name": "OUTPUT", "type": "table",
                                          "schema": f"G STRING KEY, R {out_type(kind, schema)}"}]},
                })
    return cases


# (index of the value, timestamp), gap 5 ms: a session at 10, one at 0, a record at 5 bridging them; the first
# and the last values are equal (index 0 and 3)
_SESSION_EVENTS = [(0, 10), (2, 0), (3, 5)]


def session_cases() -> list[dict[str, Any]]:
    cases = []
    for sql_type, schema, values in TYPES:
        for sql, label, model, kind in SESSION_AGGS:
            sessions: list[tuple[int, int, list[tuple[int, Any]]]] = []  # (start, end, (arrival, value))
            outputs: list[dict[str, Any]] = []
            for seq, (i, ts) in enumerate(_SESSION_EVENTS):
                near = sorted((s for s in sessions if s[1] >= ts - 5 and s[0] <= ts + 5), key=lambda s: s[1])
                # Kafka Streams merges the sessions found in end order, then adds the record
                entries = [e for s in near for e in s[2]] + [(seq, values[i])]
                start, end = min([ts] + [s[0] for s in near]), max([ts] + [s[1] for s in near])
                for s in near:
                    sessions.remove(s)
                    outputs.append({"topic": "OUTPUT", "key": 1, "value": None, "timestamp": s[1],
                                    "window": {"start": s[0], "end": s[1], "type": "session"}})
                sessions.append((start, end, entries))
                m = model()
                state = m.init()
                # the by-offset aggregates keep each value's arrival and merge by it
                for _, v in (sorted(entries) if "BY_OFFSET" in sql else entries):
                    state = m.add(state, v)
                outputs.append({"topic": "OUTPUT", "key": 1, "value": {"R": m.result(state)}, "timestamp": end,
                                "window": {"start": start, "end": end, "type": "session"}})
            cases.append({
                "name": f"{label} of {sql_type} merged by a session window",
                "statements": [
                    f"CREATE STREAM INPUT (ID INT KEY, V {sql_type}) WITH (kafka_topic='input', value_format='JSON');",
                    f"CREATE TABLE OUTPUT AS SELECT ID, {sql} AS R FROM INPUT WINDOW SESSION (5 MILLISECONDS) "
                    "GROUP BY ID;",
                ],
                "inputs": [{"topic": "input", "key": 1, "value": {"V": values[i]}, "timestamp": ts}
                           for i, ts in _SESSION_EVENTS],
                "outputs": outputs,
                "topics": [{"name": "input", "partitions": 1}],
                "post": {"sources": [{"name": "OUTPUT", "type": "table",
                                      "keyFormat": {"format": "KAFKA", "windowType": "SESSION"},
                                      "schema": f"ID INTEGER KEY, R {out_type(kind, schema)}"}]},
            })
    return cases


def write() -> None:
    tests = stream_cases() + table_cases() + session_cases()
    doc = {"comments": [__doc__.split("\n\n")[0].replace("\n", " ")], "tests": tests}
    (HERE / "composite-aggregates.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    write()
