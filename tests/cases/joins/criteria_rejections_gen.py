"""Join criteria refused, over every join kind (stream-stream, stream-table, table-table): ksqlDB's
``Analyzer.visitJoinedSource`` checks the ON expression before anything about the kind, so each refusal reads
the same whichever sources are joined - two equalities under AND/OR are "multiple conditions", any other
non-comparison is an "Unsupported join expression", a comparison that is not ``=`` is refused as not an
equality, each side must reference exactly one source and the two sides different ones. After those the
planner's rules: key types must match, and a table on the right is joined on its primary key.

Writes tests/cases/joins/criteria-rejections.json: ``python tests/cases/joins/criteria_rejections_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

ERROR = "io.confluent.ksql.util.KsqlStatementException"
KINDS: dict[str, tuple[str, str, str, str]] = {
    "stream-stream": ("CREATE STREAM L (ID INT KEY, A INT, B STRING) WITH (kafka_topic='l', value_format='JSON', "
                      "partitions=1);",
                      "CREATE STREAM R (ID INT KEY, C INT, D STRING) WITH (kafka_topic='r', value_format='JSON', "
                      "partitions=1);", "STREAM", " WITHIN 1 MINUTE"),
    "stream-table": ("CREATE STREAM L (ID INT KEY, A INT, B STRING) WITH (kafka_topic='l', value_format='JSON', "
                     "partitions=1);",
                     "CREATE TABLE R (ID INT PRIMARY KEY, C INT, D STRING) WITH (kafka_topic='r', "
                     "value_format='JSON', partitions=1);", "STREAM", ""),
    "table-table": ("CREATE TABLE L (ID INT PRIMARY KEY, A INT, B STRING) WITH (kafka_topic='l', value_format='JSON', "
                    "partitions=1);",
                    "CREATE TABLE R (ID INT PRIMARY KEY, C INT, D STRING) WITH (kafka_topic='r', "
                    "value_format='JSON', partitions=1);", "TABLE", ""),
}
EACH_SIDE = "Each side of the join comparision must contain references from exactly one source."
# (what, criteria, message)
CRITERIA: list[tuple[str, str, str]] = [
    ("two equalities under AND", "L.ID = R.ID AND L.A = R.C",
     "Invalid join condition: joins on multiple conditions are not yet supported. Got ((L.ID = R.ID) AND "
     "(L.A = R.C))."),
    ("two equalities under OR", "L.ID = R.ID OR L.A = R.C",
     "Invalid join condition: joins on multiple conditions are not yet supported. Got ((L.ID = R.ID) OR "
     "(L.A = R.C))."),
    ("a greater-than", "L.ID > R.ID", "Only equality join criteria is supported."),
    ("a not-equal", "L.ID <> R.ID", "Only equality join criteria is supported."),
    ("a negated equality", "NOT (L.ID = R.ID)", "Unsupported join expression: (NOT (L.ID = R.ID))"),
    ("a BETWEEN", "L.ID BETWEEN 1 AND 2", "Unsupported join expression: (L.ID BETWEEN 1 AND 2)"),
    ("an IN list", "L.ID IN (1, 2)", "Unsupported join expression: (L.ID IN (1, 2))"),
    ("a LIKE", "L.B LIKE R.D", "Unsupported join expression: (L.B LIKE R.D)"),
    ("a literal on the right", "L.ID = 1", f"Invalid comparison expression '1' in join '(L.ID = 1)'. {EACH_SIDE}"),
    ("a literal on the left", "1 = R.ID", f"Invalid comparison expression '1' in join '(1 = R.ID)'. {EACH_SIDE}"),
    ("both sources on one side", "L.ID + R.ID = 2",
     f"Invalid comparison expression '(L.ID + R.ID)' in join '((L.ID + R.ID) = 2)'. {EACH_SIDE}"),
    ("the left source on both sides", "L.ID = L.A",
     "Each side of the join must reference exactly one source and not the same source. Left side references "
     "`L` and right references `L`"),
    ("the right source on both sides", "R.ID = R.C",
     "Each side of the join must reference exactly one source and not the same source. Left side references "
     "`R` and right references `R`"),
    ("key types that differ", "L.B = R.ID",
     "Invalid join condition: types don't match. Got L.B{STRING} = R.ID{INTEGER}."),
]
# the right table joined on something other than its primary key
NOT_THE_KEY = {
    "stream-table": "Invalid join condition: stream-table joins require to join on the table's primary key. "
                    "Got L.ID = CAST(R.D AS INTEGER).",
    "table-table": "Invalid join condition: table-table joins require to join on the primary key of the right "
                   "input table. Got L.ID = CAST(R.D AS INTEGER).",
}


def case(kind: str, what: str, criteria: str, message: str) -> dict[str, Any]:
    left, right, sink, within = KINDS[kind]
    return {"name": f"{kind} join on {what} is refused",
            "statements": [left, right, f"CREATE {sink} OUT AS SELECT * FROM L JOIN R{within} ON {criteria};"],
            "expectedException": {"type": ERROR, "message": message}}


def cases() -> list[dict[str, Any]]:
    out = [case(kind, what, criteria, message) for kind in KINDS for what, criteria, message in CRITERIA]
    out += [case(kind, "an expression of the right table", "L.ID = CAST(R.D AS INT)", message)
            for kind, message in NOT_THE_KEY.items()]
    return out


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("criteria-rejections.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
