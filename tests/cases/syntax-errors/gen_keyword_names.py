"""Writes tests/cases/syntax-errors/keyword-names.json: every keyword of ksqlDB's lexer as a name.

ksqlDB's rule (SqlBase.g4's ``identifier`` accepts ``nonReserved``; from memory, as grammar/keywords.py lists it):
a keyword in the nonReserved rule is an ordinary name when unquoted - a column declared, selected, compared,
grouped by, aliased, a source's name - and every other keyword (AT, DECIMAL, SIZE, ...) is refused unquoted
as a syntax error; back-quoted, every keyword is a name. The cases run each non-reserved word through a stream
and a table end to end (the records' field carries the name), and each reserved word unquoted (refused) and
quoted (a name); words that are no keyword (type names, other dialects' keywords such as RETURNS) as names.

Run ``python tests/cases/syntax-errors/gen_keyword_names.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ksqlpy.grammar.keywords import KEYWORDS, NON_RESERVED

Case = dict[str, Any]
PARSE_FAILED = "io.confluent.ksql.parser.exception.ParseFailedException"


def stream_case(word: str) -> Case:
    """A non-reserved word as a stream's value column: declared, selected, filtered on, aliased."""
    return {
        "name": f"{word} unquoted as a stream column, selected, compared and aliased",
        "statements": [
            f"CREATE STREAM S (K STRING KEY, {word} INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);",
            f"CREATE STREAM OUT AS SELECT K, {word}, {word} + 1 AS {word}_1, S.{word} * 2 AS X FROM S "
            f"WHERE {word} > 0;",
        ],
        "inputs": [{"topic": "s", "key": "a", "value": {word: 1}},
                   {"topic": "s", "key": "b", "value": {word: 0}}],
        "outputs": [{"topic": "OUT", "key": "a", "value": {word: 1, f"{word}_1": 2, "X": 2}}],
        "post": {"sources": [{"name": "OUT", "type": "stream",
                              "schema": f"K STRING KEY, `{word}` INTEGER, `{word}_1` INTEGER, X INTEGER"}]},
    }


def table_case(word: str) -> Case:
    """A non-reserved word as a table's key and as the GROUP BY column and alias of an aggregation."""
    return {
        "name": f"{word} unquoted as a primary key, a GROUP BY column and an alias",
        "statements": [
            f"CREATE TABLE T ({word} STRING PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON', "
            "partitions=1);",
            f"CREATE TABLE OUT AS SELECT {word}, SUM(V) AS {word}_SUM FROM T GROUP BY {word};",
        ],
        "inputs": [{"topic": "t", "key": "a", "value": {"V": 3}}],
        "outputs": [{"topic": "OUT", "key": "a", "value": {f"{word}_SUM": 3}}],
    }


def source_name_case(word: str) -> Case:
    """A non-reserved word as a source's name and alias."""
    return {
        "name": f"{word} unquoted as a stream's name and alias",
        "statements": [
            f"CREATE STREAM {word} (K STRING KEY, V INT) WITH (kafka_topic='w', value_format='JSON', partitions=1);",
            f"CREATE STREAM OUT AS SELECT {word}.K, {word}.V FROM {word} {word};",
        ],
        "inputs": [{"topic": "w", "key": "a", "value": {"V": 1}}],
        "outputs": [{"topic": "OUT", "key": "a", "value": {"V": 1}}],
    }


def reserved_cases(word: str) -> list[Case]:
    return [
        {"name": f"{word} unquoted as a column name is refused",
         "statements": [f"CREATE STREAM S (K STRING KEY, {word} INT) WITH (kafka_topic='s', value_format='JSON', "
                        "partitions=1);"],
         "expectedException": {"type": PARSE_FAILED, "message": "line 1:"}},
        {"name": f"{word} unquoted as an alias is refused",
         "statements": ["CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', "
                        "partitions=1);",
                        f"CREATE STREAM OUT AS SELECT K, V AS {word} FROM S;"],
         "expectedException": {"type": PARSE_FAILED, "message": "line 2:"}},
        {"name": f"{word} back-quoted is a column name",
         "statements": [f"CREATE STREAM S (K STRING KEY, `{word}` INT) WITH (kafka_topic='s', value_format='JSON', "
                        "partitions=1);",
                        f"CREATE STREAM OUT AS SELECT K, `{word}` AS `{word}`, S.`{word}` AS X FROM S;"],
         "inputs": [{"topic": "s", "key": "a", "value": {word: 1}}],
         "outputs": [{"topic": "OUT", "key": "a", "value": {word: 1, "X": 1}}]},
    ]


# words of other SQL dialects, and ksqlDB's type names (identifiers in its grammar), that are no keyword at all
NOT_KEYWORDS = ["RETURNS", "ORDER", "OFFSET", "UNION", "STRING", "VARCHAR", "INT", "BIGINT", "BOOLEAN", "DOUBLE",
                "BYTES", "ROWKEY"]


def cases() -> list[Case]:
    out: list[Case] = []
    for word in sorted(NON_RESERVED):
        out += [stream_case(word), table_case(word), source_name_case(word)]
    for word in NOT_KEYWORDS:
        assert word not in KEYWORDS
        out += [stream_case(word), table_case(word)]
    for word in sorted(KEYWORDS - NON_RESERVED):
        out += reserved_cases(word)
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("keyword-names.json")
    path.write_text(json.dumps({"comments": ["Generated by gen_keyword_names.py - do not edit."],
                                "tests": cases()}, indent=2) + "\n")
    print(f"{len(cases())} cases -> {path}")
