"""Writes tests/cases/analysis/null-typing.json: a NULL literal in a persistent query's projection.

The rule (ksqlDB's ``ExpressionTypeManager``: ``NULL`` has no type; ``SelectionUtil.buildProjectionSchema``
in ``FinalProjectNode``): a projected expression whose type stays unknown is refused with ``Can't infer a
type of null. Please explicitly cast it to a required type, e.g. CAST(null AS VARCHAR).``. An expression
takes NULL's type from its context where one exists:
- ``CAST(NULL AS T)`` is T, for every type;
- a CASE whose other branch is typed, a generic function (COALESCE, IFNULL, NULLIF) whose other argument
  binds T, a function with one signature at that argument (UCASE, CONCAT with a STRING), an array or map
  constructor with a typed element, IS [NOT] NULL (BOOLEAN);
and stays untyped where nothing gives it one: NULL itself, unary minus, ``x AND NULL`` (typed as its right
operand). The projection is checked once the plan's earlier nodes are built: a WHERE error comes first.
Statement kinds: CREATE STREAM AS SELECT, CREATE TABLE AS SELECT (over a table, and aggregating),
INSERT INTO ... SELECT, CREATE OR REPLACE. (Push queries, which ksqlDB plans the same way, and pull queries:
tests/analysis/test_null_projection.py.)

Run ``python tests/cases/analysis/gen_null_typing.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
CANT_INFER = "Can't infer a type of null. Please explicitly cast it to a required type, e.g. CAST(null AS VARCHAR)."
STREAM = ("CREATE STREAM SRC (K STRING KEY, I INT, S STRING) WITH (kafka_topic='src', value_format='JSON', "
          "partitions=1);")
TABLE = ("CREATE TABLE SRC (K STRING PRIMARY KEY, I INT, S STRING) WITH (kafka_topic='src', value_format='JSON', "
         "partitions=1);")

# every type CAST(NULL AS T) can name, as written and as ksqlDB prints it
CAST_TYPES = [
    ("INT", "INTEGER"), ("BIGINT", "BIGINT"), ("DOUBLE", "DOUBLE"), ("DECIMAL(4, 2)", "DECIMAL(4, 2)"),
    ("STRING", "STRING"), ("BOOLEAN", "BOOLEAN"), ("BYTES", "BYTES"), ("DATE", "DATE"), ("TIME", "TIME"),
    ("TIMESTAMP", "TIMESTAMP"), ("ARRAY<STRING>", "ARRAY<STRING>"), ("MAP<STRING, INT>", "MAP<STRING, INTEGER>"),
    ("STRUCT<A INT>", "STRUCT<A INTEGER>"),
]

# NULL typed by its context: (label, expression, ksqlDB's type of it)
TYPED = [
    ("CASE with a typed ELSE", "CASE WHEN I > 0 THEN NULL ELSE 1 END", "INTEGER"),
    ("CASE with a typed THEN", "CASE WHEN I > 0 THEN S ELSE NULL END", "STRING"),
    ("COALESCE with a typed argument", "COALESCE(NULL, I)", "INTEGER"),
    ("IFNULL with a typed argument", "IFNULL(I, NULL)", "INTEGER"),
    ("NULLIF with a typed argument", "NULLIF(NULL, S)", "STRING"),
    ("a function with one signature", "UCASE(NULL)", "STRING"),
    ("CONCAT with a STRING", "CONCAT(NULL, S)", "STRING"),
    ("an array with a typed element", "ARRAY[NULL, I]", "ARRAY<INTEGER>"),
    ("a map with a typed value", "MAP('a' := NULL, 'b' := I)", "MAP<STRING, INTEGER>"),
    ("IS NULL", "NULL IS NULL", "BOOLEAN"),
    ("IS NOT NULL", "NULL IS NOT NULL", "BOOLEAN"),
]

# NULL left untyped: refused
UNTYPED = [
    ("bare NULL", "NULL"),
    ("unary minus", "-NULL"),
    ("AND typed as its right operand", "(I > 0) AND NULL"),
    ("OR typed as its right operand", "(I > 0) OR NULL"),
]


def _kinds(expr: str) -> list[tuple[str, list[str]]]:
    """(statement kind, statements) projecting ``expr AS X`` (the last statement is the one judged)."""
    select = f"SELECT K, {expr} AS X FROM SRC"
    return [
        ("CREATE STREAM AS SELECT", [STREAM, f"CREATE STREAM OUTPUT AS {select};"]),
        ("CREATE TABLE AS SELECT over a table", [TABLE, f"CREATE TABLE OUTPUT AS {select};"]),
        ("INSERT INTO", [STREAM, "CREATE STREAM OUTPUT (K STRING KEY, X STRING) WITH (kafka_topic='out', "
                                 "value_format='JSON', partitions=1);", f"INSERT INTO OUTPUT {select};"]),
        ("CREATE OR REPLACE STREAM", [STREAM, "CREATE STREAM OUTPUT AS SELECT * FROM SRC;",
                                      f"CREATE OR REPLACE STREAM OUTPUT AS {select};"]),
    ]


def refusals() -> list[Case]:
    cases = []
    for label, expr in UNTYPED:
        for how, stmts in _kinds(expr):
            cases.append({"name": f"untyped NULL - {label} - {how}", "statements": stmts,
                          "expectedException": {"type": EXCEPTION, "message": CANT_INFER}})
    cases += [
        {"name": "untyped NULL - un-aliased - CREATE STREAM AS SELECT",
         "statements": [STREAM, "CREATE STREAM OUTPUT AS SELECT K, NULL FROM SRC;"],
         "expectedException": {"type": EXCEPTION, "message": CANT_INFER}},
        {"name": "untyped NULL - in an aggregating query - CREATE TABLE AS SELECT",
         "statements": [STREAM, "CREATE TABLE OUTPUT AS SELECT K, NULL AS X, COUNT(*) AS C FROM SRC GROUP BY K;"],
         "expectedException": {"type": EXCEPTION, "message": CANT_INFER}},
        {"name": "untyped NULL - a WHERE error is found first",
         "statements": [STREAM, "CREATE STREAM OUTPUT AS SELECT K, NULL AS X FROM SRC WHERE I = NULL;"],
         "expectedException": {"type": EXCEPTION,
                               "message": "Error in WHERE expression: Comparison with NULL not supported: "
                                          "INTEGER = NULL"}},
    ]
    return cases


def _typed_case(label: str, expr: str, printed: str, source: str) -> Case:
    kind, ddl = ("STREAM", STREAM) if source == "stream" else ("TABLE", TABLE)
    key = "K STRING KEY" if kind == "STREAM" else "K STRING PRIMARY KEY"
    return {
        "name": f"NULL typed by {label} - {source}",
        "statements": [ddl, f"CREATE {kind} OUTPUT AS SELECT K, {expr} AS X FROM SRC;"],
        "post": {"sources": [{"name": "OUTPUT", "type": kind.lower(), "schema": f"{key}, X {printed}"}]},
    }


def typed() -> list[Case]:
    cases = []
    for written, printed in CAST_TYPES:
        case = _typed_case(f"CAST AS {written}", f"CAST(NULL AS {written})", printed, "stream")
        case["inputs"] = [{"topic": "src", "key": "a", "value": {"I": 1, "S": "s"}}]
        case["outputs"] = [{"topic": "OUTPUT", "key": "a", "value": {"X": None}}]
        cases.append(case)
    for label, expr, printed in TYPED:
        cases += [_typed_case(label, expr, printed, source) for source in ("stream", "table")]
    # the values these take at run time
    cases.append({
        "name": "NULL typed by its context - values",
        "statements": [STREAM, "CREATE STREAM OUTPUT AS SELECT K, CASE WHEN I > 0 THEN NULL ELSE 1 END AS C, "
                               "COALESCE(NULL, I) AS CO, IFNULL(I, NULL) AS IFN, NULLIF(NULL, S) AS NI, "
                               "CONCAT(NULL, S) AS CC, ARRAY[NULL, I] AS A, MAP('a' := NULL, 'b' := I) AS M, "
                               "NULL IS NULL AS N FROM SRC;"],
        "inputs": [{"topic": "src", "key": "a", "value": {"I": 5, "S": "s"}},
                   {"topic": "src", "key": "b", "value": {"I": -1, "S": None}}],
        "outputs": [
            {"topic": "OUTPUT", "key": "a", "value": {"C": None, "CO": 5, "IFN": 5, "NI": None, "CC": "s",
                                                      "A": [None, 5], "M": {"a": None, "b": 5}, "N": True}},
            {"topic": "OUTPUT", "key": "b", "value": {"C": 1, "CO": -1, "IFN": -1, "NI": None, "CC": "",
                                                      "A": [None, -1], "M": {"a": None, "b": -1}, "N": True}},
        ],
    })
    return cases


def cases() -> list[Case]:
    return refusals() + typed()


if __name__ == "__main__":
    out = Path(__file__).with_name("null-typing.json")
    out.write_text(json.dumps({"comments": ["Generated by gen_null_typing.py - do not edit."], "tests": cases()},
                              indent=2) + "\n")
    print(f"{len(cases())} cases -> {out}")
