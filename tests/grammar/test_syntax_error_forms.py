"""Syntax errors in ksqlDB's forms: ``Syntax error at or near 'X' at line L:C`` when nothing fits,
``Expecting ...`` for at most three alternatives (nothing for more), the reserved-word and unknown-statement
details, a missing closing bracket at the end of the text, and the failing line as the statement."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import parse
from ksqlpy.grammar.errors import MISSING_BRACKET, STATEMENT_KEYWORDS, syntax_message, unknown_statement


def _error(sql: str) -> KsqlParseError:
    with pytest.raises(KsqlParseError) as err:
        parse(sql, allow_run_script=False)
    return err.value


@pytest.mark.parametrize(("sql", "where"), [
    # a sub-rule the statement requires, at a token that cannot begin it: ANTLR's sync before the rule's
    # alternatives (or its match) reports a mismatch listing every token that can begin it - always more
    # than three, so ksqlDB prints no detail
    ("SELECT * FROM s WHERE;", "1:22"),                                     # booleanExpression
    ("SELECT * FROM s GROUP BY;", "1:25"),                                  # groupBy
    ("DROP STREAM;", "1:12"),                                               # (IF EXISTS)? sourceName
    ("DROP TABLE;", "1:11"),
    ("DROP TYPE;", "1:10"),
    ("DROP CONNECTOR;", "1:15"),
    ("SELECT * FROM s\nWHERE a = = 1;", "2:11"),                            # the comparison's valueExpression
    ("CREATE STREAM s (a INT) WITH (kafka_topic='t', partitions=);", "1:59"),  # literal
    ("CREATE STREAM s (a INT) WITH ();", "1:31"),                           # tableProperty
    ("CREATE STREAM s (a INT, ) WITH (kafka_topic='t', value_format='JSON');", "1:25"),  # tableElement
    ("CREATE STREAM s (a) WITH (kafka_topic='t', value_format='JSON');", "1:19"),       # type
    ("INSERT INTO s VALUES (1,;", "1:25"),                                  # valueExpression
    ("INSERT INTO s (a,) VALUES (1);", "1:18"),                             # identifier
    ("SELECT * FROM s WHERE a IN ();", "1:29"),
    ("SELECT * FROM s WHERE a LIKE;", "1:29"),
    ("SELECT * FROM s WHERE NOT;", "1:26"),
    ("SELECT * FROM s WHERE a > 1 AND;", "1:32"),
    ("SELECT , a FROM s;", "1:8"),                                          # selectItem
    ("SELECT * FROM;", "1:14"),                                             # relation
    ("SELECT * FROM s LIMIT;", "1:22"),                                     # number
    ("SELECT * FROM s LIMIT x;", "1:23"),
    ("CREATE TABLE t AS SELECT k, COUNT(*) FROM s GROUP BY k HAVING;", "1:62"),
    ("CREATE TABLE t AS SELECT k, COUNT(*) FROM s GROUP BY k,;", "1:56"),
    ("ALTER STREAM s ADD;", "1:19"),                                        # (COLUMN)? identifier
    ("ALTER STREAM s ADD COLUMN c;", "1:28"),                               # type
    ("PRINT;", "1:6"),                                                      # (identifier | STRING)
    ("EXPLAIN;", "1:8"),                                                    # (statement | identifier)
    ("ASSERT TOPIC;", "1:13"),
])
def test_a_required_rule_that_cannot_begin_is_a_mismatch(sql: str, where: str) -> None:
    e = _error(sql)
    assert e.message.startswith(f"line {where}: Syntax Error\n\nStatement: ")


@pytest.mark.parametrize(("sql", "near", "where"), [
    # the statement's forms share their first tokens; ANTLR's prediction among them fails at this token
    ("DESCRIBE;", "';'", "1:9"),
    ("DESCRIBE 1;", "'1'", "1:10"),
    ("DESCRIBE SELECT;", "'SELECT'", "1:10"),             # no mismatch: not named as a reserved word
    ("TERMINATE;", "';'", "1:10"),                         # TERMINATE identifier | TERMINATE ALL
    ("TERMINATE 1;", "'1'", "1:11"),
    ("PAUSE;", "';'", "1:6"),
    ("RESUME;", "';'", "1:7"),
    ("ASSERT;", "';'", "1:7"),                             # ASSERT (NOT EXISTS)? TOPIC | ... SCHEMA
    ("ASSERT x;", "'x'", "1:8"),
    ("ASSERT NOT;", "';'", "1:11"),                        # both forms take NOT: it fails after it
    ("ASSERT NOT x;", "'x'", "1:12"),
    ("INSERT INTO s SELEC * FROM t;", "'SELEC'", "1:15"),  # INSERT INTO ... query | ... VALUES
])
def test_no_viable_statement_form(sql: str, near: str, where: str) -> None:
    e = _error(sql)
    assert e.message.startswith(f"line {where}: Syntax Error\nSyntax error at or near {near} at line {where}\n")


@pytest.mark.parametrize(("sql", "where", "detail"), [
    # ksqlDB's string literal is one token (symbolic name STRING): ANTLR's match recovers inline
    ("SET 'a' = ;", "1:11", "missing STRING at ';'"),      # the statement may end after it
    ("UNSET;", "1:6", "missing STRING at ';'"),
    ("DEFINE a = ;", "1:12", "missing STRING at ';'"),
    ("ALTER SYSTEM 'a' = ;", "1:20", "missing STRING at ';'"),
    ("SET a = 'b';", "1:5", "Expecting STRING"),           # a mismatch: '=' cannot come first
    ("UNSET a;", "1:7", "Expecting STRING"),
    ("DEFINE a = b;", "1:12", "Expecting STRING"),
    ("SET 'a' = x 'b';", "1:11", "Expecting STRING"),      # extraneous: a string follows it
    ("CREATE STREAM s (a BYTES HEADER()) WITH (kafka_topic='t', value_format='JSON');", "1:33",
     "missing STRING at ')'"),
    ("CREATE STREAM s (a BYTES HEADER(x)) WITH (kafka_topic='t', value_format='JSON');", "1:33",
     "Expecting STRING"),
    ("SELECT * FROM s WHERE a LIKE 'x' ESCAPE 1;", "1:41", "Expecting STRING"),
    ("SELECT a AT TIME ZONE 1 FROM s;", "1:23", "Expecting STRING"),
    # '=' between two strings: missing where a string stands in its place
    ("SET 'a' 'b';", "1:9", "missing '=' at ''b''"),
    ("DEFINE a 'b';", "1:10", "missing '=' at ''b''"),
    ("ALTER SYSTEM 'a' 'b';", "1:18", "missing '=' at ''b''"),
    ("SET 'a';", "1:8", "Expecting '='"),
])
def test_a_string_token_recovers_as_antlr_does(sql: str, where: str, detail: str) -> None:
    assert _error(sql).message.startswith(f"line {where}: Syntax Error\n{detail}\n")


def test_a_string_missing_at_the_end_of_the_text_misses_a_bracket() -> None:
    # no ';': the mismatch is at <EOF>, which ksqlDB words as a missing bracket
    assert _error("SET 'a' =").message.startswith(f"line 1:10: Syntax Error\n{MISSING_BRACKET}")


@pytest.mark.parametrize(("sql", "where", "detail"), [
    # the query of CREATE ... AS begins with match(SELECT): missing where the token can begin a select item
    ("CREATE STREAM s AS SELEC * FROM t;", "1:20", "missing 'SELECT' at 'SELEC'"),
    ("CREATE TABLE s WITH (kafka_topic='x') AS a, b FROM t;", "1:42", "missing 'SELECT' at 'a'"),
    ("CREATE STREAM s AS * FROM t;", "1:20", "missing 'SELECT' at '*'"),
    ("CREATE STREAM s AS x SELECT * FROM t;", "1:20", "Expecting 'SELECT'"),  # extraneous
    ("CREATE STREAM s AS FROM t;", "1:20", "Expecting 'SELECT'"),             # a mismatch
])
def test_the_select_of_create_as(sql: str, where: str, detail: str) -> None:
    assert _error(sql).message.startswith(f"line {where}: Syntax Error\n{detail}\n")


@pytest.mark.parametrize(("expected", "detail"), [
    ("')'", "Expecting ')'"),
    ("{',', ')'}", "Expecting {',', ')'}"),
    ("{'TUMBLING', 'HOPPING', 'SESSION'}", "Expecting {'TUMBLING', 'HOPPING', 'SESSION'}"),
    ("{'STRING', INTEGER_VALUE}", "Expecting {'STRING', INTEGER_VALUE}"),
    ("{'A', 'B', 'C', 'D'}", ""),
    ("{',', '(', ')', 'X', 'Y'}", ""),
])
def test_expected_alternatives_are_listed_up_to_three(expected: str, detail: str) -> None:
    assert syntax_message("x", expected, (1, 5)) == f"Syntax Error\n{detail}"


def test_a_rule_described_in_words_is_a_long_alternative_list() -> None:
    assert syntax_message("x", "a source name", (3, 4)) == "Syntax Error\n"
    assert syntax_message("x", None, (3, 4)) == "Syntax Error\nSyntax error at or near 'x' at line 3:4"
    assert syntax_message("x", "STRING", (3, 4)) == "Syntax Error\nExpecting STRING"


def test_many_alternatives_give_no_detail() -> None:
    e = _error("SELECT * FROM s WHERE a = 1 x y;")
    assert e.message == "line 1:29: Syntax Error\n\nStatement: SELECT * FROM s WHERE a = 1 x y;"


@pytest.mark.parametrize(("sql", "detail"), [
    # text after a complete query fails at singleStatement's ';': the mismatch lists what the first optional
    # point since the last token a sync was sure of allowed (nextTokensContext) - after EMIT CHANGES only
    # limitClause? is left, after LIMIT n nothing (the ';' alone)
    ("SELECT * FROM s EMIT CHANGES EMIT CHANGES;", "Expecting {';', 'LIMIT'}"),
    ("SELECT * FROM s EMIT FINAL x y;", "Expecting {';', 'LIMIT'}"),
    ("SELECT * FROM s LIMIT 2 EMIT CHANGES;", "Expecting ';'"),
    ("PRINT t LIMIT 2 x y;", "Expecting ';'"),
])
def test_text_after_the_last_clause_lists_what_was_left(sql: str, detail: str) -> None:
    assert _error(sql).message.split("\n")[1] == detail


@pytest.mark.parametrize(("sql", "near", "where"), [
    # the word after the statement's first word fits none of its alternatives (as ASSERT VALUES, a visible
    # case): ANTLR's prediction over the statement finds no viable alternative at that word
    ("SHOW STREAMZ;", "'STREAMZ'", "1:6"),
    ("LIST foo;", "'foo'", "1:6"),
    ("SHOW;", "';'", "1:5"),
    ("DROP s;", "'s'", "1:6"),
    ("CREATE foo x;", "'foo'", "1:8"),
    ("CREATE SOURCE foo x;", "'foo'", "1:15"),
    ("CREATE OR STREAM x AS SELECT * FROM s;", "'STREAM'", "1:11"),
    ("CREATE OR REPLACE x AS SELECT * FROM s;", "'x'", "1:19"),
    ("ALTER VIEW v ADD COLUMN c INT;", "'VIEW'", "1:7"),
])
def test_no_statement_alternative_fits(sql: str, near: str, where: str) -> None:
    assert _error(sql).message.startswith(f"line {where}: Syntax Error\nSyntax error at or near {near} at line {where}\n")


@pytest.mark.parametrize("sql", ["SELECT a FROM s WHERE (a = 1", "SELECT * FROM", "SELECT ARRAY[1, 2"])
def test_text_ending_early_misses_a_bracket(sql: str) -> None:
    assert "Syntax Error\nSyntax error at or near \";\"\n'}', ']', or ')' is missing" in _error(sql).message


@pytest.mark.parametrize(("word", "closest"), [
    ("SELEC", "SELECT"), ("CREAT", "CREATE"), ("INSRT", "INSERT"), ("DESCRIBEE", "DESCRIBE"), ("SHWO", "SHOW"),
    ("TERMINAT", "TERMINATE"), ("DORP", "DROP"), ("UNSETT", "UNSET"), ("selec", "SELECT"), ("ALTR", "ALTER"),
])
def test_an_unknown_statement_suggests_the_closest(word: str, closest: str) -> None:
    e = _error(f"{word} something;")
    assert e.message.startswith(f"line 1:1: Syntax Error\nUnknown statement '{word}'\nDid you mean '{closest}'?\n")


def test_every_statement_keyword_suggests_itself() -> None:
    for keyword in STATEMENT_KEYWORDS:
        assert unknown_statement(keyword).endswith(f"Did you mean '{keyword}'?")


@pytest.mark.parametrize("word", ["SELECT", "FROM", "WHERE", "TABLE", "STREAM", "JOIN"])
@pytest.mark.parametrize("template", [
    # the token after the reserved word can begin the identifier: ANTLR deletes the word as extraneous
    "CREATE STREAM s ({w} INT) WITH (kafka_topic='t', value_format='JSON');",
    "CREATE SOURCE STREAM {w} x (a INT) WITH (kafka_topic='t', value_format='JSON');",
    "SELECT * FROM {w} x;",
    "SELECT a AS {w} b FROM s;",
])
def test_reserved_words_are_not_identifiers(word: str, template: str) -> None:
    for written in (word.lower(), word, word.capitalize()):  # named as written, whatever its case
        e = _error(template.format(w=written))
        assert (f'"{written}" is a reserved keyword and it can\'t be used as an identifier. '
                f"You can use it as an identifier by escaping it as '{written}' ") in e.message


@pytest.mark.parametrize("word", ["SELECT", "FROM", "WHERE", "TABLE", "STREAM", "JOIN"])
@pytest.mark.parametrize("template", [
    # nothing after the reserved word could follow it: a plain mismatch, which lists every token an
    # identifier can begin with - no detail (SyntaxErrorValidator names a reserved word only when extraneous)
    "CREATE STREAM s ({w}) WITH (kafka_topic='t', value_format='JSON');",
    "CREATE SOURCE STREAM {w} (a INT) WITH (kafka_topic='t', value_format='JSON');",
    "SELECT * FROM {w};",
    "SELECT a AS {w} FROM s;",
    "DROP TABLE {w};",
    "INSERT INTO s (a, {w}) VALUES (1, 2);",
])
def test_reserved_words_in_a_plain_mismatch(word: str, template: str) -> None:
    sql = template.format(w=word.lower())
    assert _error(sql).message.endswith(f": Syntax Error\n\nStatement: {sql}")
    if "(a INT)" in sql or "{w})" not in template:
        parse(template.format(w=f"`{word}`"))


@pytest.mark.parametrize(("sql", "near"), [
    # CREATE [OR REPLACE] STREAM|TABLE and INSERT INTO begin two statement forms each: ANTLR's prediction reads
    # on until they part, so a token that fits neither before that point has no viable alternative
    ("CREATE STREAM select (a INT) WITH (kafka_topic='t', value_format='JSON');", "'select' at line 1:15"),
    ("CREATE OR REPLACE TABLE from t (a INT PRIMARY KEY) WITH (kafka_topic='t');", "'from' at line 1:25"),
    ("CREATE TABLE 't' AS SELECT * FROM s;", "'t' at line 1:14"),
    ("CREATE STREAM s WITH (kafka_topic='t' value_format='JSON');", "'value_format' at line 1:39"),
    ("INSERT INTO select SELECT * FROM s;", "'select' at line 1:13"),
])
def test_a_statement_form_not_yet_predicted(sql: str, near: str) -> None:
    assert _error(sql).message.startswith(f"line {near[near.rindex(' ') + 1:]}: Syntax Error\n"
                                          f"Syntax error at or near {near}\n")


@pytest.mark.parametrize(("sql", "detail"), [
    # the form without a query could end before the stray token: ANTLR's prediction settles on it (the
    # alternative that finished its rule) and the token is the statement's own error
    ("CREATE STREAM s WITH (kafka_topic='t') x;", "Expecting ';'"),
    ("CREATE TABLE t x;", "Expecting ';'"),                     # before KAFKA_TOPIC is found missing
    ("CREATE STREAM s (a INT) WITH (value_format='JSON') x;", "Expecting ';'"),
    # two tokens: a mismatch at ';' - the WITH clause's ')' came after a sync sure of its token (the
    # properties' loop at ')'), so nothing optional was remembered: ';' alone
    ("CREATE STREAM s WITH (kafka_topic='t') EMIT CHANGES;", "Expecting ';'"),
])
def test_a_stray_token_after_a_create_that_could_end(sql: str, detail: str) -> None:
    assert _error(sql).message.startswith(f"line 1:{sql.index(' x' if ' x;' in sql else ' EMIT') + 2}: "
                                          f"Syntax Error\n{detail}\nStatement: ")


def test_the_statement_quoted_is_the_failing_line() -> None:
    e = _error("CREATE STREAM s (\n  a INT,\n  b INT INT\n) WITH (kafka_topic='t', value_format='JSON');")
    assert e.line == 3
    assert e.message.endswith("\nStatement:   b INT INT")


@pytest.mark.parametrize("window", [
    "WINDOW w TUMBLING (SIZE 1 SECOND)", "WINDOW w1 HOPPING (SIZE 2 SECONDS, ADVANCE BY 1 SECOND)",
    "WINDOW `my window` SESSION (30 SECONDS)", "WINDOW TUMBLING (SIZE 1 SECOND)",
])
def test_a_window_may_be_named(window: str) -> None:
    [stmt] = parse(f"CREATE TABLE t AS SELECT k, COUNT(*) FROM s {window} GROUP BY k;")
    assert stmt.query.window.type in ("TUMBLING", "HOPPING", "SESSION")


@pytest.mark.parametrize("sql", [
    "SELECT `a.b`, s.`c.d` FROM `my.stream` s;",
    "CREATE STREAM `x.y` (`a.b` INT KEY, `c.d.e` STRING) WITH (kafka_topic='t', value_format='JSON');",
    "INSERT INTO `x.y` (`a.b`, `c.d.e`) VALUES (1, 'v');",
])
def test_quoted_identifiers_may_hold_dots(sql: str) -> None:
    parse(sql)


@pytest.mark.parametrize("word", ["select", "FROM", "Table", "emit"])
def test_reserved_words_name_variables(word: str) -> None:
    [define, undefine] = parse(f"DEFINE {word} = 'v'; UNDEFINE {word};")
    assert (define.name, define.value, undefine.name) == (word, "v", word)
    # variableName: IDENTIFIER | nonReserved - anything else is a mismatch at the sync before it (no detail)
    for sql, where in (("DEFINE 1 = 'v';", "1:8"), ("DEFINE 1x = 'v';", "1:8"), ("DEFINE `x` = 'v';", "1:8"),
                       ("DEFINE 'x' = 'v';", "1:8"), ("UNDEFINE;", "1:9")):
        assert _error(sql).message == f"line {where}: Syntax Error\n\nStatement: {sql}"


@pytest.mark.parametrize(("sql", "where", "detail"), [
    # joinType ends after its optional OUTER, so match(JOIN) fails with JOIN alone expected; a token that can
    # begin the joined source is where ANTLR's single-token insertion puts the missing JOIN
    ("SELECT * FROM l LEFT t ON l.id = t.id;", "1:22", "missing 'JOIN' at 't'"),
    ("SELECT * FROM l RIGHT t ON l.id = t.id;", "1:23", "missing 'JOIN' at 't'"),
    ("SELECT * FROM l FULL t ON l.id = t.id;", "1:22", "missing 'JOIN' at 't'"),
    ("SELECT * FROM l LEFT OUTER t ON l.id = t.id;", "1:28", "missing 'JOIN' at 't'"),
    ("SELECT * FROM l INNER t ON l.id = t.id;", "1:23", "missing 'JOIN' at 't'"),
    ("SELECT * FROM l FULL OUTER `t` ON l.id = t.id;", "1:28", "missing 'JOIN' at '`t`'"),
    # single-token deletion first: a token followed by JOIN is extraneous
    ("SELECT * FROM l LEFT x JOIN t ON l.id = t.id;", "1:22", "Expecting 'JOIN'"),
    # neither: a mismatch, JOIN alone expected
    ("SELECT * FROM l LEFT 5 ON l.id = t.id;", "1:22", "Expecting 'JOIN'"),
    ("SELECT * FROM l RIGHT;", "1:22", "Expecting 'JOIN'"),
    # after the joined source (and its alias): the optional window, then ON
    ("SELECT * FROM l JOIN t;", "1:23", "Expecting {'WITHIN', 'ON'}"),
    ("SELECT * FROM l JOIN t x y ON l.id = x.id;", "1:26", "Expecting {'WITHIN', 'ON'}"),
    # GRACE is no reserved word: after a table it is an alias, and PERIOD is where it goes wrong
    ("SELECT * FROM l JOIN t GRACE PERIOD 1 SECOND ON l.id = t.id;", "1:30", "Expecting {'WITHIN', 'ON'}"),
    # after the window: its optional grace period, then ON
    ("SELECT * FROM l JOIN r WITHIN 1 SECOND x ON l.id = r.id;", "1:40", "Expecting {'GRACE', 'ON'}"),
    ("SELECT * FROM l JOIN r WITHIN (1 SECOND, 2 SECONDS) x;", "1:53", "Expecting {'GRACE', 'ON'}"),
    ("SELECT * FROM l JOIN r WITHIN 1 SECOND GRACE PERIOD 2 SECONDS x;", "1:63", "Expecting 'ON'"),
    ("SELECT * FROM l JOIN r WITHIN 1 SECOND GRACE 2 SECONDS ON l.id = r.id;", "1:46", "missing 'PERIOD' at '2'"),
    ("SELECT * FROM l JOIN r WITHIN 1 SECOND GRACE x 2 SECONDS ON l.id = r.id;", "1:46", "Expecting 'PERIOD'"),
])
def test_join_clause_names_what_could_come_next(sql: str, where: str, detail: str) -> None:
    e = _error(sql)
    assert e.message.startswith(f"line {where}: Syntax Error\n{detail}\n")


@pytest.mark.parametrize(("sql", "where", "detail"), [
    # a keyword the window's grammar requires (SIZE, ADVANCE BY, GRACE PERIOD): missing where the token can
    # begin what follows it (a number), extraneous when the keyword follows, else a mismatch
    ("WINDOW TUMBLING (1 SECOND)", "1:44", "missing 'SIZE' at '1'"),
    ("WINDOW TUMBLING (-1 SECOND)", "1:44", "missing 'SIZE' at '-'"),
    ("WINDOW TUMBLING (x 1 SECOND)", "1:44", "Expecting 'SIZE'"),
    ("WINDOW HOPPING (SIZE 2 SECONDS, ADVANCE 1 SECOND)", "1:67", "missing 'BY' at '1'"),
    ("WINDOW HOPPING (SIZE 2 SECONDS, BY 1 SECOND)", "1:59", "missing 'ADVANCE' at 'BY'"),
    ("WINDOW HOPPING (SIZE 2 SECONDS, 1 SECOND)", "1:59", "Expecting 'ADVANCE'"),
    ("WINDOW TUMBLING (SIZE 1 SECOND, GRACE 2 SECONDS)", "1:65", "missing 'PERIOD' at '2'"),
    ("WINDOW SESSION (1 SECOND, GRACE 2 SECONDS)", "1:59", "missing 'PERIOD' at '2'"),
    ("WINDOW TUMBLING (SIZE 1 SECOND, RETENTION 2 SECONDS, GRACE 2 SECONDS)", "1:86", "missing 'PERIOD' at '2'"),
    ("WINDOW TUMBLING (SIZE 1 SECOND, RETENTION 2 SECONDS, PERIOD 2 SECONDS)", "1:80", "missing 'GRACE' at 'PERIOD'"),
    ("WINDOW TUMBLING (SIZE 1 SECOND, RETENTION 2 SECONDS, x)", "1:80", "Expecting 'GRACE'"),
    # (',' retentionClause)? (',' gracePeriodClause)?: ANTLR predicts past the comma; a word that begins
    # neither leaves no viable alternative
    ("WINDOW TUMBLING (SIZE 1 SECOND, x 2 SECONDS)", "1:59", "Syntax error at or near 'x' at line 1:59"),
    ("WINDOW TUMBLING (SIZE 1 SECOND,)", "1:58", "Syntax error at or near ')' at line 1:58"),
])
def test_window_keywords_recover_as_antlr_does(sql: str, where: str, detail: str) -> None:
    e = _error(f"SELECT K, COUNT(*) FROM S {sql} GROUP BY K EMIT CHANGES;")
    assert e.message.startswith(f"line {where}: Syntax Error\n{detail}\n")


@pytest.mark.parametrize(("sql", "where", "detail"), [
    # missing where the token can begin what follows the keyword (ANTLR's single-token insertion)
    ("SELECT CAST(i INT) FROM s EMIT CHANGES;", "1:15", "missing 'AS' at 'INT'"),
    ("SELECT CAST(i ARRAY<INT>) FROM s EMIT CHANGES;", "1:15", "missing 'AS' at 'ARRAY'"),
    ("SELECT i FROM s WHERE i BETWEEN 1 2 EMIT CHANGES;", "1:35", "missing 'AND' at '2'"),
    ("SELECT i FROM s WHERE i BETWEEN 1 j EMIT CHANGES;", "1:35", "missing 'AND' at 'j'"),
    ("SELECT CASE WHEN i > 0 1 END FROM s EMIT CHANGES;", "1:24", "missing 'THEN' at '1'"),
    ("SELECT CASE WHEN i > 0 'a' END FROM s EMIT CHANGES;", "1:24", "missing 'THEN' at ''a''"),
    ("SELECT ts AT ZONE 'UTC' FROM s EMIT CHANGES;", "1:14", "missing 'TIME' at 'ZONE'"),
    ("SELECT ts AT TIME 'UTC' FROM s EMIT CHANGES;", "1:19", "missing 'ZONE' at ''UTC''"),
    ("SELECT STRUCT(a := 1, b 2) FROM s EMIT CHANGES;", "1:25", "missing ':=' at '2'"),
    ("SELECT MAP('a' := 1, 'b' 2) FROM s EMIT CHANGES;", "1:26", "missing ':=' at '2'"),
    # STRUCT and MAP may also name a function: the first ':=' decides, so without it nothing is viable
    ("SELECT STRUCT(a 1) FROM s EMIT CHANGES;", "1:17", "Syntax error at or near '1' at line 1:17"),
    ("SELECT MAP('a' 1) FROM s EMIT CHANGES;", "1:16", "Syntax error at or near '1' at line 1:16"),
    ("CREATE TYPE t STRUCT<a INT>;", "1:15", "missing 'AS' at 'STRUCT'"),
    ("CREATE TYPE t INT;", "1:15", "missing 'AS' at 'INT'"),
    # extraneous when the keyword follows the token
    ("SELECT CASE WHEN i > 0 x THEN 1 END FROM s EMIT CHANGES;", "1:24", "Expecting 'THEN'"),
    ("SELECT CAST(i x AS INT) FROM s EMIT CHANGES;", "1:15", "Expecting 'AS'"),
    # a mismatch otherwise
    ("SELECT CAST(i, INT) FROM s EMIT CHANGES;", "1:14", "Expecting 'AS'"),
])
def test_expression_keywords_recover_as_antlr_does(sql: str, where: str, detail: str) -> None:
    e = _error(sql)
    assert e.message.startswith(f"line {where}: Syntax Error\n{detail}\n")


@pytest.mark.parametrize("sql", ["INSERT s (k) VALUES ('a');", "INSERT s SELECT * FROM t;"])
def test_insert_without_into_has_no_viable_statement(sql: str) -> None:
    # both INSERT statements begin INSERT INTO: the statement's prediction fails at the token after INSERT
    assert _error(sql).message.startswith("line 1:8: Syntax Error\nSyntax error at or near 's' at line 1:8\n")


@pytest.mark.parametrize(("sql", "where", "detail"), [
    # the next token can begin the grouping: ANTLR inserts the missing BY and says so at that token
    ("SELECT * FROM s GROUP k EMIT CHANGES;", "1:23", "missing 'BY' at 'k'"),
    ("SELECT * FROM s GROUP (k, v) EMIT CHANGES;", "1:23", "missing 'BY' at '('"),
    ("SELECT * FROM s GROUP 'x';", "1:23", "missing 'BY' at ''x''"),
    ("SELECT * FROM s WHERE a > 1 PARTITION k;", "1:39", "missing 'BY' at 'k'"),
    ("SELECT * FROM s AS x PARTITION -k;", "1:32", "missing 'BY' at '-'"),
    ("CREATE TABLE t AS SELECT k, COUNT(*) FROM s GROUP CAST(k AS INT);", "1:51", "missing 'BY' at 'CAST'"),
    # it cannot: a mismatch with the one token expected
    ("SELECT * FROM s GROUP;", "1:22", "Expecting 'BY'"),
    ("SELECT * FROM s GROUP LIMIT 1;", "1:23", "Expecting 'BY'"),
    ("SELECT * FROM s WHERE a > 1 PARTITION HAVING a > 1;", "1:39", "Expecting 'BY'"),
])
def test_group_or_partition_without_by(sql: str, where: str, detail: str) -> None:
    assert _error(sql).message.startswith(f"line {where}: Syntax Error\n{detail}\n")


@pytest.mark.parametrize(("window", "where", "detail"), [
    # after a name only the three kinds fit; before it the name (IDENTIFIER) is a fourth alternative
    ("WINDOW w (SIZE 1 SECOND)", "1:54", "Expecting {'TUMBLING', 'HOPPING', 'SESSION'}"),
    ("WINDOW w SLIDING (SIZE 1 SECOND)", "1:54", "Expecting {'TUMBLING', 'HOPPING', 'SESSION'}"),
    ("WINDOW (SIZE 1 SECOND)", "1:52", ""),
])
def test_a_missing_window_kind(window: str, where: str, detail: str) -> None:
    e = _error(f"CREATE TABLE t AS SELECT k, COUNT(*) FROM s {window} GROUP BY k;")
    assert e.message.startswith(f"line {where}: Syntax Error\n{detail}\n")


@pytest.mark.parametrize(("sql", "where", "detail"), [
    ("DROP STREAM s DELETE;", "1:21", "missing 'TOPIC' at ';'"),  # the statement may end after TOPIC
    ("DROP TABLE IF EXISTS t DELETE;", "1:30", "missing 'TOPIC' at ';'"),
    ("DROP STREAM s DELETE TOPICS;", "1:22", "Expecting 'TOPIC'"),
    ("INSERT INTO s (a) VALUE (1);", "1:19", "Expecting 'VALUES'"),  # after a column list only VALUES fits
    ("INSERT INTO s RECORDS (1);", "1:15", "Syntax error at or near 'RECORDS' at line 1:15"),  # no INSERT form
])
def test_one_token_missing_or_expected(sql: str, where: str, detail: str) -> None:
    assert _error(sql).message.startswith(f"line {where}: Syntax Error\n{detail}\n")


@pytest.mark.parametrize(("sql", "where", "detail"), [
    ("SELECT * s EMIT CHANGES;", "1:10", "Expecting {',', 'FROM'}"),
    ("SELECT a b c FROM s;", "1:12", "Expecting {',', 'FROM'}"),  # b is a's alias; c is extraneous
    ("SELECT a) FROM s;", "1:9", "Expecting {',', 'FROM'}"),
    ("SELECT *;", "1:9", "Expecting {',', 'FROM'}"),
    # extraneous before FROM and reserved: named as a reserved word
    ("SELECT * WHERE FROM s;", "1:10", '"WHERE" is a reserved keyword'),
])
def test_after_the_select_list_a_comma_or_from(sql: str, where: str, detail: str) -> None:
    assert _error(sql).message.startswith(f"line {where}: Syntax Error\n{detail}")


@pytest.mark.parametrize(("sql", "where", "detail"), [
    # one extraneous token before the ';' singleStatement expects
    ("SHOW STREAMS foo;", "1:14", "Expecting ';'"),
    ("DROP STREAM s x;", "1:15", "Expecting ';'"),
    ("SELECT * FROM s EMIT CHANGES foo;", "1:30", "Expecting ';'"),
    ("SELECT * FROM s WHERE a > 1 foo;", "1:29", "Expecting ';'"),
    ("SELECT * FROM s EMIT CHANGES WHERE;", "1:30", '"WHERE" is a reserved keyword'),
    # more than one: a mismatch against what the first optional point since the last sure token allowed (after
    # EMIT CHANGES only the LIMIT clause, see test_text_after_the_last_clause_lists_what_was_left)
    ("SELECT * FROM s EMIT CHANGES EMIT CHANGES;", "1:30", "Expecting {';', 'LIMIT'}"),
    # after a statement ending before an optional keyword, what that keyword's sync remembered: ';' and it
    ("SHOW STREAMS foo bar;", "1:14", "Expecting {';', 'EXTENDED'}"),
    ("DESCRIBE s foo bar;", "1:12", "Expecting {';', 'EXTENDED'}"),
    ("DROP TABLE t foo bar;", "1:14", "Expecting {';', 'DELETE'}"),
    # after a fixed last token nothing was remembered: ';' alone
    ("SHOW STREAMS EXTENDED foo bar;", "1:23", "Expecting ';'"),
    ("SHOW FUNCTIONS foo bar;", "1:16", "Expecting ';'"),
    ("DROP STREAM s DELETE TOPIC foo bar;", "1:28", "Expecting ';'"),
    ("UNSET 'a' foo bar;", "1:11", "Expecting ';'"),
])
def test_text_after_a_complete_statement(sql: str, where: str, detail: str) -> None:
    assert _error(sql).message.startswith(f"line {where}: Syntax Error\n{detail}")


@pytest.mark.parametrize(("sql", "where", "detail"), [
    # after an item of ``item (',' item)* CLOSE``: ANTLR's sync at the loop's entry expects ',' or CLOSE
    ("CREATE STREAM s (a INT) WITH (kafka_topic='t' value_format='JSON');", "1:47", "Expecting {',', ')'}"),
    ("CREATE STREAM s (a INT) WITH (kafka_topic='t';", "1:46", "Expecting {',', ')'}"),
    ("INSERT INTO s (a b) VALUES (1);", "1:18", "Expecting {',', ')'}"),
    ("INSERT INTO s VALUES (1 2);", "1:25", "Expecting {',', ')'}"),
    ("SELECT f(1 b) FROM s;", "1:12", "Expecting {',', ')'}"),
    ("SELECT f(a + 1, b + 1 FROM s;", "1:23", "Expecting {',', ')'}"),
    ("SELECT f(a.b c) FROM s;", "1:14", "Expecting {',', ')'}"),     # the dot ends the lambda's prediction
    ("SELECT * FROM s WHERE a IN (1 2);", "1:31", "Expecting {',', ')'}"),
    ("SELECT ARRAY[1 2] FROM s;", "1:16", "Expecting {',', ']'}"),
    ("SELECT STRUCT(a := 1 b := 2) FROM s;", "1:22", "Expecting {',', ')'}"),
    ("SELECT MAP('a' := 1 'b' := 2) FROM s;", "1:21", "Expecting {',', ')'}"),
    ("SELECT f(1 FROM) FROM s;", "1:12", '"FROM" is a reserved keyword'),  # extraneous: ')' follows
])
def test_a_list_expects_a_comma_or_its_bracket(sql: str, where: str, detail: str) -> None:
    assert _error(sql).message.startswith(f"line {where}: Syntax Error\n{detail}")


@pytest.mark.parametrize(("sql", "where", "detail"), [
    # whenClause+ (ELSE expression)? END: the loop's back edge reports any other token as extraneous
    ("SELECT CASE WHEN a THEN 1 x END FROM s;", "1:27", "Expecting {'WHEN', 'ELSE', 'END'}"),
    ("SELECT CASE WHEN a THEN 1 FROM s;", "1:27", '"FROM" is a reserved keyword'),
    ("SELECT CASE WHEN a THEN 1 ELSE 2 x END FROM s;", "1:34", "Expecting 'END'"),  # extraneous before END
    # neither CASE form goes on with END: no viable alternative
    ("SELECT CASE END FROM s;", "1:13", "Syntax error at or near 'END' at line 1:13"),
    # THEN deleted as extraneous before the condition's first token
    ("SELECT CASE WHEN THEN 1 END FROM s;", "1:18", '"THEN" is a reserved keyword'),
    # `name.` then neither a column nor '*': the select item's prediction fails at that token
    ("SELECT a. FROM s;", "1:11", "Syntax error at or near 'FROM' at line 1:11"),
    ("SELECT x, a.;", "1:13", "Syntax error at or near ';' at line 1:13"),
])
def test_case_and_select_item_recovery(sql: str, where: str, detail: str) -> None:
    assert _error(sql).message.startswith(f"line {where}: Syntax Error\n{detail}")


@pytest.mark.parametrize(("sql", "where", "detail"), [
    # the token a rule requires after a type ('>' of ARRAY / MAP, ')' of CAST), two stray tokens before it:
    # ANTLR's mismatch lists what its sync remembered in the type - a base type's '(' and the type ARRAY loop,
    # a bracketed type's loop - and the required token (ARRAY's '>' a nested type required stays in the set)
    ("SELECT CAST(a AS INT 1 2) FROM s;", "1:22", "Expecting {'(', ')', 'ARRAY'}"),
    ("SELECT CAST(a AS DECIMAL(2, 1) 1 2) FROM s;", "1:32", "Expecting {')', 'ARRAY'}"),
    ("SELECT CAST(a AS ARRAY<INT> 1 2) FROM s;", "1:29", "Expecting {'(', 'ARRAY', '>'}"),
    ("SELECT CAST(a AS STRUCT<b INT> ARRAY 1 2) FROM s;", "1:38", "Expecting {')', 'ARRAY'}"),
    ("CREATE STREAM s (a ARRAY<INT x y>) WITH (kafka_topic='t');", "1:30", "Expecting {'(', 'ARRAY', '>'}"),
    ("CREATE STREAM s (a MAP<STRING, STRUCT<b INT> 1 2>) WITH (kafka_topic='t');", "1:46",
     "Expecting {'ARRAY', '>'}"),
    ("CREATE STREAM s (a MAP<INT 1 2, INT>) WITH (kafka_topic='t');", "1:28", "Expecting {',', '(', 'ARRAY'}"),
    # one stray token: ANTLR deletes it (the required token follows); a token that may follow the required
    # one: it is missing there (a select item's alias after CAST's ')', a name that begins MAP's value type)
    ("SELECT CAST(a AS INT 1) FROM s;", "1:22", "Expecting ')'"),
    ("SELECT CAST(a AS INT x y) FROM s;", "1:22", "missing ')' at 'x'"),
    ("CREATE STREAM s (a MAP<INT x y, INT>) WITH (kafka_topic='t');", "1:28", "missing ',' at 'x'"),
])
def test_stray_tokens_after_a_type(sql: str, where: str, detail: str) -> None:
    assert _error(sql).message.startswith(f"line {where}: Syntax Error\n{detail}\nStatement: ")
