"""Generates join-timestamps.json: the output time of each join kind (run: python join_timestamps_gen.py)."""

from __future__ import annotations

import json
import pathlib
from typing import Any


def S(name: str, topic: str, cols: str, kind: str = "STREAM", key: str = "ID INT KEY") -> str:  # noqa: N802
    return f"CREATE {kind} {name} ({key}, {cols}) WITH (kafka_topic='{topic}', value_format='JSON');"


def T(name: str, topic: str, cols: str) -> str:  # noqa: N802
    return S(name, topic, cols, "TABLE", "ID INT PRIMARY KEY")


def rec(topic: str, key: Any, value: Any, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": value, "timestamp": ts}


tests = []
# stream-table: the stream record's time, however old or new the table row
for kind in ("JOIN", "LEFT JOIN"):
    tests.append({
        "name": f"stream-table {kind}: the result has the stream record's time, whatever the table row's",
        "statements": [S("S", "s", "V INT"), T("T", "t", "W INT"),
                       f"CREATE STREAM OUT AS SELECT S.ID, V, W FROM S {kind} T ON S.ID = T.ID;"],
        "inputs": [rec("t", 1, {"W": 1}, 500), rec("s", 1, {"V": 10}, 600), rec("t", 1, {"W": 2}, 900),
                   rec("s", 1, {"V": 11}, 1000), rec("s", 2, {"V": 12}, 1100)],
        "outputs": [rec("OUT", 1, {"V": 10, "W": 1}, 600), rec("OUT", 1, {"V": 11, "W": 2}, 1000)]
                   + ([rec("OUT", 2, {"V": 12, "W": None}, 1100)] if kind == "LEFT JOIN" else []),
    })
# table-table of each kind: the later of the two rows' times; a row without a partner keeps its own
TT = {
    "JOIN": [(1, {"V": 10, "W": 20}, 300), (1, {"V": 11, "W": 20}, 300), (1, {"V": 11, "W": 21}, 400), (1, None, 500)],
    "LEFT JOIN": [(1, {"V": 10, "W": None}, 100), (1, {"V": 10, "W": 20}, 300), (1, {"V": 11, "W": 20}, 300),
                  (1, {"V": 11, "W": 21}, 400), (1, None, 500)],
    "RIGHT JOIN": [(1, {"V": 10, "W": 20}, 300), (1, {"V": 11, "W": 20}, 300), (1, {"V": 11, "W": 21}, 400),
                   (1, {"V": None, "W": 21}, 500)],
    "FULL OUTER JOIN": [(1, {"V": 10, "W": None}, 100), (1, {"V": 10, "W": 20}, 300), (1, {"V": 11, "W": 20}, 300),
                        (1, {"V": 11, "W": 21}, 400), (1, {"V": None, "W": 21}, 500)],
}
for kind, outs in TT.items():
    key = "T.ID" if kind in ("JOIN", "LEFT JOIN") else "U.ID" if kind == "RIGHT JOIN" else "ROWKEY"
    sel = f"{key}, V, W" if key != "ROWKEY" else "ROWKEY, V, W"
    tests.append({
        "name": f"table-table {kind}: the later of the two rows' times, a row alone keeps its own",
        "statements": [T("T", "t", "V INT"), T("U", "u", "W INT"),
                       f"CREATE TABLE OUT AS SELECT {sel} FROM T {kind} U ON T.ID = U.ID;"],
        "inputs": [rec("t", 1, {"V": 10}, 100), rec("u", 1, {"W": 20}, 300), rec("t", 1, {"V": 11}, 200),
                   rec("u", 1, {"W": 21}, 400), rec("t", 1, None, 500)],
        "outputs": [rec("OUT", k, v, ts) for k, v, ts in outs],
    })
# foreign-key joins: a left change takes the later of its time and the right row's; a right change its own
for kind in ("JOIN", "LEFT JOIN"):
    outs = ([] if kind == "JOIN" else [rec("OUT", 1, {"V": 10, "W": None}, 100)]) + [
        rec("OUT", 1, {"V": 10, "W": 20}, 300), rec("OUT", 1, {"V": 11, "W": 20}, 300),
        rec("OUT", 1, {"V": 11, "W": 21}, 250), rec("OUT", 1, {"V": 12, "W": 21}, 600)]
    tests.append({
        "name": f"foreign-key {kind}: a left change has the later of its and the right row's time, a right change its own",
        "statements": [T("T", "t", "FK INT, V INT"), T("U", "u", "W INT"),
                       f"CREATE TABLE OUT AS SELECT T.ID, V, W FROM T {kind} U ON T.FK = U.ID;"],
        "inputs": [rec("t", 1, {"FK": 7, "V": 10}, 100), rec("u", 7, {"W": 20}, 300),
                   rec("t", 1, {"FK": 7, "V": 11}, 200), rec("u", 7, {"W": 21}, 250),
                   rec("t", 1, {"FK": 7, "V": 12}, 600)],
        "outputs": outs,
    })
    tests.append({
        "name": f"foreign-key {kind}: a right change older than the left row keeps its own time",
        "statements": [T("T", "t", "FK INT, V INT"), T("U", "u", "W INT"),
                       f"CREATE TABLE OUT AS SELECT T.ID, V, W FROM T {kind} U ON T.FK = U.ID;"],
        "inputs": [rec("u", 7, {"W": 20}, 300), rec("t", 1, {"FK": 7, "V": 10}, 400),
                   rec("u", 7, {"W": 21}, 350)],
        "outputs": [rec("OUT", 1, {"V": 10, "W": 20}, 400), rec("OUT", 1, {"V": 10, "W": 21}, 350)],
    })
# n-way: a stream-stream step's max time goes on to the stream-table step, which keeps it
tests.append({
    "name": "stream-stream then stream-table: the later stream record's time, through the table step",
    "statements": [S("A", "a", "V INT"), S("B", "b", "W INT"), T("T", "t", "X INT"),
                   "CREATE STREAM OUT AS SELECT A.ID, V, W, X FROM A JOIN B WITHIN 1 MINUTE ON A.ID = B.ID "
                   "JOIN T ON A.ID = T.ID;"],
    "inputs": [rec("t", 1, {"X": 30}, 900), rec("b", 1, {"W": 20}, 1000), rec("a", 1, {"V": 10}, 1500),
               rec("b", 1, {"W": 21}, 1200)],
    "outputs": [rec("OUT", 1, {"V": 10, "W": 20, "X": 30}, 1500), rec("OUT", 1, {"V": 10, "W": 21, "X": 30}, 1500)],
})
tests.append({
    "name": "table-table-table: the latest of the three rows' times",
    "statements": [T("T", "t", "V INT"), T("U", "u", "W INT"), T("X", "x", "Z INT"),
                   "CREATE TABLE OUT AS SELECT T.ID, V, W, Z FROM T JOIN U ON T.ID = U.ID JOIN X ON T.ID = X.ID;"],
    "inputs": [rec("x", 1, {"Z": 30}, 700), rec("t", 1, {"V": 10}, 100), rec("u", 1, {"W": 20}, 300),
               rec("t", 1, {"V": 11}, 800)],
    "outputs": [rec("OUT", 1, {"V": 10, "W": 20, "Z": 30}, 700), rec("OUT", 1, {"V": 11, "W": 20, "Z": 30}, 800)],
})
doc = {"comments": ["The time of a join's results, per kind: stream-stream the later of the two records (stream-stream.json), stream-table the stream record's, table-table the later of the two rows' (a row without a partner: its own), foreign-key the later of a left change's and the right row's, a right change its own (Kafka Streams' subscription store does not raise it). Generated by join_timestamps_gen.py."],
       "tests": tests}
if __name__ == "__main__":
    pathlib.Path(__file__).with_name("join-timestamps.json").write_text(json.dumps(doc, indent=2) + "\n")
