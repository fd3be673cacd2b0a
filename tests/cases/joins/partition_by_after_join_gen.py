"""PARTITION BY over a join's result: the new key and the message when the projection leaves it out.

The rule (from memory of ksqlDB's LogicalPlanner.buildUserRepartitionNode and UserRepartitionNode): the
PARTITION BY expressions are rewritten over the joined row's columns (``L.A`` -> ``L_A``) to be evaluated,
but the node keeps the original expressions, as the sanitizer left them (every column qualified by its
source or alias), and ``validateKeyPresent`` names those when the projection lacks one:
``Key[s] missing from projection (ie, SELECT). ... must include the partitioning expression[s] <e1>[, ...]
and <en> in its projection (eg, SELECT <e1>, ...)``. Before this, ksqlpy named the rewritten ones qualified
by the left source (``CONCAT(L.L_A, L.R_B)``).

A stream's PARTITION BY after a join re-keys every joined row: a NULL value (a LEFT join's padded side)
gives a record without a key; the selected key column is named by the expression as a plain column would
be. Writes tests/cases/joins/partition-by-after-join.json: ``python tests/cases/joins/partition_by_after_join_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

L = ("CREATE STREAM L (ID INT KEY, A STRING, X INT, ST STRUCT<F INT>) WITH (kafka_topic='l', value_format='JSON', "
     "partitions=1);")
R = "CREATE STREAM R (ID INT KEY, B STRING, Y INT) WITH (kafka_topic='r', value_format='JSON', partitions=1);"
T = "CREATE TABLE T (ID INT PRIMARY KEY, C STRING) WITH (kafka_topic='t', value_format='JSON', partitions=1);"


def missing(sink: str, exprs: list[str]) -> str:
    one = len(exprs) == 1
    joined = exprs[0] if one else ", ".join(exprs[:-1]) + " and " + exprs[-1]
    return (f"{'Key' if one else 'Keys'} missing from projection (ie, SELECT). \nThe query used to build `{sink}` "
            f"must include the partitioning {'expression' if one else 'expressions'} {joined} in its projection "
            f"(eg, SELECT {', '.join(exprs)}...).")


ERRORS: list[tuple[str, list[str], str, list[str]]] = [
    ("stream-stream join, a function of both sides", [L, R],
     "SELECT L.ID, A, B FROM L JOIN R WITHIN 1 SECOND ON L.ID = R.ID PARTITION BY CONCAT(L.A, R.B)",
     ["CONCAT(L.A, R.B)"]),
    ("stream-stream join, an unqualified column of the right side", [L, R],
     "SELECT L.ID, A FROM L JOIN R WITHIN 1 SECOND ON L.ID = R.ID PARTITION BY B", ["R.B"]),
    ("stream-stream join, arithmetic over both sides", [L, R],
     "SELECT L.ID, A FROM L JOIN R WITHIN 1 SECOND ON L.ID = R.ID PARTITION BY L.X + R.Y", ["(L.X + R.Y)"]),
    ("stream-stream join of aliased sources, each alias's column", [L, R],
     "SELECT P.ID, P.A FROM L P JOIN R Q WITHIN 1 SECOND ON P.ID = Q.ID PARTITION BY P.X, Q.Y", ["P.X", "Q.Y"]),
    ("stream-stream LEFT join, a struct field", [L, R],
     "SELECT L.ID, B FROM L LEFT JOIN R WITHIN 1 SECOND ON L.ID = R.ID PARTITION BY L.ST->F", ["L.ST->F"]),
    ("stream-table join, two expressions", [L, T],
     "SELECT L.ID, X FROM L JOIN T ON L.ID = T.ID PARTITION BY A, T.C", ["L.A", "T.C"]),
    ("stream-table join on a value column, the table's column", [L, T],
     "SELECT L.X, A FROM L LEFT JOIN T ON L.X = T.ID PARTITION BY UCASE(C)", ["UCASE(T.C)"]),
    ("three-way join, the table's column", [L, R, T],
     "SELECT L.ID, A FROM L JOIN R WITHIN 1 SECOND ON L.ID = R.ID JOIN T ON R.ID = T.ID PARTITION BY C",
     ["T.C"]),
]

SS_INPUTS = [("r", 1, {"B": "b1", "Y": 5}, 300), ("l", 1, {"A": "a1", "X": 2, "ST": {"F": 7}}, 250),
             ("l", 2, {"A": "a2", "X": 3, "ST": None}, 260)]
ST_INPUTS = [("t", 1, {"C": "c1"}, 100), ("l", 1, {"A": "a1", "X": 2, "ST": {"F": 7}}, 250),
             ("l", 2, {"A": "a2", "X": 3, "ST": None}, 260)]

# (name, sources, select, inputs, expected (key, value, ts))
ROWS: list[tuple[str, list[str], str, list[Any], list[tuple[Any, dict[str, Any], int]]]] = [
    ("stream-stream LEFT join re-keyed by the right side's column: the padded row has no key", [L, R],
     "SELECT B, L.ID AS LID, A FROM L LEFT JOIN R WITHIN 1 SECOND ON L.ID = R.ID PARTITION BY B", SS_INPUTS,
     [("b1", {"LID": 1, "A": "a1"}, 300), (None, {"LID": 2, "A": "a2"}, 260)]),
    ("stream-stream join re-keyed by a function of both sides, selected", [L, R],
     "SELECT CONCAT(L.A, R.B) AS K, L.X FROM L JOIN R WITHIN 1 SECOND ON L.ID = R.ID PARTITION BY CONCAT(L.A, R.B)",
     SS_INPUTS, [("a1b1", {"X": 2}, 300)]),
    ("stream-table LEFT join re-keyed by the table's column", [L, T],
     "SELECT C, L.ID AS LID, A FROM L LEFT JOIN T ON L.ID = T.ID PARTITION BY T.C", ST_INPUTS,
     [("c1", {"LID": 1, "A": "a1"}, 250), (None, {"LID": 2, "A": "a2"}, 260)]),
    ("stream-table join re-keyed by a struct field of the stream, selected unaliased", [L, T],
     "SELECT L.ST->F, C FROM L LEFT JOIN T ON L.ID = T.ID PARTITION BY L.ST->F", ST_INPUTS,
     [(7, {"C": "c1"}, 250), (None, {"C": None}, 260)]),
]


def main() -> None:
    tests: list[dict[str, Any]] = []
    for name, sources, select, exprs in ERRORS:
        tests.append({
            "name": f"{name}: the partitioning expressions named as written",
            "statements": [*sources, f"CREATE STREAM OUT AS {select};"],
            "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                                  "message": missing("OUT", exprs)},
        })
    for name, sources, select, inputs, out in ROWS:
        tests.append({
            "name": name,
            "statements": [*sources, f"CREATE STREAM OUT AS {select};"],
            "inputs": [{"topic": t, "key": k, "value": v, "timestamp": ts} for t, k, v, ts in inputs],
            "outputs": [{"topic": "OUT", "key": k, "value": v, "timestamp": ts} for k, v, ts in out],
        })
    doc = {"comments": [__doc__.split("\n\n")[0].replace("\n", " ")], "tests": tests}
    path = pathlib.Path(__file__).with_name("partition-by-after-join.json")
    path.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
