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
import re
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
RESERVED_WORDS = {"FROM", "ON", "AS", "WHERE", "GROUP", "HAVING", "WITH", "LIMIT", "SELECT"}  # those used here

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
LIST_ENDS_IN_QUERIES: list[tuple[str, str | None, str]] = [
    ("function arguments", "SELECT CONCAT(B + 'x' @B) FROM S;", "Expecting {',', ')'}"),
    ("function arguments before FROM", "SELECT CONCAT(B, 'x' @FROM S;", "Expecting {',', ')'}"),
    ("function arguments, a reserved word before ')'", "SELECT CONCAT('x' @FROM) FROM S;", "reserved FROM"),
    # a lone name (or (name)) may begin an argument or a lambda: the prediction between them fails at the
    # token after it when neither continues
    ("function arguments after a lone name", "SELECT CONCAT(B @B) FROM S;", None),
    ("function arguments after a lone name before FROM", "SELECT CONCAT(B, B @FROM S;", None),
    ("function arguments after a lone name, a reserved word", "SELECT CONCAT(B @FROM) FROM S;", None),
    ("function arguments after a parenthesized name", "SELECT CONCAT((B) @FROM S;", None),
    ("function arguments after an unclosed name", "SELECT CONCAT((B @FROM S;", None),
    ("COUNT's only argument", "SELECT COUNT(K @FROM S;", None),
    ("a lambda's parameters", "SELECT TRANSFORM(ARRAY[1], (X, Y @FROM S;", "Expecting {',', ')'}"),
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
LIST_ENDS: list[tuple[str, str, str | None]] = [
    ("WITH properties of CREATE STREAM", "CREATE STREAM X (ID INT KEY) WITH (kafka_topic='x' @value_format='JSON');",
     "Expecting {',', ')'}"),
    ("WITH properties of CREATE TABLE",
     "CREATE TABLE X (ID INT PRIMARY KEY) WITH (kafka_topic='x', value_format='JSON' @partitions=1);",
     "Expecting {',', ')'}"),
    # without columns CREATE STREAM|TABLE's two forms are still both viable: the prediction fails at the token
    ("WITH properties of CSAS", "CREATE STREAM OUT WITH (kafka_topic='out' @partitions=1) AS SELECT * FROM S;",
     None),
    ("WITH properties of CTAS",
     "CREATE TABLE OUT WITH (kafka_topic='out' @partitions=1) AS SELECT K, COUNT(*) FROM S GROUP BY K;", None),
    ("WITH properties, a reserved word before ')'", "CREATE STREAM X (ID INT KEY) WITH (kafka_topic='x' @FROM);",
     "reserved FROM"),
    ("INSERT VALUES' columns", "INSERT INTO S (K @A) VALUES ('k', 1);", "Expecting {',', ')'}"),
    ("INSERT VALUES' values", "INSERT INTO S (K, A) VALUES ('k' @1);", "Expecting {',', ')'}"),
    ("INSERT VALUES' values without columns", "INSERT INTO S VALUES ('k' @1 'b');", "Expecting {',', ')'}"),
]


# a reserved word where an identifier is required: named as one only when ANTLR deletes it as extraneous (the
# token after it can begin the identifier); else a plain mismatch (no detail), or - where two statement forms
# are still being predicted (CREATE STREAM|TABLE before its columns or AS, INSERT INTO) - no viable alternative
RESERVED_NAMES: list[tuple[str, str, str | None]] = [
    ("a column name before its type", "CREATE STREAM X (@FROM INT KEY) WITH (kafka_topic='x', value_format='JSON');",
     "reserved FROM"),
    ("a column name without a type", "CREATE STREAM X (ID INT KEY, @FROM) WITH (kafka_topic='x', value_format='JSON');",
     ""),
    ("a source name before a name", "SELECT * FROM @FROM S;", "reserved FROM"),
    ("a source name at the end", "SELECT * FROM @WHERE;", ""),
    ("an alias before FROM", "SELECT A AS @SELECT FROM S;", ""),
    ("an alias before a name", "SELECT A AS @SELECT B FROM S;", "reserved SELECT"),
    ("a source alias at the end", "SELECT * FROM S AS @FROM;", ""),
    ("a select item before FROM", "SELECT @SIZE FROM S;", ""),
    ("a select item before an expression", "SELECT @SIZE A FROM S;", "reserved SIZE"),
    ("a struct field", "SELECT S2->@FROM FROM S;", ""),
    ("DROP's source name", "DROP STREAM @SELECT;", ""),
    ("DROP's source name before a name", "DROP STREAM @SELECT S;", "reserved SELECT"),
    ("an INSERT column", "INSERT INTO S (K, @FROM) VALUES ('k', 1);", ""),
    ("a SOURCE stream's name", "CREATE SOURCE STREAM @SELECT (ID INT KEY) WITH (kafka_topic='x', value_format='JSON');",
     ""),
    ("a stream's name", "CREATE STREAM @SELECT (ID INT KEY) WITH (kafka_topic='x', value_format='JSON');", None),
    ("a table's name before AS", "CREATE TABLE @FROM AS SELECT K, COUNT(*) FROM S GROUP BY K;", None),
    ("an INSERT INTO target", "INSERT INTO @FROM SELECT * FROM S;", None),
    ("the first field of a STRUCT constructor", "SELECT STRUCT(@FROM := 1) FROM S;", None),
    ("a later field of a STRUCT constructor", "SELECT STRUCT(A := 1, @FROM := 1) FROM S;", ""),
]
# DEFINE / UNDEFINE: variableName is IDENTIFIER | nonReserved, predicted at the keyword; a reserved word is
# tolerated there (SyntaxErrorValidator suppresses that mismatch), anything else is a mismatch (no detail)
VARIABLE_NAMES: list[tuple[str, str, str | None]] = [
    ("a digit-led name", "DEFINE @1X = 'v';", ""),
    ("a number", "DEFINE @1 = 'v';", ""),
    ("a back-quoted name", "DEFINE @`x` = 'v';", ""),
    ("a string", "DEFINE @'x' = 'v';", ""),
    ("no name", "DEFINE @= 'v';", ""),
    ("UNDEFINE of nothing", "UNDEFINE @;", ""),
    ("UNDEFINE of a number", "UNDEFINE @1;", ""),
    ("a second word after UNDEFINE's name", "UNDEFINE X @Y;", "Expecting ';'"),
]


# a bracket that closes its rule alone, left open: ANTLR's match misses it and recoverInline reports it missing
# when the next token can follow the bracket in the rules the parser is in (singleTokenInsertion over the
# follow set in context), else a mismatch. The mismatch lists what could come at the earliest point the
# parser could have stopped (DefaultErrorStrategy's nextTokensContext, recorded by sync): after an
# expression every operator and the bracket - no detail; where nothing optional came before, the bracket.
# (what, text left open, bracket, what a mismatch says - None where it depends on the type rule's loops)
OPEN_BRACKETS: list[tuple[str, str, str, str | None]] = [
    ("a parenthesized expression", "(A + 1", ")", ""),
    ("a CAST", "CAST(A AS STRING", ")", None),
    ("a subscript", "B[1", "]", ""),
]
# (where, query with {x} for the open bracket and MARK before the next token, the token can follow); a first
# GROUP BY / PARTITION BY expression in brackets is GROUPINGS' business
BRACKET_PLACES: list[tuple[str, str, bool]] = [
    ("the last select item", "SELECT {x} @FROM S;", True),
    ("a select item before a comma", "SELECT {x} @, K FROM S;", True),
    ("a select item before its alias", "SELECT {x} @AS Y FROM S;", True),
    ("a select item before an implicit alias", "SELECT {x} @Y FROM S;", True),
    ("WHERE before EMIT", "SELECT * FROM S WHERE {x} @EMIT CHANGES;", True),
    ("WHERE at the end", "SELECT * FROM S WHERE {x} @;", True),
    ("WHERE before PARTITION BY", "SELECT * FROM S WHERE {x} @PARTITION BY K;", True),
    ("a PARTITION BY expression after a comma", "SELECT * FROM S PARTITION BY K, {x} @;", True),
    ("a PARTITION BY expression before a comma", "SELECT * FROM S PARTITION BY K, {x} @, A;", True),
    ("the join criteria before WHERE", "SELECT * FROM S JOIN S2 WITHIN 1 SECOND ON S.K = {x} @WHERE S.A = 1;", True),
    ("a function argument before a comma", "SELECT CONCAT({x} @, 'y') FROM S;", True),
    ("a CASE condition", "SELECT CASE WHEN {x} @THEN 1 END FROM S;", True),
    ("a CASE result", "SELECT CASE WHEN A > 1 THEN {x} @END FROM S;", True),
    ("a LIKE pattern before ESCAPE", "SELECT * FROM S WHERE B LIKE {x} @ESCAPE '!';", True),
    # the enclosing rule needs its own token first
    ("a function argument before FROM", "SELECT CONCAT({x} @FROM S;", False),
    ("an IN element before FROM", "SELECT * FROM S WHERE A IN ({x} @FROM S);", False),
    ("a CASE result before FROM", "SELECT CASE WHEN A > 1 THEN {x} @FROM S;", False),
    ("BETWEEN's lower bound", "SELECT * FROM S WHERE A BETWEEN {x} @;", False),
    ("a select item before a word that cannot follow it", "SELECT {x} @WHERE FROM S;", False),
]
AGG_BRACKET_PLACES: list[tuple[str, str, bool]] = [
    ("a GROUP BY expression after a comma", "SELECT K, COUNT(*) FROM S GROUP BY K, {x} @;", True),
    ("a GROUP BY expression before a comma", "SELECT K, A, COUNT(*) FROM S GROUP BY K, {x} @, A;", True),
    ("a GROUP BY expression before HAVING", "SELECT K, COUNT(*) FROM S GROUP BY K, {x} @HAVING COUNT(*) > 1;", True),
    ("WHERE before GROUP BY", "SELECT K, COUNT(*) FROM S WHERE {x} @GROUP BY K;", True),
    ("the HAVING expression", "SELECT K, COUNT(*) FROM S GROUP BY K HAVING {x} @;", True),
    ("the HAVING expression before LIMIT", "SELECT K, COUNT(*) FROM S GROUP BY K HAVING {x} @LIMIT 1;", True),
]
# an unclosed COUNT(*): ')' alone closes it
COUNT_STAR_PLACES: list[tuple[str, str, bool]] = [
    ("a select item", "SELECT K, COUNT(* @FROM S GROUP BY K;", True),
    ("a select item before a comma", "SELECT COUNT(* @, K FROM S GROUP BY K;", True),
    ("HAVING", "SELECT K, COUNT(*) FROM S GROUP BY K HAVING COUNT(* @> 1;", True),
    ("a function argument", "SELECT K, ABS(COUNT(* @FROM S GROUP BY K;", False),
]
# GROUP BY's two forms (a list, or a list in brackets) both begin with '(': the prediction reads on while both
# fit; where both fail at one token nothing is viable, else the one that read further fails with its own error
GROUPINGS: list[tuple[str, str, str | None]] = [
    ("an unclosed bracket", "SELECT K, COUNT(*) FROM S GROUP BY (K @EMIT CHANGES;", None),
    ("an unclosed bracket at the end", "SELECT K, COUNT(*) FROM S GROUP BY (K + 1 @;", None),
    ("an unclosed bracket before HAVING", "SELECT K, COUNT(*) FROM S GROUP BY (K @HAVING COUNT(*) > 1;", None),
    ("an unclosed list", "SELECT K, A, COUNT(*) FROM S GROUP BY (K, A @EMIT CHANGES;", "Expecting {',', ')'}"),
    ("an unclosed second expression", "SELECT K, A, COUNT(*) FROM S GROUP BY (K), (A @EMIT CHANGES;",
     "missing ')' at 'EMIT'"),
]
# the types of a column definition, ALTER's ADD COLUMN, CREATE TYPE and CAST
OPEN_TYPES: list[tuple[str, str, str, str | None]] = [
    ("an ARRAY type", "ARRAY<INT", ">", None),
    ("a MAP type", "MAP<STRING, INT", ">", None),
    ("a DECIMAL type", "DECIMAL(4, 2", ")", "Expecting ')'"),
]
# (where, statement with {t} and MARK, the token can follow); ANTLR first deletes a token that the closing
# one follows (``DECIMAL(4, 2 KEY)``: extraneous)
TYPE_PLACES: list[tuple[str, str, bool]] = [
    ("a column before a comma", "CREATE {kind} X (ID INT {key}, V {t} @, W INT) WITH (kafka_topic='x', "
     "value_format='JSON');", True),
    ("a key column", "CREATE {kind} X (ID {t} @{key}) WITH (kafka_topic='x', value_format='JSON');", True),
    ("a header column", "CREATE {kind} X (ID INT {key}, V {t} @HEADERS) WITH (kafka_topic='x', value_format='JSON');",
     True),
    ("a column before WITH", "CREATE {kind} X (ID INT {key}, V {t} @WITH (kafka_topic='x', value_format='JSON');",
     False),
]
OTHER_TYPE_PLACES: list[tuple[str, str, bool]] = [
    ("CREATE TYPE's type", "CREATE TYPE MYTYPE AS {t} @;", True),
    ("ALTER's added column", "ALTER STREAM S ADD COLUMN C {t} @;", True),
    ("ALTER's added column before another", "ALTER STREAM S ADD COLUMN C {t} @, ADD D INT;", True),
    ("a STRUCT field's type", "CREATE TYPE MYTYPE AS STRUCT<F {t} @, G INT>;", True),
    ("CAST's type before FROM", "SELECT CAST(A AS {t} @FROM S;", False),
]
# single closing tokens in statements and clauses: (what, statement with MARK, detail)
CLOSES: list[tuple[str, str, str]] = [
    ("a header's key", "CREATE STREAM H (V BYTES HEADER('k' @, W INT) WITH (kafka_topic='h', value_format='JSON');",
     "missing ')' at ','"),
    ("a header's key before WITH", "CREATE STREAM H (V BYTES HEADER('k' @WITH (kafka_topic='h', value_format='JSON');",
     "Expecting ')'"),
    ("a STRUCT type's fields", "CREATE TYPE MYTYPE AS STRUCT<F INT @;", "Expecting {',', '>'}"),
    ("type's parameters", "CREATE STREAM X (ID VARCHAR(STRING @KEY, V INT) WITH (kafka_topic='x', "
     "value_format='JSON');", "Expecting {',', ')'}"),
    ("ARRAY type in a column before ')'", "CREATE STREAM X (ID INT KEY, V ARRAY<INT @) WITH (kafka_topic='x', "
     "value_format='JSON');", "missing '>' at ')'"),
    ("ARRAY type in CAST", "SELECT CAST(A AS ARRAY<INT @) FROM S;", "missing '>' at ')'"),
    ("MAP type in a STRUCT", "CREATE TYPE MYTYPE AS STRUCT<F MAP<STRING, INT >@;", "Expecting {',', '>'}"),
    ("DECIMAL type in a STRUCT", "CREATE TYPE MYTYPE AS STRUCT<F DECIMAL(4, 2 @>;", "missing ')' at '>'"),
    ("DECIMAL type in an ARRAY", "CREATE TYPE MYTYPE AS ARRAY<DECIMAL(4, 2 @>;", "missing ')' at '>'"),
    ("DECIMAL type in CAST", "SELECT CAST(A AS DECIMAL(4, 2 @X) FROM S;", "Expecting ')'"),
    ("DECIMAL type in CAST, a reserved word", "SELECT CAST(A AS DECIMAL(4, 2 @AS) FROM S;", "reserved AS"),
    ("a MAP type's comma", "CREATE TYPE MYTYPE AS MAP<STRING @INT>;", "missing ',' at 'INT'"),
    ("a WITHIN window before ON", "SELECT * FROM S JOIN S2 WITHIN (1 SECOND, 2 SECONDS @ON S.K = S2.K;",
     "missing ')' at 'ON'"),
    ("a WITHIN window before GRACE",
     "SELECT * FROM S JOIN S2 WITHIN (1 SECOND, 2 SECONDS @GRACE PERIOD 1 SECOND ON S.K = S2.K;",
     "missing ')' at 'GRACE'"),
    ("a WITHIN window's comma", "SELECT * FROM S JOIN S2 WITHIN (1 SECOND @2 SECONDS) ON S.K = S2.K;",
     "missing ',' at '2'"),
    ("a tumbling window before WHERE", "SELECT K, COUNT(*) FROM S WINDOW TUMBLING (SIZE 1 SECOND @WHERE A > 1 "
     "GROUP BY K;", "Expecting {',', ')'}"),
    ("a tumbling window with retention", "SELECT K, COUNT(*) FROM S WINDOW TUMBLING (SIZE 1 SECOND, RETENTION 1 DAY "
     "@GROUP BY K;", "Expecting {',', ')'}"),
    ("a tumbling window after its grace period", "SELECT K, COUNT(*) FROM S WINDOW TUMBLING (SIZE 1 SECOND, "
     "GRACE PERIOD 1 SECOND @GROUP BY K;", "missing ')' at 'GROUP'"),
    ("a hopping window after its grace period", "SELECT K, COUNT(*) FROM S WINDOW HOPPING (SIZE 2 SECONDS, "
     "ADVANCE BY 1 SECOND, GRACE PERIOD 1 SECOND @WHERE A > 1 GROUP BY K;", "missing ')' at 'WHERE'"),
    ("a session window after its grace period", "SELECT K, COUNT(*) FROM S WINDOW SESSION (1 SECOND, "
     "GRACE PERIOD 1 SECOND @FROM S GROUP BY K;", "Expecting ')'"),
    ("INSERT VALUES' CAST before a comma", "INSERT INTO S VALUES ('k', CAST(1 AS INT @, 'b');", "missing ')' at ','"),
    ("INSERT VALUES' bracket before its end", "INSERT INTO S VALUES ('k', (1 + 1 @, 'b');", "missing ')' at ','"),
]


def _closing(close: str, follows: bool, statement: str, mismatch: str | None = None) -> str | None:
    """ANTLR's recoverInline of a closing token at MARK: extraneous when the closing token comes next (a reserved
    word is named as one), else missing when the token there can follow it, else ``mismatch`` (None: no case)."""
    sql, col = _at(statement)
    token, after = (_tokens(sql[col - 1:]) + [";", ";"])[:2]
    if after == close:
        return _reserved(token) if token in RESERVED_WORDS else f"Expecting '{close}'"
    return f"missing '{close}' at '{token}'" if follows else mismatch


def _tokens(text: str) -> list[str]:
    return re.findall(r"'[^']*'|\w+|\S", text)


def _at(statement: str) -> tuple[str, int]:
    """The statement without MARK, and the 1-based column MARK stood at."""
    return statement.replace(MARK, "", 1), statement.index(MARK) + 1


def _reserved(word: str) -> str:
    return (f'"{word}" is a reserved keyword and it can\'t be used as an identifier. '
            f"You can use it as an identifier by escaping it as '{word}' ")


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
        near = (_tokens(sql[col - 1:]) or [";"])[0]
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
            # before its name, CREATE STREAM|TABLE is still one of two forms (a SOURCE one is not)
            detail = None if what == "the source name" and not kind.startswith("SOURCE") else ""
            out.append(_case(f"CREATE {kind}: nothing begins {what}", template.format(kind=kind, key=key), detail))
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
    out.extend(_closing_cases(setup))
    for what, statement, detail in RESERVED_NAMES:
        out.append(_case(f"a reserved word as {what}", statement, _detail(detail), setup))
    for what, statement, detail in VARIABLE_NAMES:
        out.append(_case(f"a variable named by {what}", statement, detail))
    return out


def _closing_cases(setup: tuple[str, ...]) -> list[Case]:
    out: list[Case] = []
    for bracket, opened, close, mismatch in OPEN_BRACKETS:
        for where, query, follows in BRACKET_PLACES:
            for kind, wrap in WRAPS:
                statement = wrap.format(q=query.format(x=opened))
                detail = _closing(close, follows, statement, mismatch)
                if detail is not None:
                    out.append(_case(f"{kind}: {bracket} left open in {where}", statement, detail, setup))
        for where, query, follows in AGG_BRACKET_PLACES:
            for kind, wrap in AGG_WRAPS:
                statement = wrap.format(q=query.format(x=opened))
                out.append(_case(f"{kind}: {bracket} left open in {where}", statement,
                                 _closing(close, follows, statement, mismatch)))
    for where, query, follows in COUNT_STAR_PLACES:  # nothing optional between '*' and ')'
        for kind, wrap in AGG_WRAPS:
            statement = wrap.format(q=query)
            out.append(_case(f"{kind}: COUNT(* left open in {where}", statement,
                             _closing(")", follows, statement, "Expecting ')'")))
    for what, query, detail in GROUPINGS:
        for kind, wrap in AGG_WRAPS:
            out.append(_case(f"{kind}: GROUP BY with {what}", wrap.format(q=query), detail))
    for name, opened, close, mismatch in OPEN_TYPES:
        for where, template, follows in TYPE_PLACES:
            for kind, key in KINDS:
                statement = template.format(kind=kind, key=key, t=opened)
                detail = _closing(close, follows, statement, mismatch)
                if detail is not None:
                    out.append(_case(f"CREATE {kind}: {name} left open in {where}", statement, detail))
        for where, template, follows in OTHER_TYPE_PLACES:
            statement = template.format(t=opened)
            detail = _closing(close, follows, statement, mismatch)
            if detail is not None:
                out.append(_case(f"{name} left open in {where}", statement, detail))
    for what, statement, detail in CLOSES:
        out.append(_case(f"left unclosed: {what}", statement, _detail(detail), setup))
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
