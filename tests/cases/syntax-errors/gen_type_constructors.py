"""Writes tests/cases/syntax-errors/type-constructors.json: a name followed by a string is a type constructor.

ksqlDB's rule (from memory of SqlBase.g4's ``primaryExpression: ... | identifier STRING #typeConstructor`` and
AstBuilder.visitTypeConstructor): wherever an expression goes, a lone identifier - bare, back-quoted,
double-quoted or a digit identifier - directly followed by a string literal parses; building the AST then makes
``new BigDecimal(string)`` of it when the identifier's text is DECIMAL (reserved, so only quoted: ```DECIMAL`
'1.50'`` is DECIMAL(3,2)), and fails every other name while the statement is prepared: ``Failed to prepare
statement: Unknown type: <name>, location:Optional[Line: l, Col: c]`` - also the words that look like SQL's typed
literals (DATE '...', TIMESTAMP '...', TIME '...', X'..', N'..'), which ksqlDB does not have. The name keeps its
case when quoted (```decimal` '1'`` is unknown). A qualified name before a string is no constructor: a syntax
error at the string. A syntax error anywhere in the text comes before the builder's failure.

Run ``python tests/cases/syntax-errors/gen_type_constructors.py`` after changing it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

Case = dict[str, Any]
PARSE_FAILED = "io.confluent.ksql.parser.exception.ParseFailedException"
SOURCE = "CREATE STREAM S (K STRING KEY, A INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
INPUT = {"topic": "s", "key": "k", "value": {"A": 1}}


def unknown(name: str, written: str, template: str) -> Case:
    """``template`` holds ``@`` where ``written`` (a name and a string) goes; the name is unknown as a type."""
    statement = template.replace("@", written)
    column = template.index("@") + 1
    return {
        "name": f"{written} is a type constructor of the unknown type {name} ({template.split(' ')[0]})",
        "statements": [SOURCE, statement],
        "expectedException": {
            "type": PARSE_FAILED,
            "message": f"Failed to prepare statement: Unknown type: {name}, location:Optional[Line: 2, Col: {column}]"},
    }


NUMBER = "@number:"  # a JSON number written as its exact text (the harness reads decimals as BigDecimal: 1.50)


def decimal(written: str, value: str, schema: str) -> Case:
    return {
        "name": f"`DECIMAL` {written!r} is a DECIMAL literal: {schema}",
        "statements": [SOURCE, f"CREATE STREAM O AS SELECT K, `DECIMAL` '{written}' AS X, A FROM S;"],
        "inputs": [INPUT],
        "outputs": [{"topic": "O", "key": "k", "value": {"X": NUMBER + value, "A": 1}}],
        "post": {"sources": [{"name": "O", "type": "stream", "schema": f"K STRING KEY, X {schema}, A INTEGER"}]},
    }


def cases() -> list[Case]:
    out: list[Case] = []
    select = "CREATE STREAM O AS SELECT K, @ AS X FROM S;"
    for name, written in [("DATE", "DATE '2020-01-01'"), ("TIMESTAMP", "TIMESTAMP '2020-01-01T00:00:00'"),
                          ("TIME", "time '10:00'"), ("X", "X'0A'"), ("N", "N'text'"), ("E", "e'text'"),
                          ("A", "A 'text'"), ("INT", "INT '1'"), ("VARCHAR", "VARCHAR 'a'"),
                          ("decimal", "`decimal` '1.5'"), ("Date", "\"Date\" '2020-01-01'"),
                          ("1ST", "1st 'a'")]:
        out.append(unknown(name, written, select))
    # every place an expression goes
    for template in ["CREATE STREAM O AS SELECT K, A FROM S WHERE A = @;",
                     "CREATE STREAM O AS SELECT K, ABS(@) AS X FROM S;",
                     "CREATE STREAM O AS SELECT K, ARRAY[1, @] AS X FROM S;",
                     "CREATE STREAM O AS SELECT K, CASE WHEN A > 0 THEN @ END AS X FROM S;",
                     "CREATE STREAM O AS SELECT K, COUNT(*) AS C FROM S GROUP BY K HAVING COUNT(*) > @;",
                     "CREATE STREAM O AS SELECT @, A FROM S PARTITION BY @;",
                     "INSERT INTO S (K, A) VALUES ('k', @);"]:
        out.append(unknown("DATE", "DATE '2020-01-01'", template))
    out += [
        decimal("1.50", "1.50", "DECIMAL(3, 2)"),
        # DecimalUtil.fromValue: within (-1, 1) the precision is the scale + 1
        decimal("-0.05", "-0.05", "DECIMAL(3, 2)"),
        decimal("+12", "12", "DECIMAL(2, 0)"),
        decimal("1e3", "1000", "DECIMAL(4, 0)"),  # a negative scale set to 0
        decimal("15E-3", "0.015", "DECIMAL(4, 3)"),
    ]
    for written, message in [("1.2.3", "Character array contains more than one decimal point."),
                             ("1,5", 'Character , is neither a decimal digit number, decimal point, nor "e" '
                                     "notation exponential mark."),
                             ("-", "No digits found.")]:
        out.append({
            "name": f"`DECIMAL` {written!r} is no BigDecimal",
            "statements": [SOURCE, f"CREATE STREAM O AS SELECT K, `DECIMAL` '{written}' AS X FROM S;"],
            "expectedException": {"type": PARSE_FAILED, "message": f"Failed to prepare statement: {message}"},
        })
    qualified = "CREATE STREAM O AS SELECT K, S.A 'x' AS X FROM S;"
    out.append({
        "name": "a qualified name before a string is no type constructor",
        "statements": [SOURCE, qualified],
        "expectedException": {"type": PARSE_FAILED,
                              "message": f"line 2:34: Syntax Error\nExpecting {{',', 'FROM'}}\nStatement: {qualified}"},
    })
    broken = "CREATE STREAM O AS SELECT K, DATE '2020-01-01' AS X FROM S WHERE;"
    out.append({
        "name": "a syntax error after a type constructor comes first",
        "statements": [SOURCE, broken],
        "expectedException": {"type": PARSE_FAILED,
                              "message": f"line 2:{broken.index('WHERE;') + 6}: Syntax Error\n\nStatement: {broken}"},
    })
    return out


def main() -> None:
    tests = cases()
    path = Path(__file__).with_name("type-constructors.json")
    text = json.dumps({"comments": ["Generated by gen_type_constructors.py; see its docstring."], "tests": tests},
                      indent=2)
    path.write_text(re.sub(f'"{NUMBER}([^"]*)"', r"\1", text) + "\n")
    print(f"{len(tests)} cases -> {path}")


if __name__ == "__main__":
    main()
