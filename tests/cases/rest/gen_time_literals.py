"""Generates ``time-literal-errors.json``: a string compared with ROWTIME, WINDOWSTART or WINDOWEND that is no
timestamp fails the statement with ksqlDB's ``Failed to parse timestamp '<text>'`` (its
PartialStringToTimestampParser, which rewrites such comparisons before any query is planned; from memory) as a
400 statement error - ksqlpy answered 500 - in every statement kind that plans a WHERE: a push query, a pull
query on a stream, a key lookup and a scan of a windowed table, a push query on it, CREATE STREAM/TABLE AS
SELECT and INSERT INTO ... SELECT; for =, >=, < and BETWEEN, and for texts that are not dates at all or name
a month or hour out of range. Each refusal has an accepted counterpart (a valid text, a partial one, hour 24)
with its rows.

Run ``python tests/cases/rest/gen_time_literals.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATEMENT_ERROR = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"
STREAM = "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', partitions=1, value_format='JSON');"
WINDOWED = "CREATE TABLE W AS SELECT ID, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 1 DAY) GROUP BY ID;"
SINK = "CREATE STREAM OUT (ID INT KEY, V INT) WITH (kafka_topic='out', partitions=1, value_format='JSON');"
DAY = 86_400_000
# 2020-01-01T00:00:00Z and the next day
T0 = 1_577_836_800_000
INPUTS = [{"topic": "s", "key": 1, "value": {"V": 1}, "timestamp": T0},
          {"topic": "s", "key": 2, "value": {"V": 2}, "timestamp": T0 + DAY}]
# both in the day's window (the next day's would end its retention)
WINDOW_INPUTS = [{"topic": "s", "key": 1, "value": {"V": 1}, "timestamp": T0},
                 {"topic": "s", "key": 2, "value": {"V": 2}, "timestamp": T0 + 3_600_000}]

# (kind, the statements before, the statement with {cond} in its WHERE, setup responses, the column compared)
KINDS: list[tuple[str, list[str], str, str]] = [
    ("a push query on a stream", [STREAM], "SELECT * FROM S WHERE {cond} EMIT CHANGES LIMIT 1;", "ROWTIME"),
    ("a pull query on a stream", [STREAM], "SELECT * FROM S WHERE {cond};", "ROWTIME"),
    ("CREATE STREAM AS SELECT", [STREAM], "CREATE STREAM X AS SELECT * FROM S WHERE {cond};", "ROWTIME"),
    ("CREATE TABLE AS SELECT", [STREAM], "CREATE TABLE X AS SELECT ID, COUNT(*) AS C FROM S WHERE {cond} GROUP BY ID;",
     "ROWTIME"),
    ("INSERT INTO ... SELECT", [STREAM, SINK], "INSERT INTO OUT SELECT * FROM S WHERE {cond};", "ROWTIME"),
    ("a key lookup on a windowed table", [STREAM, WINDOWED], "SELECT * FROM W WHERE ID = 1 AND {cond};", "WINDOWSTART"),
    ("a scan of a windowed table", [STREAM, WINDOWED], "SELECT * FROM W WHERE {cond};", "WINDOWEND"),
    ("a push query on a windowed table", [STREAM, WINDOWED], "SELECT * FROM W WHERE {cond} EMIT CHANGES LIMIT 1;",
     "WINDOWSTART"),
]
BAD_TEXTS = ["abc", "2020-13-01", "2020-01-01T25:00"]
OPERATORS = ["{col} = '{text}'", "{col} >= '{text}'", "{col} < '{text}'", "{col} BETWEEN '{text}' AND '2030-01-01'"]


def _status(n: int) -> list[dict[str, Any]]:
    return [{"admin": {"@type": "currentStatus"}}] * n


def refusals() -> list[dict[str, Any]]:
    out = []
    for kind, setup, template, col in KINDS:
        for i, text in enumerate(BAD_TEXTS):
            op = OPERATORS[i % len(OPERATORS)] if text != "abc" else None
            for cond_t in ([op] if op else OPERATORS):
                cond = cond_t.format(col=col, text=text)
                out.append({"name": f"{kind} - {cond} is refused", "statements": [*setup, template.format(cond=cond)],
                            "expectedError": {"type": STATEMENT_ERROR, "status": 400,
                                              "message": f"Failed to parse timestamp '{text}'"}})
    return out


def accepted() -> list[dict[str, Any]]:
    """A text that is a timestamp (whole, partial, hour 24 as the next midnight) compares as its instant."""
    stream_schema = "`ID` INTEGER, `V` INTEGER"
    window_schema = "`ID` INTEGER KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `C` BIGINT"
    out = []
    for cond, want in [("ROWTIME = '2020-01-01T00:00:00.000'", [[1, 1]]), ("ROWTIME >= '2020-01-02'", [[2, 2]]),
                       ("ROWTIME = '2020-01-01T24:00'", [[2, 2]]),
                       ("ROWTIME BETWEEN '2020-01-01T00:00:00+0100' AND '2020-01-01T12'", [[1, 1]])]:
        out.append({"name": f"a pull query on a stream - {cond} is accepted", "inputs": INPUTS,
                    "statements": [STREAM, f"SELECT * FROM S WHERE {cond};"],
                    "responses": [*_status(1), {"query": [{"header": {"schema": stream_schema}},
                                                          *({"row": {"columns": r}} for r in want),
                                                          {"finalMessage": "Query Completed"}]}]})
    for cond, want in [("WINDOWSTART = '2020-01-01'", [[1, T0, T0 + DAY, 1]]),
                       ("WINDOWEND <= '2020-01-02T00:00:00.000'", [[1, T0, T0 + DAY, 1]]),
                       ("WINDOWSTART >= '2020-01-01T24:00'", [])]:
        out.append({"name": f"a key lookup on a windowed table - {cond} is accepted", "inputs": WINDOW_INPUTS,
                    "statements": [STREAM, WINDOWED, f"SELECT * FROM W WHERE ID = 1 AND {cond};"],
                    "responses": [*_status(2), {"query": [{"header": {"schema": window_schema}},
                                                          *({"row": {"columns": r}} for r in want)]}]})
    return out


def cases() -> list[dict[str, Any]]:
    return refusals() + accepted()


if __name__ == "__main__":
    (HERE / "time-literal-errors.json").write_text(json.dumps({
        "comments": ["Strings compared with ROWTIME/WINDOWSTART/WINDOWEND that are no timestamps, in every statement "
                     "kind with a WHERE. Generated by gen_time_literals.py, in ksqlDB's REST test format, written for "
                     "ksqlpy."],
        "tests": cases()}, indent=1) + "\n")
