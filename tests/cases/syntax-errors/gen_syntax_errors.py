"""Writes tests/cases/syntax-errors/syntax-error-positions.json: ANTLR's error at each kind of position,
over the statement kinds that reach it, in ksqlDB's wording (rules reference §1.3).

ksqlDB parses with ANTLR 4's default error strategy; its SyntaxErrorValidator words the report:
- a sub-rule the statement requires (expression, identifier, literal, number, type, relation, select item)
  at a token that cannot begin it: ``sync`` before the rule's alternatives throws a mismatch that lists every
  token able to begin it - more than three, so the detail is empty (``Syntax Error\\n``);
- a single token ANTLR matches (a keyword, ``=``, the STRING literal): ``recoverInline`` - the token is
  extraneous when the expected one follows it, missing when the token can follow the expected one
  (``missing STRING at ';'``), else a mismatch (``Expecting STRING``);
- forms of one statement sharing their first tokens (DESCRIBE, TERMINATE/PAUSE/RESUME, ASSERT, INSERT INTO):
  the prediction among them fails at a token - ``Syntax error at or near 'X' at line L:C``.
Each failing statement is the second of its case, so its line is 2.

Run ``python tests/cases/syntax-errors/gen_syntax_errors.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]
EXCEPTION = "io.confluent.ksql.parser.exception.ParseFailedException"
SOURCE = ("CREATE STREAM S (K STRING KEY, A INT, B STRING) "
          "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
TABLE = "CREATE TABLE T (K STRING PRIMARY KEY, C INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);"
MARK = "@"  # where the failing token begins (removed from the statement)
# reserved words in hole templates that a token able to begin the rule follows (ANTLR deletes them)
EXTRANEOUS_RESERVED = {"FROM", "ON", "AS"}

# query bodies with a required rule left empty at MARK, and what the rule is
QUERY_HOLES: list[tuple[str, str]] = [
    ("the WHERE expression", "SELECT * FROM S WHERE @;"),
    ("the right operand of a comparison", "SELECT * FROM S WHERE A = @= 1;"),
    ("the right side of AND", "SELECT * FROM S WHERE A > 1 AND @;"),
    ("the operand of NOT", "SELECT * FROM S WHERE NOT @;"),
    ("the pattern of LIKE", "SELECT * FROM S WHERE B LIKE @;"),
    ("the first IN element", "SELECT * FROM S WHERE A IN (@);"),
    ("an IN element after a comma", "SELECT * FROM S WHERE A IN (1, @);"),
    ("the second operand of +", "SELECT A + @FROM S;"),  # FROM extraneous: S can begin it
    ("a select item", "SELECT @, A FROM S;"),
    ("a select item after a comma", "SELECT A, @, B FROM S;"),
    ("the relation", "SELECT * FROM @;"),
    ("the joined relation", "SELECT * FROM S JOIN @ON S.K = T.K;"),  # ON extraneous
    ("the join criteria", "SELECT * FROM S JOIN T ON @;"),
    ("the PARTITION BY expression", "SELECT * FROM S PARTITION BY @;"),
    ("the LIMIT number", "SELECT * FROM S LIMIT @;"),
    ("the LIMIT number before a word", "SELECT * FROM S LIMIT @x;"),
    ("a function argument after a comma", "SELECT CONCAT(B, @) FROM S;"),
    ("a CASE result", "SELECT CASE WHEN A > 1 THEN @END FROM S;"),
    ("the CAST operand", "SELECT CAST(@AS INT) FROM S;"),  # AS extraneous: INT can begin it
    ("the CAST type", "SELECT CAST(A AS @) FROM S;"),
    ("an array element after a comma", "SELECT ARRAY[1, @] FROM S;"),
    ("a subscript", "SELECT B[@] FROM S;"),
]
AGG_HOLES: list[tuple[str, str]] = [
    ("the GROUP BY expression", "SELECT K, COUNT(*) FROM S GROUP BY @;"),
    ("a GROUP BY expression after a comma", "SELECT K, B, COUNT(*) FROM S GROUP BY K, @;"),
    ("the HAVING expression", "SELECT K, COUNT(*) FROM S GROUP BY K HAVING @;"),
]
# how each statement kind wraps a query
WRAPS: list[tuple[str, str]] = [
    ("SELECT", "{q}"),
    ("CSAS", "CREATE STREAM OUT AS {q}"),
    ("CSAS with WITH", "CREATE STREAM OUT WITH (kafka_topic='out') AS {q}"),
    ("INSERT INTO", "INSERT INTO S2 {q}"),
]
AGG_WRAPS: list[tuple[str, str]] = [("SELECT", "{q}"), ("CTAS", "CREATE TABLE OUT AS {q}"),
                                    ("CREATE OR REPLACE TABLE", "CREATE OR REPLACE TABLE OUT AS {q}")]

# DDL positions: (what, statement with MARK) over the four CREATE kinds
DDL_HOLES: list[tuple[str, str]] = [
    ("a column definition after a comma", "CREATE {kind} X (ID INT {key}, @) WITH (kafka_topic='x', value_format='JSON');"),
    ("a column's type", "CREATE {kind} X (ID INT {key}, V @) WITH (kafka_topic='x', value_format='JSON');"),
    ("a property value", "CREATE {kind} X (ID INT {key}) WITH (kafka_topic='x', value_format=@);"),
    ("a property", "CREATE {kind} X (ID INT {key}) WITH (@);"),
    ("a property after a comma", "CREATE {kind} X (ID INT {key}) WITH (kafka_topic='x', @);"),
    ("the source name", "CREATE {kind} @(ID INT {key}) WITH (kafka_topic='x', value_format='JSON');"),
    ("a struct field's type", "CREATE {kind} X (ID INT {key}, V STRUCT<F @>) WITH (kafka_topic='x', value_format='JSON');"),
    ("an array's element type", "CREATE {kind} X (ID INT {key}, V ARRAY< @>) WITH (kafka_topic='x', value_format='JSON');"),
]
KINDS = [("STREAM", "KEY"), ("TABLE", "PRIMARY KEY"), ("SOURCE STREAM", "KEY"), ("SOURCE TABLE", "PRIMARY KEY")]

OTHER_HOLES: list[tuple[str, str]] = [
    ("DROP STREAM's name", "DROP STREAM @;"),
    ("DROP STREAM IF EXISTS's name", "DROP STREAM IF EXISTS @;"),
    ("DROP TABLE's name", "DROP TABLE @;"),
    ("DROP TYPE's name", "DROP TYPE @;"),
    ("DROP CONNECTOR's name", "DROP CONNECTOR @;"),
    ("ALTER's column", "ALTER STREAM S ADD COLUMN @;"),
    ("ALTER's column type", "ALTER STREAM S ADD COLUMN C @;"),
    ("ALTER's column after ADD", "ALTER STREAM S ADD @;"),
    ("PRINT's topic", "PRINT @;"),
    ("EXPLAIN's statement or query id", "EXPLAIN @;"),
    ("ASSERT TOPIC's name", "ASSERT TOPIC @;"),
    ("INSERT VALUES' value after a comma", "INSERT INTO S (K, A) VALUES ('k', @);"),
    ("INSERT VALUES' column after a comma", "INSERT INTO S (K, @) VALUES ('k', 1);"),
    ("CREATE TYPE's type", "CREATE TYPE MYTYPE AS @;"),
]

# statement forms that share their first tokens: prediction fails at MARK
NO_VIABLE: list[tuple[str, str]] = [
    ("DESCRIBE with nothing", "DESCRIBE @;"),
    ("DESCRIBE of a number", "DESCRIBE @1;"),
    ("DESCRIBE of a reserved word", "DESCRIBE @SELECT;"),
    ("TERMINATE with nothing", "TERMINATE @;"),
    ("TERMINATE of a number", "TERMINATE @1;"),
    ("PAUSE with nothing", "PAUSE @;"),
    ("RESUME with nothing", "RESUME @;"),
    ("ASSERT with nothing", "ASSERT @;"),
    ("ASSERT of an unknown kind", "ASSERT @STREAM S;"),
    ("ASSERT NOT without EXISTS", "ASSERT NOT @;"),
    ("ASSERT NOT followed by a name", "ASSERT NOT @TOPIC t;"),
    ("INSERT INTO with neither a query nor VALUES", "INSERT INTO S @SELEC * FROM S;"),
    ("SHOW of an unknown kind", "SHOW @STREAMZ;"),
    ("DROP of an unknown kind", "DROP @S;"),
]

# single tokens ANTLR matches: (what, statement with MARK, detail)
INLINE: list[tuple[str, str, str]] = [
    ("SET's value missing", "SET 'auto.offset.reset' = @;", "missing STRING at ';'"),
    ("SET's name not a string", "SET @auto = 'earliest';", "Expecting STRING"),
    ("SET's value not a string", "SET 'auto.offset.reset' = @earliest;", "Expecting STRING"),
    ("SET's '=' missing", "SET 'auto.offset.reset' @'earliest';", "missing '=' at ''earliest''"),
    ("SET's '=' mismatched", "SET 'auto.offset.reset' @;", "Expecting '='"),
    ("a word before SET's value", "SET 'auto.offset.reset' = @x 'earliest';", "Expecting STRING"),
    ("UNSET's name missing", "UNSET @;", "missing STRING at ';'"),
    ("UNSET's name not a string", "UNSET @auto;", "Expecting STRING"),
    ("DEFINE's value missing", "DEFINE v = @;", "missing STRING at ';'"),
    ("DEFINE's value not a string", "DEFINE v = @w;", "Expecting STRING"),
    ("DEFINE's '=' missing", "DEFINE v @'w';", "missing '=' at ''w''"),
    ("ALTER SYSTEM's value missing", "ALTER SYSTEM 'ksql.x' = @;", "missing STRING at ';'"),
    ("ALTER SYSTEM's '=' missing", "ALTER SYSTEM 'ksql.x' @'y';", "missing '=' at ''y''"),
    ("a header's key missing", "CREATE STREAM H (V BYTES HEADER(@)) WITH (kafka_topic='h', value_format='JSON');",
     "missing STRING at ')'"),
    ("a header's key not a string", "CREATE STREAM H (V BYTES HEADER(@k)) WITH (kafka_topic='h', value_format='JSON');",
     "Expecting STRING"),
    ("LIKE's escape not a string", "SELECT * FROM S WHERE B LIKE 'x' ESCAPE @1;", "Expecting STRING"),
    ("a time zone not a string", "SELECT B AT TIME ZONE @1 FROM S;", "Expecting STRING"),
    ("CSAS's SELECT misspelt", "CREATE STREAM OUT AS @SELEC * FROM S;", "missing 'SELECT' at 'SELEC'"),
    ("CTAS's SELECT missing before a star", "CREATE TABLE OUT AS @* FROM S;", "missing 'SELECT' at '*'"),
    ("CSAS's SELECT after an extra word", "CREATE STREAM OUT AS @x SELECT * FROM S;", "Expecting 'SELECT'"),
    ("CSAS's SELECT mismatched", "CREATE STREAM OUT AS @FROM S;", "Expecting 'SELECT'"),
]


# a stray token after an item of ``item (',' item)* CLOSE``: sync at the loop's entry lists ',' and CLOSE
LIST_ENDS_IN_QUERIES: list[tuple[str, str, str]] = [
    ("function arguments", "SELECT CONCAT(B @B) FROM S;", "Expecting {',', ')'}"),
    ("function arguments before FROM", "SELECT CONCAT(B, B @FROM S;", "Expecting {',', ')'}"),
    ("function arguments, a reserved word before ')'", "SELECT CONCAT(B @FROM) FROM S;", "reserved FROM"),
    ("an IN list", "SELECT * FROM S WHERE A IN (1 @2);", "Expecting {',', ')'}"),
    ("an array constructor", "SELECT ARRAY[1 @2] FROM S;", "Expecting {',', ']'}"),
    ("a struct constructor", "SELECT STRUCT(F := 1 @G := 2) FROM S;", "Expecting {',', ')'}"),
    ("a map constructor", "SELECT MAP('a' := 1 @'b' := 2) FROM S;", "Expecting {',', ')'}"),
    # whenClause+ then ELSE or END: the loop's back edge reports the token as extraneous
    ("a CASE after its WHEN clause", "SELECT CASE WHEN A > 1 THEN 1 @x END FROM S;", "Expecting {'WHEN', 'ELSE', 'END'}"),
    ("a CASE after two WHEN clauses", "SELECT CASE WHEN A > 1 THEN 1 WHEN A > 2 THEN 2 @x END FROM S;",
     "Expecting {'WHEN', 'ELSE', 'END'}"),
    ("a CASE without END", "SELECT CASE WHEN A > 1 THEN 1 @FROM S;", "reserved FROM"),
    ("a CASE condition missing", "SELECT CASE WHEN @THEN 1 END FROM S;", "reserved THEN"),
    # prediction among a select item's forms (expression, source.*) fails after the dot
    ("a select item ending in a dot", "SELECT S. @FROM S;", None),
    ("a CASE with neither an operand nor WHEN", "SELECT CASE @END FROM S;", None),
]
LIST_ENDS: list[tuple[str, str, str]] = [
    ("WITH properties of CREATE STREAM", "CREATE STREAM X (ID INT KEY) WITH (kafka_topic='x' @value_format='JSON');",
     "Expecting {',', ')'}"),
    ("WITH properties of CREATE TABLE",
     "CREATE TABLE X (ID INT PRIMARY KEY) WITH (kafka_topic='x', value_format='JSON' @partitions=1);",
     "Expecting {',', ')'}"),
    ("WITH properties of CSAS", "CREATE STREAM OUT WITH (kafka_topic='out' @partitions=1) AS SELECT * FROM S;",
     "Expecting {',', ')'}"),
    ("WITH properties of CTAS",
     "CREATE TABLE OUT WITH (kafka_topic='out' @partitions=1) AS SELECT K, COUNT(*) FROM S GROUP BY K;",
     "Expecting {',', ')'}"),
    ("WITH properties, a reserved word before ')'", "CREATE STREAM X (ID INT KEY) WITH (kafka_topic='x' @FROM);",
     "reserved FROM"),
    ("INSERT VALUES' columns", "INSERT INTO S (K @A) VALUES ('k', 1);", "Expecting {',', ')'}"),
    ("INSERT VALUES' values", "INSERT INTO S (K, A) VALUES ('k' @1);", "Expecting {',', ')'}"),
    ("INSERT VALUES' values without columns", "INSERT INTO S VALUES ('k' @1 'b');", "Expecting {',', ')'}"),
]


def _at(statement: str) -> tuple[str, int]:
    """The statement without MARK, and the 1-based column MARK stood at."""
    return statement.replace(MARK, "", 1), statement.index(MARK) + 1


def _reserved(word: str) -> str:
    return (f'"{word}" is a reserved keyword and it can\'t be used as an identifier. '
            f"You can use it as an identifier by escaping it as `{word}`")


def _hole_detail(statement: str) -> str:
    """Nothing begins the rule at MARK: a mismatch (no detail), or - when the token after can begin it -
    ANTLR's single-token deletion, which names a reserved word as one (also no detail otherwise)."""
    sql, col = _at(statement)
    word = sql[col - 1:].split(" ")[0]
    return _reserved(word) if word in EXTRANEOUS_RESERVED else ""


def _case(name: str, statement: str, detail: str | None, setup: tuple[str, ...] = (SOURCE,)) -> Case:
    """``detail`` None: ANTLR's no-viable-alternative form at MARK; else the detail line after ``Syntax Error``."""
    sql, col = _at(statement)
    line = len(setup) + 1
    if detail is None:
        near = sql[col - 1:].split(" ")[0].rstrip(";") or ";"
        detail = f"Syntax error at or near '{near}' at line {line}:{col}"
    return {"name": name, "statements": [*setup, sql],
            "expectedException": {"type": EXCEPTION,
                                  "message": f"line {line}:{col}: Syntax Error\n{detail}\nStatement: {sql}"}}


def cases() -> list[Case]:
    out: list[Case] = []
    setup = (SOURCE, TABLE, SOURCE.replace("S (", "S2 (").replace("'s'", "'s2'"))
    for what, query in QUERY_HOLES:
        for kind, wrap in WRAPS:
            statement = wrap.format(q=query)
            out.append(_case(f"{kind}: nothing begins {what}", statement, _hole_detail(statement), setup))
    for what, query in AGG_HOLES:
        for kind, wrap in AGG_WRAPS:
            out.append(_case(f"{kind}: nothing begins {what}", wrap.format(q=query), ""))
    for what, template in DDL_HOLES:
        for kind, key in KINDS:
            out.append(_case(f"CREATE {kind}: nothing begins {what}", template.format(kind=kind, key=key), ""))
    for what, statement in OTHER_HOLES:
        out.append(_case(f"nothing begins {what}", statement, ""))
    for what, statement in NO_VIABLE:
        out.append(_case(f"no statement form fits: {what}", statement, None))
    for what, statement, detail in INLINE:
        out.append(_case(what, statement, detail))
    for what, query, detail in LIST_ENDS_IN_QUERIES:
        for kind, wrap in WRAPS:
            out.append(_case(f"{kind}: a stray token in {what}", wrap.format(q=query), _detail(detail), setup))
    for what, statement, detail in LIST_ENDS:
        out.append(_case(f"a stray token in {what}", statement, _detail(detail)))
    return out


def _detail(detail: str | None) -> str | None:
    return _reserved(detail.split(" ", 1)[1]) if detail and detail.startswith("reserved ") else detail


def main() -> None:
    doc = {"comments": ["Generated by gen_syntax_errors.py: ANTLR's error at each kind of position, worded by "
                        "ksqlDB's SyntaxErrorValidator (mismatch over a long first set, inline recovery of "
                        "one token, no viable statement form)."],
           "tests": cases()}
    path = Path(__file__).with_name("syntax-error-positions.json")
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path} ({len(doc['tests'])} cases)")


if __name__ == "__main__":
    main()
