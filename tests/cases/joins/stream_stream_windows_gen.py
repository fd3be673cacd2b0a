"""Stream-stream joins over their scope: every join kind x WITHIN symmetric / (before, after) either way x
GRACE PERIOD given / absent x records in and out of order; GRACE PERIOD 0 over records at the window edges;
WITHIN 1 SECOND GRACE PERIOD 2 SECONDS over records older than a window store's newest time minus its retention
(each store keeps ``before + after + grace`` behind the newest time put into it, and a fetch sees only that).

The expected rows come from a record-at-a-time model of what ksqlDB runs (``StreamStreamJoinBuilder``):
INNER ``left.join(right)``, LEFT ``left.leftJoin(right)``, FULL ``left.outerJoin(right)`` and RIGHT
``right.leftJoin(left)`` - the right stream is Kafka Streams' *this* side, with the JoinWindows built from
``WITHIN (before, after)`` unchanged, so a right record at R meets left records in [R - before, R + after].
The model follows Kafka Streams' KStreamKStreamJoin (3.x): a shared stream time; without GRACE PERIOD
(``JoinWindows.of``) an unmatched outer record is emitted at once; with it (``ofTimeDifferenceAndGrace``,
the spurious-results fix) it waits in the outer store until stream time passes its window + grace, the
waiting records checked in (timestamp, side, key) order when a record at stream time arrives; a record
whose window already ended on arrival goes out at once. Output time: max of the two for a match, the
record's own for a null-padded row.

With a GRACE PERIOD the look at the outer store is throttled on wall-clock time (Kafka Streams'
``__emit.interval.ms.kstreams.outer.join.spurious.results.fix__``, default 1000 ms, the schedule in the
join's TimeTracker): ksqlDB's harness never moves its clock, so there only the first look that passes the
minimum-time check happens. Each outer case with a GRACE PERIOD runs twice: with the interval 0 (every look
runs, as ksqlDB's own EMIT FINAL tests set theirs) and with 60000 ms (one look within the case's run, what
ksqlDB's tests see with the default).

Stream time is a task's: the model is one task, so the sources have one partition (spread over four, a
key's padded row waits for records of its own partition - a case for the model of another file).

Writes tests/cases/joins/stream-stream-windows.json: ``python tests/cases/joins/stream_stream_windows_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

DAY_MS = 24 * 3600 * 1000
THROTTLE = "ksql.streams.__emit.interval.ms.kstreams.outer.join.spurious.results.fix__"
# the interval of each variant: 0 looks after every record at stream time; 60000 looks once in a case's run
INTERVALS = {"every look": 0, "one look": 60000}
KINDS = {"INNER": "JOIN", "LEFT": "LEFT JOIN", "RIGHT": "RIGHT JOIN", "FULL": "FULL OUTER JOIN"}
KEY_SELECT = {"INNER": "L.K AS K", "LEFT": "L.K AS K", "RIGHT": "R.K AS K", "FULL": "ROWKEY AS K"}
WINDOWS = {"WITHIN 1 SECOND": (1000, 1000), "WITHIN (1 SECOND, 4 SECONDS)": (1000, 4000),
           "WITHIN (4 SECONDS, 1 SECOND)": (4000, 1000)}
GRACES = {"": None, " GRACE PERIOD 2 SECONDS": 2000}

# (side, key, value, timestamp): each sequence ends with records far ahead that close every window; no
# record is older than its own or the other store's latest time minus the smallest retention (4 s)
SEQUENCES = {
    "in order": [
        ("L", 1, "l1", 10000), ("R", 1, "r1", 10500), ("R", 1, "r2", 12500), ("L", 2, "l2", 13000),
        ("R", 1, "r3", 13500), ("L", 1, "l3", 14000), ("R", 3, "r4", 16000), ("L", 3, "l4", 18500),
        ("L", 9, "end", 40000), ("R", 9, "end", 40001)],
    "out of order": [
        ("L", 1, "l1", 10000), ("R", 2, "r1", 12500), ("R", 1, "r2", 9200), ("L", 2, "l2", 11800),
        ("R", 1, "r3", 12000), ("L", 1, "l3", 9500), ("R", 3, "r4", 13000), ("L", 3, "l4", 12200),
        ("R", 2, "r5", 11000), ("L", 9, "end", 40000), ("R", 9, "end", 40001)],
    # Kafka Streams keeps the outer store's minimum time when a match empties the store, so the next check's
    # shortcut (this side's window + grace) looks at the store sooner than the newest waiting record's time
    "after an emptied outer store": [
        ("L", 1, "l1", 1000), ("R", 1, "r0", 1500), ("R", 7, "r1", 10000), ("L", 2, "l2", 9800), ("R", 8, "r2", 14000),
        ("L", 5, "l5", 13900), ("R", 5, "r5", 14200),
        ("L", 9, "end", 40000), ("R", 9, "end", 40001)],
    # records exactly at the window bounds (inclusive) and at the end of the wait for an outer record (it
    # waits while stream time <= its time + window + grace): no record is behind stream time by more than the
    # smallest store retention (before + after + grace = 2 s), so they hold for GRACE PERIOD 0 too
    "at the window edges": [
        ("L", 1, "l1", 10000), ("R", 1, "r1", 11000), ("R", 2, "r2", 12000), ("L", 2, "l2", 11000),
        ("L", 3, "l3", 13000), ("R", 3, "r3", 14001), ("L", 5, "l5", 16000), ("R", 6, "r6", 17000),
        ("R", 5, "r5", 17000), ("L", 7, "l7", 19000), ("R", 7, "r7", 18000), ("R", 8, "r8", 21000),
        ("L", 8, "l8", 20000), ("L", 9, "end", 40000), ("R", 9, "end", 40001)],
}
# records behind the other store's (or their own store's) newest time by more than the retention (WITHIN 1 SECOND
# GRACE PERIOD 2 SECONDS: 4 s): not kept, and they do not see the other store's records that old; they still
# probe the visible ones, and an unmatched outer one goes out at once (its window ended)
LATE = {
    "beyond the retention": [
        ("L", 1, "l1", 10000), ("R", 2, "r1", 20000), ("L", 1, "l2", 15000), ("R", 1, "r2", 10500),
        ("R", 1, "r3", 14500), ("L", 1, "l3", 14800), ("L", 2, "l4", 19500), ("R", 1, "r4", 15200),
        ("L", 9, "end", 40000), ("R", 9, "end", 40001)],
}
# sequences run with GRACE PERIOD 0 too: their records stay within every store's retention
ZERO_GRACE = ("at the window edges",)


class Side:
    """One processor of Kafka Streams' join: ``this`` is its own records' side (left = Kafka's left side)."""

    def __init__(self, left: bool, before: int, after: int, outer: bool) -> None:
        self.left = left
        self.before, self.after = (before, after) if left else (after, before)
        self.outer = outer


def run(kind: str, before: int, after: int, grace: int | None,
        seq: list[tuple[str, int, str, int]], one_look: bool = False) -> list[tuple[int, str | None, str | None, int]]:
    """The rows (key, A, B, ts) ksqlDB emits, record at a time. ``one_look``: the throttle lets only the
    first look at the outer store run."""
    fix = grace is not None
    g = grace if fix else max(DAY_MS - 2 * before, 0)
    # Kafka's left side ("this"): the left stream, but the right one for RIGHT (right.leftJoin(left))
    this_is_left = kind != "RIGHT"
    outer_this = kind in ("LEFT", "RIGHT", "FULL")
    outer_other = kind == "FULL"
    sides = {True: Side(True, before, after, outer_this), False: Side(False, before, after, outer_other)}
    stores: dict[bool, list[tuple[int, int, str]]] = {True: [], False: []}  # Kafka side -> (key, ts, value)
    outer: list[tuple[int, bool, int, str]] = []  # (ts, kafka-left side, key, value), insertion order
    stream_time, min_time = -1, 1 << 62
    looked = False
    retention = before + after + g
    observed = {True: -(1 << 62), False: -(1 << 62)}
    out: list[tuple[int, str | None, str | None, int]] = []

    def row(kafka_left: bool, key: int, mine: str | None, theirs: str | None, ts: int) -> None:
        # Kafka's left value is the left stream's, except under RIGHT where it is the right stream's
        own_is_left_stream = kafka_left == this_is_left
        a, b = (mine, theirs) if own_is_left_stream else (theirs, mine)
        out.append((key, a, b, ts))

    def emit_non_joined(side: Side) -> None:
        nonlocal min_time, looked
        if min_time + side.after + g >= stream_time or (one_look and looked):
            return
        looked = True
        left_open = right_open = False
        emitted: list[tuple[int, bool, int]] = []
        for ts, is_left, key, value in sorted(outer, key=lambda e: (e[0], e[1], e[2])):
            if left_open and right_open:
                break
            min_time = ts
            lookback = after if is_left else before
            if ts + lookback + g >= stream_time:
                if is_left:
                    left_open = True
                else:
                    right_open = True
                continue
            row(is_left, key, value, None, ts)
            emitted.append((ts, is_left, key))
        outer[:] = [e for e in outer if (e[0], e[1], e[2]) not in emitted]

    for stream, key, value, ts in seq:
        kafka_left = (stream == "L") == this_is_left
        side = sides[kafka_left]
        stream_time = max(stream_time, ts)
        # a window store keeps ``before + after + grace`` behind the newest time put into it: a record at or below
        # that is not kept, and a fetch sees only the records above it (the store's own newest time)
        observed[kafka_left] = max(observed[kafka_left], ts)
        if ts > observed[kafka_left] - retention:
            stores[kafka_left].append((key, ts, value))
        if fix and (outer_this or outer_other) and ts == stream_time:
            emit_non_joined(side)
        matched = False
        lo, hi = max(0, ts - side.before), max(0, ts + side.after)
        floor = observed[not kafka_left] - retention
        for okey, ots, ovalue in sorted(stores[not kafka_left], key=lambda r: r[1]):
            if okey == key and lo <= ots <= hi and ots > floor:
                matched = True
                if fix:
                    outer[:] = [e for e in outer if (e[0], e[1], e[2]) != (ots, not kafka_left, key)]
                row(kafka_left, key, value, ovalue, max(ts, ots))
        if matched or not side.outer:
            continue
        if not fix or hi < stream_time:
            row(kafka_left, key, value, None, ts)
        else:
            outer.append((ts, kafka_left, key, value))
            min_time = min(min_time, ts)
    return out


def rec(topic: str, key: Any, value: Any, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": value, "timestamp": ts}


def case(kind: str, within: str, grace_text: str, seq_name: str, rows: list[tuple],
         seq: list[tuple[str, int, str, int]]) -> dict[str, Any]:
    return {
        "name": f"{kind} {within}{grace_text or ' (no grace)'}, records {seq_name}",
        "statements": [
            "CREATE STREAM L (K INT KEY, A STRING) WITH (kafka_topic='l', value_format='JSON', partitions=1);",
            "CREATE STREAM R (K INT KEY, B STRING) WITH (kafka_topic='r', value_format='JSON', partitions=1);",
            f"CREATE STREAM OUT WITH (PARTITIONS=1) AS SELECT {KEY_SELECT[kind]}, A, B FROM L {KINDS[kind]} R "
            f"{within}{grace_text} ON L.K = R.K;"],
        "inputs": [rec("l" if s == "L" else "r", k, {"A" if s == "L" else "B": v}, ts) for s, k, v, ts in seq],
        "outputs": [rec("OUT", k, {"A": a, "B": b}, ts) for k, a, b, ts in rows],
    }


def cases() -> list[dict[str, Any]]:
    tests = []
    for kind in KINDS:
        for within, (before, after) in WINDOWS.items():
            graces = [*GRACES.items(), (" GRACE PERIOD 0 SECONDS", 0)]
            for grace_text, grace in graces:
                sequences = {**SEQUENCES, **LATE} if (within, grace) == ("WITHIN 1 SECOND", 2000) else SEQUENCES
                for seq_name, seq in sequences.items():
                    if grace == 0 and seq_name not in ZERO_GRACE:
                        continue
                    if grace is None or kind == "INNER":  # no outer store: nothing to throttle
                        tests.append(case(kind, within, grace_text, seq_name, run(kind, before, after, grace, seq),
                                          seq))
                        continue
                    for look, interval in INTERVALS.items():
                        rows = run(kind, before, after, grace, seq, one_look=look == "one look")
                        c = case(kind, within, grace_text, f"{seq_name}, {look} at the outer store", rows, seq)
                        c["properties"] = {THROTTLE: interval}
                        tests.append(c)
    return tests


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("stream-stream-windows.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
