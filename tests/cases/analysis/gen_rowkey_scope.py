"""Writes tests/cases/analysis/rowkey-scope.json: where a query may name ROWKEY (ksqlDB 0.10 and later).

ksqlDB's rule (its Analyzer's ColumnReferenceValidator with ColumnNames.maybeSyntheticJoinKey; from memory, and
as ../shared/reference/ksqldb-rules.md 1.8 states it): ROWKEY is no pseudo column any more, so a source without a
column of that name has none - ``<CLAUSE> column 'ROWKEY' cannot be resolved.`` in WHERE, GROUP BY, PARTITION BY,
HAVING and SELECT, in persistent and transient queries. A join whose criteria match no source column (a FULL OUTER
join, or expressions on both sides) gives its result a synthetic key column ``ROWKEY`` (``ROWKEY_1``, ... when a
source has a column of that name). The analyzer cannot know yet whether the join has one, so an unqualified
``ROWKEY[_n]`` is let through - in the SELECT of a join without GROUP BY only; every other clause is resolved
against the sources, and a grouped SELECT reads the aggregation's columns. A join without a synthetic key then
refuses ``SELECT ROWKEY`` when its projection is planned. The sink of a join with a synthetic key has a real ROWKEY
column that later queries use in every clause.

Run ``python tests/cases/analysis/gen_rowkey_scope.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"


def ddl(kind: str, name: str, cols: str) -> str:
    key = "KEY" if kind == "STREAM" else "PRIMARY KEY"
    return (f"CREATE {kind} {name} (K STRING {key}, {cols}) "
            f"WITH (kafka_topic='{name.lower()}', value_format='JSON', partitions=1);")


L_STREAM = ddl("STREAM", "L", "A INT, V STRING")
R_STREAM = ddl("STREAM", "R", "B INT, W STRING")
L_TABLE = ddl("TABLE", "LT", "A INT, V STRING")
R_TABLE = ddl("TABLE", "RT", "B INT, W STRING")
FK_TABLE = ddl("TABLE", "FT", "A INT, FK STRING")


class Join:
    """One join shape: its sources, its FROM clause, whether its key is synthetic, whether its result is a table."""

    def __init__(self, label: str, sources: list[str], from_: str, synthetic: bool, table: bool) -> None:
        self.label, self.sources, self.from_, self.synthetic, self.table = label, sources, from_, synthetic, table


JOINS = [
    Join("a FULL OUTER stream-stream join", [L_STREAM, R_STREAM],
         "L FULL OUTER JOIN R WITHIN 1 MINUTE ON L.K = R.K", True, False),
    Join("an INNER stream-stream join on expressions", [L_STREAM, R_STREAM],
         "L JOIN R WITHIN 1 MINUTE ON L.A + 1 = R.B", True, False),
    Join("a FULL OUTER table-table join", [L_TABLE, R_TABLE], "LT FULL OUTER JOIN RT ON LT.K = RT.K", True, True),
    Join("an INNER stream-stream join on keys", [L_STREAM, R_STREAM],
         "L JOIN R WITHIN 1 MINUTE ON L.K = R.K", False, False),
    Join("a LEFT stream-table join", [L_STREAM, R_TABLE], "L LEFT JOIN RT ON L.K = RT.K", False, False),
    Join("an INNER table-table join", [L_TABLE, R_TABLE], "LT JOIN RT ON LT.K = RT.K", False, True),
    Join("a foreign-key table-table join", [FK_TABLE, R_TABLE], "FT JOIN RT ON FT.FK = RT.K", False, True),
]


def refused(clause: str, name: str = "ROWKEY") -> dict[str, str]:
    return {"type": EXCEPTION, "message": f"{clause} column '{name}' cannot be resolved."}


def join_cases() -> list[Case]:
    out: list[Case] = []
    for j in JOINS:
        left = j.from_.split()[0]
        # a projection that is valid for the join (its key included) apart from the clause under test
        key = "ROWKEY" if j.synthetic else f"{left}.K"
        sink = "TABLE" if j.table else "STREAM"
        shapes: list[tuple[str, str, str]] = [
            ("WHERE", f"CREATE {sink} OUT AS SELECT {key}, {left}.A FROM {j.from_} WHERE ROWKEY IS NOT NULL;",
             "WHERE"),
            ("GROUP BY", f"CREATE TABLE OUT AS SELECT ROWKEY, COUNT(*) AS C FROM {j.from_} GROUP BY ROWKEY;",
             "GROUP BY"),
            ("HAVING", f"CREATE TABLE OUT AS SELECT {left}.A, COUNT(*) AS C FROM {j.from_} GROUP BY {left}.A "
                       "HAVING ROWKEY IS NOT NULL;", "HAVING"),
            ("a grouped SELECT", f"CREATE TABLE OUT AS SELECT {left}.A, ROWKEY AS RK, COUNT(*) AS C FROM {j.from_} "
                                 f"GROUP BY {left}.A;", "SELECT"),
            ("a transient query's WHERE", f"SELECT {key}, {left}.A FROM {j.from_} WHERE ROWKEY = 'a' EMIT CHANGES;",
             "WHERE"),
        ]
        if not j.table:  # PARTITION BY of a table join is refused on other grounds once analysed
            shapes.append(("PARTITION BY", f"CREATE STREAM OUT AS SELECT {key}, {left}.A FROM {j.from_} "
                                           "PARTITION BY ROWKEY;", "PARTITION BY"))
        for label, statement, clause in shapes:
            out.append({"name": f"ROWKEY in {label} of {j.label}", "statements": [*j.sources, statement],
                        "expectedException": refused(clause)})
        if not j.synthetic:
            out.append({"name": f"ROWKEY in the SELECT of {j.label} (no synthetic key)",
                        "statements": [*j.sources, f"CREATE {sink} OUT AS SELECT ROWKEY, {key} AS KK, {left}.A "
                                                   f"FROM {j.from_};"],
                        "expectedException": refused("SELECT")})
    return out


def synthetic_cases() -> list[Case]:
    """The synthetic key read in SELECT, by its numbered name when a source has a ROWKEY column, and by later
    queries over the sink."""
    rk_left = "CREATE STREAM L (ROWKEY STRING KEY, A INT) WITH (kafka_topic='l', value_format='JSON', partitions=1);"
    full = "L FULL OUTER JOIN R WITHIN 1 MINUTE ON L.ROWKEY = R.K"
    out: list[Case] = [
        {"name": "the synthetic key of a FULL OUTER join selected and aliased",
         "statements": [L_STREAM, R_STREAM,
                        "CREATE STREAM OUT AS SELECT ROWKEY AS ID, L.A, R.B FROM L FULL OUTER JOIN R WITHIN 1 MINUTE "
                        "ON L.K = R.K;"],
         "inputs": [{"topic": "l", "key": "a", "value": {"A": 1, "V": "x"}, "timestamp": 0},
                    {"topic": "r", "key": "a", "value": {"B": 2, "W": "y"}, "timestamp": 10}],
         "outputs": [{"topic": "OUT", "key": "a", "value": {"A": 1, "B": None}, "timestamp": 0},
                     {"topic": "OUT", "key": "a", "value": {"A": 1, "B": 2}, "timestamp": 10}],
         "post": {"sources": [{"name": "OUT", "type": "stream", "schema": "ID STRING KEY, A INT, B INT"}]}},
        {"name": "a source's ROWKEY column makes the synthetic key ROWKEY_1, selected by that name",
         "statements": [rk_left, R_STREAM, f"CREATE STREAM OUT AS SELECT ROWKEY_1, L.A, R.B FROM {full};"],
         "inputs": [{"topic": "l", "key": "a", "value": {"A": 1}, "timestamp": 0}],
         "outputs": [{"topic": "OUT", "key": "a", "value": {"A": 1, "B": None}, "timestamp": 0}],
         "post": {"sources": [{"name": "OUT", "type": "stream", "schema": "ROWKEY_1 STRING KEY, A INT, B INT"}]}},
        {"name": "ROWKEY_1 in WHERE of a join whose synthetic key it is",
         "statements": [rk_left, R_STREAM, f"CREATE STREAM OUT AS SELECT ROWKEY_1, L.A FROM {full} "
                                           "WHERE ROWKEY_1 IS NOT NULL;"],
         "expectedException": refused("WHERE", "ROWKEY_1")},
        {"name": "a source's own ROWKEY column in WHERE of a join is that column",
         "statements": [rk_left, R_STREAM, f"CREATE STREAM OUT AS SELECT ROWKEY_1, L.A FROM {full} "
                                           "WHERE ROWKEY = 'a';"],
         "inputs": [{"topic": "l", "key": "a", "value": {"A": 1}, "timestamp": 0},
                    {"topic": "l", "key": "b", "value": {"A": 2}, "timestamp": 1}],
         "outputs": [{"topic": "OUT", "key": "a", "value": {"A": 1}, "timestamp": 0}]},
        {"name": "ROWKEY qualified by a join source without such a column",
         "statements": [L_STREAM, R_STREAM, "CREATE STREAM OUT AS SELECT L.ROWKEY, L.A FROM L FULL OUTER JOIN R "
                                            "WITHIN 1 MINUTE ON L.K = R.K;"],
         "expectedException": refused("SELECT", "L.ROWKEY")},
        {"name": "the sink's synthetic key column is a real column of later queries",
         "statements": [L_STREAM, R_STREAM,
                        "CREATE STREAM J AS SELECT ROWKEY, L.A, R.B FROM L FULL OUTER JOIN R WITHIN 1 MINUTE "
                        "ON L.K = R.K;",
                        "CREATE STREAM OUT AS SELECT ROWKEY, A FROM J WHERE ROWKEY = 'a' PARTITION BY ROWKEY;",
                        "CREATE TABLE CNT AS SELECT ROWKEY, COUNT(*) AS C FROM J GROUP BY ROWKEY "
                        "HAVING ROWKEY <> 'z';"],
         "inputs": [{"topic": "l", "key": "a", "value": {"A": 1, "V": "x"}, "timestamp": 0},
                    {"topic": "l", "key": "b", "value": {"A": 2, "V": "x"}, "timestamp": 1}],
         "outputs": [{"topic": "J", "key": "a", "value": {"A": 1, "B": None}, "timestamp": 0},
                     {"topic": "J", "key": "b", "value": {"A": 2, "B": None}, "timestamp": 1},
                     {"topic": "OUT", "key": "a", "value": {"A": 1}, "timestamp": 0},
                     {"topic": "CNT", "key": "a", "value": {"C": 1}, "timestamp": 0},
                     {"topic": "CNT", "key": "b", "value": {"C": 1}, "timestamp": 1}]},
    ]
    return out


def single_source_cases() -> list[Case]:
    """ROWKEY on a source without such a column: unknown in every clause."""
    stream = ddl("STREAM", "S", "A INT")
    table = ddl("TABLE", "T", "A INT")
    shapes = [
        ("SELECT of a stream", stream, "CREATE STREAM OUT AS SELECT ROWKEY, A FROM S;", "SELECT"),
        ("WHERE of a stream", stream, "CREATE STREAM OUT AS SELECT K, A FROM S WHERE ROWKEY = 'a';", "WHERE"),
        ("PARTITION BY of a stream", stream, "CREATE STREAM OUT AS SELECT K, A FROM S PARTITION BY ROWKEY;",
         "PARTITION BY"),
        ("GROUP BY of a stream", stream, "CREATE TABLE OUT AS SELECT ROWKEY, COUNT(*) AS C FROM S GROUP BY ROWKEY;",
         "GROUP BY"),
        ("HAVING of a stream", stream, "CREATE TABLE OUT AS SELECT K, COUNT(*) AS C FROM S GROUP BY K "
                                       "HAVING ROWKEY = 'a';", "HAVING"),
        ("SELECT of a table", table, "CREATE TABLE OUT AS SELECT ROWKEY, A FROM T;", "SELECT"),
        ("WHERE of a table", table, "CREATE TABLE OUT AS SELECT K, A FROM T WHERE ROWKEY = 'a';", "WHERE"),
        ("GROUP BY of a table", table, "CREATE TABLE OUT AS SELECT ROWKEY, COUNT(*) AS C FROM T GROUP BY ROWKEY;",
         "GROUP BY"),
        ("a transient query's SELECT", stream, "SELECT ROWKEY, A FROM S EMIT CHANGES;", "SELECT"),
        ("INSERT INTO ... SELECT", stream, "CREATE STREAM OUT AS SELECT K, A FROM S;\n"
                                          "INSERT INTO OUT SELECT ROWKEY AS K, A FROM S;", "SELECT"),
        ("a qualified reference", stream, "CREATE STREAM OUT AS SELECT S.ROWKEY, A FROM S;", "SELECT"),
    ]
    out: list[Case] = []
    for label, source, statement, clause in shapes:
        statements = [source, *statement.split("\n")]
        name = "S.ROWKEY" if "S.ROWKEY" in statement else "ROWKEY"
        out.append({"name": f"ROWKEY in {label} without such a column", "statements": statements,
                    "expectedException": refused(clause, name)})
    return out


def cases() -> list[Case]:
    return join_cases() + synthetic_cases() + single_source_cases()


if __name__ == "__main__":
    path = Path(__file__).with_name("rowkey-scope.json")
    path.write_text(json.dumps({"comments": ["Generated by gen_rowkey_scope.py - do not edit."], "tests": cases()},
                               indent=2) + "\n")
    print(f"{len(cases())} cases -> {path}")
