"""Writes tests/cases/analysis/variable-positions.json: where a ``${name}`` may stand, as ksqlDB's grammar says.

ksqlDB's rule (SqlBase.g4 and VariableSubstitutor, from memory): the lexer has a VARIABLE token,
``'${' IDENTIFIER '}'``; the grammar takes it as an ``identifier`` (source, column, alias, qualifier, function
and type names) and as a ``literal`` (expressions, WITH values). The text is parsed as written first, then the
substitutor replaces the variables of that parse tree and those inside string literals, and the result is
parsed again. So a reference where only a keyword, a number or an operator may stand - a window's size or
unit, LIMIT, DECIMAL's precision, EMIT's CHANGES, DEFINE's and SET's STRING - or glued to a word
(``${a}_b`` is two tokens) is a syntax error at that token, whatever the variable's value, whether it is
defined and whether substitution is enabled. Quoted names and comments hold no VARIABLE token.

Run ``python tests/cases/analysis/gen_variable_positions.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]
PARSE = "io.confluent.ksql.parser.exception.ParseFailedException"
WITH = "WITH (kafka_topic='s', value_format='JSON', partitions=1)"
S = f"CREATE STREAM S (K STRING KEY, A INT, B STRING) {WITH};"
DEFINES = {"src": "S", "out": "OUT", "col": "A", "key": "K", "alias": "X", "n": "1", "word": "x",
           "qfmt": "'JSON'", "type": "INT", "fn": "UCASE", "kind": "STREAM", "op": ">", "unit": "SECONDS",
           "changes": "CHANGES"}
INPUTS = [{"topic": "s", "key": "k", "value": {"A": 2, "B": "b"}},
          {"topic": "s", "key": "j", "value": {"A": 0, "B": "c"}}]


def out(key: Any, value: dict[str, Any], topic: str = "OUT") -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": value}


BOTH = [out("k", {"A": 2}), out("j", {"A": 0})]

# (place, statements after the DEFINEs, expected outputs) - references where an identifier or literal stands
ACCEPTED: list[tuple[str, list[str], list[dict[str, Any]]]] = [
    ("a source name in FROM", [S, "CREATE STREAM OUT AS SELECT K, A FROM ${src};"], BOTH),
    ("the sink's name", [S, "CREATE STREAM ${out} AS SELECT K, A FROM S;"], BOTH),
    ("a selected column", [S, "CREATE STREAM OUT AS SELECT ${key}, ${col} FROM S;"], BOTH),
    ("an alias", [S, "CREATE STREAM OUT AS SELECT K, A AS ${alias} FROM S;"],
     [out("k", {"X": 2}), out("j", {"X": 0})]),
    ("a qualifier", [S, "CREATE STREAM OUT AS SELECT ${src}.K, ${src}.${col} FROM S;"], BOTH),
    ("a number in an expression", [S, "CREATE STREAM OUT AS SELECT K, A + ${n} AS X FROM S;"],
     [out("k", {"X": 3}), out("j", {"X": 1})]),
    ("a number in WHERE", [S, "CREATE STREAM OUT AS SELECT K, A FROM S WHERE A > ${n};"], [out("k", {"A": 2})]),
    ("a number in an IN list", [S, "CREATE STREAM OUT AS SELECT K, A FROM S WHERE A IN (${n}, 2);"],
     [out("k", {"A": 2})]),
    ("a negated number", [S, "CREATE STREAM OUT AS SELECT K, -${n} AS X FROM S;"],
     [out("k", {"X": -1}), out("j", {"X": -1})]),
    ("a function's name and argument", [S, "CREATE STREAM OUT AS SELECT K, ${fn}(SUBSTRING(B, ${n})) AS X FROM S;"],
     [out("k", {"X": "B"}), out("j", {"X": "C"})]),
    ("a type in CAST", [S, "CREATE STREAM OUT AS SELECT K, CAST(A AS ${type}) AS X FROM S;"],
     [out("k", {"X": 2}), out("j", {"X": 0})]),
    ("a string literal", [S, "CREATE STREAM OUT AS SELECT K, CONCAT(B, '-${word}') AS X FROM S;"],
     [out("k", {"X": "b-x"}), out("j", {"X": "c-x"})]),
    ("a GROUP BY column", [S, "CREATE TABLE OUT AS SELECT ${key}, COUNT(*) AS C FROM S GROUP BY ${key};"],
     [out("k", {"C": 1}), out("j", {"C": 1})]),
    ("a PARTITION BY column", [S, "CREATE STREAM OUT AS SELECT K, A FROM S PARTITION BY ${col};"],
     [out(2, {"K": "k"}), out(0, {"K": "j"})]),
    ("a column's type and WITH values", [
        "CREATE STREAM S (K STRING KEY, A ${type}, B STRING) WITH (kafka_topic='s', value_format=${qfmt}, "
        "partitions=1);", "CREATE STREAM OUT AS SELECT K, A FROM S;"], BOTH),
    # not references: a quoted name is the text as written, a comment is no token at all
    ("a back-quoted name (text, not a reference)", [S, "CREATE STREAM OUT AS SELECT K, A AS `${word}` FROM S;"],
     [out("k", {"${word}": 2}), out("j", {"${word}": 0})]),
    ("a comment (an undefined name there is no error)",
     [S, "CREATE STREAM OUT AS SELECT K, A /* ${nosuch} */ FROM S; -- ${nosuch}"], BOTH),
]

# (place, statements after the DEFINEs, the failing statement with [ where the error points, written once)
REJECTED: list[tuple[str, list[str], str]] = [
    ("a keyword after CREATE", [S], "CREATE [${kind} OUT AS SELECT * FROM S;"),
    ("EMIT's CHANGES", [S], "CREATE STREAM OUT AS SELECT * FROM S EMIT [${changes};"),
    ("a word glued to a sink name", [S], "CREATE STREAM ${out}[_2 AS SELECT * FROM S;"),
    ("a comparison operator", [S], "CREATE STREAM OUT AS SELECT * FROM S WHERE A [${op} 1;"),
    ("a window's size", [S], "CREATE TABLE OUT AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING "
                             "(SIZE [${n} SECONDS) GROUP BY K;"),
    ("a window's unit", [S], "CREATE TABLE OUT AS SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING "
                             "(SIZE 1 [${unit}) GROUP BY K;"),
    ("a DECIMAL's precision", [], "CREATE STREAM N (K STRING KEY, V DECIMAL([${n}, 1)) " + WITH + ";"),
    ("a DEFINE's value", [], "DEFINE other = [${word};"),
]


def defines(names: dict[str, str]) -> list[str]:
    return [f"DEFINE {k} = '{v.replace(chr(39), chr(39) * 2)}';" for k, v in names.items()]


def cases() -> list[Case]:
    out_cases: list[Case] = []
    for place, statements, outputs in ACCEPTED:
        out_cases.append({"name": f"a variable as {place}", "statements": [*defines(DEFINES), *statements],
                          "inputs": INPUTS, "outputs": outputs})
    for place, before, marked in REJECTED:
        at = marked.index("[")
        statement = marked.replace("[", "", 1)
        variants = [("defined", defines(DEFINES), {}),
                    ("undefined", [], {}),
                    ("with substitution disabled", defines(DEFINES), {"ksql.variable.substitution.enable": False})]
        for variant, defs, props in variants:
            statements = [*defs, *before, statement]
            case: Case = {"name": f"a variable as {place} is a syntax error ({variant})", "statements": statements,
                          "expectedException": {"type": PARSE, "message":
                                                f"line {len(statements)}:{at + 1}: Syntax Error"}}
            if props:
                case["properties"] = props
            out_cases.append(case)
    return out_cases


if __name__ == "__main__":
    target = Path(__file__).with_name("variable-positions.json")
    target.write_text(json.dumps({"comments": ["Generated by gen_variable_positions.py: where ${name} may stand "
                                               "(identifier, literal) and where it is a syntax error."],
                                  "tests": cases()}, indent=2) + "\n")
