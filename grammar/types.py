"""Type expressions (column types, CAST targets, CREATE TYPE) parsed into ksqlpy SqlTypes.

The grammar is ksqlDB's ``type`` rule: ``ARRAY<T>``, ``MAP<K, V>``, ``STRUCT<name T, ...>``,
``DECIMAL(p, s)`` and a base type name, optionally with parameters (``VARCHAR(STRING)`` is legal
ksqlDB syntax; the parameters carry no meaning and are dropped). Unknown base names are custom
types (``TypeName``) that the analyzer resolves against CREATE TYPE.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot.tokens import Token, TokenType

from ksqlpy.errors import KsqlParseError
from ksqlpy.types import PRIMITIVES_BY_NAME, Array, Decimal, Map, SqlType, Struct

from . import follow as F
from .ast import TypeName

if TYPE_CHECKING:
    from .base import TokenParser

_TYPE_PARAMETER = "{'STRING', INTEGER_VALUE}"


def parse_type(p: TokenParser) -> SqlType:
    """Parse one type at the cursor of ``p``."""
    word = p.word()
    nxt = p._next.token_type
    if word == "ARRAY" and nxt == TokenType.LT:
        p._advance(2)
        with p.followed_by(F.ELEMENT_TYPE):
            element = parse_type(p)
        p.expect_close(TokenType.GT, ">", F.AFTER_TYPE)
        return Array(element)
    if word == "MAP" and nxt == TokenType.LT:
        p._advance(2)
        with p.followed_by(F.MAP_KEY_TYPE):
            key = parse_type(p)
        p.expect_token(TokenType.COMMA, ",", p.starts_type)
        with p.followed_by(F.ELEMENT_TYPE):
            value = parse_type(p)
        p.expect_close(TokenType.GT, ">", F.AFTER_TYPE)
        return Map(key, value)
    if word == "STRUCT" and nxt in (TokenType.LT, TokenType.NEQ):
        p._advance()
        return _parse_struct_fields(p)
    if word == "DECIMAL":
        start = p._curr
        p._advance()
        p.expect(TokenType.L_PAREN, "(")
        precision = p.parse_integer("a precision")
        p.expect(TokenType.COMMA, ",")
        scale = p.parse_integer("a scale")
        p.expect_close(TokenType.R_PAREN, ")", F.AFTER_TYPE)
        _check_decimal(p, start, precision, scale)
        return Decimal(precision, scale)
    token = p._curr
    if not p.is_identifier(token):
        raise p.syntax_error("a type")
    p._advance()
    if p._match(TokenType.L_PAREN):
        _skip_type_parameters(p)
    if token.token_type == TokenType.VAR:
        primitive = PRIMITIVES_BY_NAME.get(token.text.upper())
        if primitive is not None:
            return primitive
    name = TypeName(p.normalize(token))
    if p.types is not None and name.type_name not in p.types:
        # ksqlDB's SqlTypeParser while its AST builder visits the statement: after the whole text parsed, in
        # the order the statement writes its parts (message as in analysis/prepared_types)
        p.defer(KsqlParseError(f"Cannot resolve unknown type: {name.type_name}", prepared=True))
    return name


def _check_decimal(p: TokenParser, token: Token, precision: int, scale: int) -> None:
    """ksqlDB's SqlDecimal parameter rules, checked wherever a type is written (columns, CAST, CREATE TYPE);
    its AST builder reports them without a position."""
    problem = ("precision must be >= 1" if precision < 1 else "scale must be >= 0" if scale < 0
               else "precision must be >= scale" if precision < scale else None)
    if problem is not None:
        line, col = p.line_col(token)
        raise KsqlParseError(f"DECIMAL {problem}: DECIMAL({precision},{scale})", line, col, token.text,
                             prepared=True, silent=True)


def _parse_struct_fields(p: TokenParser) -> Struct:
    if p._match(TokenType.NEQ):  # STRUCT<> arrives as the '<>' operator token
        return Struct(())
    p.expect(TokenType.LT, "<")
    fields: list[tuple[str, SqlType]] = []
    if not p._match(TokenType.GT):
        while True:
            name = p.parse_identifier("a field name")
            with p.followed_by(F.FIELD_TYPE):
                fields.append((name, parse_type(p)))
            if not p._match(TokenType.COMMA):
                break
        p.expect_list_end(TokenType.GT, ">")
    return Struct(tuple(fields))


def _skip_type_parameters(p: TokenParser) -> None:
    while True:
        token = p._curr
        if token.token_type == TokenType.NUMBER and token.text.isdigit() or p.word() == "STRING":
            p._advance()
        else:
            raise p.syntax_error(_TYPE_PARAMETER)
        if not p._match(TokenType.COMMA):
            break
    p.expect_list_end(TokenType.R_PAREN, ")")
