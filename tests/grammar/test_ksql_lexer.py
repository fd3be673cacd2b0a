"""The tokenizer reads text as ksqlDB's lexer does, not as sqlglot's defaults add to every dialect."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import parse, tokenize
from ksqlpy.grammar.dialect import DIALECT
from ksqlpy.grammar.literals import BigDecimalError, java_big_decimal


def kinds(sql: str) -> list[tuple[str, str]]:
    return [(t.token_type.name, t.text) for t in DIALECT.tokenize(sql)]


def error_of(sql: str) -> str:
    with pytest.raises(KsqlParseError) as info:
        parse(sql)
    return str(info.value)


@pytest.mark.parametrize("prefix", ["N", "n"])
def test_no_national_strings(prefix: str) -> None:
    # N'x' is the name N and the string 'x' (a type constructor), not one national-string token
    assert kinds(f"SELECT {prefix}'x' FROM s")[1:3] == [("VAR", prefix), ("STRING", "x")]


def test_no_jinja_comments() -> None:
    # '{' is no ksqlDB token: a syntax error where it stands, not a comment up to '#}'
    assert error_of("SELECT a {# x #} FROM s;") == (
        "line 1:10: Syntax Error\nExpecting {',', 'FROM'}\nStatement: SELECT a {# x #} FROM s;")
    # inside a string or a comment it is text
    parse("SELECT '{# x #}' FROM s /* {# */;")


def test_type_constructor_of_an_unknown_type() -> None:
    assert error_of("SELECT\n  a, DATE '2020-01-01' FROM s;") == (
        "Failed to prepare statement: Unknown type: DATE, location:Optional[Line: 2, Col: 6]")
    assert error_of("SELECT `date` 'x' FROM s;").startswith("Failed to prepare statement: Unknown type: date,")


@pytest.mark.parametrize(("text", "literal"), [
    ("1.50", "1.50"), ("-0.05", "-0.05"), ("+12", "12."), ("1e3", "1000."), ("15E-3", "0.015"), (".5", "0.5"),
    ("5.", "5."), ("-0.5e1", "-5."),
])
def test_big_decimal_texts(text: str, literal: str) -> None:
    assert java_big_decimal(text) == literal


@pytest.mark.parametrize(("text", "message"), [
    ("1.2.3", "Character array contains more than one decimal point."),
    ("1,5", 'Character , is neither a decimal digit number, decimal point, nor "e" notation exponential mark.'),
    ("-", "No digits found."),
    ("1e+", "No exponent digits."),
    ("1ex", "Not a digit."),
    ("", "null"),
])
def test_big_decimal_refusals(text: str, message: str) -> None:
    with pytest.raises(BigDecimalError) as info:
        java_big_decimal(text)
    assert str(info.value) == message


@pytest.mark.parametrize(("sql", "tokens"), [
    ("0.1e0+0.2e0", ["0.1e0", "+", "0.2e0"]),
    ("1.1e0+0.2", ["1.1e0", "+", "0.2"]),
    ("1.5E0-0.5e1-0.25", ["1.5E0", "-", "0.5e1", "-", "0.25"]),
    ("0.5e0+1.25e0+1.5e0-0.5", ["0.5e0", "+", "1.25e0", "+", "1.5e0", "-", "0.5"]),
    ("1e5-1.5e0", ["1e5", "-", "1.5e0"]),
    ("1.5e0+'a'", ["1.5e0", "+", "a"]),
])
def test_a_number_with_an_exponent_ends_before_a_sign(sql: str, tokens: list[str]) -> None:
    # FLOATING_POINT_VALUE takes one sign, right after the E: a '+'/'-' after the exponent's digits starts the
    # next token, however sqlglot's own number scan cut the text after it
    assert [t.text for t in tokenize(sql)] == tokens


@pytest.mark.parametrize(("sql", "tokens"), [
    ("3ñ¼`", ["3", "ñ", "¼", "`"]),
    ("1.5e1ñ'", ["1.5e1", "ñ", "'"]),
    ("SELECT 3ñ` FROM S;", ["SELECT", "3", "ñ", "`", "FROM", "S", ";"]),
])
def test_a_number_re_read_before_an_unclosed_quote(sql: str, tokens: list[str]) -> None:
    # the text after a number sqlglot cut differently is re-read as tokenized: an unclosed quote is already
    # ksqlDB's stray token there (a fuzzed '3ñ¼`' escaped as sqlglot's TokenError)
    assert [t.text for t in tokenize(sql)] == tokens
    with pytest.raises(KsqlParseError):
        parse(sql)
