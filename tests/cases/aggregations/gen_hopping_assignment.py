"""Generates hopping-window cases whose size is not a multiple of the advance (our own cases, ksqlDB's format).

Run ``python tests/cases/aggregations/gen_hopping_assignment.py`` to rewrite ``hopping-assignment.json``.

The rules (Kafka Streams' ``TimeWindows.windowsFor`` and ``KStreamWindowAggregate``, which ksqlDB's HOPPING
windows are): a record belongs to every window starting at a multiple of the advance with
``start <= ts < start + size`` and ``start >= 0``; stream time is the largest timestamp seen (dropped records
included); a window takes the record iff ``end > streamTime - grace``, else the record is dropped for that
window alone; a window's result carries the largest timestamp it took. EMIT CHANGES writes each window's new
value, windows in ascending start; EMIT FINAL writes a window once when ``end <= streamTime - grace``, in
start order, if the window store still returns it: its segmented store reads from the newest window start
written minus the retention (size + grace) + 1 (``getActualFrom``), one lower for this look (the rule
``store_retention`` models from ksqlDB's visible EMIT FINAL results) - a window that closes in a jump of stream
time past its retention is never written. Scope: (size, advance) pairs with and without a common multiple x grace 0 / 2 s x both emits,
over out-of-order and late records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
WINDOWS = [(10_000, 3_000), (10_000, 4_000), (7_000, 2_000), (5_000, 5_000), (1_000, 300)]
GRACES = [0, 2_000]
EMITS = ["CHANGES", "FINAL"]
# (timestamp, value): in order, out of order within grace, late beyond it, then far ahead to close windows
RECORDS = [(1_000, 1), (9_500, 2), (12_000, 3), (8_000, 4), (3_000, 5), (30_000, 6)]


def _windows_for(ts: int, size: int, advance: int) -> list[int]:
    start = (max(0, ts - size + advance) // advance) * advance
    out = []
    while start <= ts:
        out.append(start)
        start += advance
    return out


def _model(size: int, advance: int, grace: int, emit: str) -> list[dict[str, Any]]:
    aggs: dict[int, tuple[int, int, int]] = {}  # start -> (count, sum, timestamp)
    emitted: set[int] = set()
    stream_time = -1
    outputs = []

    def out(start: int) -> dict[str, Any]:
        count, total, ts = aggs[start]
        return {"topic": "OUTPUT", "key": 1, "value": {"C": count, "S": total}, "timestamp": ts,
                "window": {"start": start, "end": start + size, "type": "time"}}

    for ts, v in RECORDS:
        stream_time = max(stream_time, ts)
        close = stream_time - grace
        for start in _windows_for(ts, size, advance):
            if start + size <= close:
                continue  # late for this window
            count, total, at = aggs.get(start, (0, 0, ts))
            aggs[start] = (count + 1, total + v, max(at, ts))
            if emit == "CHANGES":
                outputs.append(out(start))
        if emit == "FINAL":
            floor = stream_time // advance * advance - (size + grace)
            for start in sorted(aggs):
                if start not in emitted and floor <= start and start + size <= close:
                    emitted.add(start)
                    outputs.append(out(start))
    return outputs


def _case(size: int, advance: int, grace: int, emit: str) -> dict[str, Any]:
    case: dict[str, Any] = {
        "name": f"HOPPING size {size} ms advance {advance} ms, grace {grace} ms, EMIT {emit}",
        "statements": [
            "CREATE STREAM INPUT (ID INT KEY, V INT) WITH (kafka_topic='input_topic', value_format='JSON', "
            "partitions=1);",
            f"CREATE TABLE OUTPUT AS SELECT ID, COUNT(*) AS C, SUM(V) AS S FROM INPUT WINDOW HOPPING (SIZE {size} "
            f"MILLISECONDS, ADVANCE BY {advance} MILLISECONDS, GRACE PERIOD {grace} MILLISECONDS) GROUP BY ID "
            f"EMIT {emit};",
        ],
        "inputs": [{"topic": "input_topic", "key": 1, "value": {"V": v}, "timestamp": ts} for ts, v in RECORDS],
        "outputs": _model(size, advance, grace, emit),
    }
    if emit == "FINAL":
        case["properties"] = {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0}
    return case


def cases() -> list[dict[str, Any]]:
    return [_case(size, advance, grace, emit) for size, advance in WINDOWS for grace in GRACES for emit in EMITS]


if __name__ == "__main__":
    (HERE / "hopping-assignment.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")
