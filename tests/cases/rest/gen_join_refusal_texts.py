"""Generates ``join-refusal-texts.json``: the whole text of each refusal of a join, as the REST API returns it.

ksqlDB's join checks - Analyzer.visitJoinedSource (criteria shape, one source per side, the joined source
referenced), JoinTree, LogicalPlanner.verifyJoin (join order and type, primary keys, key types), the
Analyzer's window compatibility, JoinNode's joiners (WITHIN present or not) and SchemaKTable's re-key - throw
plain KsqlExceptions: their texts say nothing of where in the statement the join is (no ``Line: n, Col: m:``),
unlike a column or source that cannot be resolved (from memory of those classes). A persistent join selecting
no viable key fails with PlanNode.throwKeysNotIncludedError's text, whose first line carries ksqlDB's link
for every kind of key (its synthetic-key note ends in a space). Each refusal is a CREATE ... AS SELECT over
sources written on several lines, so a location would show.

Run ``python tests/cases/rest/gen_join_refusal_texts.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATEMENT_ERROR = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"
SOURCES = [
    "CREATE STREAM S1 (ID INT KEY, A INT, B STRING) WITH (kafka_topic='s1', value_format='JSON', partitions=1);",
    "CREATE STREAM S2 (ID INT KEY, A INT, B STRING) WITH (kafka_topic='s2', value_format='JSON', partitions=1);",
    "CREATE TABLE T1 (ID INT PRIMARY KEY, A INT, B STRING) WITH (kafka_topic='t1', value_format='JSON', "
    "partitions=1);",
    "CREATE TABLE T2 (ID INT PRIMARY KEY, A INT, B STRING) WITH (kafka_topic='t2', value_format='JSON', "
    "partitions=1);",
    "CREATE TABLE T4 (ID INT PRIMARY KEY, C INT) WITH (kafka_topic='t4', value_format='JSON', partitions=1);",
    "CREATE TABLE T3 (ID STRING PRIMARY KEY, A INT) WITH (kafka_topic='t3', value_format='JSON', partitions=1);",
    "CREATE STREAM W1 (ID INT KEY, A INT) WITH (kafka_topic='w1', value_format='JSON', partitions=1, "
    "window_type='tumbling', window_size='1 second');",
]
WITHIN_LINK = ("To learn about how to specify a WITHIN clause with a stream-stream join, please visit: "
               "https://docs.confluent.io/current/ksql/docs/syntax-reference.html#create-stream-as-select")
ONE_SOURCE = "Each side of the join comparision must contain references from exactly one source."
# PlanNode.throwKeysNotIncludedError's first line: the link only for a synthetic key or several viable keys
# (reference ksqldb-rules.md 6.6), otherwise '(ie, SELECT). ' and the line break
KEY_LINE = "Key missing from projection (ie, SELECT). See https://cnfl.io/2LV7ouS.\n"
KEY_LINE_NO_LINK = "Key missing from projection (ie, SELECT). \n"

# (name, the refused statement, its whole message)
REFUSALS: list[tuple[str, str, str]] = [
    ("stream-stream join without WITHIN",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN S2 ON S1.ID = S2.ID;",
     f"Stream-Stream joins must have a WITHIN clause specified. None was provided. {WITHIN_LINK}"),
    ("WITHIN on a stream-table join",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN T1 WITHIN 1 SECOND ON S1.ID = T1.ID;",
     "A window definition was provided for a Stream-Table join. These joins are not windowed. Please drop the "
     "window definition (ie. the WITHIN clause) and try to execute your join again."),
    ("WITHIN on a table-table join",
     "CREATE TABLE O AS SELECT *\n  FROM T1\n  JOIN T2 WITHIN 1 SECOND ON T1.ID = T2.ID;",
     "A window definition was provided for a Table-Table join. These joins are not windowed. Please drop the "
     "window definition (i.e. the WITHIN clause) and try to execute your Table-Table join again."),
    ("a side of the criteria naming no source",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN S2 WITHIN 1 SECOND\n  ON S1.ID = 7;",
     f"Invalid comparison expression '7' in join '(S1.ID = 7)'. {ONE_SOURCE}"),
    ("a side of the criteria naming both sources",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN S2 WITHIN 1 SECOND\n  ON S1.ID + S2.ID = S2.A;",
     f"Invalid comparison expression '(S1.ID + S2.ID)' in join '((S1.ID + S2.ID) = S2.A)'. {ONE_SOURCE}"),
    ("both sides of the criteria naming one source",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN S2 WITHIN 1 SECOND\n  ON S1.ID = S1.A;",
     "Each side of the join must reference exactly one source and not the same source. Left side references "
     "`S1` and right references `S1`"),
    ("two equalities joined by AND",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN S2 WITHIN 1 SECOND\n  ON S1.ID = S2.ID AND S1.A = S2.A;",
     "Invalid join condition: joins on multiple conditions are not yet supported. Got ((S1.ID = S2.ID) AND "
     "(S1.A = S2.A))."),
    ("an equality OR a comparison",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN S2 WITHIN 1 SECOND\n  ON S1.ID = S2.ID OR S1.A > 1;",
     "Unsupported join expression: ((S1.ID = S2.ID) OR (S1.A > 1))"),
    ("a criteria that is no comparison",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN S2 WITHIN 1 SECOND\n  ON S1.ID;",
     "Unsupported join expression: S1.ID"),
    ("a comparison other than equality",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN S2 WITHIN 1 SECOND\n  ON S1.ID > S2.ID;",
     "Only equality join criteria is supported."),
    ("join expressions of different types",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN S2 WITHIN 1 SECOND\n  ON S1.ID = S2.B;",
     "Invalid join condition: types don't match. Got S1.ID{INTEGER} = S2.B{STRING}."),
    ("a stream-table join off the table's primary key",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN T1 ON S1.ID = T1.A;",
     "Invalid join condition: stream-table joins require to join on the table's primary key. Got S1.ID = T1.A."),
    ("a table-table join off the right table's primary key",
     "CREATE TABLE O AS SELECT *\n  FROM T1\n  JOIN T2 ON T1.ID = T2.A;",
     "Invalid join condition: table-table joins require to join on the primary key of the right input table. "
     "Got T1.ID = T2.A."),
    ("a table joined to a stream",
     "CREATE TABLE O AS SELECT *\n  FROM T1\n  JOIN S1 ON T1.ID = S1.ID;",
     "Invalid join order: table-stream joins are not supported; only stream-table joins. Got T1 [INNER] JOIN S1."),
    ("a full outer stream-table join",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  FULL JOIN T1 ON S1.ID = T1.ID;",
     "Invalid join type: full-outer join not supported for stream-table join. Got S1 [FULL] OUTER JOIN T1."),
    ("a self join",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN S1 WITHIN 1 SECOND ON S1.ID = S1.ID;",
     "Can not join 'S1' to 'S1': self joins are not yet supported."),
    ("a windowed source joined to one that is not",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN W1 WITHIN 1 SECOND ON S1.ID = W1.ID;",
     "Can not join windowed source to non-windowed source.\n`S1` is not windowed\n`W1` is TUMBLING windowed"),
    ("a later criteria not naming the source it joins",
     "CREATE STREAM O AS SELECT *\n  FROM S1\n  JOIN T1 ON S1.ID = T1.ID\n  JOIN T2 ON S1.ID = T1.ID;",
     "A join criteria is expected to reference the source (`T2`) in the FROM clause, instead the right source "
     "references `T1` and the left source references `S1`"),
    ("a foreign-key step in an n-way join",
     "CREATE TABLE O AS SELECT *\n  FROM T1\n  JOIN T2 ON T1.ID = T2.ID\n  JOIN T3 ON T1.B = T3.ID;",
     "Invalid join condition: foreign-key table-table joins are not supported as part of n-way joins. "
     "Got T1.B = T3.ID."),
    ("a table join step re-keying a full outer join's table",
     "CREATE TABLE O AS SELECT L.ID, L.A\n  FROM T1 L\n  FULL JOIN T2 R ON L.ID = R.ID\n  LEFT JOIN T4 X ON L.ID = X.ID;",
     "Cannot repartition a TABLE source. If this is a join, make sure that the criteria uses the TABLE's key "
     "column ROWKEY instead of [L_ID]"),
    ("no join expression selected",
     "CREATE STREAM O AS SELECT S1.A\n  FROM S1\n  JOIN T1 ON S1.ID = T1.ID;",
     f"{KEY_LINE}The query used to build `O` must include the join expressions S1.ID or T1.ID in its "
     "projection (eg, SELECT S1.ID...)."),
    ("the synthetic key not selected",
     "CREATE STREAM O AS SELECT S1.A\n  FROM S1\n  FULL JOIN S2 WITHIN 1 SECOND ON S1.ID = S2.ID;",
     f"{KEY_LINE}The query used to build `O` must include the join expression ROWKEY in its projection (eg, "
     "SELECT ROWKEY...).\nROWKEY was added as a synthetic key column because the join criteria did not match "
     "any source column. This expression must be included in the projection and may be aliased. "),
    ("a grouping expression not selected",
     "CREATE TABLE O AS SELECT COUNT(*) AS C\n  FROM S1\n  GROUP BY S1.A;",
     f"{KEY_LINE_NO_LINK}The query used to build `O` must include the grouping expression A in its projection (eg, "
     "SELECT A...)."),
    ("a partitioning expression not selected",
     "CREATE STREAM O AS SELECT S1.B\n  FROM S1\n  PARTITION BY S1.A;",
     f"{KEY_LINE_NO_LINK}The query used to build `O` must include the partitioning expression S1.A in its projection "
     "(eg, SELECT S1.A...)."),
]


def cases() -> list[dict[str, Any]]:
    return [{"name": name, "statements": SOURCES + [sql],
             "expectedError": {"type": STATEMENT_ERROR, "message": message, "status": 400}}
            for name, sql, message in REFUSALS]


if __name__ == "__main__":
    (HERE / "join-refusal-texts.json").write_text(json.dumps({"comments": [__doc__.split("\n\n")[0]],
                                                              "tests": cases()}, indent=2) + "\n")
