"""Writes tests/cases/analysis/lambda-sanitizer.json: ksqlDB's sanitizer rules for lambda parameters, over the
statement kinds and sources a query reads, and their place in the validation order.

ksqlDB's rule (AstSanitizer, from memory; rules reference §1.7): once its DataSourceExtractor has found every
source of the query (an unknown source is reported first), the sanitizer refuses a lambda whose parameter is
named like a column (key, value or header) of any source the query reads - the FROM source or a joined one -
``Lambda function argument can't be a column name: <ARG>``, and one reusing an enclosing lambda's parameter,
``Reusing lambda arguments in nested lambda is not allowed``; both wrapped by EngineContext.prepare as
``Exception while preparing statement: ...`` and without a position. The sanitizer runs before the Analyzer,
so these come before an unknown column in any clause, a reserved select name, or a join's faults.

Run ``python tests/cases/analysis/gen_lambda_sanitizer.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
S = ("CREATE STREAM S (K STRING KEY, A INT, HS ARRAY<STRUCT<`KEY` STRING, `VALUE` BYTES>> HEADERS) "
     "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
R = "CREATE STREAM R (RK STRING KEY, B INT) WITH (kafka_topic='r', value_format='JSON', partitions=1);"
T = "CREATE TABLE T (TK STRING PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);"
OUT = "CREATE STREAM OUT AS SELECT K, A FROM S;"
PREPARING = "Exception while preparing statement: "


def column_name(arg: str) -> str:
    return f"{PREPARING}Lambda function argument can't be a column name: {arg}"


REUSED = f"{PREPARING}Reusing lambda arguments in nested lambda is not allowed"

# (label, statements before, template with {fn} and {fault}, the parameter names that are a source's columns)
SHAPES: list[tuple[str, list[str], str, tuple[str, ...]]] = [
    ("CSAS", [S], "CREATE STREAM OUT AS SELECT K, {fn} AS X FROM S{fault};", ("A", "K", "HS")),
    ("INSERT INTO", [S, OUT], "INSERT INTO OUT SELECT K, {fn} AS A FROM S{fault};", ("A", "K")),
    ("CTAS over a table", [T], "CREATE TABLE OUT AS SELECT TK, {fn} AS X FROM T{fault};", ("V", "TK")),
    ("CTAS aggregate", [S], "CREATE TABLE OUT AS SELECT K, COLLECT_LIST({fn}) AS X FROM S{fault} GROUP BY K;",
     ("A",)),
    ("stream-stream join", [S, R],
     "CREATE STREAM OUT AS SELECT S.K, {fn} AS X FROM S JOIN R WITHIN 1 SECOND ON S.K = R.RK{fault};",
     ("B", "RK", "A")),
    ("stream-table join", [S, T], "CREATE STREAM OUT AS SELECT S.K, {fn} AS X FROM S JOIN T ON S.K = T.TK{fault};",
     ("V", "TK")),
]

FAULTS: dict[str, str] = {
    "an unknown WHERE column": " WHERE ZZ = 1",
    "an unknown PARTITION BY column": " PARTITION BY ZZ",
}


def cases() -> list[Case]:
    out: list[Case] = []
    for shape, before, template, names in SHAPES:
        for name in names:
            fn = f"TRANSFORM(ARRAY[1, 2], {name} => {name} + 1)"
            for fault_label, fault in [("", ""), *FAULTS.items()]:
                if "GROUP BY" in template and "PARTITION" in fault_label:
                    continue
                label = f"{shape} - a parameter named like column {name}" + (
                    f" - before {fault_label}" if fault_label else "")
                out.append({"name": label, "statements": [*before, template.format(fn=fn, fault=fault)],
                            "expectedException": {"type": EXCEPTION, "message": column_name(name)}})
        # a parameter reused by a nested lambda (and twice in one lambda), before an unknown column
        nested = "TRANSFORM(ARRAY[ARRAY[1]], Q => TRANSFORM(Q, Q => Q + 1))"
        twice = "REDUCE(ARRAY[1, 2], 0, (Q, Q) => Q + 1)"
        for form, fn in (("nested", nested), ("in one lambda", twice)):
            out.append({"name": f"{shape} - a parameter reused {form} - before an unknown WHERE column",
                        "statements": [*before, template.format(fn=fn, fault=" WHERE ZZ = 1")],
                        "expectedException": {"type": EXCEPTION, "message": REUSED}})
        # an unknown source is found before the lambdas are looked at
        if "JOIN" in template:  # the joined source unknown, the parameter named like the FROM source's column
            joined = "R" if " JOIN R " in template else "T"
            unknown = template.replace(f" JOIN {joined} ", " JOIN NOSUCH ").replace(f"{joined}.", "NOSUCH.")
            fn = "TRANSFORM(ARRAY[1], A => 1)"
        else:
            unknown = template.replace(" FROM S", " FROM NOSUCH").replace(" FROM T", " FROM NOSUCH")
            fn = f"TRANSFORM(ARRAY[1], {names[0]} => 1)"
        out.append({"name": f"{shape} - an unknown source before a lambda parameter named like a column",
                    "statements": [*before, unknown.format(fn=fn, fault="")],
                    "expectedException": {"type": EXCEPTION, "message": "NOSUCH does not exist."}})
    # names that are no source's column are fine, whatever another source of the statement has
    out.append({
        "name": "a parameter named like a column of a source the query does not read",
        "statements": [S, R, "CREATE STREAM OUT AS SELECT K, TRANSFORM(ARRAY[1, 2], B => B + A) AS X FROM S;"],
        "inputs": [{"topic": "s", "key": "k", "value": {"A": 10}}],
        "outputs": [{"topic": "OUT", "key": "k", "value": {"X": [11, 12]}}],
    })
    out.append({
        "name": "a quoted lower-case parameter differs from an upper-case column",
        "statements": [S, "CREATE STREAM OUT AS SELECT K, TRANSFORM(ARRAY[1, 2], `a` => `a` + A) AS X FROM S;"],
        "inputs": [{"topic": "s", "key": "k", "value": {"A": 10}}],
        "outputs": [{"topic": "OUT", "key": "k", "value": {"X": [11, 12]}}],
    })
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("lambda-sanitizer.json")
    path.write_text(json.dumps({"comments": ["Generated by gen_lambda_sanitizer.py - do not edit."], "tests": cases()},
                               indent=2) + "\n")
    print(f"{len(cases())} cases -> {path}")
