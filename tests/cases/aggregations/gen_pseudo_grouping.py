"""Generates the cases of pseudo columns (ROWTIME, ROWPARTITION, ROWOFFSET) in aggregations (our own cases).

Run ``python tests/cases/aggregations/gen_pseudo_grouping.py`` to rewrite ``pseudo-grouping.json`` next to it.

The rule (ksqlDB's ``AggregateAnalyzer``, from memory): outside an aggregate call a pseudo column is a column
like any other - it must be a GROUP BY expression (or inside one) in SELECT and HAVING, else
``Non-aggregate SELECT expression(s) not part of GROUP BY`` / ``Non-aggregate HAVING expression not part of
GROUP BY``; inside an aggregate call, or grouped by, it is fine. Scope: the three pseudo columns x bare, inside a
function, in HAVING, as an aggregate argument, grouped by x stream, windowed and (ROWTIME) table sources.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PSEUDO = ["ROWTIME", "ROWPARTITION", "ROWOFFSET"]
SOURCES = {
    "stream": ("CREATE STREAM INPUT (ID INT KEY, V INT) WITH (kafka_topic='input_topic', value_format='JSON');", ""),
    "windowed stream": ("CREATE STREAM INPUT (ID INT KEY, V INT) WITH (kafka_topic='input_topic', "
                        "value_format='JSON');", " WINDOW TUMBLING (SIZE 10 SECONDS)"),
    "table": ("CREATE TABLE INPUT (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='input_topic', value_format='JSON');",
              ""),
}
SELECT_ERROR = ("Non-aggregate SELECT expression(s) not part of GROUP BY: {}\n"
                "Either add the column(s) to the GROUP BY or remove them from the SELECT.")
HAVING_ERROR = ("Non-aggregate HAVING expression not part of GROUP BY: {}\n"
                "Consider switching the HAVING clause to a WHERE clause before the GROUP BY.")


def _refused(name: str, statements: list[str], message: str) -> dict[str, Any]:
    return {"name": name, "statements": statements,
            "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException", "message": message}}


def _cases_for(pseudo: str, source_name: str) -> list[dict[str, Any]]:
    source, window = SOURCES[source_name]
    where = f"{pseudo} in an aggregation over a {source_name}"
    fn = f"TIMESTAMPTOSTRING({pseudo}, 'yyyy')" if pseudo == "ROWTIME" else f"ABS({pseudo})"
    agg = "MAX" if source_name != "table" else "SUM"
    out = [
        _refused(f"{where}: selected bare", [source, f"CREATE TABLE OUTPUT AS SELECT ID, {pseudo} AS P, COUNT(*) AS C "
                                                     f"FROM INPUT{window} GROUP BY ID;"],
                 SELECT_ERROR.format(pseudo)),
        _refused(f"{where}: inside a function", [source, f"CREATE TABLE OUTPUT AS SELECT ID, {fn} AS P, COUNT(*) AS C "
                                                         f"FROM INPUT{window} GROUP BY ID;"],
                 SELECT_ERROR.format(fn)),
        _refused(f"{where}: in HAVING", [source, f"CREATE TABLE OUTPUT AS SELECT ID, COUNT(*) AS C FROM INPUT{window} "
                                                 f"GROUP BY ID HAVING {pseudo} >= 0;"],
                 HAVING_ERROR.format(pseudo)),
    ]
    if source_name == "stream":
        ts = {"ROWTIME": [5, 7], "ROWPARTITION": [0, 0], "ROWOFFSET": [0, 1]}[pseudo]
        out.append({
            "name": f"{where}: an aggregate argument and in HAVING inside one",
            "statements": [source, f"CREATE TABLE OUTPUT AS SELECT ID, {agg}({pseudo}) AS P, COUNT(*) AS C FROM INPUT "
                                   f"GROUP BY ID HAVING {agg}({pseudo}) >= 0;"],
            "inputs": [{"topic": "input_topic", "key": 1, "value": {"V": 1}, "timestamp": 5},
                       {"topic": "input_topic", "key": 1, "value": {"V": 2}, "timestamp": 7}],
            "outputs": [{"topic": "OUTPUT", "key": 1, "value": {"P": ts[0], "C": 1}, "timestamp": 5},
                        {"topic": "OUTPUT", "key": 1, "value": {"P": ts[1], "C": 2}, "timestamp": 7}],
        })
        if pseudo == "ROWTIME":
            out.append({
                "name": f"{where}: grouped by, then selected",
                "statements": [source, "CREATE TABLE OUTPUT AS SELECT ROWTIME AS RT, COUNT(*) AS C FROM INPUT "
                                       "GROUP BY ROWTIME;"],
                "inputs": [{"topic": "input_topic", "key": 1, "value": {"V": 1}, "timestamp": 5},
                           {"topic": "input_topic", "key": 2, "value": {"V": 2}, "timestamp": 5}],
                "outputs": [{"topic": "OUTPUT", "key": 5, "value": {"C": 1}, "timestamp": 5},
                            {"topic": "OUTPUT", "key": 5, "value": {"C": 2}, "timestamp": 5}],
            })
    return out


def cases() -> list[dict[str, Any]]:
    out = []
    for pseudo in PSEUDO:
        for source_name in SOURCES:
            if source_name == "table" and pseudo != "ROWTIME":
                continue
            out += _cases_for(pseudo, source_name)
    return out


if __name__ == "__main__":
    (HERE / "pseudo-grouping.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")
