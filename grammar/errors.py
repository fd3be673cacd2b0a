"""Turning a position in the text into a ksqlDB-like parse error.

Every failure of the grammar - tokenizer, sqlglot's expression layer, our statement layer - ends up
here so that the user always sees ``line L:C: <message>`` with the 1-based position of the token that
broke the statement, and never a raw sqlglot exception.
"""

from __future__ import annotations

from bisect import bisect_right

from sqlglot.tokens import Token, TokenType

from ksqlpy.errors import KsqlParseError

EOF_TEXT = "<EOF>"


class Positions:
    """Maps character offsets of one text to 1-based (line, column)."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self._starts = starts

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1


def token_text(token: Token | None) -> str:
    """How ksqlDB quotes a token in a message: strings keep their quotes, EOF is <EOF>."""
    if not token or token.token_type == TokenType.SENTINEL:
        return EOF_TEXT
    if token.token_type == TokenType.STRING:
        return "'" + token.text.replace("'", "''") + "'"
    if token.token_type == TokenType.IDENTIFIER:
        return "`" + token.text + "`"
    return token.text


def error_at(positions: Positions, offset: int, message: str, token: str | None, *,
             located: bool = False, prepared: bool = False) -> KsqlParseError:
    line, column = positions.line_col(offset)
    return KsqlParseError(message, line, column, token, located=located, prepared=prepared)


SYNTAX_ERROR = "Syntax Error"


def syntax_message(found: str, expected: str | None = None) -> str:
    """ksqlDB's wording: a ``Syntax Error`` line, then ANTLR-like detail on the next line.

    ``line 1:10: Syntax Error`` / ``Expecting 'FROM'`` (ksqlDB names what it expected, the position
    names the culprit); without an expectation the detail is ``Syntax error at or near 'X'``. A
    statement's error ends with ``Statement: <its text>`` (added by the statement parser).
    """
    if expected:
        return f"{SYNTAX_ERROR}\nExpecting {expected}"
    return f"{SYNTAX_ERROR}\nSyntax error at or near '{found}'"


def syntax_detail(detail: str) -> str:
    """A syntax error with a custom detail line (unknown statement, unterminated string...)."""
    return f"{SYNTAX_ERROR}\n{detail}"


def with_statement(error: KsqlParseError, text: str) -> KsqlParseError:
    """A syntax error of a statement, ending like ksqlDB's with ``Statement: <the statement's text>``."""
    if not error.raw_message.startswith(SYNTAX_ERROR) or "\nStatement: " in error.raw_message:
        return error
    return KsqlParseError(f"{error.raw_message}\nStatement: {text}", error.line, error.column, error.token)
