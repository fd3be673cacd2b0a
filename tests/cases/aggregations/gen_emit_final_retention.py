"""Generates ``emit-final-retention.json``: which closed windows EMIT FINAL writes after a jump in stream time -
TUMBLING, HOPPING and SESSION windows x GRACE PERIOD 0 / 5 seconds x the default retention / RETENTION 1 HOUR x
a closing record at the first close time / one that jumps past the store's retention (our own cases, ksqlDB's
test format).

The rule (Kafka Streams' ``onWindowClose`` emit strategy, which ksqlDB's EMIT FINAL uses - from memory of
``AbstractKStreamTimeWindowAggregateProcessor``/``KStreamWindowAggregate``/``KStreamSessionWindowAggregate``;
ksqlDB's own suppress cases set ``__emit.interval.ms.kstreams.windowed.aggregation__`` to 0, a property only that
strategy reads):

* after a record, once stream time - grace (the close time) has moved, the look fetches the closed windows -
  TUMBLING/HOPPING: window start <= close time - size - from the window store, which returns a window only while
  its start is at least the newest window start minus the retention (retention: RETENTION if given, else
  size + grace). A record that moves stream time past a window's close AND past its retention therefore never
  writes it: that window is lost, not late (ksqlDB's "final results for tumbling windows with large jump" case
  writes nothing for that reason; its hopping case writes [0, 5) and [4, 9) but not [2, 7)). A RETENTION longer
  than the jump keeps the window, and the jump writes it.
* SESSION windows: the look fetches the sessions that ended before the close time (stream time - gap - grace)
  and are not yet written; ksqlDB's session case writes a session whose end is older than the newest end minus
  the retention, so no retention bound applies to them.

So "GRACE PERIOD 0 and a record two windows later writes nothing" is the rule for TUMBLING/HOPPING, not a loss of
ours. The cases check it with a record after the jump that closes the closing records' own windows: what is
written then is only those windows, i.e. the first ones were never written. The inputs are modelled below (one
stream time; both keys close at the same time, so the cases hold with a stream time per partition too).

Run ``python tests/cases/aggregations/gen_emit_final_retention.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SEC = 1000
THROTTLE = {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0}
KEYS = ("a", "b")  # KAFKA STRING keys: 'a' sorts before 'b' in (window, key bytes) order


@dataclass(frozen=True)
class Window:
    kind: str  # TUMBLING | HOPPING | SESSION
    size: int  # size, or the session's inactivity gap
    advance: int

    def clause(self, grace: int, retention: int | None) -> str:
        ret = f"RETENTION {retention // SEC} SECONDS, " if retention is not None else ""
        g = f"GRACE PERIOD {grace // SEC} SECONDS"
        if self.kind == "TUMBLING":
            return f"TUMBLING (SIZE {self.size // SEC} SECONDS, {ret}{g})"
        if self.kind == "HOPPING":
            return f"HOPPING (SIZE {self.size // SEC} SECONDS, ADVANCE BY {self.advance // SEC} SECONDS, {ret}{g})"
        return f"SESSION ({self.size // SEC} SECONDS, {ret}{g})"


WINDOWS = [Window("TUMBLING", 10 * SEC, 10 * SEC), Window("HOPPING", 10 * SEC, 5 * SEC),
           Window("SESSION", 10 * SEC, 0)]
GRACES = [0, 5 * SEC]
RETENTIONS: list[int | None] = [None, 3600 * SEC]


def _time_windows(w: Window, records: list[tuple[str, int]], grace: int, retention: int) -> list[dict[str, Any]]:
    """TUMBLING/HOPPING under EMIT FINAL: lateness per window, the look after each record (see the docstring)."""
    store: dict[tuple[int, str], tuple[int, int]] = {}  # (start, key) -> (count, latest ts)
    st, last_close, out = -1, None, []
    for key, ts in records:
        st = max(st, ts)
        close = st - grace
        first = max(0, ts - w.size + w.advance) // w.advance * w.advance
        for start in range(first, ts + 1, w.advance):
            if start + w.size > close:  # else late for this window
                n, latest = store.get((start, key), (0, ts))
                store[(start, key)] = (n + 1, max(latest, ts))
        if last_close is not None and last_close >= close:
            continue
        upper = close - w.size
        if upper < 0:
            continue
        floor = st // w.advance * w.advance - retention  # the store returns starts from here on
        lo = floor if last_close is None else max(floor, last_close - w.size + 1)
        for start, k in sorted(s for s in store if lo <= s[0] <= upper):
            n, latest = store[(start, k)]
            out.append(_row(k, n, latest, {"start": start, "end": start + w.size, "type": "time"}))
        last_close = close
    return out


def _sessions(w: Window, records: list[tuple[str, int]], grace: int) -> list[dict[str, Any]]:
    """SESSION under EMIT FINAL; the scenarios' records never fall within a gap of each other (no merging)."""
    sessions: list[tuple[int, str, int]] = []  # (end, key, start); each session holds one record
    st, last_close, out = -1, -(2**62), []
    for key, ts in records:
        st = max(st, ts)
        close = st - w.size - grace
        assert all(k != key or abs(end - ts) > w.size for end, k, _ in sessions), "no merging in the scenarios"
        if ts >= close:
            sessions.append((ts, key, ts))
        if close > last_close:
            for end, k, start in sorted(s for s in sessions if last_close <= s[0] < close):
                out.append(_row(k, 1, end, {"start": start, "end": end, "type": "session"}))
            last_close = close
    return out


def _row(key: str, n: int, ts: int, window: dict[str, Any]) -> dict[str, Any]:
    return {"topic": "OUTPUT", "key": key, "value": {"N": n}, "timestamp": ts, "window": window}


def _closing_times(w: Window, grace: int, jump: bool) -> list[int]:
    """When the closing records arrive: the first close time of the windows at 1-2 s, or past their retention
    (two TUMBLING windows later; a time-window jump adds records closing the closing records' own first window,
    the output that shows the first windows were never written)."""
    if w.kind == "SESSION":  # a jump: four retentions (gap + grace) past the first sessions' ends
        return [2 * SEC + (4 if jump else 1) * (w.size + grace) + 1]
    if not jump:
        return [w.size + grace]
    t = 2 * w.size + grace
    own = max(0, t - w.size + w.advance) // w.advance * w.advance + w.size  # end of its first window
    return [t, own + grace]


def _case(w: Window, grace: int, retention: int | None, jump: bool) -> dict[str, Any]:
    records = [("a", 1 * SEC), ("b", 2 * SEC)]
    for t in _closing_times(w, grace, jump):
        records += [(k, t) for k in KEYS]
    if w.kind == "SESSION":
        outputs = _sessions(w, records, grace)
    else:
        outputs = _time_windows(w, records, grace, retention if retention is not None else w.size + grace)
    when = "past the store's retention" if jump else "at the first close time"
    ret = f"RETENTION {retention // SEC} s" if retention is not None else "default retention"
    written = {o["window"]["start"] for o in outputs}
    fate = ("the first windows are written" if 0 in written or 1000 in written
            else "the first windows are never written")
    return {
        "name": f"EMIT FINAL {w.kind} grace {grace // SEC} s, {ret}: closing records {when} - {fate}",
        "properties": THROTTLE,
        "statements": [
            "CREATE STREAM INPUT (ID STRING KEY, V INT) WITH (kafka_topic='input', value_format='JSON');",
            f"CREATE TABLE OUTPUT AS SELECT ID, COUNT(*) AS N FROM INPUT WINDOW {w.clause(grace, retention)} "
            "GROUP BY ID EMIT FINAL;",
        ],
        "inputs": [{"topic": "input", "key": k, "value": {"V": 1}, "timestamp": ts} for k, ts in records],
        "outputs": outputs,
    }


def cases() -> list[dict[str, Any]]:
    return [_case(w, g, r, j) for w in WINDOWS for g in GRACES for r in RETENTIONS for j in (False, True)]


def main() -> None:
    (HERE / "emit-final-retention.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
