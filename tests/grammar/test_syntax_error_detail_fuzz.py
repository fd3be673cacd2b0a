"""Every syntax error is one of ksqlDB's forms, at a position in the text (``SyntaxErrorValidator``).

Statements of many kinds are cut at every token and given a stray token at every position; each failure must
be a ``KsqlParseError`` whose detail is one of the texts SyntaxErrorValidator writes. An empty detail is one of
them (ANTLR expected more than three tokens), but never where a statement starts: there ANTLR's sync at
``(singleStatement)* EOF`` lists the statement keywords, whatever the token (word, number, string, quoted name,
operator, unrecognized character), and the validator names it as an unknown statement."""

from __future__ import annotations

import re

import pytest

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import parse, tokenize

STATEMENTS = (
    "SELECT * FROM T WHERE A = 1 EMIT CHANGES;",
    "SELECT A, COUNT(*) FROM T WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY A HAVING COUNT(*) > 1 EMIT CHANGES LIMIT 3;",
    "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', value_format='JSON');",
    "CREATE TABLE T (ID INT PRIMARY KEY, V ARRAY<STRING>) WITH (kafka_topic='t', value_format='JSON');",
    "CREATE STREAM S2 AS SELECT * FROM S PARTITION BY V EMIT CHANGES;",
    "CREATE TABLE T2 AS SELECT ID, LATEST_BY_OFFSET(V) AS V FROM S GROUP BY ID;",
    "INSERT INTO S SELECT * FROM S3;",
    "INSERT INTO S (ID, V) VALUES (1, 'a');",
    "SHOW STREAMS EXTENDED;", "LIST TABLES;", "SHOW QUERIES;", "SHOW PROPERTIES;", "SHOW TOPICS;",
    "DESCRIBE S EXTENDED;", "DESCRIBE FUNCTION ABS;", "EXPLAIN SELECT * FROM S EMIT CHANGES;",
    "DROP STREAM IF EXISTS S DELETE TOPIC;", "DROP TABLE T;", "DROP TYPE X;", "CREATE TYPE X AS STRUCT<A INT>;",
    "TERMINATE ALL;", "TERMINATE Q1;", "PAUSE Q1;", "RESUME ALL;", "SET 'a'='b';", "UNSET 'a';",
    "DEFINE x = 'y';", "UNDEFINE x;", "PRINT 't' FROM BEGINNING INTERVAL 2 LIMIT 3;",
    "ASSERT TOPIC t WITH (partitions=1) TIMEOUT 3 SECONDS;", "ASSERT NOT EXISTS SCHEMA SUBJECT 'x' ID 3;",
    "ALTER STREAM S ADD COLUMN Z INT;",
    "SELECT A.ID, B.V FROM A JOIN B WITHIN 1 HOUR ON A.ID = B.ID EMIT CHANGES;",
    "SELECT CASE WHEN A > 1 THEN 'x' ELSE 'y' END, CAST(A AS DECIMAL(4,2)), ARRAY[1,2], MAP('a' := 1) FROM T;",
    "SELECT TRANSFORM(A, x => x + 1), A[1], S->F FROM T WHERE A BETWEEN 1 AND 2 AND C IN (1, 2) AND D IS NULL;",
    "CREATE SOURCE CONNECTOR C WITH ('a'='b');", "DROP CONNECTOR C;", "SHOW CONNECTORS;", "DESCRIBE CONNECTOR C;",
    "CREATE OR REPLACE STREAM S3 WITH (kafka_topic='x') AS SELECT * FROM S;",
    "SHOW FUNCTIONS;", "SHOW TYPES;", "SHOW VARIABLES;", "LIST STREAMS;",
    "CREATE STREAM S (A STRUCT<B MAP<STRING, DECIMAL(3, 1)>>) WITH (kafka_topic='s', value_format='JSON');",
    "SELECT * FROM S WINDOW HOPPING (SIZE 10 SECONDS, ADVANCE BY 5 SECONDS, GRACE PERIOD 1 SECOND) GROUP BY A;",
    "SELECT * FROM S WINDOW SESSION (30 SECONDS) GROUP BY A;",
    "SELECT * FROM T WHERE (A, B) = (1, 'x');",
)
STRAYS = ("@", "1", "'s'", "`q`", "(", ")", ",", "FROM", "x", "-", ";", "<")

# The detail lines SyntaxErrorValidator writes (ksqldb-rules.md 1.3), after "Syntax Error\n".
_DETAIL = re.compile(
    r"(|Expecting .+"
    r"|Unknown statement '.+'\nDid you mean '[A-Z]+'\?"
    r"|Syntax error at or near .+( at line \d+:\d+)?"
    r"|Syntax error at or near \";\"\n'}', ']', or '\)' is missing"
    r"|missing .+ at .+"
    r"|\".+\" is a reserved keyword and it can't be used as an identifier\. "
    r"You can use it as an identifier by escaping it as '.+' )", re.S)
_SYNTAX = re.compile(r"line (\d+):(\d+): Syntax Error\n(.*)", re.S)


def _variants(statement: str) -> list[str]:
    cuts = [t.start for t in tokenize(statement)] + [len(statement)]
    cut = [statement[:c] for c in cuts[1:]] + [statement[:c] + ";" for c in cuts[1:-1]]
    stray = [f"{statement[:c]} {s} {statement[c:]}" for c in cuts for s in STRAYS]
    return cut + stray


@pytest.mark.parametrize("statement", STATEMENTS)
def test_every_syntax_error_is_a_ksqldb_form_at_a_position_in_the_text(statement: str) -> None:
    for sql in _variants(statement):
        try:
            parse(sql, {}, terminated=True)
        except KsqlParseError as e:
            head = str(e).split("\nStatement: ")[0]
            m = _SYNTAX.fullmatch(head)
            if m is None:
                continue  # a preparation error (a rule after parsing), not a syntax error
            line, column = int(m.group(1)), int(m.group(2))
            assert (e.line, e.column) == (line, column), sql
            lines = sql.split("\n")
            assert 1 <= line <= len(lines) and 1 <= column <= len(lines[line - 1]) + 1, sql
            assert _DETAIL.fullmatch(m.group(3)), (sql, head)


@pytest.mark.parametrize("stray", [s for s in STRAYS if s not in (";", "FROM")] + ["/", "#", "$", "?", "[", "1.5", '"q"', "\ufeff"])
@pytest.mark.parametrize("before", ["", "SHOW STREAMS; ", "SHOW STREAMS;\n  "])
def test_a_token_that_begins_no_statement_is_an_unknown_statement(before: str, stray: str) -> None:
    sql = f"{before}{stray} SHOW TABLES;"
    with pytest.raises(KsqlParseError) as caught:
        parse(sql, {}, terminated=True)
    line = before.count("\n") + 1
    column = len(before.split("\n")[-1]) + 1
    assert caught.value.raw_message.startswith(f"Syntax Error\nUnknown statement '{stray}'\nDid you mean '")
    assert (caught.value.line, caught.value.column) == (line, column)


@pytest.mark.parametrize(("sql", "detail"), [
    ("@ SELECT 1;", "Unknown statement '@'\nDid you mean 'SET'?"),
    ("'it''s' SHOW TOPICS;", "Unknown statement ''it''s''\nDid you mean 'LIST'?"),
    ("`Show` STREAMS;", "Unknown statement '`Show`'\nDid you mean 'SHOW'?"),
    ("42;", "Unknown statement '42'\nDid you mean 'SET'?"),
    ("SHWO STREAMS;", "Unknown statement 'SHWO'\nDid you mean 'SHOW'?"),
])
def test_the_unknown_statement_is_quoted_as_written(sql: str, detail: str) -> None:
    with pytest.raises(KsqlParseError) as caught:
        parse(sql, {}, terminated=True)
    assert str(caught.value).split("\nStatement: ")[0] == f"line 1:1: Syntax Error\n{detail}"


def _reserved(word: str) -> str:
    return (f"\"{word}\" is a reserved keyword and it can't be used as an identifier. "
            f"You can use it as an identifier by escaping it as '{word}' ")


@pytest.mark.parametrize(("sql", "column", "detail"), [
    # the next token may begin a statement (or the text ends): ANTLR deletes the reserved word as extraneous
    ("FROM SELECT * FROM S EMIT CHANGES;", 1, _reserved("FROM")),
    ("SHOW STREAMS; where show TABLES;", 15, _reserved("where")),
    ("SHOW STREAMS; AS", 15, _reserved("AS")),
    # it may not (a name, a ';'): a mismatch, reported against the statement keywords
    ("FROM S;", 1, "Unknown statement 'FROM'\nDid you mean 'DROP'?"),
    ("SHOW STREAMS; AS;", 15, "Unknown statement 'AS'\nDid you mean 'LIST'?"),
    # a word that is no reserved word is unknown either way
    ("SHOWS SHOW STREAMS;", 1, "Unknown statement 'SHOWS'\nDid you mean 'SHOW'?"),
])
def test_a_reserved_word_where_a_statement_starts(sql: str, column: int, detail: str) -> None:
    with pytest.raises(KsqlParseError) as caught:
        parse(sql, {}, terminated=False)
    assert str(caught.value).split("\nStatement: ")[0] == f"line 1:{column}: Syntax Error\n{detail}"
