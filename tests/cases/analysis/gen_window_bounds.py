"""Writes tests/cases/analysis/window-bounds-scope.json: WINDOWSTART/WINDOWEND over every clause and
persistent statement kind.

The rule (ksqlDB's ``Analysis.getFromSourceSchemas`` + ``ColumnReferenceValidator``, then
``FilterTypeValidator`` and ``AggregateAnalyzer``): the bounds are columns of the schema a query's column
references are validated against only when its source is windowed or the query has a WINDOW clause.
- no WINDOW clause, non-windowed source (stream or table): ``<CLAUSE> column 'WINDOWSTART' cannot be
  resolved.`` in SELECT, WHERE, GROUP BY, HAVING, PARTITION BY and inside an aggregate's arguments; clauses
  are validated in the order WHERE, GROUP BY, PARTITION BY, HAVING, SELECT (the first broken one is named).
- with a WINDOW clause: SELECT may name them; WHERE is typed against the input schema
  (``Error in WHERE expression: Unknown column WINDOWSTART.``); GROUP BY, HAVING and aggregate arguments
  are refused by the aggregate analysis (``Window bounds column ... can only be used in the SELECT clause
  of windowed aggregations ...``).
- a persistent query selecting one un-aliased: ``Reserved column name in select: ...`` - ksqlDB's Analyzer
  visits the SELECT items before it validates any clause's column references.
Statement kinds: CREATE STREAM/TABLE AS SELECT, INSERT INTO ... SELECT, CREATE OR REPLACE of an existing
sink. (Push and pull queries: tests/analysis/test_window_bounds_scope.py.)

Run ``python tests/cases/analysis/gen_window_bounds.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
SOURCES = {
    "stream": "CREATE STREAM SRC (K STRING KEY, V INT) WITH (kafka_topic='src', value_format='JSON', partitions=1);",
    "table": "CREATE TABLE SRC (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='src', value_format='JSON', "
             "partitions=1);",
}
BOUNDS_ONLY_IN_SELECT = ("Window bounds column {b} can only be used in the SELECT clause of windowed aggregations "
                         "and can not be passed to aggregate functions.")


def unresolved(clause: str, bound: str) -> str:
    return f"{clause} column '{bound}' cannot be resolved."


def _queries(kind: str) -> list[tuple[str, str, bool, str]]:
    """(label, query, aggregates, expected message) with no WINDOW clause, for a source of ``kind``."""
    out = []
    for b in ("WINDOWSTART", "WINDOWEND"):
        out += [
            (f"{b} in SELECT", f"SELECT K, {b} AS B FROM SRC", False, unresolved("SELECT", b)),
            (f"{b} in WHERE", f"SELECT * FROM SRC WHERE {b} > 0", False, unresolved("WHERE", b)),
            (f"{b} in GROUP BY", f"SELECT V, COUNT(*) AS C FROM SRC GROUP BY V, {b}", True, unresolved("GROUP BY", b)),
            (f"{b} in HAVING", f"SELECT K, COUNT(*) AS C FROM SRC GROUP BY K HAVING {b} > 0", True,
             unresolved("HAVING", b)),
            (f"{b} in an aggregate", f"SELECT K, SUM({b}) AS M FROM SRC GROUP BY K", True, unresolved("SELECT", b)),
            (f"{b} in WHERE before SELECT", f"SELECT K, {b} AS B FROM SRC WHERE {b} > 0", False,
             unresolved("WHERE", b)),
        ]
        reserved = f"Reserved column name in select: `{b}`. Please remove or alias the column."
        out += [  # the SELECT items are visited before any clause's column references are validated
            (f"un-aliased {b} in SELECT and GROUP BY", f"SELECT K, {b}, COUNT(*) AS C FROM SRC GROUP BY {b}", True,
             reserved),
            (f"un-aliased {b} in SELECT, unknown WHERE column", f"SELECT K, {b} FROM SRC WHERE ZZ = 1", False,
             reserved),
        ]
        if kind == "stream":
            out.append((f"{b} in PARTITION BY", f"SELECT * FROM SRC PARTITION BY {b}", False,
                        unresolved("PARTITION BY", b)))
    return out


def unwindowed_cases() -> list[Case]:
    cases = []
    for kind, ddl in SOURCES.items():
        for label, query, aggregates, message in _queries(kind):
            result = "TABLE" if aggregates or kind == "table" else "STREAM"
            first = "SELECT K, COUNT(*) AS C FROM SRC GROUP BY K" if aggregates else "SELECT * FROM SRC"
            statements = {
                f"CREATE {result} AS SELECT": [ddl, f"CREATE {result} OUT AS {query};"],
                f"CREATE OR REPLACE {result}": [ddl, f"CREATE {result} OUT AS {first};",
                                                f"CREATE OR REPLACE {result} OUT AS {query};"],
            }
            if result == "STREAM":
                statements["INSERT INTO"] = [ddl, "CREATE STREAM OUT (K STRING KEY, V INT) WITH (kafka_topic='out', "
                                                  "value_format='JSON', partitions=1);",
                                             f"INSERT INTO OUT {query};"]
            for how, stmts in statements.items():
                cases.append({"name": f"non-windowed {kind}, no WINDOW clause - {label} - {how}",
                              "statements": stmts,
                              "expectedException": {"type": EXCEPTION, "message": message}})
    return cases


WINDOW = "WINDOW TUMBLING (SIZE 1 SECOND)"


def windowed_cases() -> list[Case]:
    """A windowed aggregation over a stream: the bounds resolve, later stages refuse them outside SELECT."""
    cases = []
    ddl = SOURCES["stream"]
    for b in ("WINDOWSTART", "WINDOWEND"):
        refusals = [
            ("in WHERE", f"SELECT K, COUNT(*) AS C FROM SRC {WINDOW} WHERE {b} > 0 GROUP BY K",
             f"Error in WHERE expression: Unknown column {b}."),
            ("in GROUP BY", f"SELECT K, COUNT(*) AS C FROM SRC {WINDOW} GROUP BY K, {b}", BOUNDS_ONLY_IN_SELECT),
            ("in HAVING", f"SELECT K, COUNT(*) AS C FROM SRC {WINDOW} GROUP BY K HAVING {b} > 0",
             BOUNDS_ONLY_IN_SELECT),
            ("in an aggregate", f"SELECT K, MAX({b}) AS M FROM SRC {WINDOW} GROUP BY K", BOUNDS_ONLY_IN_SELECT),
        ]
        for label, query, message in refusals:
            for how, stmts in {
                "CREATE TABLE AS SELECT": [ddl, f"CREATE TABLE OUT AS {query};"],
                "CREATE OR REPLACE TABLE": [ddl, f"CREATE TABLE OUT AS SELECT K, COUNT(*) AS C FROM SRC {WINDOW} "
                                                 "GROUP BY K;", f"CREATE OR REPLACE TABLE OUT AS {query};"],
            }.items():
                cases.append({"name": f"WINDOW clause - {b} {label} - {how}", "statements": stmts,
                              "expectedException": {"type": EXCEPTION, "message": message.format(b=b)}})
        # accepted: the bounds in the SELECT of a windowed aggregation
        cases.append({
            "name": f"WINDOW clause - {b} in SELECT is accepted",
            "statements": [ddl, f"CREATE TABLE OUT AS SELECT K, {b} AS B, COUNT(*) AS C FROM SRC {WINDOW} GROUP BY K;"],
            "inputs": [{"topic": "src", "key": "a", "value": {"V": 1}, "timestamp": 1500}],
            "outputs": [{"topic": "OUT", "key": "a", "value": {"B": 1000 if b == "WINDOWSTART" else 2000, "C": 1},
                         "timestamp": 1500, "window": {"start": 1000, "end": 2000, "type": "time"}}],
        })
    return cases


def cases() -> list[Case]:
    return unwindowed_cases() + windowed_cases()


if __name__ == "__main__":
    out = Path(__file__).with_name("window-bounds-scope.json")
    out.write_text(json.dumps({"comments": ["Generated by gen_window_bounds.py - do not edit."], "tests": cases()},
                              indent=2) + "\n")
    print(f"{len(cases())} cases -> {out}")
