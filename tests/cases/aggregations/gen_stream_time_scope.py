"""Generates ``stream-time-scope.json``: whose stream time a windowed aggregation judges lateness and closes
windows by - TUMBLING, HOPPING and SESSION windows x EMIT CHANGES / EMIT FINAL x a record that never reaches
the window processor (filtered by WHERE, a NULL GROUP BY value, a NULL value, a NULL source key) and, as the
control, one that does (our own cases, ksqlDB's test format).

The rule (from memory of Kafka Streams' ``KStreamWindowAggregate``/``KStreamSessionWindowAggregate``, which
ksqlDB's windowed aggregations run on): each window processor keeps its own ``observedStreamTime``, the largest
timestamp of the records *it* processed, and updates it only after its null-key check. Records that never get
there move nothing: one dropped by the WHERE filter before the grouping, one whose GROUP BY expression is NULL
(ksqlDB's group-by step drops it with a processing-log entry), a tombstone (the group-by step keeps only rows
with a value) and one without a key grouped by that key (the processor's null-key drop). So a later record that
would be late behind such a record is on time, and under EMIT FINAL such a record closes no window. The control
record, a valid row of another key at the same time, moves the stream time: the later record is late (and
under EMIT FINAL the window is written at once, without it).

The inputs: ``a`` at 5, the probe at a later time, ``a`` at 6 (before it in time), and under EMIT FINAL ``b``
at 17 to close the first windows. Every window has GRACE PERIOD 0 and RETENTION 1 HOUR (so no store retention
bound plays a part, only the stream time). The source has one partition, so the cases hold under both
placements. The expected outputs come from the small model below.

Run ``python tests/cases/aggregations/gen_stream_time_scope.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
THROTTLE = {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0}
SIZE, ADVANCE, GAP = 10, 5, 10


@dataclass(frozen=True)
class Probe:
    """A record at the probe's time, how the query is written for it, and whether it reaches the window."""

    name: str
    group_by: str  # the GROUP BY column: K (the source key) or G (a value column)
    where: str
    record: dict[str, Any]  # key/value of the probe record
    reaches: bool


PROBES = [
    Probe("a record the WHERE filters out", "K", " WHERE V > 0", {"key": "a", "value": {"G": "a", "V": 0}}, False),
    Probe("a record whose GROUP BY value is NULL", "G", "", {"key": "a", "value": {"G": None, "V": 1}}, False),
    Probe("a record without a value", "K", "", {"key": "a", "value": None}, False),
    Probe("a record without a key", "K", "", {"key": None, "value": {"G": "c", "V": 1}}, False),
    Probe("a record of another key (control)", "K", "", {"key": "c", "value": {"G": "c", "V": 1}}, True),
]
KINDS = {
    "TUMBLING": f"TUMBLING (SIZE {SIZE} MILLISECONDS, RETENTION 1 HOUR, GRACE PERIOD 0 MILLISECONDS)",
    "HOPPING": f"HOPPING (SIZE {SIZE} MILLISECONDS, ADVANCE BY {ADVANCE} MILLISECONDS, RETENTION 1 HOUR, "
               "GRACE PERIOD 0 MILLISECONDS)",
    "SESSION": f"SESSION ({GAP} MILLISECONDS, RETENTION 1 HOUR, GRACE PERIOD 0 MILLISECONDS)",
}


def _row(key: str, n: int | None, ts: int, start: int, end: int, kind: str) -> dict[str, Any]:
    window = {"start": start, "end": end, "type": "session" if kind == "SESSION" else "time"}
    return {"topic": "OUTPUT", "key": key, "value": None if n is None else {"N": n}, "timestamp": ts,
            "window": window}


def _time_windows(kind: str, records: list[tuple[str, int]], final: bool) -> list[dict[str, Any]]:
    """TUMBLING/HOPPING: a window [s, s + size) takes a record while its end > stream time (grace 0); EMIT
    CHANGES writes each update (timestamp: the newest in the window), EMIT FINAL each window once its end is at
    most the stream time, in (start, key) order."""
    advance = SIZE if kind == "TUMBLING" else ADVANCE
    store: dict[tuple[int, str], tuple[int, int]] = {}
    st, closed_to, out = -1, -1, []
    for key, ts in records:
        st = max(st, ts)
        first = max(0, ts - SIZE + advance) // advance * advance
        for start in range(first, ts + 1, advance):
            if start + SIZE > st:
                n, latest = store.get((start, key), (0, ts))
                store[(start, key)] = (n + 1, max(latest, ts))
                if not final:
                    out.append(_row(key, n + 1, max(latest, ts), start, start + SIZE, kind))
        if final and st > closed_to:
            for start, k in sorted(w for w in store if closed_to < w[0] + SIZE <= st):
                n, latest = store[(start, k)]
                out.append(_row(k, n, latest, start, start + SIZE, kind))
            closed_to = st
    return out


def _sessions(records: list[tuple[str, int]], final: bool) -> list[dict[str, Any]]:
    """SESSION (gap 10, grace 0): a record merges every session of its key within a gap; the merged session is
    late when it ends before stream time - gap. EMIT CHANGES deletes each merged-away session (at its end) and
    writes the merged one; EMIT FINAL writes a session once it ends before stream time - gap."""
    sessions: dict[tuple[str, int, int], int] = {}  # (key, start, end) -> count
    st, last_close, out = -1, None, []
    for key, ts in records:
        st = max(st, ts)
        close = st - GAP
        near = sorted((s for s in sessions if s[0] == key and s[2] >= ts - GAP and s[1] <= ts + GAP),
                      key=lambda s: s[2])
        start = min([ts] + [s[1] for s in near])
        end = max([ts] + [s[2] for s in near])
        if end >= close:
            if (start, end) != (ts, ts):
                for s in near:
                    if not final:
                        out.append(_row(key, None, s[2], s[1], s[2], "SESSION"))
            n = sum(sessions.pop(s) for s in near) + 1
            sessions[(key, start, end)] = n
            if not final:
                out.append(_row(key, n, end, start, end, "SESSION"))
        if final and (last_close is None or close > last_close):
            lo = last_close if last_close is not None else -(2**62)
            for end_, k, start_ in sorted((s[2], s[0], s[1]) for s in sessions if lo <= s[2] < close):
                out.append(_row(k, sessions[(k, start_, end_)], end_, start_, end_, "SESSION"))
            last_close = close
    return out


def _case(kind: str, probe: Probe, final: bool) -> dict[str, Any]:
    probe_ts = 20 if final else 100
    timeline: list[tuple[dict[str, Any], int]] = [({"key": "a", "value": {"G": "a", "V": 1}}, 5),
                                                  (probe.record, probe_ts),
                                                  ({"key": "a", "value": {"G": "a", "V": 1}}, 6)]
    if final:
        timeline.append(({"key": "b", "value": {"G": "b", "V": 1}}, 17))
    reaching = [(r["key"] if probe.group_by == "K" else r["value"]["G"], ts)
                for r, ts in timeline if r is not probe.record or probe.reaches]
    outputs = _sessions(reaching, final) if kind == "SESSION" else _time_windows(kind, reaching, final)
    emit = "EMIT FINAL" if final else "EMIT CHANGES"
    late = "the later record is late" if probe.reaches else "the later record is on time"
    if final:
        late += ", the first windows are written " + ("at once" if probe.reaches else "by the closing record")
    case: dict[str, Any] = {
        "name": f"{kind} {emit}: stream time after {probe.name} - {late}",
        "statements": [
            "CREATE STREAM INPUT (K STRING KEY, G STRING, V INT) WITH (kafka_topic='input', value_format='JSON', "
            "partitions=1);",
            f"CREATE TABLE OUTPUT AS SELECT {probe.group_by}, COUNT(*) AS N FROM INPUT WINDOW {KINDS[kind]}"
            f"{probe.where} GROUP BY {probe.group_by} {emit};",
        ],
        "inputs": [{"topic": "input", **r, "timestamp": ts} for r, ts in timeline],
        "outputs": outputs,
    }
    if final:
        case["properties"] = THROTTLE
    return case


def cases() -> list[dict[str, Any]]:
    return [_case(kind, probe, final) for kind in KINDS for final in (False, True) for probe in PROBES]


def main() -> None:
    (HERE / "stream-time-scope.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
