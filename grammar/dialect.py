"""The sqlglot dialect "ksql": its tokenizer and the binding to the ksql parser.

The tokenizer is deliberately small: only operators and the keywords sqlglot's expression machinery
dispatches on by token type (AND, OR, NOT, IN, IS, LIKE, BETWEEN, CASE ...) get their own token
types. Every other word, keyword or not, is a VAR token; the parser decides from
``grammar.keywords`` whether a VAR can be an identifier. That is how ksqlDB's many non-reserved
keywords (``KEY``, ``TIMESTAMP``, ``SOURCE``...) keep working as column names.
"""

from __future__ import annotations

import typing as t

from sqlglot import tokens
from sqlglot.dialects.dialect import Dialect, NormalizationStrategy
from sqlglot.tokens import TokenType
from sqlglot.trie import new_trie

from .parser import KsqlParser


class Ksql(Dialect):
    """ksqlDB's SQL: unquoted identifiers are upper-cased, `backticks` and "double quotes" keep case."""

    NORMALIZATION_STRATEGY = NormalizationStrategy.UPPERCASE
    IDENTIFIERS_CAN_START_WITH_DIGIT = True  # ksqlDB's DIGIT_IDENTIFIER, e.g. 1ST_COL
    DPIPE_IS_STRING_CONCAT = True

    class Tokenizer(tokens.Tokenizer):
        IDENTIFIERS: t.ClassVar[list[str | tuple[str, str]]] = ["`", '"']
        QUOTES: t.ClassVar[list[tuple[str, str] | str]] = ["'"]
        STRING_ESCAPES: t.ClassVar[list[str]] = ["'"]
        COMMENTS: t.ClassVar[list[str | tuple[str, str]]] = ["--", ("/*", "*/")]
        NESTED_COMMENTS = False  # ANTLR's '/*' .*? '*/' does not nest
        VAR_SINGLE_TOKENS: t.ClassVar[set[str]] = {"@"}  # ksqlDB identifiers may contain '@'
        COMMANDS: t.ClassVar[set[TokenType]] = set()  # nothing swallows the rest of a statement
        KEYWORDS: t.ClassVar[dict[str, TokenType]] = {
            "<=": TokenType.LTE,
            ">=": TokenType.GTE,
            "<>": TokenType.NEQ,
            "!=": TokenType.NEQ,
            "||": TokenType.DPIPE,
            ":=": TokenType.COLON_EQ,
            "->": TokenType.ARROW,
            "=>": TokenType.FARROW,
            "AND": TokenType.AND,
            "OR": TokenType.OR,
            "NOT": TokenType.NOT,
            "NULL": TokenType.NULL,
            "TRUE": TokenType.TRUE,
            "FALSE": TokenType.FALSE,
            "CASE": TokenType.CASE,
            "WHEN": TokenType.WHEN,
            "THEN": TokenType.THEN,
            "ELSE": TokenType.ELSE,
            "END": TokenType.END,
            "IN": TokenType.IN,
            "IS": TokenType.IS,
            "BETWEEN": TokenType.BETWEEN,
            "LIKE": TokenType.LIKE,
        }

    Parser = KsqlParser


def _as_ksql_lexer(tokenizer: type[tokens.Tokenizer]) -> None:
    """What sqlglot's tokenizer adds to every dialect and ksqlDB's lexer does not have:
    - prefixed strings (N'...'): ``N'x'`` is the identifier N and then the string 'x' - a type constructor
      (SqlBase.g4's ``identifier STRING``), as ``E'x'`` or ``X'0A'`` are;
    - Jinja comments ``{# ... #}``: ``{`` is no token of ksqlDB's (its catch-all UNRECOGNIZED), a syntax error
      where it stands, never the start of a comment."""
    tokenizer._FORMAT_STRINGS = {}
    tokenizer._COMMENTS = {start: end for start, end in tokenizer._COMMENTS.items() if start != "{#"}
    tokenizer._KEYWORD_TRIE = new_trie(
        key.upper() for key in (*tokenizer.KEYWORDS, *tokenizer._COMMENTS, *tokenizer._QUOTES)
        if " " in key or any(single in key for single in tokenizer.SINGLE_TOKENS))


_as_ksql_lexer(Ksql.Tokenizer)

DIALECT = Ksql()
