"""Writes tests/cases/syntax-errors/trailing-tokens.json: text after a complete statement, for every statement kind.

ksqlDB's rule (from memory of SqlBase.g4's ``singleStatement: statement ';'`` and ANTLR 4's DefaultErrorStrategy,
worded by ksqlDB's SyntaxErrorValidator, rules reference §1.3). After a complete statement the parser matches ';':
- one token, then the ';': ANTLR deletes it (``extraneous input``) - ``Expecting ';'``, or a reserved word named
  as one;
- a token that can begin a statement, not followed by ';': ANTLR inserts the ';' (the token may begin the next
  statement) - ``missing ';' at '<token>'``;
- anything else: a mismatch against the expected set at the first optional point the statement left out since its
  last required token (``sync`` remembers it) - that clause's first keywords, the later optional ones' and ';',
  in token-type order; at most three are printed as ``Expecting ...``, more print nothing.

It also writes keyword-clauses.json: an optional clause of several keywords (IF NOT EXISTS, IF EXISTS, FROM
BEGINNING, DELETE TOPIC) begun and not finished. ANTLR enters the clause at its first keywords (IF NOT; IF alone
may be a name), then matches the next one with inline recovery: a token before it is extraneous (``Expecting``,
a reserved word named as one), a token that may follow it has it missing (``missing 'EXISTS' at 'x'``; at the
';' when the clause may end the statement), anything else is a mismatch (``Expecting 'EXISTS'``). CREATE
STREAM|TABLE without SOURCE is still one of two forms being predicted there: no viable alternative at the token.

Run ``python tests/cases/syntax-errors/gen_trailing_tokens.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]
EXCEPTION = "io.confluent.ksql.parser.exception.ParseFailedException"
SOURCE = ("CREATE STREAM S (K STRING KEY, A INT, B STRING) "
          "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
RESERVED = ('"WHERE" is a reserved keyword and it can\'t be used as an identifier. '
            "You can use it as an identifier by escaping it as 'WHERE' ")

# a complete statement, and the expected set after it when two tokens follow (None: more than three entries)
STATEMENTS: list[tuple[str, str | None]] = [
    ("SHOW STREAMS", "{';', 'EXTENDED'}"),
    ("LIST TABLES", "{';', 'EXTENDED'}"),
    ("SHOW ALL TOPICS", "{';', 'EXTENDED'}"),
    ("LIST TOPICS", "{';', 'EXTENDED'}"),
    ("SHOW QUERIES", "{';', 'EXTENDED'}"),
    ("SHOW STREAMS EXTENDED", "';'"),
    ("LIST QUERIES EXTENDED", "';'"),
    ("SHOW PROPERTIES", "';'"),
    ("LIST FUNCTIONS", "';'"),
    ("SHOW TYPES", "';'"),
    ("SHOW VARIABLES", "';'"),
    ("LIST CONNECTORS", "';'"),
    ("SHOW SOURCE CONNECTORS", "';'"),
    ("SHOW CONNECTOR PLUGINS", "';'"),
    ("DESCRIBE S", "{';', 'EXTENDED'}"),
    ("DESCRIBE S EXTENDED", "';'"),
    ("DESCRIBE STREAMS", "{';', 'EXTENDED'}"),
    ("DESCRIBE TABLES EXTENDED", "';'"),
    ("DESCRIBE FUNCTION CONCAT", "';'"),
    ("DESCRIBE CONNECTOR C", "';'"),
    ("EXPLAIN CSAS_X_1", "';'"),
    ("EXPLAIN SHOW TABLES", "{';', 'EXTENDED'}"),
    ("TERMINATE CSAS_X_1", "';'"),
    ("TERMINATE ALL", "';'"),
    ("PAUSE ALL", "';'"),
    ("RESUME CSAS_X_1", "';'"),
    ("DROP STREAM S", "{';', 'DELETE'}"),
    ("DROP TABLE IF EXISTS T", "{';', 'DELETE'}"),
    ("DROP STREAM S DELETE TOPIC", "';'"),
    ("DROP TYPE T", "';'"),
    ("DROP TYPE IF EXISTS T", "';'"),
    ("DROP CONNECTOR C", "';'"),
    ("SET 'auto.offset.reset'='earliest'", "';'"),
    ("UNSET 'auto.offset.reset'", "';'"),
    ("ALTER SYSTEM 'auto.offset.reset'='earliest'", "';'"),
    ("DEFINE v = 'x'", "';'"),
    ("UNDEFINE v", "';'"),
    ("INSERT INTO S VALUES ('k', 1, 'b')", "';'"),
    ("INSERT INTO S (K, A) VALUES ('k', 1)", "';'"),
    ("CREATE SOURCE CONNECTOR C WITH ('connector.class'='x')", "';'"),
    ("ASSERT TOPIC t", "{';', 'WITH', 'TIMEOUT'}"),
    ("ASSERT NOT EXISTS TOPIC t", "{';', 'WITH', 'TIMEOUT'}"),
    ("ASSERT TOPIC t WITH (partitions=1)", "{';', 'TIMEOUT'}"),
    ("ASSERT TOPIC t TIMEOUT 1 SECOND", "';'"),
    ("ASSERT SCHEMA ID 3", "{';', 'TIMEOUT'}"),
    ("ASSERT SCHEMA SUBJECT 's'", "{';', 'TIMEOUT', 'ID'}"),
    ("ASSERT SCHEMA SUBJECT 's' ID 3", "{';', 'TIMEOUT'}"),
    ("ASSERT NOT EXISTS SCHEMA ID 3 TIMEOUT 2 SECONDS", "';'"),
    ("PRINT 's'", None),                      # FROM BEGINNING, INTERVAL|SAMPLE, LIMIT and ';'
    ("PRINT 's' FROM BEGINNING", None),       # INTERVAL|SAMPLE, LIMIT and ';'
    ("PRINT 's' INTERVAL 2", "{';', 'LIMIT'}"),
    ("PRINT 's' FROM BEGINNING LIMIT 2", "';'"),
    # CREATE STREAM|TABLE: the first of (tableElements)? / (WITH tableProperties)? left out
    ("CREATE STREAM X (A INT)", "{';', 'WITH'}"),
    ("CREATE TABLE X (ID INT PRIMARY KEY, A STRUCT<B INT>)", "{';', 'WITH'}"),
    ("CREATE SOURCE STREAM X (ID INT KEY)", "{';', 'WITH'}"),
    ("CREATE OR REPLACE TABLE X (ID INT PRIMARY KEY)", "{';', 'WITH'}"),
    ("CREATE STREAM X", "{';', '(', 'WITH'}"),
    ("CREATE SOURCE TABLE X", "{';', '(', 'WITH'}"),
    ("CREATE STREAM X (A INT) WITH (kafka_topic='x', value_format='JSON')", "';'"),
    ("CREATE TABLE X WITH (kafka_topic='x', value_format='JSON')", "';'"),
    # a statement ending in a type: the point the type's sync remembered - a base type's ('(' typeParameter)?
    # and the type ARRAY loop, a bracketed type's loop only; inside ARRAY<...> / MAP<...> the '>' it required
    ("CREATE TYPE T AS INT", "{';', '(', 'ARRAY'}"),
    ("CREATE TYPE T AS VARCHAR(STRING)", "{';', 'ARRAY'}"),
    ("CREATE TYPE T AS DECIMAL(4, 2)", "{';', 'ARRAY'}"),
    ("CREATE TYPE T AS STRUCT<A INT, B STRING>", "{';', 'ARRAY'}"),
    ("CREATE TYPE T AS STRUCT<>", "{';', 'ARRAY'}"),
    ("CREATE TYPE T AS INT ARRAY", "{';', 'ARRAY'}"),
    ("CREATE TYPE T AS ARRAY<INT>", "{'(', 'ARRAY', '>'}"),
    ("CREATE TYPE T AS ARRAY<ARRAY<BIGINT>>", "{'(', 'ARRAY', '>'}"),
    ("CREATE TYPE T AS MAP<STRING, STRUCT<A INT>>", "{'ARRAY', '>'}"),
    ("CREATE TYPE T AS ARRAY<INT> ARRAY", "{';', 'ARRAY'}"),
    ("ALTER STREAM S ADD COLUMN C INT", None),             # '(', ARRAY, ',' and ';'
    ("ALTER TABLE T ADD C STRUCT<A INT>", "{';', ',', 'ARRAY'}"),
    ("ALTER STREAM S ADD COLUMN C INT, ADD D DECIMAL(2, 1)", "{';', ',', 'ARRAY'}"),
    ("ALTER STREAM S ADD COLUMN C MAP<STRING, INT>", "{'(', 'ARRAY', '>'}"),
]

# what follows the statement, and the detail it gets (None: the statement's expected set)
TRAILS: list[tuple[str, str, str | None]] = [
    ("one word", " x", "Expecting ';'"),
    ("one reserved word", " WHERE", RESERVED),
    ("two words", " x y", None),
    ("a quoted name and a word", " `x` y", None),
    ("a statement keyword and a word", " show x", "missing ';' at 'show'"),
    ("a statement keyword and a statement", " SELECT * FROM S", "missing ';' at 'SELECT'"),
]


def cases() -> list[Case]:
    out: list[Case] = []
    for statement, expected in STATEMENTS:
        for what, trail, detail in TRAILS:
            sql = f"{statement}{trail};"
            col = len(statement) + 2
            if detail is None:
                detail = f"Expecting {expected}" if expected else ""
            out.append({"name": f"{statement}: {what} after it", "statements": [SOURCE, sql],
                        "expectedException": {"type": EXCEPTION,
                                              "message": f"line 2:{col}: Syntax Error\n{detail}\nStatement: {sql}"}})
    return out


MARK = "@"  # where the failing token begins (removed from the statement)
# a clause begun and left unfinished at MARK, and the detail (None: no viable alternative at MARK)
CLAUSES: list[tuple[str, str, str | None]] = [
    ("CREATE SOURCE STREAM: a name for EXISTS", "CREATE SOURCE STREAM IF NOT @X (ID INT KEY) "
     "WITH (kafka_topic='x', value_format='JSON');", "missing 'EXISTS' at 'X'"),
    ("CREATE SOURCE TABLE: a quoted name for EXISTS", "CREATE SOURCE TABLE IF NOT @`X` (ID INT PRIMARY KEY) "
     "WITH (kafka_topic='x', value_format='JSON');", "missing 'EXISTS' at '`X`'"),
    ("CREATE SOURCE TABLE: the end for EXISTS", "CREATE SOURCE TABLE IF NOT @;", "Expecting 'EXISTS'"),
    ("CREATE SOURCE STREAM: a word before EXISTS", "CREATE SOURCE STREAM IF NOT @Y EXISTS X (ID INT KEY) "
     "WITH (kafka_topic='x', value_format='JSON');", "Expecting 'EXISTS'"),
    ("CREATE STREAM: a name for EXISTS", "CREATE STREAM IF NOT @X (ID INT KEY) "
     "WITH (kafka_topic='x', value_format='JSON');", None),
    ("CREATE TABLE: a name for EXISTS", "CREATE TABLE IF NOT @X AS SELECT K, COUNT(*) FROM S GROUP BY K;", None),
    ("CREATE OR REPLACE STREAM: a name for EXISTS", "CREATE OR REPLACE STREAM IF NOT @X AS SELECT * FROM S;", None),
    ("CREATE TYPE: a name for EXISTS", "CREATE TYPE IF NOT @T AS INT;", "missing 'EXISTS' at 'T'"),
    ("CREATE TYPE: a number for EXISTS", "CREATE TYPE IF NOT @1 AS INT;", "Expecting 'EXISTS'"),
    ("CREATE TYPE: a reserved word before EXISTS", "CREATE TYPE IF NOT @FROM EXISTS T AS INT;",
     RESERVED.replace("WHERE", "FROM")),
    ("CREATE TYPE: a reserved word for EXISTS", "CREATE TYPE IF NOT @FROM T AS INT;", "Expecting 'EXISTS'"),
    ("CREATE SOURCE CONNECTOR: a name for EXISTS", "CREATE SOURCE CONNECTOR IF NOT @C WITH ('a'='b');",
     "missing 'EXISTS' at 'C'"),
    ("CREATE SINK CONNECTOR: a reserved word for EXISTS", "CREATE SINK CONNECTOR IF NOT @WHERE C WITH ('a'='b');",
     "Expecting 'EXISTS'"),
    ("PRINT: the end for BEGINNING", "PRINT 's' FROM @;", "missing 'BEGINNING' at ';'"),
    ("PRINT: LIMIT for BEGINNING", "PRINT 's' FROM @LIMIT 2;", "missing 'BEGINNING' at 'LIMIT'"),
    ("PRINT: INTERVAL for BEGINNING", "PRINT 's' FROM @INTERVAL 2;", "missing 'BEGINNING' at 'INTERVAL'"),
    ("PRINT: SAMPLE for BEGINNING", "PRINT 's' FROM @SAMPLE 2;", "missing 'BEGINNING' at 'SAMPLE'"),
    ("PRINT: a word for BEGINNING", "PRINT 's' FROM @x;", "Expecting 'BEGINNING'"),
    ("PRINT: a word before BEGINNING", "PRINT 's' FROM @x BEGINNING;", "Expecting 'BEGINNING'"),
    ("PRINT: a reserved word before BEGINNING", "PRINT 's' FROM @WHERE BEGINNING;", RESERVED),
    ("DROP STREAM: the end for TOPIC", "DROP STREAM S DELETE @;", "missing 'TOPIC' at ';'"),
    ("DROP TABLE: a word for TOPIC", "DROP TABLE IF EXISTS T DELETE @x;", "Expecting 'TOPIC'"),
    # IF alone is a name (nonReserved): a statement about a source, type or connector named IF
    ("DROP STREAM: IF as the name, then a word", "DROP STREAM IF @x;", "Expecting ';'"),
    ("DROP TYPE: IF as the name, then a word", "DROP TYPE IF @x;", "Expecting ';'"),
    ("CREATE TYPE: IF as the name, then a word", "CREATE TYPE IF @x AS INT;", "Expecting 'AS'"),
]


def clause_cases() -> list[Case]:
    out: list[Case] = []
    for what, statement, detail in CLAUSES:
        sql = statement.replace(MARK, "", 1)
        col = statement.index(MARK) + 1
        if detail is None:
            near = sql[col - 1:].split(" ")[0]
            detail = f"Syntax error at or near '{near}' at line 2:{col}"
        out.append({"name": what, "statements": [SOURCE, sql],
                    "expectedException": {"type": EXCEPTION,
                                          "message": f"line 2:{col}: Syntax Error\n{detail}\nStatement: {sql}"}})
    return out


def main() -> None:
    clauses = {"comments": ["Generated by gen_trailing_tokens.py: an optional clause of several keywords begun and "
                            "not finished (ANTLR's inline recovery at its next keyword)."],
               "tests": clause_cases()}
    path = Path(__file__).with_name("keyword-clauses.json")
    path.write_text(json.dumps(clauses, indent=1) + "\n")
    print(f"wrote {path} ({len(clauses['tests'])} cases)")
    doc = {"comments": ["Generated by gen_trailing_tokens.py: text after a complete statement of every kind - one "
                        "extraneous token, a missing ';' before a statement keyword, or a mismatch against the "
                        "statement's optional tail (ANTLR's recovery at singleStatement's ';')."],
           "tests": cases()}
    path = Path(__file__).with_name("trailing-tokens.json")
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path} ({len(doc['tests'])} cases)")


if __name__ == "__main__":
    main()
