"""Generates read-backs of windowed aggregation sinks in every key format (our own cases, ksqlDB's test format).

Run ``python tests/cases/aggregations/gen_windowed_readback.py`` to rewrite ``windowed-sink-readback.json``.

A windowed CTAS writes its key as the grouping key serialised in its KEY_FORMAT plus the window (Kafka's
TimeWindowedSerde: start only, the end is start + WINDOW_SIZE; SessionWindowedSerde: end and start). A stream
declared over that topic with the same WINDOW_TYPE (and WINDOW_SIZE for time windows) reads the same windows
back; WINDOWSTART/WINDOWEND are then ordinary key columns a non-aggregating query may select and filter, and
its sink keeps the window. Single-column keys are unwrapped except in the Protobuf formats, whose key is a
message of one field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
KEY_FORMATS = ("KAFKA", "JSON", "AVRO", "PROTOBUF", "JSON_SR", "DELIMITED", "PROTOBUF_NOSR")
WRAPPED = {"PROTOBUF", "PROTOBUF_NOSR"}
SIZE, ADVANCE, GAP = 10_000, 5_000, 10_000
TIMES = (12_000, 13_000, 30_000)  # the third record opens new windows (and a new session)


def _windows(kind: str, ts: int) -> list[tuple[int, int]]:
    if kind == "SESSION":
        return [(ts, ts)]
    hop = ADVANCE if kind == "HOPPING" else SIZE
    first = max(0, ts - SIZE + hop) // hop * hop
    return [(s, s + SIZE) for s in range(first, ts + 1, hop)]


def _updates(kind: str) -> list[tuple[int, int, int, int]]:
    """(start, end, count, timestamp) of each update the aggregation writes, in order (no merge deletes:
    the records of one session are under a gap apart and only extend it)."""
    out: list[tuple[int, int, int, int]] = []
    counts: dict[tuple[int, int], int] = {}
    session: tuple[int, int] | None = None
    for ts in TIMES:
        if kind == "SESSION":
            if session is not None and ts - session[1] <= GAP:
                old = session
                session = (session[0], ts)
                counts[session] = counts.pop(old) + 1
                out.append((*session, counts[session], ts))
                continue
            session = (ts, ts)
            counts[session] = 1
            out.append((ts, ts, 1, ts))
            continue
        for w in _windows(kind, ts):
            counts[w] = counts.get(w, 0) + 1
            out.append((*w, counts[w], ts))
    return out


def _case(fmt: str, kind: str) -> dict[str, Any]:
    clause = {"TUMBLING": f"TUMBLING (SIZE {SIZE // 1000} SECONDS)",
              "HOPPING": f"HOPPING (SIZE {SIZE // 1000} SECONDS, ADVANCE BY {ADVANCE // 1000} SECONDS)",
              "SESSION": f"SESSION ({GAP // 1000} SECONDS)"}[kind]
    size = "" if kind == "SESSION" else f", WINDOW_SIZE='{SIZE // 1000} SECONDS'"
    key: Any = {"K": "a"} if fmt in WRAPPED else "a"
    window_type = "session" if kind == "SESSION" else "time"
    outputs = []
    for start, end, count, ts in _updates(kind):
        if count < 2:  # the downstream filter
            continue
        outputs.append({"topic": "READBACK", "key": key, "value": {"WS": start, "WE": end, "C": count},
                        "timestamp": ts, "window": {"start": start, "end": end, "type": window_type}})
    return {
        "name": f"{kind} sink in {fmt} read back by a stream",
        "statements": [
            "CREATE STREAM CLICKS (K STRING KEY, V INT) WITH (kafka_topic='clicks', value_format='JSON');",
            f"CREATE TABLE COUNTS WITH (KEY_FORMAT='{fmt}') AS SELECT K, COUNT(*) AS C FROM CLICKS WINDOW "
            f"{clause} GROUP BY K;",
            f"CREATE STREAM COUNT_UPDATES (K STRING KEY, C BIGINT) WITH (kafka_topic='COUNTS', key_format='{fmt}', "
            f"value_format='JSON', WINDOW_TYPE='{kind}'{size});",
            "CREATE STREAM READBACK AS SELECT K, WINDOWSTART AS WS, WINDOWEND AS WE, C FROM COUNT_UPDATES "
            "WHERE C > 1;",
        ],
        "inputs": [{"topic": "clicks", "key": "a", "value": {"V": 1}, "timestamp": ts} for ts in TIMES],
        "outputs": outputs,
        "post": {"sources": [{"name": "READBACK", "type": "stream",
                              "keyFormat": {"format": fmt, "windowType": kind,
                                            **({} if kind == "SESSION" else {"windowSize": SIZE})}}]},
    }


def cases() -> list[dict[str, Any]]:
    return [_case(fmt, kind) for fmt in KEY_FORMATS for kind in ("TUMBLING", "HOPPING", "SESSION")]


if __name__ == "__main__":
    (HERE / "windowed-sink-readback.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")
