"""Writes tests/cases/analysis/null-filters.json and tests/cases/rest/null-filters.json: a WHERE or HAVING
whose type is NULL (an untyped NULL literal, parenthesised or not, or an AND/OR whose right operand is one -
ksqlDB's ExpressionTypeManager gives AND/OR no type of its own, so they carry their right operand's) is
refused when the predicate is generated: ``Invalid Predicate: NULL expression not supported.`` (pull
queries, interpreted: ``Invalid expression: NULL expression not supported...``), after every clause is
typed, ahead of the clause's compile errors. A typed NULL (``CAST(NULL AS BOOLEAN)``) is BOOLEAN and
accepted; ``NOT NULL`` and ``NULL OR <boolean>`` are BOOLEAN but do not compile (a NULL literal operand). Scope: streams and tables, CSAS/CTAS/INSERT INTO, plain/aggregating/windowed, WHERE and HAVING,
transient push and pull queries. From memory of ksqlDB's CodeGenRunner.buildCodeGenFromParseTree /
InterpretedExpressionFactory.create (returnType == null) and ExpressionTypeManager.visitLogicalBinaryExpression.

Run ``python tests/cases/analysis/gen_null_filters.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path

S = ("CREATE STREAM READINGS (DEVICE STRING KEY, LEVEL INT, OK BOOLEAN) "
     "WITH (kafka_topic='readings', value_format='JSON', partitions=1);")
T = ("CREATE TABLE DEVICES (DEVICE STRING PRIMARY KEY, LEVEL INT, OK BOOLEAN) "
     "WITH (kafka_topic='devices', value_format='JSON', partitions=1);")
SINK = ("CREATE STREAM ALERTS (DEVICE STRING KEY, LEVEL INT) "
        "WITH (kafka_topic='alerts', value_format='JSON', partitions=1);")
MSG = "Invalid Predicate: NULL expression not supported."
LOGICAL_NULL = "Invalid Predicate: Logical operand must be BOOLEAN: null is NULL."
STATEMENT_ERROR = "io.confluent.ksql.util.KsqlStatementException"
REST_ERROR = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"


def _refused(name: str, statements: list[str], message: str = MSG) -> dict:
    return {"name": name, "statements": statements,
            "expectedException": {"type": STATEMENT_ERROR, "message": message}}


def _rec(key: str, level: int | None, ok: bool | None) -> dict:
    return {"topic": "readings", "key": key, "value": {"LEVEL": level, "OK": ok}}


def cases() -> list[dict]:
    out = [
        _refused("WHERE NULL - CSAS over a stream",
                 [S, "CREATE STREAM O AS SELECT DEVICE, LEVEL FROM READINGS WHERE NULL;"]),
        _refused("WHERE ((NULL)) - CTAS over a table",
                 [T, "CREATE TABLE O AS SELECT DEVICE, LEVEL FROM DEVICES WHERE ((NULL));"]),
        _refused("WHERE NULL - aggregating CTAS",
                 [S, "CREATE TABLE O AS SELECT DEVICE, COUNT(*) AS N FROM READINGS WHERE NULL GROUP BY DEVICE;"]),
        _refused("WHERE NULL - INSERT INTO",
                 [S, SINK, "INSERT INTO ALERTS SELECT DEVICE, LEVEL FROM READINGS WHERE NULL;"]),
        _refused("WHERE NULL - CREATE OR REPLACE",
                 [S, "CREATE STREAM O AS SELECT DEVICE, LEVEL FROM READINGS;",
                  "CREATE OR REPLACE STREAM O AS SELECT DEVICE, LEVEL FROM READINGS WHERE NULL;"]),
        _refused("WHERE OK OR NULL - the right operand's type",
                 [S, "CREATE STREAM O AS SELECT DEVICE, LEVEL FROM READINGS WHERE OK OR NULL;"]),
        _refused("WHERE LEVEL > 3 AND NULL - the right operand's type",
                 [S, "CREATE STREAM O AS SELECT DEVICE, LEVEL FROM READINGS WHERE LEVEL > 3 AND NULL;"]),
        _refused("HAVING NULL - stream aggregation",
                 [S, "CREATE TABLE O AS SELECT DEVICE, COUNT(*) AS N FROM READINGS GROUP BY DEVICE HAVING NULL;"]),
        _refused("HAVING NULL - table aggregation",
                 [T, "CREATE TABLE O AS SELECT LEVEL, COUNT(*) AS N FROM DEVICES GROUP BY LEVEL HAVING NULL;"]),
        _refused("HAVING NULL - hopping aggregation",
                 [S, "CREATE TABLE O AS SELECT DEVICE, COUNT(*) AS N FROM READINGS "
                     "WINDOW HOPPING (SIZE 1 MINUTE, ADVANCE BY 30 SECONDS) GROUP BY DEVICE HAVING NULL;"]),
        _refused("HAVING SUM(LEVEL) > 2 AND NULL",
                 [S, "CREATE TABLE O AS SELECT DEVICE, SUM(LEVEL) AS L FROM READINGS GROUP BY DEVICE "
                     "HAVING SUM(LEVEL) > 2 AND NULL;"]),
        _refused("WHERE NULL - transient push query",
                 [S, "SELECT * FROM READINGS WHERE NULL EMIT CHANGES;"]),
        # code generation comes after typing: a projection's type error is reported first
        _refused("WHERE NULL with a projection type error - the type error first",
                 [S, "CREATE STREAM O AS SELECT DEVICE, LEVEL + 'x' AS X FROM READINGS WHERE NULL;"],
                 "Error processing expression: (LEVEL + 'x'). Unsupported arithmetic types. INTEGER STRING"),
        _refused("WHERE LEVEL with HAVING NULL - the WHERE type error first",
                 [S, "CREATE TABLE O AS SELECT DEVICE, COUNT(*) AS N FROM READINGS WHERE LEVEL GROUP BY DEVICE "
                     "HAVING NULL;"],
                 "Type error in WHERE expression: Should evaluate to boolean but is LEVEL (INTEGER) instead."),
        {"name": "WHERE CAST(NULL AS BOOLEAN) - a BOOLEAN filter no row passes",
         "statements": [S, "CREATE STREAM O AS SELECT DEVICE, LEVEL FROM READINGS WHERE CAST(NULL AS BOOLEAN);"],
         "inputs": [_rec("d1", 1, True), _rec("d2", 2, False)], "outputs": []},
        # BOOLEAN filters, but Java's ! and || over the literal null do not compile (Janino: 'Not a boolean
        # expression'; see tests/cases/functions/gen_logical_operands.py)
        _refused("WHERE NOT NULL - BOOLEAN, but a NULL literal operand of NOT",
                 [S, "CREATE STREAM O AS SELECT DEVICE, LEVEL FROM READINGS WHERE NOT NULL;"], LOGICAL_NULL),
        _refused("WHERE NULL OR OK - BOOLEAN (the right operand's type), but a NULL literal operand of OR",
                 [S, "CREATE STREAM O AS SELECT DEVICE, LEVEL FROM READINGS WHERE NULL OR OK;"], LOGICAL_NULL),
    ]
    return out


def rest_cases() -> list[dict]:
    table = "CREATE TABLE COUNTS AS SELECT DEVICE, COUNT(*) AS N FROM READINGS GROUP BY DEVICE;"

    def refused(name: str, statements: list[str], message: str) -> dict:
        return {"name": name, "statements": statements,
                "expectedError": {"type": REST_ERROR, "message": message, "status": 400}}
    pull = "Invalid expression: NULL expression not supported."
    return [
        refused("pull WHERE NULL - table scan", [S, table, "SELECT * FROM COUNTS WHERE NULL;"], pull),
        refused("pull WHERE DEVICE = 'd1' AND NULL - key lookup",
                [S, table, "SELECT * FROM COUNTS WHERE DEVICE = 'd1' AND NULL;"], pull),
        refused("push WHERE NULL", [S, "SELECT * FROM READINGS WHERE NULL EMIT CHANGES;"], MSG),
        refused("push HAVING NULL",
                [S, "SELECT DEVICE, COUNT(*) FROM READINGS GROUP BY DEVICE HAVING NULL EMIT CHANGES;"], MSG),
    ]


def main() -> None:
    here = Path(__file__).resolve().parent
    note = ["Generated by gen_null_filters.py - do not edit."]
    (here / "null-filters.json").write_text(json.dumps({"comments": note, "tests": cases()}, indent=2) + "\n")
    (here.parent / "rest" / "null-filters.json").write_text(
        json.dumps({"comments": note, "tests": rest_cases()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
