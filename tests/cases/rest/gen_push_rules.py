"""Generates ``push-query-rules.json``: the rules of push queries on ``/query`` over their scope (ksqlDB's, written
in our words):

- where a push query starts reading: ``auto.offset.reset`` of the request, in both spellings
  (``auto.offset.reset`` and ``ksql.streams.auto.offset.reset``), over a stream and a table - ``latest`` sees
  only records produced after it started, ``earliest`` also those before;
- the header of a push query over a windowed source (a windowed stream declared with WINDOW_TYPE, a windowed
  aggregation's table) lists ``WINDOWSTART``/``WINDOWEND`` after the key columns, as value columns;
- a push query that aggregates shows each change of a group: over a table a row moving between groups
  leaves the old one first (its count may fall to 0; the group stays), a deleted row leaves its group;
- a row of a table that goes away - a delete in the topic, an update no longer passing the query's WHERE, or
  the same through a CREATE TABLE AS SELECT - is a tombstone row: the key's columns filled, the others NULL.

Run ``python tests/cases/rest/gen_push_rules.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATUS = {"admin": {"@type": "currentStatus"}}
TOPIC = [{"name": "input", "partitions": 1}]


def _record(key: Any, value: Any, ts: int, window: dict[str, Any] | None = None) -> dict[str, Any]:
    r = {"topic": "input", "key": key, "value": value, "timestamp": ts}
    if window is not None:
        r["window"] = window
    return r


def _query(schema: str, rows: list[dict[str, Any]], final: str = "Limit Reached") -> dict[str, Any]:
    return {"query": [{"header": {"schema": schema}}, *rows, {"finalMessage": final}]}


def _row(*columns: Any, tombstone: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {"columns": list(columns)}
    if tombstone:
        body["tombstone"] = True
    return {"row": body}


def offset_cases() -> list[dict[str, Any]]:
    """The records are produced after the query streams (waitForActivePushQuery), except the first one, which
    the harness writes before the statements: only ``earliest`` reads it."""
    out: list[dict[str, Any]] = []
    sources = {
        "stream": "CREATE STREAM X (K STRING KEY, V INT) WITH (kafka_topic='input', value_format='JSON');",
        "table": "CREATE TABLE X (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='input', value_format='JSON');",
    }
    for what, create in sources.items():
        for name in ("auto.offset.reset", "ksql.streams.auto.offset.reset"):
            for reset, rows in (("latest", [_row("b", 2)]), ("earliest", [_row("a", 1), _row("b", 2)])):
                out.append({
                    "name": f"a push query over a {what} with {name}={reset} in the request",
                    "statements": [create, f"SELECT * FROM X EMIT CHANGES LIMIT {len(rows)};"],
                    "properties": {name: reset},
                    "topics": TOPIC,
                    "inputConditions": {"waitForActivePushQuery": True},
                    "inputs": [_record("b", {"V": 2}, 2000)],
                    "responses": [STATUS, _query("`K` STRING, `V` INTEGER", rows)],
                })
    # the record before the statements: a statement producing it (INSERT VALUES), as the harness cannot
    for case in out:
        case["statements"].insert(1, "INSERT INTO X (K, V) VALUES ('a', 1);")
    return out


def windowed_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for wtype, props, window in (
            ("TUMBLING", "WINDOW_TYPE='TUMBLING', WINDOW_SIZE='10 SECONDS'", {"start": 0, "end": 10000, "type": "time"}),
            ("HOPPING", "WINDOW_TYPE='HOPPING', WINDOW_SIZE='10 SECONDS'", {"start": 0, "end": 10000, "type": "time"}),
            ("SESSION", "WINDOW_TYPE='SESSION'", {"start": 0, "end": 1000, "type": "session"})):
        out.append({
            "name": f"a push query over a {wtype} windowed stream shows the window bounds after the key",
            "statements": [f"CREATE STREAM X (K STRING KEY, V INT) WITH (kafka_topic='input', value_format='JSON', "
                           f"{props});", "SELECT * FROM X EMIT CHANGES LIMIT 1;"],
            "topics": TOPIC,
            "inputs": [_record("a", {"V": 1}, 1000, window)],
            "responses": [STATUS, _query("`K` STRING, `WINDOWSTART` BIGINT, `WINDOWEND` BIGINT, `V` INTEGER",
                                         [_row("a", window["start"], window["end"], 1)])],
        })
    out.append({
        "name": "a push query over a windowed aggregation's table shows the window bounds after the key",
        "statements": ["CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='input', value_format='JSON');",
                       "CREATE TABLE X AS SELECT K, SUM(V) AS T FROM S WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY K;",
                       "SELECT * FROM X EMIT CHANGES LIMIT 2;"],
        "topics": TOPIC,
        "inputs": [_record("a", {"V": 1}, 1000), _record("a", {"V": 2}, 11000)],
        "responses": [STATUS, STATUS, _query("`K` STRING, `WINDOWSTART` BIGINT, `WINDOWEND` BIGINT, `T` INTEGER",
                                             [_row("a", 0, 10000, 1), _row("a", 10000, 20000, 2)])],
    })
    return out


def tombstone_cases() -> list[dict[str, Any]]:
    table = "CREATE TABLE T (K STRING PRIMARY KEY, V INT, W STRING) WITH (kafka_topic='input', value_format='JSON');"
    changes = [_record("a", {"V": 1, "W": "x"}, 1000), _record("a", {"V": 0, "W": "x"}, 2000),
               _record("b", {"V": 2, "W": "y"}, 3000)]
    kept = [_row("a", 1, "x"), _row("a", None, None, tombstone=True), _row("b", 2, "y")]
    schema = "`K` STRING, `V` INTEGER, `W` STRING"
    return [
        {"name": "a push query over a table shows a delete as a tombstone with the key in its place",
         "statements": [table, "SELECT W, V, K FROM T EMIT CHANGES LIMIT 2;"], "topics": TOPIC,
         "inputs": [_record("a", {"V": 1, "W": "x"}, 1000), _record("a", None, 2000)],
         "responses": [STATUS, _query("`W` STRING, `V` INTEGER, `K` STRING",
                                      [_row("x", 1, "a"), _row(None, None, "a", tombstone=True)])]},
        {"name": "a push query's WHERE over a table turns an update that no longer passes into a tombstone",
         "statements": [table, "SELECT * FROM T WHERE V > 0 EMIT CHANGES LIMIT 3;"], "topics": TOPIC,
         "inputs": changes, "responses": [STATUS, _query(schema, kept)]},
        {"name": "a push query over a filtering CREATE TABLE AS SELECT sees its tombstones",
         "statements": [table, "CREATE TABLE F AS SELECT * FROM T WHERE V > 0;",
                        "SELECT * FROM F EMIT CHANGES LIMIT 3;"], "topics": TOPIC,
         "inputs": changes, "responses": [STATUS, STATUS, _query(schema, kept)]},
    ]


def aggregation_cases() -> list[dict[str, Any]]:
    """A push query that aggregates (a transient aggregation): its header marks no key; over a table a row
    moving to another group first takes itself out of the old one (its count falls, to 0 here: the group
    stays), then adds to the new one; a tombstone in the source takes the row out of its group."""
    table = "CREATE TABLE T (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='input', value_format='JSON');"
    stream = "CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='input', value_format='JSON');"
    moves = [_record("a", {"V": 1}, 1000), _record("a", {"V": 2}, 2000), _record("b", {"V": 2}, 3000)]
    return [
        {"name": "a push query grouping a table moves a row between groups",
         "statements": [table, "SELECT V, COUNT(*) AS C FROM T GROUP BY V EMIT CHANGES LIMIT 4;"], "topics": TOPIC,
         "inputs": moves, "responses": [STATUS, _query("`V` INTEGER, `C` BIGINT",
                                                      [_row(1, 1), _row(1, 0), _row(2, 1), _row(2, 2)])]},
        {"name": "a push query grouping a table takes a deleted row out of its group",
         "statements": [table, "SELECT V, SUM(V) AS S, COUNT(*) AS C FROM T GROUP BY V EMIT CHANGES LIMIT 3;"],
         "topics": TOPIC,
         "inputs": [_record("a", {"V": 1}, 1000), _record("b", {"V": 1}, 2000), _record("a", None, 3000)],
         "responses": [STATUS, _query("`V` INTEGER, `S` INTEGER, `C` BIGINT",
                                      [_row(1, 1, 1), _row(1, 2, 2), _row(1, 1, 1)])]},
        {"name": "a push query grouping a stream by an expression counts each record",
         "statements": [stream, "SELECT V * 10 AS G, COUNT(*) AS C FROM S GROUP BY V * 10 EMIT CHANGES LIMIT 3;"],
         "topics": TOPIC, "inputs": moves,
         "responses": [STATUS, _query("`G` INTEGER, `C` BIGINT", [_row(10, 1), _row(20, 1), _row(20, 2)])]},
    ]


def cases() -> list[dict[str, Any]]:
    return offset_cases() + windowed_cases() + tombstone_cases() + aggregation_cases()


if __name__ == "__main__":
    (HERE / "push-query-rules.json").write_text(json.dumps({
        "comments": ["Push query rules on /query: where they start reading, windowed headers, tombstones. Generated "
                     "by gen_push_rules.py, in ksqlDB's REST test format, written for ksqlpy."],
        "tests": cases()}, indent=1) + "\n")
