"""Generates window-bounds-scope.json: where WINDOWSTART/WINDOWEND may appear in an aggregation.

ksqlDB's AggregateAnalyzer (from memory: ``throwOnWindowBoundColumnIfWindowedAggregate``) refuses a window
bound in GROUP BY, in HAVING outside an aggregate, and in an aggregate's arguments whenever the query has a
WINDOW clause - the bounds then are the new windows', known only after aggregating - whether or not the source
is windowed: ``Window bounds column <C> can only be used in the SELECT clause of windowed aggregations and can
not be passed to aggregate functions.`` Without a WINDOW clause the bounds of a windowed source are its own
columns, usable anywhere; a non-windowed source has none. In SELECT, a windowed aggregation's bounds are its
windows'.

Run ``python tests/cases/aggregations/gen_window_bounds_scope.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
WINDOWED = ("CREATE STREAM WS (ID INT KEY, V INT) WITH (kafka_topic='ws', value_format='JSON', "
            "window_type='TUMBLING', window_size='10 MILLISECONDS', partitions=1);")
PLAIN = "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
WINDOW = " WINDOW TUMBLING (SIZE 100 MILLISECONDS)"


def _message(column: str) -> str:
    return (f"Window bounds column {column} can only be used in the SELECT clause of windowed aggregations and can "
            "not be passed to aggregate functions.")


# (place, query with {src}, {window} and {b} for the bound)
PLACES = [
    ("GROUP BY", "CREATE TABLE O AS SELECT {b} AS B, COUNT(*) AS N FROM {src}{window} GROUP BY {b};"),
    ("HAVING", "CREATE TABLE O AS SELECT ID, COUNT(*) AS N FROM {src}{window} GROUP BY ID HAVING {b} > 0;"),
    ("an aggregate's argument", "CREATE TABLE O AS SELECT ID, MAX({b}) AS N FROM {src}{window} GROUP BY ID;"),
    ("an expression in an aggregate's argument",
     "CREATE TABLE O AS SELECT ID, SUM({b} - 1) AS N FROM {src}{window} GROUP BY ID;"),
]


def _refused() -> list[dict[str, Any]]:
    out = []
    for place, query in PLACES:
        for bound in ("WINDOWSTART", "WINDOWEND"):
            for name, ddl in (("WS", WINDOWED), ("S", PLAIN)):
                out.append({
                    "name": f"{bound} in {place} of a windowed aggregation over {'a windowed' if name == 'WS' else 'a'}"
                            " stream",
                    "statements": [ddl, query.format(src=name, window=WINDOW, b=bound)],
                    "expectedException": {"type": EXCEPTION, "message": _message(bound)},
                })
    return out


def _windowed_source_without_window() -> list[dict[str, Any]]:
    """A windowed source's own bounds, read without a WINDOW clause: an aggregate's argument, HAVING."""
    rows = [(1, 0, 1), (1, 10, 11), (1, 20, 22)]  # (key, window start, record timestamp)
    return [{
        "name": "MAX(WINDOWEND) of a windowed stream without a WINDOW clause: the source's bounds",
        "statements": [WINDOWED, "CREATE TABLE O AS SELECT ID, MAX(WINDOWEND) AS N FROM WS GROUP BY ID;"],
        "inputs": [{"topic": "ws", "key": k, "value": {"V": 0}, "timestamp": ts,
                    "window": {"start": start, "end": start + 10, "type": "time"}} for k, start, ts in rows],
        "outputs": [{"topic": "O", "key": 1, "value": {"N": start + 10}, "timestamp": ts} for _, start, ts in rows],
    }, {
        "name": "HAVING on WINDOWSTART of a windowed stream without a WINDOW clause",
        "statements": [WINDOWED, "CREATE TABLE O AS SELECT ID, COUNT(*) AS N FROM WS GROUP BY ID "
                                 "HAVING MAX(WINDOWSTART) >= 10;"],
        "inputs": [{"topic": "ws", "key": k, "value": {"V": 0}, "timestamp": ts,
                    "window": {"start": start, "end": start + 10, "type": "time"}} for k, start, ts in rows],
        "outputs": [{"topic": "O", "key": 1, "value": {"N": n}, "timestamp": ts}
                    for n, ts in ((2, 11), (3, 22))],
    }]


def _selected() -> list[dict[str, Any]]:
    """SELECT of a windowed aggregation over a windowed stream names the new windows' bounds."""
    rows = [(1, 0, 1), (1, 10, 120)]
    return [{
        "name": "WINDOWSTART selected in a windowed aggregation over a windowed stream: the new window's",
        "statements": [WINDOWED, f"CREATE TABLE O AS SELECT ID, WINDOWSTART AS B, COUNT(*) AS N FROM WS{WINDOW} "
                                 "GROUP BY ID;"],
        "inputs": [{"topic": "ws", "key": k, "value": {"V": 0}, "timestamp": ts,
                    "window": {"start": start, "end": start + 10, "type": "time"}} for k, start, ts in rows],
        "outputs": [{"topic": "O", "key": 1, "value": {"B": b, "N": 1}, "timestamp": ts,
                     "window": {"start": b, "end": b + 100, "type": "time"}} for b, ts in ((0, 1), (100, 120))],
    }]


def cases() -> list[dict[str, Any]]:
    return _refused() + _windowed_source_without_window() + _selected()


if __name__ == "__main__":
    (HERE / "window-bounds-scope.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n",
                                                   encoding="utf-8")
