"""Generates every built-in aggregate in every kind of window, emitting changes and final results (our own
cases, ksqlDB's test format).

Run ``python tests/cases/aggregations/gen_udaf_windows.py`` to rewrite ``udaf-windows.json`` next to it.

Each case aggregates one column with one aggregate in a TUMBLING, HOPPING or SESSION window with a grace
period, selecting the window bounds as values too (``WINDOWSTART``/``WINDOWEND``), over one partition. The
expected records come from the model below, written from Kafka Streams' window processors as ksqlDB runs
them, independent of the engine's code:

* a record at ``t`` belongs to every window ``[s, s + size)`` with ``s`` a multiple of the hop, ``s >= 0`` and
  ``t - size < s <= t``, oldest first; it is aggregated into a window iff the window's end is after stream
  time minus grace, else dropped for that window (late); a window's record carries the largest timestamp of
  the records in it;
* a record opens the session ``[t, t]`` or merges every session of its key within the gap of ``t``; it is
  late iff the merged session ends before stream time - gap - grace; EMIT CHANGES deletes each merged
  session (a tombstone at its end) before it writes the merged one, at the merged end;
* EMIT FINAL writes a window once, when stream time reaches its end plus grace, if the store still returns
  it (its start no older than the newest window start minus the retention, here size + grace); a session
  once stream time is past its end plus gap plus grace; closed windows go out by start, then key; sessions
  by end, then key.

The records arrive in order of their sessions, so each window's and session's values are in arrival order
and the aggregate is a function of that list (``UDAFS``): NULL handling, the k of TOPK/TOPKDISTINCT and
the N and ignoreNulls of the offset aggregates are each aggregate's own, as ksqlDB documents them. A key
holding only NULLs (``c``) moves stream time and shows each aggregate over no values.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
GRACE = 5
SIZE, ADVANCE, GAP = 10, 5, 4
MS = "MILLISECONDS"
WINDOWS = {
    "TUMBLING": f"TUMBLING (SIZE {SIZE} {MS}, GRACE PERIOD {GRACE} {MS})",
    "HOPPING": f"HOPPING (SIZE {SIZE} {MS}, ADVANCE BY {ADVANCE} {MS}, GRACE PERIOD {GRACE} {MS})",
    "SESSION": f"SESSION ({GAP} {MS}, GRACE PERIOD {GRACE} {MS})",
}
# (key, V, S, timestamp) in arrival order: a session of 'a' grows and takes an out-of-order record (2), 'c'
# holds NULLs and moves stream time step by step, 'a' at 3 comes after its windows closed (late)
RECORDS: list[tuple[str, int | None, str | None, int]] = [
    ("a", 3, "x", 1), ("a", None, None, 3), ("b", 7, "y", 6), ("a", 5, "x", 7), ("a", 3, "z", 12),
    ("b", 7, "y", 14), ("a", 9, "x", 2), ("c", None, None, 16), ("c", None, None, 26), ("a", 100, "late", 3),
    ("c", None, None, 40),
]


def _non_null(vs: list[Any]) -> list[Any]:
    return [v for v in vs if v is not None]


def _distinct(vs: list[Any]) -> list[Any]:
    return list(dict.fromkeys(vs))


def _attr(vs: list[Any]) -> Any:
    return vs[0] if vs and all(v == vs[0] for v in vs) else None


def _histogram(vs: list[Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in _non_null(vs):
        out[v] = out.get(v, 0) + 1
    return out


@dataclass(frozen=True)
class Udaf:
    sql: str  # the call, over V (INT) or S (STRING)
    result: Callable[[list[Any]], Any]  # the values of the window in arrival order -> the aggregate
    column: str = "V"


UDAFS = [
    Udaf("COUNT(*)", len),
    Udaf("COUNT(V)", lambda vs: len(_non_null(vs))),
    Udaf("SUM(V)", lambda vs: sum(_non_null(vs))),
    Udaf("AVG(V)", lambda vs: sum(_non_null(vs)) / len(_non_null(vs)) if _non_null(vs) else 0.0),
    Udaf("MIN(V)", lambda vs: min(_non_null(vs), default=None)),
    Udaf("MAX(V)", lambda vs: max(_non_null(vs), default=None)),
    Udaf("COLLECT_LIST(V)", list),
    Udaf("COLLECT_SET(V)", _distinct),
    Udaf("COUNT_DISTINCT(V)", lambda vs: len(set(_non_null(vs)))),
    Udaf("TOPK(V, 2)", lambda vs: sorted(_non_null(vs), reverse=True)[:2]),
    Udaf("TOPKDISTINCT(V, 2)", lambda vs: sorted(set(_non_null(vs)), reverse=True)[:2]),
    # a k above what a session holds when it is merged: the merger keeps every value (fewer than k)
    Udaf("TOPK(V, 3)", lambda vs: sorted(_non_null(vs), reverse=True)[:3]),
    Udaf("TOPKDISTINCT(V, 4)", lambda vs: sorted(set(_non_null(vs)), reverse=True)[:4]),
    Udaf("EARLIEST_BY_OFFSET(V)", lambda vs: (_non_null(vs) or [None])[0]),
    Udaf("EARLIEST_BY_OFFSET(V, false)", lambda vs: vs[0] if vs else None),
    Udaf("EARLIEST_BY_OFFSET(V, 2)", lambda vs: _non_null(vs)[:2]),
    Udaf("LATEST_BY_OFFSET(V)", lambda vs: (_non_null(vs) or [None])[-1]),
    Udaf("LATEST_BY_OFFSET(V, false)", lambda vs: vs[-1] if vs else None),
    Udaf("LATEST_BY_OFFSET(V, 2, false)", lambda vs: vs[-2:]),
    Udaf("EARLIEST_BY_OFFSET(V, 3, false)", lambda vs: vs[:3]),
    Udaf("LATEST_BY_OFFSET(V, 3)", lambda vs: _non_null(vs)[-3:]),
    Udaf("HISTOGRAM(S)", _histogram, column="S"),
    Udaf("ATTR(V)", _attr),
]


@dataclass
class Window:
    """One window or session of a key: its bounds, values in arrival order and record time."""

    key: str
    start: int
    end: int
    values: list[Any]
    ts: int


def _time_windows(t: int, hop: int) -> list[int]:
    first = max(0, t - SIZE + hop) // hop * hop
    return list(range(first, t + 1, hop))


def _out(udaf: Udaf, w: Window | None, kind: str, key: str = "", bounds: tuple[int, int] = (0, 0),
         ts: int = 0) -> dict[str, Any]:
    """An output record: ``w`` None is a deleted session."""
    start, end = (w.start, w.end) if w is not None else bounds
    window = {"start": start, "end": end, "type": "session" if kind == "SESSION" else "time"}
    value = None if w is None else {"WS": w.start, "WE": w.end, "R": udaf.result(w.values)}
    return {"topic": "OUTPUT", "key": w.key if w is not None else key, "value": value,
            "timestamp": w.ts if w is not None else ts, "window": window}


def _time_outputs(udaf: Udaf, kind: str, final: bool) -> list[dict[str, Any]]:
    hop = ADVANCE if kind == "HOPPING" else SIZE
    retention = SIZE + GRACE
    store: dict[tuple[str, int], Window] = {}
    emitted: set[tuple[str, int]] = set()
    out: list[dict[str, Any]] = []
    st = -1
    for key, v, s, t in RECORDS:
        st = max(st, t)
        value = v if udaf.column == "V" else s
        for start in _time_windows(t, hop):
            if start + SIZE <= st - GRACE:
                continue  # late for this window
            w = store.get((key, start))
            if w is None:
                w = store[(key, start)] = Window(key, start, start + SIZE, [], t)
            w.values.append(value)
            w.ts = max(w.ts, t)
            if not final:
                out.append(_out(udaf, w, kind))
        if final:
            floor = st // hop * hop - retention
            closed = sorted((w for k, w in store.items() if k not in emitted and w.end <= st - GRACE
                             and w.start >= floor), key=lambda w: (w.start, w.key))
            for w in closed:
                emitted.add((w.key, w.start))
                out.append(_out(udaf, w, kind))
    return out


def _session_outputs(udaf: Udaf, final: bool) -> list[dict[str, Any]]:
    sessions: list[Window] = []
    emitted: set[tuple[str, int, int]] = set()
    out: list[dict[str, Any]] = []
    st = -1
    for key, v, s, t in RECORDS:
        st = max(st, t)
        value = v if udaf.column == "V" else s
        found = sorted((w for w in sessions if w.key == key and w.start - GAP <= t <= w.end + GAP),
                       key=lambda w: w.end)
        start, end = min([t, *(w.start for w in found)]), max([t, *(w.end for w in found)])
        if end < st - GAP - GRACE:
            continue  # late
        merged = Window(key, start, end, [x for w in found for x in w.values] + [value],
                        max([t, *(w.ts for w in found)]))
        for w in found:
            sessions.remove(w)
            if not final:
                out.append(_out(udaf, None, "SESSION", key, (w.start, w.end), w.end))
        sessions.append(merged)
        if not final:
            out.append(_out(udaf, merged, "SESSION"))
        else:
            closed = sorted((w for w in sessions if (w.key, w.start, w.end) not in emitted
                             and w.end < st - GRACE - GAP), key=lambda w: (w.end, w.key, w.start))
            for w in closed:
                emitted.add((w.key, w.start, w.end))
                out.append(_out(udaf, w, "SESSION"))
    return out


def _case(udaf: Udaf, kind: str, final: bool) -> dict[str, Any]:
    emit = "FINAL" if final else "CHANGES"
    case: dict[str, Any] = {
        "name": f"{udaf.sql} in {kind} windows, EMIT {emit}",
        "statements": [
            "CREATE STREAM INPUT (K STRING KEY, V INT, S STRING) WITH (kafka_topic='input', value_format='JSON');",
            f"CREATE TABLE OUTPUT AS SELECT K, WINDOWSTART AS WS, WINDOWEND AS WE, {udaf.sql} AS R FROM INPUT "
            f"WINDOW {WINDOWS[kind]} GROUP BY K EMIT {emit};",
        ],
        "topics": [{"name": "input", "partitions": 1}],
        "inputs": [{"topic": "input", "key": k, "value": {"V": v, "S": s}, "timestamp": t} for k, v, s, t in RECORDS],
        "outputs": _session_outputs(udaf, final) if kind == "SESSION" else _time_outputs(udaf, kind, final),
    }
    if final:
        case["properties"] = {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0}
    return case


def cases() -> list[dict[str, Any]]:
    return [_case(u, kind, final) for u in UDAFS for kind in WINDOWS for final in (False, True)]


def write() -> None:
    doc = {"comment": "generated by gen_udaf_windows.py", "tests": cases()}
    (HERE / "udaf-windows.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    write()
