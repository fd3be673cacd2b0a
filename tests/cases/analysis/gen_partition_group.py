"""Writes tests/cases/analysis/partition-group.json: PARTITION BY in a query that aggregates - with GROUP BY,
with a WINDOW, and (push) with aggregates and no GROUP BY.

ksqlDB's LogicalPlanner (from memory of buildPersistentLogicalPlan / buildQueryLogicalPlan) re-keys the input
(UserRepartitionNode) after WHERE and before the aggregation; an aggregate without GROUP BY in a push query is
grouped by a constant the Analyzer adds, so it takes the same path. The PARTITION BY keeps its own rules -
its columns are the input's, it holds no aggregate, a table (unless partitioned by its key) or a windowed
source cannot be re-keyed - and the grouping re-keys the rows again: the results are those of the same
aggregation without PARTITION BY (the GROUP BY and the aggregates' arguments name the input's columns). There
is no rule against the two together (ksqlpy had refused them as "Cannot mix PARTITION BY and GROUP BY", a text
of its own, and a push query's aggregates after a PARTITION BY read the wrong columns).

Run ``python tests/cases/analysis/gen_partition_group.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
S = "CREATE STREAM S (K STRING KEY, A INT, B STRING, C INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
R = "CREATE STREAM R (K STRING KEY, D INT) WITH (kafka_topic='r', value_format='JSON', partitions=1);"
T = "CREATE TABLE T (K STRING PRIMARY KEY, A INT, B STRING) WITH (kafka_topic='t', value_format='JSON', partitions=1);"
TB = "CREATE TABLE TB (K STRING PRIMARY KEY, Y INT) WITH (kafka_topic='tb', value_format='JSON', partitions=1);"
W = ("CREATE STREAM W (K STRING KEY, A INT, B STRING) WITH (kafka_topic='w', value_format='JSON', partitions=1, "
     "window_type='TUMBLING', window_size='1 SECOND');")

# two records of one group "g" (B), keys and A differing
ROWS = [{"topic": "s", "key": "x", "value": {"A": 1, "B": "g", "C": 10}, "timestamp": 100},
        {"topic": "s", "key": "y", "value": {"A": 2, "B": "g", "C": 20}, "timestamp": 200}]


def _out(key: Any, value: dict[str, Any], ts: int, **extra: Any) -> dict[str, Any]:
    return {"topic": "OUT", "key": key, "value": value, "timestamp": ts, **extra}


def _error(name: str, statements: list[str], message: str) -> dict[str, Any]:
    return {"name": name, "statements": statements, "expectedException": {"type": EXCEPTION, "message": message}}


def results() -> list[dict[str, Any]]:
    """The aggregation's results, as without PARTITION BY, whatever it partitions by."""
    out: list[dict[str, Any]] = []
    for by in ("A", "K", "B", "C, A", "A + 1", "ABS(C)", "NULL"):
        out.append({
            "name": f"GROUP BY a value column, PARTITION BY {by}",
            "statements": [S, f"CREATE TABLE OUT AS SELECT B, COUNT(*) AS N, SUM(A) AS T, MAX(C) AS M, "
                              f"COLLECT_LIST(K) AS KS FROM S GROUP BY B PARTITION BY {by};"],
            "inputs": ROWS,
            "outputs": [_out("g", {"N": 1, "T": 1, "M": 10, "KS": ["x"]}, 100),
                        _out("g", {"N": 2, "T": 3, "M": 20, "KS": ["x", "y"]}, 200)],
        })
    out.append({
        "name": "GROUP BY the key, PARTITION BY a value column",
        "statements": [S, "CREATE TABLE OUT AS SELECT K, COUNT(*) AS N, MAX(B) AS M FROM S GROUP BY K PARTITION BY A;"],
        "inputs": [{"topic": "s", "key": "x", "value": {"A": 1, "B": "p", "C": 0}, "timestamp": 1},
                   {"topic": "s", "key": "x", "value": {"A": 2, "B": "q", "C": 0}, "timestamp": 2}],
        "outputs": [_out("x", {"N": 1, "M": "p"}, 1), _out("x", {"N": 2, "M": "q"}, 2)],
    })
    out.append({
        "name": "GROUP BY the partitioning column",
        "statements": [S, "CREATE TABLE OUT AS SELECT A, COUNT(*) AS N FROM S GROUP BY A PARTITION BY A;"],
        "inputs": [{"topic": "s", "key": "x", "value": {"A": 7, "B": "p", "C": 0}, "timestamp": 1},
                   {"topic": "s", "key": "y", "value": {"A": 7, "B": "q", "C": 0}, "timestamp": 2}],
        "outputs": [_out(7, {"N": 1}, 1), _out(7, {"N": 2}, 2)],
    })
    out.append({
        "name": "windowed GROUP BY, PARTITION BY another column",
        "statements": [S, "CREATE TABLE OUT AS SELECT B, COUNT(*) AS N, SUM(C) AS T FROM S "
                          "WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY B PARTITION BY A;"],
        "inputs": ROWS,
        "outputs": [_out("g", {"N": 1, "T": 10}, 100, window={"start": 0, "end": 1000, "type": "time"}),
                    _out("g", {"N": 2, "T": 30}, 200, window={"start": 0, "end": 1000, "type": "time"})],
    })
    out.append({
        "name": "WHERE, GROUP BY and HAVING around PARTITION BY",
        "statements": [S, "CREATE TABLE OUT AS SELECT B, SUM(C) AS T FROM S WHERE A > 1 GROUP BY B PARTITION BY K "
                          "HAVING SUM(C) > 5;"],
        "inputs": ROWS,
        "outputs": [_out("g", {"T": 20}, 200)],
    })
    out.append({
        "name": "a table partitioned by its own key, grouped",
        "statements": [T, "CREATE TABLE OUT AS SELECT B, COUNT(*) AS N FROM T GROUP BY B PARTITION BY K;"],
        "inputs": [{"topic": "t", "key": "x", "value": {"A": 1, "B": "g"}, "timestamp": 1},
                   {"topic": "t", "key": "y", "value": {"A": 2, "B": "g"}, "timestamp": 2}],
        "outputs": [_out("g", {"N": 1}, 1), _out("g", {"N": 2}, 2)],
    })
    out.append({
        "name": "a stream-stream join grouped and partitioned",
        "statements": [S, R, "CREATE TABLE OUT AS SELECT S.B, SUM(R.D) AS T FROM S JOIN R WITHIN 1 SECOND "
                             "ON S.K = R.K GROUP BY S.B PARTITION BY S.A;"],
        "inputs": [{"topic": "s", "key": "x", "value": {"A": 1, "B": "g", "C": 0}, "timestamp": 1},
                   {"topic": "r", "key": "x", "value": {"D": 5}, "timestamp": 2}],
        "outputs": [_out("g", {"T": 5}, 2)],
    })
    out.append({
        "name": "a stream-table join grouped and partitioned",
        "statements": [S, TB, "CREATE TABLE OUT AS SELECT TB.Y, SUM(S.A) AS T FROM S JOIN TB ON S.K = TB.K "
                              "GROUP BY TB.Y PARTITION BY S.C;"],
        "inputs": [{"topic": "tb", "key": "x", "value": {"Y": 2}, "timestamp": 1},
                   {"topic": "s", "key": "x", "value": {"A": 5, "B": "g", "C": 0}, "timestamp": 2}],
        "outputs": [_out(2, {"T": 5}, 2)],
    })
    out.append({
        "name": "a table-table join grouped and partitioned by its key",
        "statements": [T, TB, "CREATE TABLE OUT AS SELECT T.B, COUNT(*) AS N FROM T JOIN TB ON T.K = TB.K "
                              "GROUP BY T.B PARTITION BY T.K;"],
        "inputs": [{"topic": "t", "key": "x", "value": {"A": 1, "B": "g"}, "timestamp": 1},
                   {"topic": "tb", "key": "x", "value": {"Y": 2}, "timestamp": 2}],
        "outputs": [_out("g", {"N": 1}, 2)],
    })
    return out


def refusals() -> list[dict[str, Any]]:
    """PARTITION BY's own rules hold in an aggregating query."""
    unknown = ("PARTITION BY column 'NOPE' cannot be resolved. 'NOPE' must be a column in the source schema since "
               "PARTITION BY is applied on the input.")
    return [
        _error("an unknown PARTITION BY column with GROUP BY",
               [S, "CREATE TABLE OUT AS SELECT B, COUNT(*) AS N FROM S GROUP BY B PARTITION BY NOPE;"], unknown),
        _error("a PARTITION BY naming a result column with GROUP BY",
               [S, "CREATE TABLE OUT AS SELECT B, COUNT(*) AS N FROM S GROUP BY B PARTITION BY N;"],
               "PARTITION BY column 'N' cannot be resolved. 'N' must be a column in the source schema since "
               "PARTITION BY is applied on the input."),
        _error("an aggregate in PARTITION BY with GROUP BY",
               [S, "CREATE TABLE OUT AS SELECT B, COUNT(*) AS N FROM S GROUP BY B PARTITION BY COUNT(*);"],
               "PARTITION BY does not support aggregate functions: COUNT is an aggregate function."),
        _error("a table partitioned by a value column with GROUP BY",
               [T, "CREATE TABLE OUT AS SELECT B, COUNT(*) AS N FROM T GROUP BY B PARTITION BY A;"],
               "Cannot repartition a TABLE source. If this is a join, make sure that the criteria uses the TABLE's "
               "key column K instead of [A]"),
        _error("a table-table join partitioned by a value column with GROUP BY",
               [T, TB, "CREATE TABLE OUT AS SELECT T.B, COUNT(*) AS N FROM T JOIN TB ON T.K = TB.K "
                       "GROUP BY T.B PARTITION BY TB.Y;"],
               "Cannot repartition a TABLE source. If this is a join, make sure that the criteria uses the TABLE's "
               "key column T_K instead of [TB_Y]"),
        _error("a windowed stream partitioned with GROUP BY",
               [W, "CREATE TABLE OUT AS SELECT B, COUNT(*) AS N FROM W GROUP BY B PARTITION BY A;"],
               "Implicit repartitioning of windowed sources is not supported. See "
               "https://github.com/confluentinc/ksql/issues/4385."),
        _error("a WINDOW without GROUP BY and a PARTITION BY",
               [S, "CREATE STREAM OUT AS SELECT A FROM S WINDOW TUMBLING (SIZE 1 SECOND) PARTITION BY A;"],
               "WINDOW clause requires a GROUP BY clause."),
        _error("a non-aggregate SELECT column with GROUP BY and PARTITION BY",
               [S, "CREATE TABLE OUT AS SELECT B, A, COUNT(*) AS N FROM S GROUP BY B PARTITION BY A;"],
               "Non-aggregate SELECT expression(s) not part of GROUP BY: A"),
        _error("a persistent aggregate without GROUP BY and a PARTITION BY",
               [S, "CREATE TABLE OUT AS SELECT COUNT(*) AS N FROM S PARTITION BY A;"],
               "CREATE TABLE AS SELECT statement does not support aggregate function [COUNT(ROWTIME)] without a "
               "GROUP BY clause."),
        _error("the grouping key missing from the projection with PARTITION BY",
               [S, "CREATE TABLE OUT AS SELECT COUNT(*) AS N FROM S GROUP BY B PARTITION BY A;"],
               "The query used to build `OUT` must include the grouping expression B in its projection"),
    ]


def cases() -> list[dict[str, Any]]:
    return [*results(), *refusals()]


if __name__ == "__main__":
    path = Path(__file__).with_name("partition-group.json")
    path.write_text(json.dumps({"comments": ["Generated by gen_partition_group.py - do not edit."], "tests": cases()},
                               indent=2) + "\n")
    print(f"{len(cases())} cases -> {path}")
