"""Generates ``push-emit-final.json``: EMIT FINAL in transient push queries on ``/query`` (our own cases, ksqlDB's
REST test format).

ksqlDB plans a push query with the same LogicalPlanner as a persistent one (from memory of its source), so the
EMIT FINAL rules of CREATE TABLE AS SELECT hold for ``SELECT ... EMIT FINAL`` too:

- ``ksql.suppress.enabled`` false refuses EMIT FINAL ("Suppression is currently disabled. ..."), checked before the
  query is looked at further; the property is read from the KsqlConfig the request's ``streamsProperties``
  overwrite, so a request may turn it off (boolean or text) - an EMIT CHANGES query is not affected;
- EMIT FINAL needs a windowed aggregation ("EMIT FINAL is only supported for windowed aggregations."): a plain
  projection, a non-windowed GROUP BY over a stream or a table; a WINDOW over a table is refused when the
  aggregation step is built ("Windowing not supported for table aggregations.");
- the rows are each window's final result, once stream time passes its end (plus grace, 0 by default under EMIT
  FINAL): TUMBLING, HOPPING and SESSION windows, with HAVING filtering final results (a window that never passed
  writes nothing), window bounds selectable. Windows close on stream time, so one partition (one task) and a
  throttle of 0 (``__emit.interval.ms.kstreams.windowed.aggregation__``) make the rows deterministic.
- other analysis properties of the request apply to a push query as well (``ksql.lambdas.enabled``).

Run ``python tests/cases/rest/gen_push_emit_final.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATUS = {"admin": {"@type": "currentStatus"}}
TOPIC = [{"name": "input", "partitions": 1}]
THROTTLE = {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0}
STREAM = "CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='input', value_format='JSON', partitions=1);"
TABLE = "CREATE TABLE T (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='input', value_format='JSON', partitions=1);"
ERROR_TYPE = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"
SUPPRESSION_OFF = "Suppression is currently disabled. You can enable it by setting ksql.suppress.enabled to true"
NOT_WINDOWED = "EMIT FINAL is only supported for windowed aggregations."
TABLE_WINDOW = "Windowing not supported for table aggregations."

# key, timestamp: stream time moves by less than a window at each record, so every closed window is still retained
EVENTS = [("a", 1), ("a", 2), ("b", 3), ("b", 8), ("a", 12), ("b", 16), ("c", 25)]

TUMBLING = "WINDOW TUMBLING (SIZE 10 MILLISECONDS)"
HOPPING = "WINDOW HOPPING (SIZE 10 MILLISECONDS, ADVANCE BY 5 MILLISECONDS)"
SESSION = "WINDOW SESSION (5 MILLISECONDS)"


def _inputs() -> list[dict[str, Any]]:
    return [{"topic": "input", "key": k, "value": {"V": 1}, "timestamp": ts} for k, ts in EVENTS]


def _query(schema: str, rows: list[list[Any]]) -> dict[str, Any]:
    return {"query": [{"header": {"schema": schema}}, *({"row": {"columns": r}} for r in rows),
                      {"finalMessage": "Limit Reached"}]}


def _rows_case(name: str, select: str, schema: str, rows: list[list[Any]]) -> dict[str, Any]:
    return {"name": name, "properties": THROTTLE, "statements": [STREAM, f"{select} LIMIT {len(rows)};"],
            "topics": TOPIC, "inputs": _inputs(), "responses": [STATUS, _query(schema, rows)]}


def _error_case(name: str, source: str, select: str, message: str,
                properties: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "properties": {**THROTTLE, **(properties or {})}, "statements": [source, select],
            "topics": TOPIC, "inputs": _inputs(),
            "expectedError": {"type": ERROR_TYPE, "message": message, "status": 400}}


def final_rows() -> list[dict[str, Any]]:
    """Final results only: with grace 0 a time window [s, s + 10) goes out once stream time reaches s + 10 (at
    a@12 for [0, 10), at c@25 for [10, 20)); a session once stream time passes its end + gap."""
    count = "`K` STRING, `C` BIGINT"
    bounds = "`K` STRING, `WINDOWSTART` BIGINT, `WINDOWEND` BIGINT, `C` BIGINT"
    return [
        _rows_case("a TUMBLING push query with EMIT FINAL writes each window once, when it closes",
                   f"SELECT K, COUNT(*) AS C FROM S {TUMBLING} GROUP BY K EMIT FINAL", count,
                   [["a", 2], ["b", 2], ["a", 1], ["b", 1]]),
        _rows_case("a TUMBLING push query with EMIT FINAL selects the window bounds",
                   f"SELECT K, WINDOWSTART, WINDOWEND, COUNT(*) AS C FROM S {TUMBLING} GROUP BY K EMIT FINAL", bounds,
                   [["a", 0, 10, 2], ["b", 0, 10, 2], ["a", 10, 20, 1], ["b", 10, 20, 1]]),
        _rows_case("a TUMBLING push query with EMIT FINAL and HAVING writes the final results that pass",
                   f"SELECT K, WINDOWSTART, COUNT(*) AS C FROM S {TUMBLING} GROUP BY K HAVING COUNT(*) > 1 EMIT FINAL",
                   "`K` STRING, `WINDOWSTART` BIGINT, `C` BIGINT", [["a", 0, 2], ["b", 0, 2]]),
        _rows_case("a HOPPING push query with EMIT FINAL writes each hop once, when it closes",
                   f"SELECT K, WINDOWSTART, WINDOWEND, COUNT(*) AS C FROM S {HOPPING} GROUP BY K EMIT FINAL", bounds,
                   [["a", 0, 10, 2], ["b", 0, 10, 2], ["a", 5, 15, 1], ["b", 5, 15, 1]]),
        _rows_case("a SESSION push query with EMIT FINAL writes each session once, when it closes",
                   f"SELECT K, WINDOWSTART, WINDOWEND, COUNT(*) AS C FROM S {SESSION} GROUP BY K EMIT FINAL", bounds,
                   [["a", 1, 2, 2], ["b", 3, 8, 2], ["a", 12, 12, 1], ["b", 16, 16, 1]]),
        {"name": "a windowed push query with EMIT CHANGES runs with suppression disabled in the request",
         "properties": {**THROTTLE, "ksql.suppress.enabled": False},
         "statements": [STREAM, f"SELECT K, COUNT(*) AS C FROM S {TUMBLING} GROUP BY K EMIT CHANGES LIMIT 3;"],
         "topics": TOPIC, "inputs": _inputs(), "responses": [STATUS, _query(count, [["a", 1], ["a", 2], ["b", 1]])]},
    ]


def refusals() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    windowed = f"SELECT K, COUNT(*) AS C FROM S {TUMBLING} GROUP BY K EMIT FINAL;"
    for spelled, value in (("a boolean", False), ("text", "false"), ("upper-case text", "FALSE")):
        out.append(_error_case(f"EMIT FINAL in a push query with ksql.suppress.enabled {spelled} false in the request",
                               STREAM, windowed, SUPPRESSION_OFF, {"ksql.suppress.enabled": value}))
    out.append(_error_case("suppression disabled is named before a push query's EMIT FINAL without a window",
                           STREAM, "SELECT K, COUNT(*) AS C FROM S GROUP BY K EMIT FINAL;", SUPPRESSION_OFF,
                           {"ksql.suppress.enabled": False}))
    shapes = {
        "a projection of a stream": (STREAM, "SELECT * FROM S EMIT FINAL;", NOT_WINDOWED),
        "a projection of a table": (TABLE, "SELECT * FROM T EMIT FINAL;", NOT_WINDOWED),
        "a non-windowed aggregation of a stream": (STREAM, "SELECT K, COUNT(*) AS C FROM S GROUP BY K EMIT FINAL;",
                                                   NOT_WINDOWED),
        "a non-windowed aggregation of a table": (TABLE, "SELECT K, COUNT(*) AS C FROM T GROUP BY K EMIT FINAL;",
                                                  NOT_WINDOWED),
        "a windowed aggregation of a table": (TABLE, f"SELECT K, COUNT(*) AS C FROM T {TUMBLING} GROUP BY K EMIT FINAL;",
                                              TABLE_WINDOW),
    }
    for what, (source, select, message) in shapes.items():
        out.append(_error_case(f"EMIT FINAL in a push query over {what} is refused", source, select, message))
    out.append(_error_case("a push query's lambda is refused with ksql.lambdas.enabled false in the request", STREAM,
                           "SELECT K, TRANSFORM(ARRAY[V], x => x + 1) AS A FROM S EMIT CHANGES;",
                           "Lambdas are not enabled at this time.", {"ksql.lambdas.enabled": False}))
    return out


def cases() -> list[dict[str, Any]]:
    return final_rows() + refusals()


if __name__ == "__main__":
    (HERE / "push-emit-final.json").write_text(json.dumps({
        "comments": ["EMIT FINAL in transient push queries on /query, and the request's properties in force while a "
                     "push query is planned. Generated by gen_push_emit_final.py, in ksqlDB's REST test format, "
                     "written for ksqlpy."],
        "tests": cases()}, indent=1) + "\n")
