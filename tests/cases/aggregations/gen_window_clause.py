"""Generates the WINDOW clause's construction rules over their whole scope (our own cases, ksqlDB's test format).

Run ``python tests/cases/aggregations/gen_window_clause.py`` to rewrite ``window-clause-scope.json`` next to it.

ksqlDB builds the window as written with Kafka Streams' constructors, then materialises it in a window store:
- TUMBLING/HOPPING: ``TimeWindows.of(size)`` refuses size <= 0, ``advanceBy`` a hop outside (0, size],
  ``grace`` a negative grace; SESSION: ``SessionWindows.with(gap)`` refuses gap <= 0, then the same grace check;
- the store refuses a RETENTION below size (gap) + grace, where grace is the one written, else 0 under
  EMIT FINAL, else max(24 h - size, 0);
- an accepted window places a record at t in every window [s, s + size) with s a multiple of the hop (the size
  when tumbling), s >= 0 and t - size < s <= t, oldest first; a session of one record is [t, t].
EMIT FINAL writes a window once stream time reaches its end plus grace, if the store still finds it: its start
must be at least the newest window start written minus the retention (Kafka Streams' window store; see
``ksqlpy/runtime/store_retention.py``), so of a record's hopping windows only the newer ones go out when one
later record closes them all. A record of another key moves stream time (one partition: stream time is per
task); a session closes once stream time is past its end plus gap plus grace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DAY = 86_400_000
UNITS = {"MILLISECOND": 1, "MILLISECONDS": 1, "SECOND": 1000, "SECONDS": 1000, "MINUTE": 60_000,
         "MINUTES": 60_000, "HOUR": 3_600_000, "HOURS": 3_600_000, "DAY": DAY, "DAYS": DAY}
T = 100_000          # the record's time


def _ms(d: tuple[int, str] | None) -> int | None:
    return None if d is None else d[0] * UNITS[d[1]]


def _text(d: tuple[int, str]) -> str:
    return f"{d[0]} {d[1]}"


def _error(kind: str, size: int, advance: int | None, grace: int | None, retention: int | None,
           final: bool) -> str | None:
    if kind == "SESSION":
        if size <= 0:
            return "Gap time cannot be zero or negative."
    else:
        if size <= 0:
            return "Window size (sizeMs) must be larger than zero."
        if advance is not None and not 0 < advance <= size:
            return ("Window advancement interval should be more than zero and less than window duration which is "
                    f"{size} ms, but given advancement interval is: {advance} ms")
    if grace is not None and grace < 0:
        return "Grace period must not be negative."
    effective = grace if grace is not None else 0 if final else max(DAY - size, 0)
    if retention is not None and retention < size + effective:
        if kind == "SESSION":
            return ("The retention period of the session store Aggregate-Aggregate-Materialize must be no smaller "
                    "than the session inactivity gap plus the grace period. "
                    f"Got gap=[{size}], grace=[{effective}], retention=[{retention}]")
        return ("The retention period of the window store Aggregate-Aggregate-Materialize must be no smaller than "
                f"its window size plus the grace period. Got size=[{size}], grace=[{effective}], "
                f"retention=[{retention}]")
    return None


def _windows(kind: str, size: int, advance: int | None) -> list[dict[str, Any]]:
    if kind == "SESSION":
        return [{"start": T, "end": T, "type": "session"}]
    hop = advance if advance is not None else size
    first = max(0, T - size + hop)
    first -= first % hop
    return [{"start": s, "end": s + size, "type": "time"} for s in range(first, T + 1, hop)]


def _clause(kind: str, size: tuple[int, str], advance: tuple[int, str] | None,
            retention: tuple[int, str] | None, grace: tuple[int, str] | None) -> str:
    parts = [_text(size)] if kind == "SESSION" else [f"SIZE {_text(size)}"]
    if advance is not None:
        parts.append(f"ADVANCE BY {_text(advance)}")
    if retention is not None:
        parts.append(f"RETENTION {_text(retention)}")
    if grace is not None:
        parts.append(f"GRACE PERIOD {_text(grace)}")
    return f"{kind} ({', '.join(parts)})"


def _case(kind: str, size: tuple[int, str], advance: tuple[int, str] | None = None,
          retention: tuple[int, str] | None = None, grace: tuple[int, str] | None = None,
          final: bool = False) -> dict[str, Any]:
    clause = _clause(kind, size, advance, retention, grace)
    emit = " EMIT FINAL" if final else ""
    case: dict[str, Any] = {
        "name": f"{clause}{emit}",
        "statements": [
            "CREATE STREAM CLICKS (USER STRING KEY, N INT) WITH (kafka_topic='clicks', value_format='JSON');",
            f"CREATE TABLE PER_USER AS SELECT USER, COUNT(*) AS HITS FROM CLICKS WINDOW {clause} "
            f"GROUP BY USER{emit};",
        ],
    }
    error = _error(kind, _ms(size) or 0, _ms(advance), _ms(grace), _ms(retention), final)
    if error is not None:
        case["expectedException"] = {"type": "io.confluent.ksql.util.KsqlStatementException", "message": error}
        return case
    windows = _windows(kind, _ms(size) or 0, _ms(advance))
    inputs = [{"topic": "clicks", "key": "a", "value": {"N": 1}, "timestamp": T}]
    if final:
        size_ms, grace_ms = _ms(size) or 0, _ms(grace) or 0
        if kind == "SESSION":
            closes = T + size_ms + grace_ms + 1
        else:
            # the newest window closes; a store finds the windows from the newest start written - retention
            closes = windows[-1]["end"] + grace_ms
            hop = _ms(advance) or size_ms
            retention = _ms(retention) if retention is not None else size_ms + grace_ms
            windows = [w for w in windows if w["start"] >= closes - closes % hop - retention]
        inputs.append({"topic": "clicks", "key": "b", "value": {"N": 1}, "timestamp": closes})
        case["properties"] = {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0}
    case["inputs"] = inputs
    case["outputs"] = [{"topic": "PER_USER", "key": "a", "value": {"HITS": 1}, "timestamp": T, "window": w}
                       for w in windows]
    case["topics"] = [{"name": "clicks", "partitions": 1}]
    return case


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for final in (False, True):
        # sizes and gaps: none, negative, singular and plural units
        for size in ((0, "SECONDS"), (-1, "MILLISECONDS"), (1, "SECOND"), (250, "MILLISECONDS"), (2, "MINUTES"),
                     (1, "DAY")):
            out.append(_case("TUMBLING", size, final=final))
            out.append(_case("SESSION", size, final=final))
            out.append(_case("HOPPING", size, advance=(6, "HOURS") if size[1] == "DAY" else (100, "MILLISECONDS"),
                             final=final))
        # the hop: none, negative, above the size, equal to it, not dividing it
        for advance in ((0, "SECONDS"), (-5, "SECONDS"), (11, "SECONDS"), (10, "SECONDS"), (3, "SECONDS"),
                        (1, "MINUTE")):
            out.append(_case("HOPPING", (10, "SECONDS"), advance=advance, final=final))
        # grace: negative, none at all, in another unit
        for kind in ("TUMBLING", "HOPPING", "SESSION"):
            adv = (5, "SECONDS") if kind == "HOPPING" else None
            for grace in ((-1, "MILLISECOND"), (0, "SECONDS"), (2, "HOURS")):
                out.append(_case(kind, (10, "SECONDS"), advance=adv, grace=grace, final=final))
            # retention: below size + grace written, at it, above it; below the default grace
            for retention, grace in (((10, "SECONDS"), (1, "MILLISECOND")), ((10_001, "MILLISECONDS"),
                                                                              (1, "MILLISECOND")),
                                     ((1, "HOUR"), (1, "MINUTE")), ((10, "SECONDS"), None), ((1, "DAY"), None),
                                     ((2, "MINUTES"), None)):
                out.append(_case(kind, (10, "SECONDS"), advance=adv, retention=retention, grace=grace,
                                 final=final))
        # a negative size is refused before a bad hop or a negative grace; a bad hop before a negative grace
        out.append(_case("HOPPING", (-1, "SECONDS"), advance=(2, "SECONDS"), grace=(-1, "SECONDS"), final=final))
        out.append(_case("HOPPING", (1, "SECONDS"), advance=(2, "SECONDS"), grace=(-1, "SECONDS"), final=final))
        out.append(_case("SESSION", (-1, "SECONDS"), grace=(-1, "SECONDS"), final=final))
        # a negative grace is refused before a short retention
        out.append(_case("TUMBLING", (1, "SECONDS"), retention=(1, "MILLISECOND"), grace=(-1, "SECONDS"),
                         final=final))
    return out


if __name__ == "__main__":
    (HERE / "window-clause-scope.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")
