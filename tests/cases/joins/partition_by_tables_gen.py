"""PARTITION BY over a table - a source table or a table join's result: writes
tests/cases/joins/partition-by-tables.json (``python tests/cases/joins/partition_by_tables_gen.py``).

The rule (from memory of ksqlDB's LogicalPlanner.buildUserRepartitionNode and SchemaKTable.selectKey): the
logical planner rewrites the PARTITION BY expressions over its input's column names - a single source's
``USERS.N`` is ``N``, a join's ``A.N`` is ``A_N`` - and builds the re-keying step with them; building the
physical plan, a table asked to re-key by anything but its own key column(s) refuses: a table keyed by several
columns with the multi-column text, else naming its key column (a join result's as its JoinNode names it:
``A_ID``, a FULL join's synthetic ``ROWKEY``, a foreign-key join's left key ``F_ID``) and the rewritten
expressions, all of them, as a Java list (``[N]``, ``[(M + 1)]``, ``[N, M]``, ``[null]``). That is after the
logical planner's checks: a partitioning expression missing from a persistent query's projection is reported
first, with the expressions as written (qualified). PARTITION BY exactly the table's key re-keys nothing.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

USERS = ("CREATE TABLE USERS (ID INT PRIMARY KEY, N STRING, M INT) WITH (kafka_topic='users', format='JSON', "
         "partitions=1);")
MK = ("CREATE TABLE MK (A INT PRIMARY KEY, B INT PRIMARY KEY, N STRING) WITH (kafka_topic='mk', format='JSON', "
      "partitions=1);")
A = "CREATE TABLE A (ID INT PRIMARY KEY, N STRING, M INT) WITH (kafka_topic='a', format='JSON', partitions=1);"
B = "CREATE TABLE B (ID INT PRIMARY KEY, X STRING) WITH (kafka_topic='b', format='JSON', partitions=1);"
F = "CREATE TABLE F (ID INT PRIMARY KEY, AID INT, Y STRING) WITH (kafka_topic='f', format='JSON', partitions=1);"
MULTI = ("Cannot repartition a TABLE source. If this is a join, joins on tables with multiple columns is not yet "
         "supported.")


def refusal(key: str, exprs: str) -> str:
    return ("Cannot repartition a TABLE source. If this is a join, make sure that the criteria uses the TABLE's key "
            f"column {key} instead of [{exprs}]")


def missing(sink: str, expr: str) -> str:
    return (f"Key missing from projection (ie, SELECT). \nThe query used to build `{sink}` must include the "
            f"partitioning expression {expr} in its projection (eg, SELECT {expr}...).")


# (name, statements, message)
ERRORS: list[tuple[str, list[str], str]] = [
    ("a table by a value column: the column unqualified",
     [USERS, "CREATE TABLE O AS SELECT * FROM USERS PARTITION BY N;"], refusal("ID", "N")),
    ("a table by a column qualified by its name: the qualifier dropped",
     [USERS, "CREATE TABLE O AS SELECT * FROM USERS PARTITION BY USERS.N;"], refusal("ID", "N")),
    ("a table by a column qualified by its alias: the qualifier dropped",
     [USERS, "CREATE TABLE O AS SELECT * FROM USERS U PARTITION BY U.N;"], refusal("ID", "N")),
    ("a table by arithmetic, projected",
     [USERS, "CREATE TABLE O AS SELECT M + 1 AS K, N FROM USERS PARTITION BY M + 1;"], refusal("ID", "(M + 1)")),
    ("a table by a function call",
     [USERS, "CREATE TABLE O AS SELECT * FROM USERS PARTITION BY UCASE(USERS.N);"], refusal("ID", "UCASE(N)")),
    ("a table by two value columns: every expression listed",
     [USERS, "CREATE TABLE O AS SELECT * FROM USERS PARTITION BY N, M;"], refusal("ID", "N, M")),
    ("a table by its key and a value column: every expression listed",
     [USERS, "CREATE TABLE O AS SELECT * FROM USERS PARTITION BY ID, N;"], refusal("ID", "ID, N")),
    ("a table by NULL",
     [USERS, "CREATE TABLE O AS SELECT * FROM USERS PARTITION BY NULL;"], refusal("ID", "null")),
    ("a table by ROWTIME",
     [USERS, "CREATE TABLE O AS SELECT * FROM USERS PARTITION BY ROWTIME;"], refusal("ID", "ROWTIME")),
    ("a table in a push query: the same refusal",
     [USERS, "SELECT * FROM USERS PARTITION BY N EMIT CHANGES;"], refusal("ID", "N")),
    ("a table by a column the projection leaves out: the missing key first, as written",
     [USERS, "CREATE TABLE O AS SELECT ID, M FROM USERS PARTITION BY N;"], missing("O", "USERS.N")),
    ("a table keyed by two columns, by a value column",
     [MK, "CREATE TABLE O AS SELECT * FROM MK PARTITION BY N;"], MULTI),
    ("a table keyed by two columns, by one of them",
     [MK, "CREATE TABLE O AS SELECT * FROM MK PARTITION BY A;"], MULTI),
    ("a table keyed by two columns, by both in another order",
     [MK, "CREATE TABLE O AS SELECT * FROM MK PARTITION BY B, A;"], MULTI),
    ("a table join by the left table's value column: its joined name",
     [A, B, "CREATE TABLE O AS SELECT * FROM A JOIN B ON A.ID = B.ID PARTITION BY A.N;"], refusal("A_ID", "A_N")),
    ("a table join by the right table's key: not the join's key column",
     [A, B, "CREATE TABLE O AS SELECT * FROM A JOIN B ON A.ID = B.ID PARTITION BY B.ID;"], refusal("A_ID", "B_ID")),
    ("a LEFT table join by two columns, one unqualified: every expression under its joined name",
     [A, B, "CREATE TABLE O AS SELECT * FROM A LEFT JOIN B ON A.ID = B.ID PARTITION BY A.N, X;"],
     refusal("A_ID", "A_N, B_X")),
    ("a FULL table join by a value column: the synthetic key column",
     [A, B, "CREATE TABLE O AS SELECT * FROM A FULL JOIN B ON A.ID = B.ID PARTITION BY A.N;"],
     refusal("ROWKEY", "A_N")),
    ("a FULL table join by the left key: not the synthetic key column",
     [A, B, "CREATE TABLE O AS SELECT * FROM A FULL JOIN B ON A.ID = B.ID PARTITION BY A.ID;"],
     refusal("ROWKEY", "A_ID")),
    ("a foreign-key join by the right table's column: the left table's key",
     [A, F, "CREATE TABLE O AS SELECT F.ID, F.Y, A.N FROM F JOIN A ON F.AID = A.ID PARTITION BY A.N;"],
     refusal("F_ID", "A_N")),
    ("a join of aliased tables by arithmetic, projected: the aliases' joined names",
     [A, B, "CREATE TABLE O AS SELECT P.M + 1 AS K, Q.X FROM A P JOIN B Q ON P.ID = Q.ID PARTITION BY P.M + 1;"],
     refusal("P_ID", "(P_M + 1)")),
    ("a table join by a column the projection leaves out: the missing key first, as written",
     [A, B, "CREATE TABLE O AS SELECT A.ID, B.X FROM A JOIN B ON A.ID = B.ID PARTITION BY A.N;"],
     missing("O", "A.N")),
    ("a table join in a push query: the same refusal",
     [A, B, "SELECT * FROM A JOIN B ON A.ID = B.ID PARTITION BY A.N EMIT CHANGES;"], refusal("A_ID", "A_N")),
]

# (name, statements, inputs, outputs): PARTITION BY the table's own key re-keys nothing
ACCEPTED: list[tuple[str, list[str], list[Any], list[Any]]] = [
    ("a table by its key column", [USERS, "CREATE TABLE O AS SELECT * FROM USERS PARTITION BY ID;"],
     [("users", 1, {"N": "a", "M": 2}, 10)], [("O", 1, {"N": "a", "M": 2}, 10)]),
    ("a table keyed by two columns, by both in key order",
     [MK, "CREATE TABLE O AS SELECT * FROM MK PARTITION BY A, B;"],
     [("mk", {"A": 1, "B": 2}, {"N": "a"}, 10)], [("O", {"A": 1, "B": 2}, {"N": "a"}, 10)]),
    ("a table join by the left table's key: the join's key column",
     [A, B, "CREATE TABLE O AS SELECT A.ID, N, X FROM A JOIN B ON A.ID = B.ID PARTITION BY A.ID;"],
     [("a", 1, {"N": "n", "M": 2}, 10), ("b", 1, {"X": "x"}, 11)], [("O", 1, {"N": "n", "X": "x"}, 11)]),
    ("a foreign-key join by the left table's key",
     [A, F, "CREATE TABLE O AS SELECT F.ID, F.Y, A.N FROM F JOIN A ON F.AID = A.ID PARTITION BY F.ID;"],
     [("a", 1, {"N": "n", "M": 2}, 10), ("f", 5, {"AID": 1, "Y": "y"}, 11)], [("O", 5, {"Y": "y", "N": "n"}, 11)]),
]


def main() -> None:
    tests: list[dict[str, Any]] = []
    for name, statements, message in ERRORS:
        tests.append({"name": name, "statements": statements,
                      "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                                            "message": message}})
    fields = ("topic", "key", "value", "timestamp")
    for name, statements, inputs, outputs in ACCEPTED:
        tests.append({"name": name, "statements": statements,
                      "inputs": [dict(zip(fields, i, strict=True)) for i in inputs],
                      "outputs": [dict(zip(fields, o, strict=True)) for o in outputs]})
    doc = {"comments": [line.strip() for line in (__doc__ or "").split("\n\n")[1:2]], "tests": tests}
    (pathlib.Path(__file__).parent / "partition-by-tables.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
