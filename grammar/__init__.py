"""ksqlpy.grammar: the ksql dialect - SQL text in, statement AST (``ast.py``) out.

Public API:

- ``parse(sql, variables=None)`` -> list of statements (a script of ';'-terminated statements; the
  last ';' is optional unless ``terminated``, as ksqlDB's front doors parse). Each statement has ``.text``,
  ``.line`` and ``.column``.
- ``parse_one(sql)``, ``parse_expression(sql)``, ``parse_type(text)``, ``parse_schema(text)``.
- ``substitute_variables(text, variables)``, ``check_variable_positions(text)`` and ``split_statements(text)``
  for the CLI.
- ``tokenize(sql)`` for tools that want sqlglot tokens of the dialect.

Every syntax problem is a ``ksqlpy.errors.KsqlParseError`` with a 1-based line and column.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import TypeVar

from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from ksqlpy.errors import KsqlParseError
from ksqlpy.types import SqlType

from . import limits
from .ast import ColumnDef, Statement
from .dialect import DIALECT, Ksql
from .durations import DurationError, parse_duration_nanos, parse_duration_text
from .errors import Positions, error_at, syntax_detail
from .parser import KsqlParser
from .script import quoted_end, split_statements, unclosed_comment
from .statements import parse_column_def
from .types import parse_type as _parse_type_at
from .variables import references, substitute_variables, undefined_reference

__all__ = [
    "DIALECT",
    "DurationError",
    "Ksql",
    "parse",
    "parse_duration_nanos",
    "parse_duration_text",
    "parse_expression",
    "parse_one",
    "parse_schema",
    "parse_type",
    "split_statements",
    "check_syntax",
    "check_variable_positions",
    "substitute_variables",
    "tokenize",
]

_T = TypeVar("_T")
_DIGIT_TOKENS = (TokenType.NUMBER, TokenType.VAR)


_QUOTE_CHARS = frozenset("'`\"")


def _unrecognized_quote(text: str, opening: int) -> int:
    """Where the lexer's catch-all token is in a string or name opened at ``opening`` and never closed: ANTLR
    emits the longest complete token it passed - up to the first quote of the last doubled quote (``'it''s``
    is the string 'it', then a lone quote) - else the opening quote is the stray token (``script.quoted_end``,
    the one reading of quotes the script splitter shares)."""
    end = quoted_end(text, opening)
    return opening if end is None else end


def tokenize(sql: str) -> list[Token]:
    """The dialect's tokens for ``sql``.

    A quote that opens no complete string or name is, as in ksqlDB's lexer, a token of its own (SqlBase.g4's
    catch-all UNRECOGNIZED), and the text after it is read as usual: the parser then fails at that quote as at
    any stray character. (Read here by putting a '#' - a stray character of one position - in its place.)
    A ``/*`` never closed by ``*/`` is no comment either (BRACKETED_COMMENT is ``'/*' .*? '*/'``): it is a '/'
    and a '*', and the text after it is read as usual."""
    text = sql
    stray: list[int] = []
    stars: list[int] = []
    while True:
        tokenizer = Ksql.Tokenizer(dialect=DIALECT)
        try:
            tokens = tokenizer.tokenize(text)
            break
        except SqlglotError:
            offset = min(tokenizer._core._start, max(len(text) - 1, 0))
            if unclosed_comment(text, offset):
                stars.append(offset + 1)
                text = text[:offset + 1] + " " + text[offset + 2:]
                continue
            if not text or text[offset] not in _QUOTE_CHARS:
                quote = text[offset] if text else ""
                raise error_at(Positions(sql), offset, syntax_detail(f"Syntax error at or near '{quote}'"),
                               quote) from None
            offset = _unrecognized_quote(text, offset)
            stray.append(offset)
            text = text[:offset] + "#" + text[offset + 1:]
    # numbers are re-read on the text as tokenized (a stray quote as '#'): a re-read never meets that quote again
    tokens = number_tokens(text, tokens)
    if stray:
        where = set(stray)
        for token in tokens:
            if token.start in where and token.text == "#":
                token.text = sql[token.start]
    if stars:
        tokens = _with_stars(tokens, stars, Positions(sql))
    return word_tokens(sql, variable_tokens(sql, tokens))


def _with_stars(tokens: list[Token], stars: list[int], positions: Positions) -> list[Token]:
    """``tokens`` with a '*' token at each offset of ``stars`` (the star of an unclosed ``/*``)."""
    extra = []
    for offset in stars:
        line, col = positions.line_col(offset)
        extra.append(Token(TokenType.STAR, "*", line, col, offset, offset))
    return sorted([*tokens, *extra], key=lambda t: t.start)


# ksqlDB's lexer rules for text that starts with a digit (SqlBase.g4), in definition order: ANTLR takes the
# longest match, and the earlier rule of two as long (``1e3`` is a FLOATING_POINT_VALUE, not an identifier)
_DIGIT_RULES = (
    (TokenType.NUMBER, re.compile(r"[0-9]+")),                                  # INTEGER_VALUE
    (TokenType.NUMBER, re.compile(r"[0-9]+\.[0-9]*")),                          # DECIMAL_VALUE
    (TokenType.NUMBER, re.compile(r"[0-9]+(?:\.[0-9]*)?[eE][+-]?[0-9]+")),      # FLOATING_POINT_VALUE
    (TokenType.VAR, re.compile(r"[0-9][A-Za-z0-9_@]+")),                       # DIGIT_IDENTIFIER
)
_DIGITS = frozenset("0123456789")
# IDENTIFIER: (LETTER | '_') (LETTER | DIGIT | '_' | '@')*, LETTER being [A-Z] of the upper-cased text
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_@]*")


def _digit_token(sql: str, start: int) -> tuple[TokenType, int]:
    """The token ksqlDB's lexer reads at ``start`` (a digit): its type and end (exclusive)."""
    best: tuple[TokenType, int] = (TokenType.NUMBER, start + 1)
    for token_type, rule in _DIGIT_RULES:
        match = rule.match(sql, start)
        if match is not None and match.end() > best[1]:
            best = (token_type, match.end())
    return best


def number_tokens(sql: str, tokens: list[Token]) -> list[Token]:
    """Numbers and DIGIT_IDENTIFIERs as ksqlDB's lexer reads them, where sqlglot's number scanning differs:
    ``0x10`` and ``1@a`` are one identifier (sqlglot: a number then a name), ``12e`` an identifier (sqlglot: a
    number), ``1.5e3x`` and ``1.5d`` a number then a name (sqlglot: one name). An identifier that starts with
    a digit is upper-cased like any unquoted one."""
    if not any(t.token_type in _DIGIT_TOKENS and sql[t.start:t.start + 1] in _DIGITS for t in tokens):
        return tokens
    positions: Positions | None = None
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.token_type not in _DIGIT_TOKENS or sql[t.start:t.start + 1] not in _DIGITS:
            out.append(t)
            i += 1
            continue
        token_type, end = _digit_token(sql, t.start)
        j = i
        while j < len(tokens) and tokens[j].end < end:  # sqlglot tokens inside ksqlDB's one
            j += 1
        if end == t.end + 1 and j == i + 1 and token_type == t.token_type:
            out.append(t)  # read alike
            i += 1
            continue
        positions = positions or Positions(sql)
        line, col = positions.line_col(end - 1)
        out.append(Token(token_type, sql[t.start:end], line, col, t.start, end - 1))
        if j < len(tokens) and tokens[j].start < end:  # a sqlglot token ksqlDB's ends within: re-read its rest
            # with the tokens that touch it, which sqlglot cut where its token ended ('0.1e0+0.2e0': sqlglot's
            # '0.1e0+0', '.', '2e0'), as numbers again ('+0.2e0+0.3e0' holds another such token)
            while j + 1 < len(tokens) and tokens[j + 1].start == tokens[j].end + 1:
                j += 1
            rest = []
            for r in Ksql.Tokenizer(dialect=DIALECT).tokenize(sql[end:tokens[j].end + 1]):
                line, col = positions.line_col(end + r.end)
                rest.append(Token(r.token_type, r.text, line, col, end + r.start, end + r.end))
            out.extend(number_tokens(sql, rest))
            j += 1
        i = j
    return out


def word_tokens(sql: str, tokens: list[Token]) -> list[Token]:
    """Unquoted words as ksqlDB's lexer reads them: an identifier is ASCII letters, digits, '_' and '@'
    (IDENTIFIER, DIGIT_IDENTIFIER); any other character - a non-ASCII letter, '$' outside ``${name}`` - is
    its own UNRECOGNIZED token, which no rule of the grammar takes (sqlglot's words take them in:
    ``café`` was one name, ``a$b`` too)."""
    if all(t.token_type != TokenType.VAR or t.text.startswith("${") or _is_word(t.text) for t in tokens):
        return tokens
    positions = Positions(sql)
    out: list[Token] = []
    for t in tokens:
        if t.token_type != TokenType.VAR or t.text.startswith("${") or _is_word(t.text):
            out.append(t)
            continue
        pos, end = t.start, t.end + 1
        while pos < end:
            match = _IDENTIFIER.match(sql, pos, end)
            if sql[pos] in _DIGITS:
                token_type, stop = _digit_token(sql[:end], pos)
            elif match is not None:
                token_type, stop = TokenType.VAR, match.end()
            else:
                token_type, stop = TokenType.UNKNOWN, pos + 1
            line, col = positions.line_col(stop - 1)
            out.append(Token(token_type, sql[pos:stop], line, col, pos, stop - 1))
            pos = stop
    return out


def _is_word(text: str) -> bool:
    return text.isascii() and (_IDENTIFIER.fullmatch(text) is not None or (
        text[:1] in _DIGITS and _digit_token(text, 0) == (TokenType.VAR, len(text))))


def variable_tokens(sql: str, tokens: list[Token]) -> list[Token]:
    """ksqlDB's lexer has a VARIABLE token, ``'${' IDENTIFIER '}'``: each ``${name}`` becomes one bare-word
    token with that text (sqlglot reads ``$``, ``{``, ``name``, ``}``), so the grammar takes it wherever an
    identifier stands (and ``parse_literal_value`` where a literal does), and ``${a}_b`` is two tokens."""
    spans = references(sql)
    if not spans:
        return tokens
    positions = Positions(sql)
    out: list[Token] = []
    i = 0
    for start, end, _name in spans:
        while i < len(tokens) and tokens[i].end < start:
            out.append(tokens[i])
            i += 1
        if i < len(tokens) and tokens[i].start < start:  # ``x${a}``: sqlglot's word took the '$'
            head = tokens[i]
            line, col = positions.line_col(start - 1)
            out.append(Token(head.token_type, sql[head.start:start], line, col, head.start, start - 1))
        while i < len(tokens) and tokens[i].start < end:
            i += 1
        line, col = positions.line_col(end - 1)
        out.append(Token(TokenType.VAR, sql[start:end], line, col, start, end - 1))
    out.extend(tokens[i:])
    return out


def parse(
    sql: str, variables: dict[str, str] | None = None, *, allow_run_script: bool = True,
    types: Collection[str] | None = None, terminated: bool = False,
) -> list[Statement]:
    """Parse a script into statements, substituting ``${var}`` references first if ``variables``.

    ``terminated``: every statement ends in ';', the last one too, as ksqlDB's grammar has it
    (``statements: singleStatement* EOF``, ``singleStatement: statement ';'``) - what a client sends to the
    server. Without it the last ';' is optional (the engine's Python API, statements the engine re-reads).

    ``allow_run_script=False`` rejects RUN SCRIPT like ksqlDB's server does (it is a CLI command).
    ``types``: the registered custom type names, so a statement is prepared as ksqlDB's AST builder does it
    (an unknown type reported in its place among the builder's other refusals); None leaves type names to
    the engine (``ksqlpy.analysis.prepared_types``).
    """
    if "${" in sql:  # the grammar has VARIABLE tokens whether or not they are substituted
        check_variable_positions(sql)
    if variables is not None:
        undefined = undefined_reference(sql, variables)
        if undefined is not None:
            offset, ref = undefined
            name = ref[2:-1]
            raise error_at(Positions(sql), offset, syntax_detail(
                f"Variable '{ref}' is not defined. Define it first: DEFINE {name} = '<value>';"), ref)
        sql = substitute_variables(sql, variables)
    parser = KsqlParser(dialect=DIALECT)
    parser.allow_run_script = allow_run_script
    parser.require_terminator = terminated
    parser.types = types
    return _guarded(parser, sql, lambda tokens: parser.parse_script(sql, tokens))


def check_variable_positions(sql: str) -> None:
    """ksqlDB parses the text as written before it substitutes (VariableSubstitutor visits that parse tree,
    then the result is parsed again): a VARIABLE token where no identifier or literal may stand - a keyword,
    a number, a type's size, ``${a}_b`` - is a syntax error at the reference, whatever the values.
    Only syntax counts here; what the statement's builder refuses is decided on the substituted text."""
    check_syntax(sql)


def check_syntax(sql: str) -> None:
    """The syntax of a whole script, as written: ksqlDB's ``KsqlEngine.parse`` (the grammar's ``statements``
    rule over the whole text) comes before any statement is prepared or run, so a syntax error in a later
    statement fails the script before an earlier one runs. ``${name}`` stands where an identifier or a
    literal may (the grammar's VARIABLE token); what the AST builder refuses while it prepares a statement
    (custom types, WITH clauses, substituted values) is left to that statement's turn."""
    parser = KsqlParser(dialect=DIALECT)
    parser.allow_run_script = True
    parser.variable_literals = True
    try:
        _guarded(parser, sql, lambda tokens: parser.parse_script(sql, tokens))
    except KsqlParseError as e:
        if not (e.prepared or e.located):
            raise


def parse_one(sql: str, variables: dict[str, str] | None = None) -> Statement:
    """Parse text holding exactly one statement."""
    statements = parse(sql, variables)
    if len(statements) != 1:
        where = statements[1] if len(statements) > 1 else None
        raise KsqlParseError(
            f"Expected exactly one statement, got {len(statements)}",
            where.line if where else 1,
            where.column if where else 1,
        )
    return statements[0]


def parse_expression(sql: str) -> exp.Expression:
    """Parse one ksql expression, e.g. ``'a->b + 1 > 2'``."""
    parser = KsqlParser(dialect=DIALECT)

    def run(tokens: list[Token]) -> exp.Expression:
        parser.start(tokens, sql, Positions(sql), None)
        expression = parser.parse_expression()
        if parser._curr:
            raise parser.syntax_error()
        return expression

    return _guarded(parser, sql, run)


def parse_type(text: str) -> SqlType:
    """Parse a type, e.g. ``'STRUCT<A INT, `b` ARRAY<STRING>>'``; custom names become TypeName."""
    parser = KsqlParser(dialect=DIALECT)

    def run(tokens: list[Token]) -> SqlType:
        parser.start(tokens, text, Positions(text), None)
        sql_type = _parse_type_at(parser)
        if parser._curr:
            raise parser.syntax_error()
        return sql_type

    return _guarded(parser, text, run)


def parse_schema(text: str) -> list[ColumnDef]:
    """Parse a column list like ``'`ID` BIGINT KEY, V0 INT'`` (as in DESCRIBE output / QTT files)."""
    parser = KsqlParser(dialect=DIALECT)

    def run(tokens: list[Token]) -> list[ColumnDef]:
        parser.start(tokens, text, Positions(text), None)
        if not parser._curr:
            return []
        columns = [parse_column_def(parser)]
        while parser._match(TokenType.COMMA):
            columns.append(parse_column_def(parser))
        if parser._curr:
            raise parser.syntax_error("{',', <EOF>}")
        return columns

    return _guarded(parser, text, run)


def _guarded(parser: KsqlParser, sql: str, run: Callable[[list[Token]], _T]) -> _T:
    """Tokenize and run; anything but a KsqlParseError escaping the parser becomes one."""
    tokens = tokenize(sql)
    limits.check_tokens(tokens)  # before the parser recurses into brackets and CASEs
    try:
        with limits.guard():
            result = run(tokens)
        limits.check_statement(result)  # operator chains are parsed without recursion, then measured
        return result
    except KsqlParseError:
        raise
    except (SqlglotError, IndexError, KeyError, ValueError, TypeError, AttributeError) as e:
        if not hasattr(parser, "positions"):
            parser.positions = Positions(sql)
            parser.end_token = None
        raise parser.syntax_error() from e
