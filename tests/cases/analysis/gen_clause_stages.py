"""Writes tests/cases/analysis/clause-stages.json: each expression rule in each clause it can occur in, over
the persistent statement kinds, with the stage's wording - and which rule fires first when two are broken.

ksqlDB's order (rules reference §1.1, §1.4, §1.8, §1.9): preparing the statement checks column qualifiers
against the FROM source's name and alias (``Failed to prepare statement: 'X' is not a valid stream/table name
or alias.``, before the source is even looked up) -> analysis validates column references (WHERE, GROUP BY,
PARTITION BY, HAVING, SELECT) -> logical planning types WHERE (``FilterTypeValidator``: ``Error in WHERE
expression: ...``, ``Type error in WHERE expression: ...``), PARTITION BY, GROUP BY, the aggregate and its
HAVING (``Error in HAVING expression: ...``), then the projection (``ExpressionTypeManager``'s own text,
no wrapper) -> code generation (``Invalid Predicate:`` / ``Invalid Group By:`` / ``Invalid SelectKey:`` /
``Invalid Select:``, e.g. an unsupported CAST, which typing alone accepts).
Statement kinds: CREATE STREAM/TABLE AS SELECT, CREATE OR REPLACE of an existing sink, INSERT INTO ... SELECT
(the analysis and typing rules; the sink's schema is compared before code generation).

Run ``python tests/cases/analysis/gen_clause_stages.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
DDL = ("CREATE STREAM S (K STRING KEY, A INT, C STRING, AR ARRAY<INT>, M MAP<STRING, INT>) "
       "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
CMP = "Cannot compare A (INTEGER) to 'x' (STRING) with EQUAL."
CMP_COUNT = "Cannot compare COUNT(*) (BIGINT) to 'x' (STRING) with EQUAL."
FN = "Function 'lcase' does not accept parameters (INTEGER)."
ARITH = "Error processing expression: (A + AR). Unsupported arithmetic types. INTEGER ARRAY"
CAST = "Cast of ARRAY<INTEGER> to INTEGER is not supported."

QUAL = "Failed to prepare statement: 'X' is not a valid stream/table name or alias."

# (label, stream query or None, aggregate query or None, expected message, codegen stage)
RULES: list[tuple[str, str | None, str | None, str, bool]] = [
    # a qualifier that is not the FROM source's name or alias: prepare stage (AstBuilder), every clause
    ("unknown qualifier in SELECT", "SELECT X.A FROM S", None, QUAL, False),
    ("unknown qualifier in a star", "SELECT X.* FROM S", None, QUAL, False),
    ("unknown qualifier in a struct dereference", "SELECT K, X.AR[1] AS E FROM S", None, QUAL, False),
    ("unknown qualifier in WHERE", "SELECT * FROM S WHERE X.A > 1", None, QUAL, False),
    ("unknown qualifier in PARTITION BY", "SELECT * FROM S PARTITION BY X.A", None, QUAL, False),
    ("unknown qualifier in GROUP BY", None, "SELECT K, COUNT(*) AS N FROM S GROUP BY X.K", QUAL, False),
    ("unknown qualifier in HAVING", None, "SELECT K, COUNT(*) AS N FROM S GROUP BY K HAVING X.K = 'a'", QUAL,
     False),
    ("an unknown qualifier before an unknown column", "SELECT K, ZZ FROM S WHERE X.A > 1", None, QUAL, False),
    ("an unknown qualifier before an unknown source", "SELECT X.A FROM NOSUCH", None, QUAL, False),
    # unknown columns: analysis, every clause
    ("unknown column in SELECT", "SELECT K, ZZ FROM S", None, "SELECT column 'ZZ' cannot be resolved.", False),
    ("unknown column in WHERE", "SELECT * FROM S WHERE ZZ = 1", None, "WHERE column 'ZZ' cannot be resolved.", False),
    ("unknown column in PARTITION BY", "SELECT * FROM S PARTITION BY ZZ", None,
     "PARTITION BY column 'ZZ' cannot be resolved.", False),
    ("unknown column in GROUP BY", None, "SELECT ZZ, COUNT(*) AS N FROM S GROUP BY ZZ",
     "GROUP BY column 'ZZ' cannot be resolved.", False),
    ("unknown column in HAVING", None, "SELECT K, COUNT(*) AS N FROM S GROUP BY K HAVING ZZ > 1",
     "HAVING column 'ZZ' cannot be resolved.", False),
    ("unknown column in an aggregate", None, "SELECT K, SUM(ZZ) AS N FROM S GROUP BY K",
     "SELECT column 'ZZ' cannot be resolved.", False),
    # comparisons: filters wrap, the projection does not
    ("comparison in SELECT", "SELECT K, A = 'x' AS X FROM S", None, CMP, False),
    ("comparison in WHERE", "SELECT * FROM S WHERE A = 'x'", None, f"Error in WHERE expression: {CMP}", False),
    ("comparison in HAVING", None, "SELECT K, COUNT(*) AS N FROM S GROUP BY K HAVING COUNT(*) = 'x'",
     f"Error in HAVING expression: {CMP_COUNT}", False),
    # a filter that is not BOOLEAN
    ("non-boolean WHERE", "SELECT * FROM S WHERE A", None,
     "Type error in WHERE expression: Should evaluate to boolean but is A (INTEGER) instead.", False),
    ("non-boolean HAVING", None, "SELECT K, COUNT(*) AS N FROM S GROUP BY K HAVING COUNT(*)",
     "Type error in HAVING expression: Should evaluate to boolean but is COUNT(*) (BIGINT) instead.", False),
    # function resolution
    ("function arguments in SELECT", "SELECT K, LCASE(A) AS X FROM S", None, FN, False),
    ("function arguments in WHERE", "SELECT * FROM S WHERE LCASE(A) = 'a'", None,
     f"Error in WHERE expression: {FN}", False),
    ("function arguments in PARTITION BY", "SELECT * FROM S PARTITION BY LCASE(A)", None, FN, False),
    ("function arguments in GROUP BY", None, "SELECT LCASE(A) AS G, COUNT(*) AS N FROM S GROUP BY LCASE(A)", FN,
     False),
    # arithmetic
    ("arithmetic in SELECT", "SELECT K, A + AR AS X FROM S", None, ARITH, False),
    ("arithmetic in WHERE", "SELECT * FROM S WHERE A + AR > 1", None, f"Error in WHERE expression: {ARITH}", False),
    # casts: typed as their target, refused by code generation under the clause's context
    ("cast in SELECT", "SELECT K, CAST(AR AS INT) AS X FROM S", None, f"Invalid Select: {CAST}", True),
    ("cast in WHERE", "SELECT * FROM S WHERE CAST(AR AS INT) = 1", None, f"Invalid Predicate: {CAST}", True),
    ("cast in PARTITION BY", "SELECT CAST(AR AS INT) AS X, A FROM S PARTITION BY CAST(AR AS INT)", None,
     f"Invalid SelectKey: {CAST}", True),
    ("cast in GROUP BY", None, "SELECT CAST(AR AS INT) AS G, COUNT(*) AS N FROM S GROUP BY CAST(AR AS INT)",
     f"Invalid Group By: {CAST}", True),
    # two rules broken: the earlier stage (or clause) is reported
    ("WHERE before SELECT (unknown columns)", "SELECT K, YY FROM S WHERE ZZ = 1", None,
     "WHERE column 'ZZ' cannot be resolved.", False),
    ("an unknown column before a WHERE type error", "SELECT K, ZZ FROM S WHERE A = 'x'", None,
     "SELECT column 'ZZ' cannot be resolved.", False),
    ("WHERE typing before SELECT typing", "SELECT K, LCASE(A) AS X FROM S WHERE A = 'x'", None,
     f"Error in WHERE expression: {CMP}", False),
    ("WHERE typing before PARTITION BY typing", "SELECT * FROM S WHERE A = 'x' PARTITION BY LCASE(A)", None,
     f"Error in WHERE expression: {CMP}", False),
    ("PARTITION BY typing before SELECT typing", "SELECT K, A + AR AS X FROM S PARTITION BY LCASE(A)", None,
     FN, False),
    ("SELECT typing before code generation", "SELECT K, LCASE(A) AS X FROM S WHERE CAST(AR AS INT) = 1", None,
     FN, False),
    ("GROUP BY typing before HAVING typing", None,
     "SELECT LCASE(A) AS G, COUNT(*) AS N FROM S GROUP BY LCASE(A) HAVING COUNT(*) = 'x'", FN, False),
    ("HAVING typing before SELECT typing", None,
     "SELECT K, A + AR AS X, COUNT(*) AS N FROM S GROUP BY K, A, AR HAVING COUNT(*) = 'x'",
     f"Error in HAVING expression: {CMP_COUNT}", False),
    ("HAVING typing before code generation", None,
     "SELECT CAST(AR AS INT) AS G, COUNT(*) AS N FROM S GROUP BY CAST(AR AS INT) HAVING COUNT(*) = 'x'",
     f"Error in HAVING expression: {CMP_COUNT}", False),
]


# the qualifier is checked while the statement is prepared: before its INSERT target or sink is looked up
PREPARE_FIRST: list[tuple[str, list[str]]] = [
    ("an unknown qualifier before an unknown INSERT target", [DDL, "INSERT INTO NOSUCH SELECT X.A FROM S;"]),
    ("an unknown qualifier before INSERT INTO a table", [
        DDL, "CREATE TABLE T (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON', "
             "partitions=1);", "INSERT INTO T SELECT X.A FROM S;"]),
    ("an unknown qualifier before an existing sink", [DDL, "CREATE STREAM OUT AS SELECT * FROM S;",
                                                      "CREATE STREAM OUT AS SELECT X.A FROM S;"]),
]


def cases() -> list[Case]:
    out = [{"name": label, "statements": statements, "expectedException": {"type": EXCEPTION, "message": QUAL}}
           for label, statements in PREPARE_FIRST]
    for label, stream_query, table_query, message, codegen in RULES:
        if stream_query is not None:
            kinds = {
                "CREATE STREAM AS SELECT": [DDL, f"CREATE STREAM OUT AS {stream_query};"],
                "CREATE OR REPLACE STREAM": [DDL, "CREATE STREAM OUT AS SELECT * FROM S;",
                                             f"CREATE OR REPLACE STREAM OUT AS {stream_query};"],
            }
            if not codegen:
                kinds["INSERT INTO"] = [DDL, "CREATE STREAM OUT AS SELECT * FROM S;", f"INSERT INTO OUT {stream_query};"]
        else:
            kinds = {
                "CREATE TABLE AS SELECT": [DDL, f"CREATE TABLE OUT AS {table_query};"],
                "CREATE OR REPLACE TABLE": [DDL, "CREATE TABLE OUT AS SELECT K, COUNT(*) AS N FROM S GROUP BY K;",
                                            f"CREATE OR REPLACE TABLE OUT AS {table_query};"],
            }
        for kind, statements in kinds.items():
            out.append({"name": f"{label} - {kind}", "statements": statements,
                        "expectedException": {"type": EXCEPTION, "message": message}})
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("clause-stages.json")
    path.write_text(json.dumps({"comments": ["Generated by gen_clause_stages.py - do not edit."], "tests": cases()},
                               indent=2) + "\n")
    print(f"{len(cases())} cases -> {path}")
