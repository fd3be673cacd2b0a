"""Type expressions (column types, CAST targets, CREATE TYPE) parsed into ksqlpy SqlTypes.

The grammar is ksqlDB's ``type`` rule: ``ARRAY<T>``, ``MAP<K, V>``, ``STRUCT<name T, ...>``,
``DECIMAL(p, s)`` and a base type name, optionally with parameters (``VARCHAR(STRING)`` is legal
ksqlDB syntax; the parameters carry no meaning and are dropped). Unknown base names are custom
types (``TypeName``) that the analyzer resolves against CREATE TYPE. ``T ARRAY`` is ``ARRAY<T>``: the rule's
left-recursive first alternative ``type ARRAY`` (from memory of SqlBase.g4, which kept it from Presto's).

After a type the parser's ``type_tail`` says what ANTLR's expected set is when more than one stray token
follows it (``TypeTail``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot.tokens import Token, TokenType

from ksqlpy.errors import KsqlParseError
from ksqlpy.types import PRIMITIVES_BY_NAME, Array, Decimal, Map, SqlType, Struct

from . import follow as F
from .ast import TypeName
from .errors import expectation, syntax_detail

if TYPE_CHECKING:
    from .base import TokenParser

_TYPE_PARAMETER = "{'STRING', INTEGER_VALUE}"

# What ANTLR's DefaultErrorStrategy.sync remembered (nextTokensContext) for a type just parsed: the first point
# since the last token a sync was sure of where the type could also have ended. Its entries are the tokens
# possible there inside the type; ``open``: the type could end there, so what follows the type at its call site
# is possible too (the statement's ';', ALTER's ','). A base type without parameters leaves its
# ``('(' typeParameter ...)?`` and the ``type ARRAY`` loop: '(' and ARRAY. A type ending in a bracket (or a
# postfix ARRAY) leaves the loop only: ARRAY. ARRAY<T> and MAP<K, T> end in '>', which their T's sync did not
# see: T's own point stays the remembered one, with the '>' the rule then required (not open).
TypeTail = tuple[tuple[str, ...], bool]
_BASE_TAIL: TypeTail = (("(", "ARRAY"), True)
_CLOSED_TAIL: TypeTail = (("ARRAY",), True)


def _closed_by_bracket(inner: TypeTail) -> TypeTail:
    """ARRAY<T>'s or MAP<K, T>'s tail: T's remembered point, where the '>' was possible (if T could end)."""
    entries, open_end = inner
    return ((*entries, ">"), False) if open_end else inner


def expected_after_type(p: TokenParser, follow: tuple[str, ...]) -> str:
    """ANTLR's expected set where two or more stray tokens follow the type just parsed and ``follow`` (what its
    call site requires or allows next) does not fit: the type's remembered point, plus ``follow`` if open."""
    entries, open_end = p.type_tail
    return expectation((*entries, *follow) if open_end else entries)


def parse_type(p: TokenParser) -> SqlType:
    """Parse one type at the cursor of ``p``, then its postfix ``ARRAY``s (``type ARRAY``)."""
    result = _parse_primary_type(p)
    while p.word() == "ARRAY":
        p._advance()
        result = Array(result)
        p.type_tail = _CLOSED_TAIL
    return result


def close_after_type(p: TokenParser, token_type: TokenType, shown: str, after: F.Follow) -> None:
    """The token a rule requires after a type - '>' of ARRAY<T> / MAP<K, V>, ')' of CAST, MAP's ',' - matched
    with ANTLR's ``recoverInline``: the current token extraneous when the required one follows it, the required
    one missing when the current token can come after it (``expect_close``; after MAP's ',' a type), else a
    mismatch listing the type's remembered point and the required token (``expected_after_type``):
    ``ARRAY<INT x y>`` -> ``Expecting {'(', 'ARRAY', '>'}``."""
    curr, nxt = p._curr, p._next
    if curr and curr.token_type != token_type and not (nxt and nxt.token_type == token_type):
        with p.followed_by(after):
            fits = p.starts_type(curr) if token_type == TokenType.COMMA else p.can_follow(curr)
        if not fits:
            raise p.error(syntax_detail(expected_after_type(p, (shown,))))
    if token_type == TokenType.COMMA:
        p.expect_token(TokenType.COMMA, ",", p.starts_type)
    else:
        p.expect_close(token_type, shown, after)


def _parse_primary_type(p: TokenParser) -> SqlType:
    word = p.word()
    nxt = p._next.token_type
    if word == "ARRAY" and nxt == TokenType.LT:
        p._advance(2)
        with p.followed_by(F.ELEMENT_TYPE):
            element = parse_type(p)
        close_after_type(p, TokenType.GT, ">", F.AFTER_TYPE)
        p.type_tail = _closed_by_bracket(p.type_tail)
        return Array(element)
    if word == "MAP" and nxt == TokenType.LT:
        p._advance(2)
        with p.followed_by(F.MAP_KEY_TYPE):
            key = parse_type(p)
        close_after_type(p, TokenType.COMMA, ",", F.MAP_KEY_TYPE)
        with p.followed_by(F.ELEMENT_TYPE):
            value = parse_type(p)
        close_after_type(p, TokenType.GT, ">", F.AFTER_TYPE)
        p.type_tail = _closed_by_bracket(p.type_tail)
        return Map(key, value)
    if word == "STRUCT" and nxt in (TokenType.LT, TokenType.NEQ):
        p._advance()
        struct = _parse_struct_fields(p)
        p.type_tail = _CLOSED_TAIL
        return struct
    if word == "DECIMAL":
        start = p._curr
        p._advance()
        p.expect(TokenType.L_PAREN, "(")
        precision = p.parse_integer("a precision")
        p.expect(TokenType.COMMA, ",")
        scale = p.parse_integer("a scale")
        p.expect_close(TokenType.R_PAREN, ")", F.AFTER_TYPE)
        _check_decimal(p, start, precision, scale)
        p.type_tail = _CLOSED_TAIL
        return Decimal(precision, scale)
    token = p._curr
    if not p.is_identifier(token):
        raise p.syntax_error("a type")
    p._advance()
    p.type_tail = _BASE_TAIL
    if p._match(TokenType.L_PAREN):
        _skip_type_parameters(p)
        p.type_tail = _CLOSED_TAIL
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
                field = (name, parse_type(p))
            first = next((f for f in fields if f[0] == name), None)
            if first is not None:
                # ksqlDB's SqlStruct.Builder.field, as its SqlTypeParser builds the type while the AST builder
                # prepares the statement (from memory): the two fields as Field.toString prints them
                p.defer(KsqlParseError(f"Duplicate field names found in STRUCT: '{_field(first)}' and "
                                       f"'{_field(field)}'", prepared=True))
            fields.append(field)
            if not p._match(TokenType.COMMA):
                break
        p.expect_list_end(TokenType.GT, ">")
    return Struct(tuple(fields))


def _field(field: tuple[str, SqlType]) -> str:
    name = field[0].replace("`", "``")
    return f"`{name}` {field[1]}"


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
