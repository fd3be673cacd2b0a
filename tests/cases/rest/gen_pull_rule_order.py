"""Generates ``pull-rule-order.json``: a pull query that breaks one of PullQueryValidator's rules and also has
a fault its analysis finds meets the analysis's error first, on every kind of source a pull query reads.

ksqlDB's QueryAnalyzer runs the Analyzer over the query - the SELECT items' rules (table functions with
aggregation), every column a clause names resolved (WHERE, GROUP BY, PARTITION BY, HAVING, SELECT, in that
order), the KAFKA value format's GROUP BY refusal - and only then PullQueryValidator: the clauses a pull query
does not support (WINDOW, GROUP BY - an aggregate without one is grouped by a constant -, PARTITION BY, HAVING),
a negative LIMIT, then ROWPARTITION / ROWOFFSET in SELECT or WHERE (from memory of QueryAnalyzer.analyze and
PullQueryValidator.validate; ksqldb-rules 1.8 states the order). ``ksql.query.pull.limit.clause.enabled=false``
is checked once the statement is analysed too. The rule alone keeps its own text (the last case of each rule).
A JOIN is refused once the Analyzer has read it: its sources, criteria, windowing and columns, and the KAFKA
value format's JOIN refusal come first.

Sources: a CTAS aggregation, a windowed aggregation, a SOURCE table, a stream (its pull query is a scan).

Run ``python tests/cases/rest/gen_pull_rule_order.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATEMENT_ERROR = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"
HINT = " See https://cnfl.io/queries for more info.\nAdd EMIT CHANGES if you intended to issue a push query."
STREAM = "CREATE STREAM S (ID INT KEY, V INT, ARR ARRAY<INT>) WITH (kafka_topic='s', value_format='JSON');"

SOURCES: dict[str, list[str]] = {
    "a CTAS aggregation": [STREAM, "CREATE TABLE X AS SELECT ID, COUNT(*) AS V, LATEST_BY_OFFSET(ARR) AS ARR "
                                   "FROM S GROUP BY ID;"],
    "a windowed aggregation": [STREAM, "CREATE TABLE X AS SELECT ID, COUNT(*) AS V, LATEST_BY_OFFSET(ARR) AS ARR "
                                       "FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID;"],
    "a SOURCE table": ["CREATE SOURCE TABLE X (ID INT PRIMARY KEY, V INT, ARR ARRAY<INT>) WITH (kafka_topic='x', "
                       "value_format='JSON');"],
    "a stream": ["CREATE STREAM X (ID INT KEY, V INT, ARR ARRAY<INT>) WITH (kafka_topic='x', value_format='JSON');"],
}


def unknown(clause: str, name: str = "NOPE") -> str:
    extra = (f" '{name}' must be a column in the source schema since PARTITION BY is applied on the input."
             if clause == "PARTITION BY" else "")
    return f"{clause} column '{name}' cannot be resolved.{extra}"


GROUP_BY = "Pull queries don't support GROUP BY clauses." + HINT
WINDOW = "Pull queries don't support WINDOW clauses." + HINT
PARTITION_BY = "Pull queries don't support PARTITION BY clauses." + HINT
HAVING = "Pull queries don't support HAVING clauses." + HINT
NEGATIVE = "Pull queries don't support negative integers in the LIMIT clause. See https://cnfl.io/queries for more info."
LIMIT_OFF = ("LIMIT clause in pull queries is currently disabled. You can enable them by setting "
             "ksql.query.pull.limit.clause.enabled=true." + HINT)
LIMIT_OFF_PROPS = {"ksql.query.pull.limit.clause.enabled": False}

# (rule, [(what the query adds, query, message)], properties): the rule's own refusal last
RULES: list[tuple[str, list[tuple[str, str, str]], dict[str, Any]]] = [
    ("GROUP BY", [
        ("an unknown SELECT column", "SELECT NOPE, COUNT(*) FROM X GROUP BY ID;", unknown("SELECT")),
        ("an unknown GROUP BY column", "SELECT COUNT(*) FROM X GROUP BY NOPE;", unknown("GROUP BY")),
        ("an unknown WHERE column before an unknown SELECT one",
         "SELECT OTHER, COUNT(*) FROM X WHERE NOPE = 1 GROUP BY ID;", unknown("WHERE")),
        ("an unknown HAVING column", "SELECT ID, COUNT(*) FROM X GROUP BY ID HAVING NOPE > 1;", unknown("HAVING")),
        ("a table function with an aggregation", "SELECT EXPLODE(ARR), COUNT(*) FROM X GROUP BY ID;",
         "Table functions cannot be used with aggregations."),
        ("nothing else", "SELECT ID, COUNT(*) FROM X GROUP BY ID;", GROUP_BY)], {}),
    ("an aggregate without GROUP BY", [
        ("an unknown SELECT column", "SELECT NOPE, COUNT(*) FROM X;", unknown("SELECT")),
        ("an unknown WHERE column", "SELECT COUNT(*) FROM X WHERE NOPE = 1;", unknown("WHERE")),
        ("nothing else", "SELECT COUNT(*) FROM X;", GROUP_BY)], {}),
    ("a WINDOW clause", [
        ("an unknown SELECT column", "SELECT NOPE FROM X WINDOW TUMBLING (SIZE 1 SECOND);", unknown("SELECT")),
        ("an unknown GROUP BY column", "SELECT COUNT(*) FROM X WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY NOPE;",
         unknown("GROUP BY")),
        ("nothing else", "SELECT ID, COUNT(*) FROM X WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID;", WINDOW)], {}),
    ("PARTITION BY", [
        ("an unknown SELECT column", "SELECT NOPE FROM X PARTITION BY V;", unknown("SELECT")),
        ("an unknown PARTITION BY column", "SELECT * FROM X PARTITION BY NOPE;", unknown("PARTITION BY")),
        ("nothing else", "SELECT * FROM X PARTITION BY V;", PARTITION_BY)], {}),
    ("HAVING", [
        ("an unknown SELECT column", "SELECT NOPE FROM X HAVING V > 1;", unknown("SELECT")),
        ("an unknown HAVING column", "SELECT * FROM X HAVING NOPE > 1;", unknown("HAVING")),
        ("nothing else", "SELECT * FROM X HAVING V > 1;", HAVING)], {}),
    ("a negative LIMIT", [
        ("an unknown SELECT column", "SELECT NOPE FROM X LIMIT -1;", unknown("SELECT")),
        ("an unknown WHERE column", "SELECT * FROM X WHERE NOPE = 1 LIMIT -1;", unknown("WHERE")),
        ("nothing else", "SELECT * FROM X LIMIT -1;", NEGATIVE)], {}),
    ("LIMIT with ksql.query.pull.limit.clause.enabled=false", [
        ("an unknown SELECT column", "SELECT NOPE FROM X LIMIT 1;", unknown("SELECT")),
        ("an unknown WHERE column", "SELECT * FROM X WHERE NOPE = 1 LIMIT 1;", unknown("WHERE")),
        ("nothing else", "SELECT * FROM X LIMIT 1;", LIMIT_OFF)], LIMIT_OFF_PROPS),
    ("ROWOFFSET selected", [
        ("an unknown SELECT column after it", "SELECT ROWOFFSET, NOPE FROM X;", unknown("SELECT")),
        ("an unknown WHERE column", "SELECT ROWOFFSET FROM X WHERE NOPE = 1;", unknown("WHERE")),
        ("nothing else", "SELECT ROWOFFSET FROM X;",
         "Pull queries don't support the following columns in SELECT clauses: `ROWOFFSET`")], {}),
    ("ROWPARTITION in WHERE", [
        ("an unknown WHERE column after it", "SELECT * FROM X WHERE ROWPARTITION = 0 AND NOPE = 1;", unknown("WHERE")),
        ("an unknown SELECT column", "SELECT NOPE FROM X WHERE ROWPARTITION = 0;", unknown("SELECT")),
        ("nothing else", "SELECT * FROM X WHERE ROWPARTITION = 0;",
         "Pull queries don't support the following columns in WHERE clauses: `ROWPARTITION`")], {}),
    # with the pseudo columns turned off they are no columns at all: the analysis's unknown column
    ("ROWOFFSET or ROWPARTITION with ksql.rowpartition.rowoffset.enabled=false", [
        ("ROWOFFSET selected", "SELECT ROWOFFSET FROM X;", unknown("SELECT", "ROWOFFSET")),
        ("ROWPARTITION in WHERE", "SELECT * FROM X WHERE ROWPARTITION = 0;", unknown("WHERE", "ROWPARTITION"))],
     {"ksql.rowpartition.rowoffset.enabled": False}),
]

# the KAFKA value format's GROUP BY refusal is the Analyzer's, before PullQueryValidator's
KAFKA_SOURCES = {
    "a KAFKA-format SOURCE table": "CREATE SOURCE TABLE K (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='k', "
                                  "value_format='KAFKA');",
    "a KAFKA-format stream": "CREATE STREAM K (ID INT KEY, V STRING) WITH (kafka_topic='k', value_format='KAFKA');",
}
KAFKA_GROUP_BY = (
    "Source(s) K are using the 'KAFKA' value format. This format does not yet support GROUP BY.\n"
    "The KAFKA format is primarily intended for use as a key format.\n"
    "It can be used as a value format, but can not be used in any operation that requires a repartition or "
    "changelog topic.\n"
    "Removing this limitation requires enhancements to the core of KSQL. This will come in a future release. "
    "Until then, avoid using the KAFKA format for values.\n"
    "If you have an existing topic with KAFKA formatted values you can duplicate the data and serialize using "
    "Avro or JSON with a statement such as: \n\n"
    "'CREATE STREAM <new-stream-name> WITH(VALUE_FORMAT='Avro') AS SELECT * FROM "
    "<existing-kafka-formatted-stream-name>;'\n"
    "For more info see https://github.com/confluentinc/ksql/issues/3060")


# a JOIN: the Analyzer reads the FROM clause (sources, each join's criteria, windowing), the SELECT items and every
# clause's columns, then the value formats, before PullQueryValidator refuses the JOIN. A pull query's SELECT
# has no synthetic join key: ROWKEY is an unknown column there (ksqldb-rules 1.8).
T9 = "CREATE TABLE T9 (ID INT PRIMARY KEY, Z INT) WITH (kafka_topic='t9', value_format='JSON');"
K9 = "CREATE TABLE K9 (ID INT PRIMARY KEY, Z STRING) WITH (kafka_topic='k9', value_format='KAFKA');"
W9 = "CREATE TABLE T9 AS SELECT ID, COUNT(*) AS Z FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID;"
JOIN = "Pull queries don't support JOIN clauses." + HINT
KAFKA_JOIN = KAFKA_GROUP_BY.replace("Source(s) K ", "Source(s) K9 ").replace("support GROUP BY.", "support JOIN.")
JOINS: list[tuple[str, str, str]] = [
    ("an unknown SELECT column", "SELECT NOPE FROM X JOIN T9 ON X.ID = T9.ID;", unknown("SELECT")),
    ("an unqualified ROWKEY selected", "SELECT ROWKEY FROM X JOIN T9 ON X.ID = T9.ID;", unknown("SELECT", "ROWKEY")),
    ("an unknown WHERE column", "SELECT * FROM X JOIN T9 ON X.ID = T9.ID WHERE NOPE = 1;", unknown("WHERE")),
    ("an unknown JOIN ON column", "SELECT * FROM X JOIN T9 ON X.NOPE = T9.ID;", unknown("JOIN ON", "X.NOPE")),
    ("a self join", "SELECT * FROM X JOIN X ON X.ID = X.ID;", "Can not join 'X' to 'X': self joins are not yet supported."),
    ("nothing else", "SELECT * FROM X JOIN T9 ON X.ID = T9.ID;", JOIN),
]


def join_cases() -> list[dict[str, Any]]:
    out = []
    for kind, setup in SOURCES.items():
        windowed = kind == "a windowed aggregation"
        partner = W9 if windowed else T9
        for what, sql, message in JOINS:
            out.append(_refused(f"{kind} - a JOIN and {what}", [*setup, partner, sql], message, {}))
        if not windowed:
            out.append(_refused(f"{kind} - a JOIN with a KAFKA-format table",
                                [*setup, K9, "SELECT * FROM X JOIN K9 ON X.ID = K9.ID;"], KAFKA_JOIN, {}))
        else:
            out.append(_refused(f"{kind} - a JOIN with a table not windowed",
                                [*setup, T9, "SELECT * FROM X JOIN T9 ON X.ID = T9.ID;"], "Can not join windowed source to "
                                "non-windowed source.\n`X` is TUMBLING windowed\n`T9` is not windowed", {}))
    return out


def _refused(name: str, statements: list[str], message: str, props: dict[str, Any]) -> dict[str, Any]:
    case: dict[str, Any] = {"name": name, "statements": statements,
                            "expectedError": {"type": STATEMENT_ERROR, "message": message, "status": 400}}
    if props:
        case["properties"] = props
    return case


def cases() -> list[dict[str, Any]]:
    out = []
    for kind, setup in SOURCES.items():
        for rule, queries, props in RULES:
            for what, sql, message in queries:
                out.append(_refused(f"{kind} - {rule} and {what}", [*setup, sql], message, props))
    for kind, setup_sql in KAFKA_SOURCES.items():
        for sql in ("SELECT V, COUNT(*) FROM K GROUP BY V;", "SELECT COUNT(*) FROM K;"):
            out.append(_refused(f"{kind} - {sql} is refused for its format first", [setup_sql, sql],
                                KAFKA_GROUP_BY, {}))
    return out


if __name__ == "__main__":
    (HERE / "pull-rule-order.json").write_text(json.dumps({
        "comments": ["A pull query breaking a PullQueryValidator rule meets its analysis's errors first. Generated "
                     "by gen_pull_rule_order.py, in ksqlDB's REST test format, written for ksqlpy."],
        "tests": cases() + join_cases()}, indent=1) + "\n")
