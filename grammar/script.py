"""Lexical view of a script without parsing it: where strings, quoted names and comments are.

The CLI splits what the user typed into statements before anything is parsed, and variable
substitution must know whether a ``${x}`` sits inside a string literal; both only need to know
which ';' and which characters are "code". Both follow ksqlDB's lexer (SqlBase.g4, ANTLR's longest match):
a quote that opens no complete string or name is a lone character of code (the catch-all UNRECOGNIZED token)
after the longest complete token the rule passed (``'it''s`` is the string ``'it'``, then a lone quote), and
the text after it is read as usual; a ``/*`` with no ``*/`` after it is no comment (BRACKETED_COMMENT is
``'/*' .*? '*/'``) but the operators '/' and '*', and the text after it is code as usual.
"""

from __future__ import annotations

from collections.abc import Iterator

CODE, STRING, NAME, COMMENT = "code", "string", "name", "comment"


def scan(text: str) -> Iterator[tuple[str, int, int]]:
    """Yield ``(kind, start, end)`` spans covering ``text`` in order (``end`` exclusive)."""
    i, n, code_start = 0, len(text), 0
    while i < n:
        c = text[i]
        if c == "'" or c == "`" or c == '"':
            closing = quoted_end(text, i)
            if closing is None:  # a lone quote: code, as any stray character
                i += 1
                continue
            kind, end = (STRING if c == "'" else NAME), closing
        elif c == "-" and text.startswith("--", i):
            j = text.find("\n", i)
            kind, end = COMMENT, (n if j < 0 else j)
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:  # never closed: a '/' and a '*' of code, as any operator
                i += 1
                continue
            kind, end = COMMENT, j + 2
        else:
            i += 1
            continue
        if code_start < i:
            yield CODE, code_start, i
        yield kind, i, end
        i = code_start = end
    if code_start < n:
        yield CODE, code_start, n


def unclosed_comment(text: str, start: int) -> bool:
    """Whether a ``/*`` at ``start`` is never closed: ksqlDB's lexer then reads a '/' and a '*'."""
    return text.startswith("/*", start) and text.find("*/", start + 2) < 0


def quoted_end(text: str, start: int) -> int | None:
    """Offset just past the string or name the quote at ``start`` opens (a doubled quote is an escape), as
    ksqlDB's lexer reads it: the closing quote's, else - never closed - the end of the longest complete token
    the rule passed (the first quote of the last doubled one), else None: the quote is a token of its own."""
    quote = text[start]
    j, n, accepted = start + 1, len(text), None
    while j < n:
        if text[j] == quote:
            if j + 1 < n and text[j + 1] == quote:
                accepted = j + 1
                j += 2
                continue
            return j + 1
        j += 1
    return accepted


def split_statements(text: str) -> list[str]:
    """Split a script at the ';' that end statements; each piece keeps its ';'.

    Semicolons inside strings, quoted names and comments do not split. A trailing piece without
    ';' is returned as is (the CLI treats it as an unfinished statement); a trailing piece holding only
    whitespace and comments is dropped, and leading whitespace/comments are trimmed. An empty statement
    (a ';' with only whitespace or comments before it) is kept as ``';'``: ksqlDB's grammar has no empty
    statement (``statements: singleStatement* EOF``), so the parser refuses it wherever it is written.
    """
    pieces: list[str] = []
    begin: int | None = None  # where the current statement's first real character is
    for kind, s, e in scan(text):
        if kind == COMMENT:
            continue
        if kind != CODE:
            begin = s if begin is None else begin
            continue
        j = s
        while True:
            semi = text.find(";", j, e)
            if begin is None:
                stop = e if semi < 0 else semi
                k = j
                while k < stop and text[k].isspace():
                    k += 1
                begin = k if k < stop else None
            if semi < 0:
                break
            pieces.append(text[begin if begin is not None else semi : semi + 1])
            begin, j = None, semi + 1
    if begin is not None:
        pieces.append(text[begin:].rstrip())
    return pieces
