"""Turning a position in the text into a ksqlDB-like parse error.

Every failure of the grammar - tokenizer, sqlglot's expression layer, our statement layer - ends up
here so that the user always sees ``line L:C: <message>`` with the 1-based position of the token that
broke the statement, and never a raw sqlglot exception.
"""

from __future__ import annotations

from bisect import bisect_right

from sqlglot.tokens import Token, TokenType

from ksqlpy.errors import KsqlParseError

from .keywords import KEYWORD_ORDER

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


def _vocabulary_entries(expected: str) -> int | None:
    """How many tokens an ANTLR-style expectation lists (``'FROM'`` is 1, ``{',', ')'}`` is 2, ``STRING``
    is 1); None when ``expected`` describes a sub-rule in words instead."""
    if expected.startswith("{") and expected.endswith("}"):
        return len(_split_entries(expected[1:-1]))
    if expected.startswith("'") or (expected.replace("_", "").isalpha() and expected.isupper()):
        return 1
    return None


def _split_entries(text: str) -> list[str]:
    entries, current, quoted = [], "", False
    for ch in text:
        if ch == "'":
            quoted = not quoted
        if ch == "," and not quoted:
            entries.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        entries.append(current.strip())
    return entries


# SqlBase.g4's implicit literal tokens (T__0...) in the order the grammar first writes them - ';' in
# singleStatement, ',' in the statement rule's ALTER and the query's select list, then the brackets - which
# come before every lexer rule; the named operator tokens (``GT: '>'``...) follow the keywords (from memory).
_LITERAL_ORDER = (";", ",", "(", ")")
_OPERATOR_ORDER = ("=", "<>", "<", "<=", ">", ">=")


def expectation(entries: tuple[str, ...]) -> str:
    """The detail ksqlDB prints for ANTLR's expected set of ``entries`` (literals such as ';', '(' and '>', and
    keywords): ``Expecting`` and the set in token-type order (the grammar's implicit literals, the keywords in
    the lexer's order, the named operators) when it has at most three entries, else nothing."""
    rank = {word: i - len(_LITERAL_ORDER) for i, word in enumerate(_LITERAL_ORDER)}
    rank.update({word: i + 1 for i, word in enumerate(KEYWORD_ORDER)})
    rank.update({word: len(KEYWORD_ORDER) + 1 + i for i, word in enumerate(_OPERATOR_ORDER)})
    ordered = sorted(set(entries), key=lambda e: rank.get(e, 0))
    if len(ordered) > 3:
        return ""
    shown = ", ".join(f"'{e}'" for e in ordered)
    return f"Expecting {shown if len(ordered) == 1 else '{' + shown + '}'}"


def near(found: str) -> str:
    """A token as ksqlDB's no-viable-alternative message quotes it."""
    return found if found[:1] in ("'", "`") else f"'{found}'"


MISSING_BRACKET = "Syntax error at or near \";\"\n'}', ']', or ')' is missing"


def syntax_message(found: str, expected: str | None = None, where: tuple[int, int] | None = None) -> str:
    """ksqlDB's wording (``SyntaxErrorValidator``): a ``Syntax Error`` line, then one detail line.

    - the text ended while something was expected: a bracket is missing;
    - at most three alternatives (ANTLR's vocabulary form): ``Expecting {',', ')'}``;
    - more alternatives: no detail. A sub-rule the statement requires (an identifier, expression, literal,
      number, type, relation), described in words, is such a set: ANTLR's ``sync`` before the rule's
      alternatives (or ``recoverInline`` at its token) reports ``mismatched input 'X' expecting {...}`` with
      every token that can begin it - always more than three;
    - no alternative fits at all (``expected`` None: an ``adaptivePredict`` that failed after its first
      token, as among a statement's forms): ``Syntax error at or near 'X' at line L:C``.
    A statement's error ends with ``Statement: <its text>`` (added by the statement parser).
    """
    entries = _vocabulary_entries(expected) if expected else None
    if expected and found == EOF_TEXT:
        return f"{SYNTAX_ERROR}\n{MISSING_BRACKET}"
    if entries is not None:
        return f"{SYNTAX_ERROR}\nExpecting {expected}" if entries <= 3 else f"{SYNTAX_ERROR}\n"
    if expected:
        return f"{SYNTAX_ERROR}\n"
    position = f" at line {where[0]}:{where[1]}" if where else ""
    return f"{SYNTAX_ERROR}\nSyntax error at or near {near(found)}{position}"


# What a statement may start with, in ksqlDB's grammar order (its "Did you mean" picks the first closest).
STATEMENT_KEYWORDS = ("SELECT", "CREATE", "INSERT", "DESCRIBE", "PRINT", "EXPLAIN", "SHOW", "LIST", "TERMINATE",
                      "PAUSE", "RESUME", "DROP", "SET", "DEFINE", "UNDEFINE", "UNSET", "ASSERT", "ALTER")


def _levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def unknown_statement(word: str) -> str:
    """ksqlDB's detail for a statement that starts with no statement keyword, with the closest one."""
    upper = word.upper()
    closest = min(STATEMENT_KEYWORDS, key=lambda k: _levenshtein(upper, k))
    return f"Unknown statement '{word}'\nDid you mean '{closest}'?"


def syntax_detail(detail: str) -> str:
    """A syntax error with a custom detail line (unknown statement, unterminated string...)."""
    return f"{SYNTAX_ERROR}\n{detail}"


def failing_line(text: str, line: int) -> str:
    """Line ``line`` (1-based) of ``text``: what ksqlDB reports as the statement of a syntax error."""
    lines = text.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else text


def split_statement_suffix(message: str) -> tuple[str, str | None]:
    """A parse error's message without its ``\nStatement: ...`` suffix, and that statement text."""
    head, sep, statement = message.partition("\nStatement: ")
    return (head, statement) if sep else (message, None)


def with_statement(error: KsqlParseError, text: str) -> KsqlParseError:
    """A syntax error of a statement, ending like ksqlDB's with ``Statement: <the statement's text>``."""
    if not error.raw_message.startswith(SYNTAX_ERROR) or "\nStatement: " in error.raw_message:
        return error
    return KsqlParseError(f"{error.raw_message}\nStatement: {text}", error.line, error.column, error.token)
