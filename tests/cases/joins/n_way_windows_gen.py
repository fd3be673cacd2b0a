"""Three-way stream-stream joins, each step with its own WITHIN and GRACE PERIOD: the first step's kind x
the second's kind x the steps' windows (grace given or not) x records in and out of order.

``A <k1> B WITHIN w1 ON .. <k2> C WITHIN w2 ON ..`` runs as two Kafka Streams joins in one task (every side
keyed by ID, nothing re-keyed): the first join's rows go, as they are emitted, into the second as its left
records, with their own timestamps (max of the two for a match, the record's own for a null-padded one),
and C's records are the second join's right side. Each join keeps its own stream time (Kafka Streams'
``TimeTracker`` is shared by the two processors of one join, not across joins), its own window stores and,
with a GRACE PERIOD on an outer step, its own store of records waiting for their window to close. The
expected rows come from ``stream_stream_windows_gen``'s record-at-a-time model of one join, chained.

The projection selects the key as ksqlDB requires it: the second step's left expression for INNER/LEFT,
``C.ID`` for RIGHT (ksqlDB's ``right.leftJoin(left)``), the synthetic ``ROWKEY`` for FULL.

An outer step's look at its waiting records is throttled on wall-clock time in Kafka Streams, per join (each
join has its own TimeTracker): every case runs with the interval 0 (every look, the names without a suffix)
and, where the results differ, with 60 s (each join's first look only; see ``stream_stream_windows_gen``). One task's stream time:
one-partition sources. Writes tests/cases/joins/n-way-windows.json:
``python tests/cases/joins/n_way_windows_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from stream_stream_windows_gen import DAY_MS, INTERVALS, THROTTLE, rec  # noqa: E402

KINDS = {"INNER": "JOIN", "LEFT": "LEFT JOIN", "RIGHT": "RIGHT JOIN", "FULL": "FULL OUTER JOIN"}
FIRST = ["INNER", "LEFT", "RIGHT"]  # (a FULL first step has a synthetic key: the second could not join on it)
STEPS = {  # (first step's window text, second's): (first WITHIN, grace; second WITHIN, grace)
    ("WITHIN 1 SECOND", "WITHIN 3 SECONDS"): ((1000, 1000), None, (3000, 3000), None),
    ("WITHIN 1 SECOND GRACE PERIOD 0 SECONDS", "WITHIN (2 SECONDS, 1 SECOND) GRACE PERIOD 1 SECOND"):
        ((1000, 1000), 0, (2000, 1000), 1000),
    ("WITHIN (1 SECOND, 3 SECONDS) GRACE PERIOD 2 SECONDS", "WITHIN 1 SECOND"):
        ((1000, 3000), 2000, (1000, 1000), None),
}

SEQUENCES = {
    "in order": [
        ("A", 1, "a1", 10000), ("B", 1, "b1", 10500), ("C", 1, "c1", 11000), ("A", 2, "a2", 12000),
        ("C", 2, "c2", 12500), ("B", 3, "b3", 13000), ("C", 3, "c3", 13200), ("A", 1, "a3", 14000),
        ("B", 1, "b4", 14100), ("C", 4, "c4", 15000),
        ("A", 9, "end", 40000), ("B", 9, "end", 40001), ("C", 9, "end", 40002)],
    "out of order": [
        ("A", 1, "a1", 10000), ("C", 1, "c1", 12000), ("B", 1, "b1", 9800), ("A", 2, "a2", 11500),
        ("B", 2, "b2", 12200), ("C", 2, "c2", 11000), ("B", 3, "b3", 11800), ("A", 3, "a3", 12400),
        ("C", 3, "c3", 10500), ("C", 1, "c5", 10900),
        ("A", 9, "end", 40000), ("B", 9, "end", 40001), ("C", 9, "end", 40002)],
}


class Join:
    """One Kafka Streams stream-stream join as ksqlDB builds it for ``kind`` (RIGHT: ``right.leftJoin(left)``),
    fed a record at a time; ``process`` returns the rows it emits as (key, left value, right value, ts)."""

    def __init__(self, kind: str, before: int, after: int, grace: int | None, one_look: bool = False) -> None:
        self.kind = kind
        self.one_look, self.looked = one_look, False  # the throttle lets only this join's first look run
        self.before, self.after = before, after
        self.fix = grace is not None
        self.g = grace if grace is not None else max(DAY_MS - 2 * before, 0)
        self.this_is_left = kind != "RIGHT"
        self.outer_this = kind in ("LEFT", "RIGHT", "FULL")
        self.outer_other = kind == "FULL"
        self.stores: dict[bool, list[tuple[int, int, Any]]] = {True: [], False: []}
        self.outer: list[tuple[int, bool, int, Any]] = []
        self.stream_time, self.min_time = -1, 1 << 62

    def _row(self, out: list, kafka_left: bool, key: int, mine: Any, theirs: Any, ts: int) -> None:
        a, b = (mine, theirs) if kafka_left == self.this_is_left else (theirs, mine)
        out.append((key, a, b, ts))

    def _windows(self, kafka_left: bool) -> tuple[int, int]:
        # this side's (before, after): Kafka's left side takes the JoinWindows as given, the other mirrored
        return (self.before, self.after) if kafka_left else (self.after, self.before)

    def _emit_non_joined(self, out: list, kafka_left: bool) -> None:
        after = self._windows(kafka_left)[1]
        if self.min_time + after + self.g >= self.stream_time or (self.one_look and self.looked):
            return
        self.looked = True
        left_open = right_open = False
        emitted = []
        for ts, is_left, key, value in sorted(self.outer, key=lambda e: (e[0], e[1], e[2])):
            if left_open and right_open:
                break
            self.min_time = ts
            lookback = self.after if is_left else self.before
            if ts + lookback + self.g >= self.stream_time:
                if is_left:
                    left_open = True
                else:
                    right_open = True
                continue
            self._row(out, is_left, key, value, None, ts)
            emitted.append((ts, is_left, key))
        self.outer[:] = [e for e in self.outer if (e[0], e[1], e[2]) not in emitted]

    def process(self, left_stream: bool, key: int, value: Any, ts: int) -> list[tuple[int, Any, Any, int]]:
        out: list[tuple[int, Any, Any, int]] = []
        kafka_left = left_stream == self.this_is_left
        before, after = self._windows(kafka_left)
        outer_side = self.outer_this if kafka_left else self.outer_other
        self.stream_time = max(self.stream_time, ts)
        self.stores[kafka_left].append((key, ts, value))
        if self.fix and (self.outer_this or self.outer_other) and ts == self.stream_time:
            self._emit_non_joined(out, kafka_left)
        matched = False
        lo, hi = max(0, ts - before), max(0, ts + after)
        for okey, ots, ovalue in sorted(self.stores[not kafka_left], key=lambda r: r[1]):
            if okey == key and lo <= ots <= hi:
                matched = True
                if self.fix:
                    self.outer[:] = [e for e in self.outer if (e[0], e[1], e[2]) != (ots, not kafka_left, key)]
                self._row(out, kafka_left, key, value, ovalue, max(ts, ots))
        if matched or not outer_side:
            return out
        if not self.fix or hi < self.stream_time:
            self._row(out, kafka_left, key, value, None, ts)
        else:
            self.outer.append((ts, kafka_left, key, value))
            self.min_time = min(self.min_time, ts)
        return out


def run(k1: str, k2: str, step: tuple, seq: list[tuple[str, int, str, int]], one_look: bool = False) -> list[tuple]:
    """The rows (key, X, Y, Z, ts) of the three-way join, record at a time. ``one_look``: each join's throttle
    lets only its own first look run."""
    w1, g1, w2, g2 = step
    first, second = Join(k1, *w1, g1, one_look), Join(k2, *w2, g2, one_look)
    out = []
    for stream, key, value, ts in seq:
        if stream == "C":
            rows = second.process(False, key, value, ts)
        else:
            rows = []
            for k, a, b, t in first.process(stream == "A", key, value, ts):
                rows.extend(second.process(True, k, (a, b), t))
        for k, ab, c, t in rows:
            a, b = ab if ab is not None else (None, None)
            out.append((k, a, b, c, t))
    return out


def key_select(k1: str, k2: str) -> str:
    if k2 == "FULL":
        return "ROWKEY AS ID"
    if k2 == "RIGHT":
        return "C.ID AS ID"
    return "B.ID AS ID" if k1 == "RIGHT" else "A.ID AS ID"


def cases() -> list[dict[str, Any]]:
    tests = []
    for k1 in FIRST:
        for k2 in KINDS:
            for (w1, w2), step in STEPS.items():
                left_key = "B.ID" if k1 == "RIGHT" else "A.ID"
                for seq_name, seq in SEQUENCES.items():
                    for look, interval in INTERVALS.items():
                        rows = run(k1, k2, step, seq, one_look=look == "one look")
                        tests.append({
                            "name": f"{k1} then {k2}, {w1} then {w2}, records {seq_name}"
                                    + ("" if look == "every look" else ", one look at each outer store"),
                            "statements": [
                                "CREATE STREAM A (ID INT KEY, X STRING) WITH (kafka_topic='a', value_format='JSON', partitions=1);",
                                "CREATE STREAM B (ID INT KEY, Y STRING) WITH (kafka_topic='b', value_format='JSON', partitions=1);",
                                "CREATE STREAM C (ID INT KEY, Z STRING) WITH (kafka_topic='c', value_format='JSON', partitions=1);",
                                f"CREATE STREAM OUT WITH (PARTITIONS=1) AS SELECT {key_select(k1, k2)}, X, Y, Z FROM A "
                                f"{KINDS[k1]} B {w1} ON A.ID = B.ID {KINDS[k2]} C {w2} ON {left_key} = C.ID;"],
                            "inputs": [rec(s.lower(), k, {{"A": "X", "B": "Y", "C": "Z"}[s]: v}, ts)
                                       for s, k, v, ts in seq],
                            "outputs": [rec("OUT", k, {"X": x, "Y": y, "Z": z}, ts) for k, x, y, z, ts in rows],
                            "properties": {THROTTLE: interval},
                        })
                        if look == "every look" and rows == run(k1, k2, step, seq, one_look=True):
                            break  # the throttle changes nothing here: no case of its own
    return tests


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("n-way-windows.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
