"""Writes tests/cases/analysis/unknown-types.json: a type name that is neither primitive nor a registered custom
type, wherever a statement writes a type, and its place in the validation order.

ksqlDB's rule (SqlTypeParser with the metastore as type registry, while DefaultKsqlParser.prepare builds the
AST; from memory): ``Failed to prepare statement: Cannot resolve unknown type: <NAME>``, without a position -
before the sanitizer (unknown sources, ambiguous columns), the analyzer (unknown columns, reserved names) and
the DDL checks (duplicate columns). The first name in the order the statement is written is reported. A type
registered by an earlier CREATE TYPE resolves in every one of these places.

Run ``python tests/cases/analysis/gen_unknown_types.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
S = "CREATE STREAM S (K STRING KEY, A INT, C STRING) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
T = "CREATE TABLE T (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);"
OUT = "CREATE STREAM OUT AS SELECT K, A FROM S;"
WITH = "WITH (kafka_topic='n', value_format='JSON', partitions=1)"


def unknown(name: str) -> str:
    return f"Failed to prepare statement: Cannot resolve unknown type: {name}"


# (label, statements before, the statement with {t} where a type is written)
PLACES: list[tuple[str, list[str], str]] = [
    ("a stream column", [], f"CREATE STREAM N (K STRING KEY, V {{t}}) {WITH};"),
    ("a table's key column", [], f"CREATE TABLE N (K {{t}} PRIMARY KEY, V INT) {WITH};"),
    ("an ARRAY element", [], f"CREATE STREAM N (K STRING KEY, V ARRAY<{{t}}>) {WITH};"),
    ("a MAP value", [], f"CREATE STREAM N (K STRING KEY, V MAP<STRING, {{t}}>) {WITH};"),
    ("a STRUCT field", [], f"CREATE STREAM N (K STRING KEY, V STRUCT<F INT, G {{t}}>) {WITH};"),
    ("ALTER ... ADD COLUMN", [S], "ALTER STREAM S ADD COLUMN Z {t};"),
    ("CREATE TYPE", [], "CREATE TYPE NT AS STRUCT<F {t}>;"),
    ("a CAST in SELECT", [S], "CREATE STREAM N AS SELECT K, CAST(A AS {t}) AS X FROM S;"),
    ("a CAST in WHERE", [S], "CREATE STREAM N AS SELECT * FROM S WHERE CAST(A AS {t}) IS NULL;"),
    ("a CAST in PARTITION BY", [S], "CREATE STREAM N AS SELECT * FROM S PARTITION BY CAST(A AS {t});"),
    ("a CAST in GROUP BY", [S], "CREATE TABLE N AS SELECT CAST(A AS {t}) AS G, COUNT(*) AS C FROM S "
                                "GROUP BY CAST(A AS {t});"),
    ("a CAST in HAVING", [S], "CREATE TABLE N AS SELECT K, COUNT(*) AS C FROM S GROUP BY K "
                              "HAVING CAST(COUNT(*) AS {t}) IS NULL;"),
    ("a CAST in a join criterion", [S, T], "CREATE STREAM N AS SELECT S.K, V FROM S JOIN T "
                                           "ON CAST(S.A AS {t}) = T.K;"),
    ("a CAST in INSERT INTO ... SELECT", [S, OUT], "INSERT INTO OUT SELECT K, CAST(A AS {t}) AS A FROM S;"),
    ("a CAST in INSERT VALUES", [S], "INSERT INTO S (K, A) VALUES ('k', CAST(1 AS {t}));"),
    ("a CAST inside a CAST's type", [S], "CREATE STREAM N AS SELECT K, CAST(ARRAY[A] AS ARRAY<{t}>) AS X FROM S;"),
]

# a second fault in the same statement, found later by ksqlDB's sanitizer, analyzer or DDL checks
LATER: list[tuple[str, list[str], str]] = [
    ("an unknown source", [], "CREATE STREAM N AS SELECT K, CAST(A AS {t}) AS X FROM NOSUCH;"),
    ("an unknown INSERT INTO target", [S], "INSERT INTO NOSUCH SELECT K, CAST(A AS {t}) AS X FROM S;"),
    ("an unknown column before it in SELECT", [S], "CREATE STREAM N AS SELECT K, ZZ, CAST(A AS {t}) AS X FROM S;"),
    ("an unknown WHERE column", [S], "CREATE STREAM N AS SELECT K, CAST(A AS {t}) AS X FROM S WHERE ZZ = 1;"),
    ("a reserved alias", [S], "CREATE STREAM N AS SELECT K, A AS ROWTIME, CAST(A AS {t}) AS X FROM S;"),
    ("an ambiguous column", [S, "CREATE STREAM R (K STRING KEY, A INT) WITH (kafka_topic='r', value_format='JSON', "
                                "partitions=1);"],
     "CREATE STREAM N AS SELECT S.K, A, CAST(R.A AS {t}) AS X FROM S JOIN R WITHIN 1 SECOND ON S.K = R.K;"),
    ("a duplicate column", [], f"CREATE STREAM N (K STRING KEY, V INT, V {{t}}) {WITH};"),
    ("a reserved column name", [], f"CREATE STREAM N (K STRING KEY, V {{t}}, ROWTIME INT) {WITH};"),
]
# Not here: a stream's PRIMARY KEY and the WITH clause's own faults (a missing KAFKA_TOPIC), which ksqlDB's AST
# builder finds after the column types; ksqlpy's parser checks them as it reads the text, without the types
# the engine has registered by then, so they are reported first.

# a type registered first, and one spelled differently from the registered name
CUSTOM = "CREATE TYPE ADDRESS AS STRUCT<NUMBER INT, STREET STRING>;"


def cases() -> list[Case]:
    out: list[Case] = []
    for label, before, template in PLACES:
        out.append({"name": f"an unknown type in {label}", "statements": [*before, template.format(t="NOSUCHTYPE")],
                    "expectedException": {"type": EXCEPTION, "message": unknown("NOSUCHTYPE")}})
        out.append({"name": f"a quoted lower-case name in {label} is not the upper-case type",
                    "statements": [CUSTOM, *before, template.format(t="`address`")],
                    "expectedException": {"type": EXCEPTION, "message": unknown("address")}})
    for label, before, template in LATER:
        out.append({"name": f"an unknown type before {label}", "statements": [*before, template.format(t="NOSUCHTYPE")],
                    "expectedException": {"type": EXCEPTION, "message": unknown("NOSUCHTYPE")}})
    out.append({"name": "the first unknown type as written is reported",
                "statements": [f"CREATE STREAM N (K STRING KEY, V STRUCT<F FIRSTTYPE>, W SECONDTYPE) {WITH};"],
                "expectedException": {"type": EXCEPTION, "message": unknown("FIRSTTYPE")}})
    out.append({"name": "the first unknown CAST type as written is reported",
                "statements": [S, "CREATE STREAM N AS SELECT K, CAST(A AS FIRSTTYPE) AS X FROM S "
                                  "WHERE CAST(A AS SECONDTYPE) IS NULL;"],
                "expectedException": {"type": EXCEPTION, "message": unknown("FIRSTTYPE")}})
    # registered types resolve in every place, in any case of an unquoted name
    out.append({
        "name": "a registered type in a column, a nested type and a CAST",
        "statements": [CUSTOM, "CREATE STREAM P (K STRING KEY, HOME address, OTHERS ARRAY<Address>) "
                               "WITH (kafka_topic='p', value_format='JSON', partitions=1);",
                       "CREATE STREAM OUT AS SELECT K, CAST(HOME AS ADDRESS) AS H, OTHERS[1]->STREET AS S FROM P;"],
        "inputs": [{"topic": "p", "key": "k", "value": {"HOME": {"NUMBER": 1, "STREET": "a"},
                                                        "OTHERS": [{"NUMBER": 2, "STREET": "b"}]}}],
        "outputs": [{"topic": "OUT", "key": "k", "value": {"H": {"NUMBER": 1, "STREET": "a"}, "S": "b"}}],
    })
    out.append({
        "name": "a type registered by the statement before resolves in CREATE TYPE",
        "statements": [CUSTOM, "CREATE TYPE PERSON AS STRUCT<NAME STRING, HOME ADDRESS>;",
                       "CREATE STREAM P (K STRING KEY, WHO PERSON) WITH (kafka_topic='p', value_format='JSON', "
                       "partitions=1);",
                       "CREATE STREAM OUT AS SELECT K, WHO->HOME->STREET AS S FROM P;"],
        "inputs": [{"topic": "p", "key": "k", "value": {"WHO": {"NAME": "n", "HOME": {"NUMBER": 1, "STREET": "a"}}}}],
        "outputs": [{"topic": "OUT", "key": "k", "value": {"S": "a"}}],
    })
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("unknown-types.json")
    path.write_text(json.dumps({"comments": ["Generated by gen_unknown_types.py - do not edit."], "tests": cases()},
                               indent=2) + "\n")
    print(f"{len(cases())} cases -> {path}")
