"""Generates INSERT INTO ... SELECT between streams of every windowing (our own cases, ksqlDB's test format).

Run ``python tests/cases/aggregations/gen_insert_windowing.py`` to rewrite ``insert-windowing.json`` next to it.

An INSERT INTO writes into the sink's existing topic, whose keys are windowed (type and size) or not; the query's
keys keep the windowing of its source. ksqlDB refuses a query that would change it - ``SchemaKStream.into``
while the physical plan is built, so after the schema check (message from memory) - and copies windowed keys
unchanged when both agree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
WINDOWINGS: dict[str, tuple[str, int | None] | None] = {
    "not windowed": None,
    "TUMBLING 10 s": ("TUMBLING", 10_000),
    "TUMBLING 20 s": ("TUMBLING", 20_000),
    "HOPPING 10 s": ("HOPPING", 10_000),
    "SESSION": ("SESSION", None),
}


def _with(windowing: tuple[str, int | None] | None) -> str:
    if windowing is None:
        return ""
    kind, size = windowing
    return f", WINDOW_TYPE='{kind}'" + ("" if size is None else f", WINDOW_SIZE='{size // 1000} SECONDS'")


def _case(source_name: str, sink_name: str) -> dict[str, Any]:
    source, sink = WINDOWINGS[source_name], WINDOWINGS[sink_name]
    case: dict[str, Any] = {
        "name": f"INSERT INTO a stream {sink_name} from a stream {source_name}",
        "statements": [
            f"CREATE STREAM SOURCE_EVENTS (K STRING KEY, V INT) WITH (kafka_topic='source_events', "
            f"value_format='JSON'{_with(source)});",
            f"CREATE STREAM SINK_EVENTS (K STRING KEY, V INT) WITH (kafka_topic='sink_events', "
            f"value_format='JSON'{_with(sink)});",
            "INSERT INTO SINK_EVENTS SELECT K, V FROM SOURCE_EVENTS WHERE V > 0;",
        ],
    }
    if source != sink:
        case["expectedException"] = {"type": "io.confluent.ksql.util.KsqlStatementException",
                                     "message": "Into can't change windowing"}
        return case
    record: dict[str, Any] = {"key": "a", "value": {"V": 1}, "timestamp": 5000}
    if source is not None:
        kind, size = source
        record["window"] = ({"start": 1000, "end": 4000, "type": "session"} if kind == "SESSION"
                            else {"start": 0, "end": size, "type": "time"})
    case["inputs"] = [{"topic": "source_events", **record},
                      {"topic": "source_events", **record, "value": {"V": 0}}]
    case["outputs"] = [{"topic": "sink_events", **record}]
    return case


def cases() -> list[dict[str, Any]]:
    return [_case(a, b) for a in WINDOWINGS for b in WINDOWINGS]


if __name__ == "__main__":
    (HERE / "insert-windowing.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")
