"""Generates the WINDOW_TYPE / WINDOW_SIZE rules of CREATE STREAM/TABLE over their scope (our own cases).

Run ``python tests/cases/aggregations/gen_windowed_source_props.py`` to rewrite ``windowed-source-props.json``.

ksqlDB checks these while building the statement (a parse failure, ``Failed to prepare statement``):
- WINDOW_TYPE is one of SESSION, HOPPING, TUMBLING in any case (a ConfigDef validator, ``for property`` wording);
- WINDOW_SIZE is a duration (``DurationParser``): split on each whitespace character into exactly two tokens,
  a Java long, a ``TimeUnit`` name singular or plural in any case - checked before the two properties are
  compared;
- then a TUMBLING/HOPPING type needs a size, and a size needs a TUMBLING/HOPPING type (SESSION wording).
Later, when the source is built (``CreateSourceFactory`` making its ``WindowInfo``), a size that is zero or
negative fails unprefixed with ``Size must be positive``; the duration's sign decides, not its milliseconds
(``10 NANOSECONDS`` is a positive size of 0 ms: accepted, but each key read from such a source is an empty
window, which Kafka's ``TimeWindow`` refuses, so its records are dropped).
An accepted windowed stream reads windowed keys and a query over it keeps the window.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
UNIT_MS = {"NANOSECOND": 0, "MICROSECOND": 0, "MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60_000,
           "HOUR": 3_600_000, "DAY": 86_400_000}
PARSE = "io.confluent.ksql.parser.exception.ParseFailedException"
STATEMENT = "io.confluent.ksql.util.KsqlStatementException"
UNITS = "NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS"


def _size_ms(text: str) -> int | str:
    """Milliseconds, or the duration error (the rule the generated cases describe)."""
    parts = text.split(" ")
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if len(parts) != 2:
        return f"Expected 2 tokens, got: {len(parts)}"
    amount, unit = parts
    digits = amount[1:] if amount[:1] in "+-" else amount
    if not digits.isdigit():
        return f"Not numeric: '{amount}'"
    upper = unit.upper()
    plural = upper if upper.endswith("S") else upper + "S"  # TimeUnit.valueOf of the plural
    if plural[:-1] not in UNIT_MS:
        return f"Unknown time unit: '{upper}'\nSupported time units are: {UNITS}"
    return int(amount) * UNIT_MS[plural[:-1]]


def _java_trim(text: str) -> str:
    """Java's ``String.trim``: every character up to U+0020 off both ends."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def _positive(text: str) -> bool:
    """The sign of a parsed duration: its amount's (every unit is a positive length)."""
    amount = text.split(" ")[0]
    return int(amount) > 0


def _case(kind: str, window_type: str | None, size: str | None) -> dict[str, Any]:
    props = ""
    if window_type is not None:
        props += f", WINDOW_TYPE='{window_type}'"
    if size is not None:
        props += f", WINDOW_SIZE='{size}'"
    key = "PRIMARY KEY" if kind == "TABLE" else "KEY"
    name = f"{kind} with WINDOW_TYPE {window_type!r} and WINDOW_SIZE {size!r}"
    statements = [f"CREATE {kind} CLICKS (USER STRING {key}, N INT) WITH (kafka_topic='clicks', "
                  f"value_format='JSON'{props});"]
    error: str | None = None
    # ConfigDef.parseType trims a STRING property (Java's String.trim) before its validator reads it
    size = _java_trim(size) if size is not None else None
    parsed = _size_ms(size) if size is not None else None
    upper = _java_trim(window_type).upper() if window_type is not None else None
    if upper is not None and upper not in ("SESSION", "HOPPING", "TUMBLING"):
        error = f"Invalid value {_java_trim(window_type)} for property WINDOW_TYPE: String must be one of: SESSION, HOPPING, TUMBLING"
    elif isinstance(parsed, str):
        error = f"Configuration WINDOW_SIZE is invalid: Invalid duration: '{size}'. {parsed}"
    elif upper in ("HOPPING", "TUMBLING") and size is None:
        error = (f"{upper} windows require 'WINDOW_SIZE' to be provided in the WITH clause. "
                 "For example: 'WINDOW_SIZE'='10 SECONDS'")
    elif upper in (None, "SESSION") and size is not None:
        error = "'WINDOW_SIZE' should not be set for SESSION windows."
    elif size is not None and not _positive(size):
        return {"name": name, "statements": statements,
                "expectedException": {"type": STATEMENT, "message": "Size must be positive"}}
    if error is not None:
        return {"name": name, "statements": statements,
                "expectedException": {"type": PARSE, "message": f"Failed to prepare statement: {error}"}}
    key_format: dict[str, Any] = {"format": "KAFKA"}
    if upper is not None:
        key_format["windowType"] = upper
        if upper != "SESSION":
            key_format["windowSize"] = parsed
    case: dict[str, Any] = {"name": name, "statements": statements,
                            "post": {"sources": [{"name": "CLICKS", "type": kind.lower(), "keyFormat": key_format}]}}
    if kind == "STREAM" and (upper == "SESSION" or isinstance(parsed, int) and parsed > 0):
        end = 1000 + (parsed if isinstance(parsed, int) else 500)
        window = {"start": 1000, "end": end, "type": "session" if upper == "SESSION" else "time"}
        statements.append("CREATE STREAM COPY AS SELECT USER, WINDOWSTART AS WS, WINDOWEND AS WE, N FROM CLICKS;")
        case["inputs"] = [{"topic": "clicks", "key": "u", "value": {"N": 1}, "timestamp": 1500, "window": window}]
        case["outputs"] = [{"topic": "COPY", "key": "u", "value": {"WS": 1000, "WE": end, "N": 1},
                            "timestamp": 1500, "window": window}]
    elif kind == "STREAM" and parsed == 0:
        # a positive size under a millisecond: the source and a query over it are accepted, but every key read
        # is an empty window, which Kafka's TimeWindow refuses - the record is dropped
        statements.append("CREATE STREAM COPY AS SELECT USER, WINDOWSTART AS WS, WINDOWEND AS WE, N FROM CLICKS;")
        case["inputs"] = [{"topic": "clicks", "key": "u", "value": {"N": 1}, "timestamp": 1500,
                           "window": {"start": 1000, "end": 1000, "type": "time"}}]
        case["outputs"] = []
        case["post"]["sources"].append({"name": "COPY", "type": "stream", "keyFormat": key_format})
    return case


def cases() -> list[dict[str, Any]]:
    out = []
    for kind in ("STREAM", "TABLE"):
        for window_type in (None, "TUMBLING", "hopping", "Session", "SLIDING", " tumbling\t"):
            for size in (None, "10 SECONDS", "1 minute", "250 MILLISECOND", "+2 HOURS", "10 SECONDS ", "10  SECONDS",
                         "10SECONDS", "ten SECONDS", "1.5 SECONDS", "10 fortnights", "10 S", "",
                         "0 SECONDS", "-5 SECONDS", "-0 MILLISECONDS", "+0 days", "-1 NANOSECOND",
                         "10 NANOSECONDS", "1 microsecond", " 10 SECONDS", "\t-10 SECONDS ", " 10  SECONDS "):
                out.append(_case(kind, window_type, size))
    return out


if __name__ == "__main__":
    (HERE / "windowed-source-props.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")
