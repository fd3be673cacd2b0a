"""Generates ``windowed-key-bounds.json``: which windows a windowed source can read from its keys (our own cases,
ksqlDB's test format).

Run ``python tests/cases/aggregations/gen_windowed_key_bounds.py`` to rewrite the file next to it.

Kafka Streams builds every window it reads from a key with the ``Window`` constructor, after deserializing the
inner key (from memory of ``WindowKeySchema.from`` / ``SessionKeySchema.from``, ``Window`` and ``TimeWindow``):
a negative start is refused (``Window startMs time cannot be negative.``), so is an end before the start (a
session's key holds both: ``Window endMs time cannot be smaller than window startMs time.``) and, for time
windows, an empty window (``Window endMs must be greater than window startMs.`` - the end is start + size,
capped at Long.MAX_VALUE, so a window starting there is empty). A record whose key fails is dropped; the
records around it are read. Each case reads, through a stream declared over the topic, one good record, one
bad one and another good one, for every window type and a few key formats.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
LONG_MAX = 2**63 - 1
SIZE = 10_000
KEY_FORMATS = ("KAFKA", "JSON", "AVRO", "DELIMITED")
# (name, window type, start, end of the bad window)
BAD_WINDOWS = (
    ("a negative start", "TUMBLING", -SIZE, 0),
    ("a negative start", "HOPPING", -5_000, 5_000),
    ("a negative start", "SESSION", -1, 5),
    ("an end before the start", "SESSION", 5_000, 4_999),
    ("a start at Long.MAX_VALUE", "TUMBLING", LONG_MAX, LONG_MAX),
    ("a start at Long.MAX_VALUE", "HOPPING", LONG_MAX, LONG_MAX),
)


def _window(window_type: str, start: int, end: int) -> dict[str, Any]:
    return {"start": start, "end": end, "type": "session" if window_type == "SESSION" else "time"}


def _case(name: str, window_type: str, start: int, end: int, key_format: str) -> dict[str, Any]:
    size = "" if window_type == "SESSION" else f", WINDOW_SIZE='{SIZE // 1000} SECONDS'"
    good = [(0, SIZE if window_type != "SESSION" else 3_000), (20_000, 20_000 + (SIZE if window_type != "SESSION"
                                                                                   else 0))]
    inputs = [
        {"topic": "w", "key": "a", "value": {"N": 1}, "timestamp": 1_000, "window": _window(window_type, *good[0])},
        {"topic": "w", "key": "b", "value": {"N": 2}, "timestamp": 2_000, "window": _window(window_type, start, end)},
        {"topic": "w", "key": "c", "value": {"N": 3}, "timestamp": 21_000, "window": _window(window_type, *good[1])},
    ]
    outputs = [
        {"topic": "COPY", "key": rec["key"], "value": {"WS": rec["window"]["start"], "WE": rec["window"]["end"],
                                                      "N": rec["value"]["N"]},
         "timestamp": rec["timestamp"], "window": rec["window"]}
        for rec in (inputs[0], inputs[2])
    ]
    return {
        "name": f"{window_type} source keyed in {key_format}: a key with {name} is dropped",
        "statements": [
            f"CREATE STREAM W (K STRING KEY, N INT) WITH (kafka_topic='w', key_format='{key_format}', "
            f"value_format='JSON', WINDOW_TYPE='{window_type}'{size});",
            "CREATE STREAM COPY AS SELECT K, WINDOWSTART AS WS, WINDOWEND AS WE, N FROM W;",
        ],
        "topics": [{"name": "w", "partitions": 1}],
        "inputs": inputs,
        "outputs": outputs,
    }


def cases() -> list[dict[str, Any]]:
    return [_case(name, window_type, start, end, key_format)
            for name, window_type, start, end in BAD_WINDOWS for key_format in KEY_FORMATS]


if __name__ == "__main__":
    (HERE / "windowed-key-bounds.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")
