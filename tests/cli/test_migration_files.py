"""A migration file's statements: unlike a /ksql request, the file's last statement must end in ';' as well -
ksqlDB's migrations tool splits the file itself and refuses text after the last ';' that is more than
whitespace and comments (from memory of ksql-migrations' CommandParser.splitSql)."""

from __future__ import annotations

import pytest

from ksqlpy.migrations.project import MigrationsError, statements_of


def test_every_statement_ends_in_a_semicolon() -> None:
    sql = ("-- users\nCREATE STREAM u (id STRING KEY) WITH (kafka_topic='u;v', value_format='JSON', partitions=1);\n"
           "INSERT INTO u (id) VALUES ('a;b'); /* done; */\n-- the end; really\n")
    assert statements_of(sql) == [
        "CREATE STREAM u (id STRING KEY) WITH (kafka_topic='u;v', value_format='JSON', partitions=1);",
        "INSERT INTO u (id) VALUES ('a;b');"]
    assert statements_of("") == [] and statements_of("-- nothing\n") == []


@pytest.mark.parametrize("sql, rest", [
    ("SHOW STREAMS", "SHOW STREAMS"),
    ("CREATE STREAM a (id INT KEY) WITH (kafka_topic='a', value_format='JSON', partitions=1);\n"
     "INSERT INTO a (id) VALUES (1)\n", "INSERT INTO a (id) VALUES (1)"),
    ("SHOW TOPICS;\nDROP STREAM a -- no semicolon; here\n", "DROP STREAM a -- no semicolon; here"),
    ("SHOW TOPICS; SELECT ';' AS s FROM a EMIT CHANGES", "SELECT ';' AS s FROM a EMIT CHANGES"),
])
def test_a_last_statement_without_semicolon_is_refused(sql: str, rest: str) -> None:
    with pytest.raises(MigrationsError) as got:
        statements_of(sql)
    assert str(got.value) == f"Unmatched command at end of file; missing semicolon: '{rest}'"


@pytest.mark.parametrize("sql", [
    "SHOW STREAMS; /* never closed",
    "/* never closed\nSHOW STREAMS;",
    "SHOW STREAMS /* never closed;",
    "SHOW TOPICS; /* closed */ SHOW STREAMS; /* open; SHOW TABLES;",
])
def test_a_block_comment_never_closed_is_refused(sql: str) -> None:
    # the splitter looks for the comment's '*/' and refuses the file without it (a '/*' is no comment without it)
    with pytest.raises(MigrationsError) as got:
        statements_of(sql)
    assert str(got.value) == "Invalid sql - failed to find closing token '*/'"


@pytest.mark.parametrize("sql", ["SELECT '/*' AS s FROM a;", "SHOW STREAMS; -- /* in a line comment\n",
                                 "SHOW STREAMS; /* a */ /* b */"])
def test_an_opening_pair_in_text_or_a_closed_comment_is_not_refused(sql: str) -> None:
    assert statements_of(sql)[-1].endswith(";")
