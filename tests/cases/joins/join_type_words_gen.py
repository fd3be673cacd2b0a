"""Writes tests/cases/joins/join-type-words.json: a word that starts no join where a join type goes.

ksqlDB's grammar (SqlBase.g4, from memory): ``joinType`` is ``INNER?``, ``FULL OUTER?``, ``LEFT OUTER?`` or
``RIGHT OUTER?`` - OUTER alone is no join type, and being reserved it is no alias either. So
``FROM L OUTER JOIN R ON ...`` parses as ``FROM L`` followed by text the query cannot take: ANTLR's sync
before the query's optional clauses finds OUTER in none of them and reports the mismatch with every clause
it expected - too many to list, so ksqlDB prints ``Syntax Error`` with no detail, at OUTER. That syntax
error comes before anything the AST builder finds while it prepares the statement (a qualifier naming a
source the parsed FROM lacks, ``'R' is not a valid stream/table name or alias.``), because ksqlDB parses
the whole text first. A word that is not reserved (CROSS, NATURAL) is the left source's alias instead.

Run ``python tests/cases/joins/join_type_words_gen.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXCEPTION = "io.confluent.ksql.parser.exception.ParseFailedException"
L = "CREATE TABLE L (ID INT PRIMARY KEY, FK INT, A INT) WITH (kafka_topic='l', value_format='JSON', partitions=1);"
R = "CREATE TABLE R (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='r', value_format='JSON', partitions=1);"
S = "CREATE STREAM S (ID INT KEY, A INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
SINK = "CREATE STREAM SINK (S_ID INT KEY, V STRING) WITH (kafka_topic='sink', value_format='JSON', partitions=1);"

# (what, statements before, the statement with @ where the failing token begins)
SHAPES: list[tuple[str, list[str], str]] = [
    ("CTAS, the right source's column selected", [L, R],
     "CREATE TABLE O AS SELECT L.ID, R.V FROM L @OUTER JOIN R ON L.FK = R.ID;"),
    ("CTAS, unqualified columns", [L, R],
     "CREATE TABLE O AS SELECT ID, V FROM L @OUTER JOIN R ON L.ID = R.ID;"),
    ("CSAS, the right source's column in WHERE", [S, R],
     "CREATE STREAM O AS SELECT S.ID, V FROM S @OUTER JOIN R ON S.ID = R.ID WHERE R.V = 'x';"),
    ("INSERT INTO, the right source's column selected", [S, R, SINK],
     "INSERT INTO SINK SELECT S.ID, R.V FROM S @OUTER JOIN R ON S.ID = R.ID;"),
    ("push query, the right source's column selected", [S, R],
     "SELECT S.ID, R.V FROM S @OUTER JOIN R ON S.ID = R.ID EMIT CHANGES;"),
    ("push query over an aliased source", [S, R],
     "SELECT X.ID, R.V FROM S X @OUTER JOIN R ON X.ID = R.ID EMIT CHANGES;"),
    ("EXPLAIN of a CSAS", [S, R],
     "EXPLAIN CREATE STREAM O AS SELECT S.ID, R.V FROM S @OUTER JOIN R ON S.ID = R.ID;"),
    ("a second join", [S, R, L],
     "CREATE STREAM O AS SELECT S.ID, R.V, L.A FROM S JOIN R ON S.ID = R.ID @OUTER JOIN L ON S.ID = L.ID;"),
    ("the window clause of a stream-stream join", [S, S.replace(" S ", " S2 ").replace("'s'", "'s2'")],
     "CREATE STREAM O AS SELECT S.ID, S2.A AS A2 FROM S @OUTER JOIN S2 WITHIN 1 SECOND ON S.ID = S2.ID;"),
]


def _case(what: str, before: list[str], marked: str) -> dict[str, Any]:
    statement = marked.replace("@", "")
    line = len(before) + 1
    column = marked.index("@") + 1
    return {
        "name": f"OUTER alone is no join type: {what}",
        "statements": [*before, statement],
        "expectedException": {"type": EXCEPTION,
                              "message": f"line {line}:{column}: Syntax Error\n\nStatement: {statement}"},
    }


def _alias_cases() -> list[dict[str, Any]]:
    """A word that is not reserved after the source is its alias: the source's own name then qualifies nothing -
    it passes the prepare stage (ksqlDB's AstBuilder knows every source name and alias written), and the join
    criteria, analysed first, do not resolve (``JOIN ON column 'L.FK' cannot be resolved.``)."""
    out = []
    for word in ("CROSS", "NATURAL"):
        out.append({
            "name": f"{word} before JOIN is the left source's alias: its name no longer qualifies its columns",
            "statements": [L, R, f"CREATE TABLE O AS SELECT L.ID, R.V FROM L {word} JOIN R ON L.FK = R.ID;"],
            "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                                  "message": "JOIN ON column 'L.FK' cannot be resolved."},
        })
        out.append({
            "name": f"{word} before JOIN is the left source's alias, and the join runs under it",
            "statements": [S, R,
                           f"CREATE STREAM O AS SELECT {word}.ID, R.V FROM S {word} JOIN R ON {word}.ID = R.ID;"],
            "inputs": [{"topic": "r", "key": 1, "value": {"V": "one"}, "timestamp": 0},
                       {"topic": "s", "key": 1, "value": {"A": 10}, "timestamp": 5},
                       {"topic": "s", "key": 2, "value": {"A": 20}, "timestamp": 6}],
            "outputs": [{"topic": "O", "key": 1, "value": {"V": "one"}, "timestamp": 5}],
            "post": {"sources": [{"name": "O", "type": "stream", "schema": f"{word}_ID INTEGER KEY, V STRING"}]},
        })
    return out


def main() -> None:
    tests = [_case(*shape) for shape in SHAPES] + _alias_cases()
    path = Path(__file__).with_name("join-type-words.json")
    path.write_text(json.dumps({"comments": ["generated by join_type_words_gen.py"], "tests": tests}, indent=1)
                    + "\n")


if __name__ == "__main__":
    main()
