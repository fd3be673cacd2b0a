"""A CREATE STREAM/TABLE is prepared as ksqlDB's AST builder does it, once the whole text parsed: column types,
duplicate names, the WITH clause, then the key constraint - the first fault in that order is reported."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import parse

WITH = "WITH (kafka_topic='t', value_format='JSON')"
KINDS = ("\nTables have PRIMARY KEYs, which are unique and NON NULL.\n"
         "Streams have KEYs, which have no uniqueness or NON NULL constraints.")


def error_of(sql: str, types: frozenset[str] | None = frozenset()) -> str:
    with pytest.raises(KsqlParseError) as info:
        parse(sql, types=types)
    return str(info.value)


def test_key_constraint_is_its_own_parse_failure_without_the_prepare_prefix() -> None:
    assert error_of(f"CREATE STREAM s (v INT,\n id INT PRIMARY KEY) {WITH};") == (
        "Line: 2, Col: 2: Column `ID` is a 'PRIMARY KEY' column: please use 'KEY' for streams." + KINDS)
    assert error_of(f"CREATE TABLE t (id INT KEY, v INT) {WITH};") == (
        "Line: 1, Col: 17: Column `ID` is a 'KEY' column: please use 'PRIMARY KEY' for tables." + KINDS)


def test_a_syntax_error_later_in_the_text_comes_first() -> None:
    assert error_of(f"CREATE STREAM s (id INT PRIMARY KEY) {WITH} EMIT;").startswith("line 1:")
    assert error_of(f"CREATE STREAM s (id INT PRIMARY KEY) {WITH};\nSELECT FROM;").startswith("line 2:")


def test_each_step_before_the_next() -> None:
    unknown = "Failed to prepare statement: Cannot resolve unknown type: NOPE"
    assert error_of("CREATE STREAM s (id INT PRIMARY KEY, v NOPE) WITH (value_format='JSON', x=1);") == unknown
    duplicate = "Failed to prepare statement: Duplicate column names: `V`"
    assert error_of("CREATE STREAM s (id INT PRIMARY KEY, v INT, v STRING) WITH (x=1);") == duplicate
    assert error_of("CREATE STREAM s (id INT PRIMARY KEY, v INT) WITH (value_format='JSON', x=1);") == (
        "Failed to prepare statement: Invalid config variable(s) in the WITH clause: X")
    assert error_of("CREATE STREAM s (id INT PRIMARY KEY, v INT) WITH (value_format='JSON');") == (
        'Failed to prepare statement: Missing required property "KAFKA_TOPIC" which has no default value.')


def test_registered_types_resolve_and_without_a_registry_types_wait() -> None:
    sql = "CREATE STREAM s (id INT PRIMARY KEY, v ADDRESS) WITH (value_format='JSON');"
    assert "KAFKA_TOPIC" in error_of(sql, frozenset({"ADDRESS"}))
    assert "KAFKA_TOPIC" in error_of(sql, None)  # the engine resolves the type later (prepared_types)
    assert "unknown type: ADDRESS" in error_of(sql)
    # a CAST's type in a CREATE ... AS SELECT is read before its WITH clause
    assert "unknown type: NOPE" in error_of("CREATE STREAM o WITH (x=1) AS SELECT CAST(a AS NOPE) FROM s;")
