"""Token-level helpers shared by the expression, type, query and statement layers.

``TokenParser`` is sqlglot's ``Parser`` (its token cursor: ``_curr``, ``_advance``, ``_match*``...)
plus the few primitives every ksql rule needs: identifiers normalized the ksqlDB way, strings,
integers, durations, WITH properties - and errors that always carry a 1-based line and column.
"""

from __future__ import annotations

import decimal
import math
import re
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn, TypeVar

from sqlglot import exp
from sqlglot.parser import Parser
from sqlglot.tokens import Token, TokenType

from ksqlpy.errors import KsqlParseError
from ksqlpy.javatext import decimal_to_string, double_to_string

from .errors import SYNTAX_ERROR, Positions, error_at, syntax_detail, syntax_message, token_text
from .follow import Follow
from .keywords import RESERVED, WINDOW_UNITS_MS
from .with_clause import PrepareError, literal_text

_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_QUOTED = (TokenType.STRING, TokenType.IDENTIFIER)
_LONG_MAX = 2**63 - 1
_E = TypeVar("_E", bound=exp.Expression)


class JavaDecimal(float):
    """A WITH-clause number with a point and no exponent: ksqlDB's DecimalLiteral, whose value is a
    ``java.math.BigDecimal`` of the text (``1.50`` stays ``1.50``)."""

    java_class = "java.math.BigDecimal"

    def __new__(cls, text: str) -> JavaDecimal:
        value = super().__new__(cls, text)
        value.java_text = decimal_to_string(decimal.Decimal(text))
        return value


class JavaDouble(float):
    """A WITH-clause number with an exponent: ksqlDB's DoubleLiteral, a ``java.lang.Double``
    (``1e3`` reads ``1000.0``)."""

    java_class = "java.lang.Double"

    def __new__(cls, text: str) -> JavaDouble:
        value = super().__new__(cls, text)
        value.java_text = double_to_string(float(value))
        return value


def _java_long(text: str) -> int | None:
    """``Long.parseLong(text)`` of a number token's text (with its sign), None where it throws."""
    digits = text[1:] if text.startswith("-") else text
    if not digits.isdigit():
        return None
    value = int(text)
    return value if -(2**63) <= value <= _LONG_MAX else None



# the tokens and words an expression can begin with (besides names), as ANTLR's first set of ``expression``
_EXPRESSION_TOKENS = frozenset({TokenType.STRING, TokenType.NUMBER, TokenType.L_PAREN, TokenType.DASH, TokenType.PLUS,
                                TokenType.NOT, TokenType.NULL, TokenType.TRUE, TokenType.FALSE, TokenType.CASE,
                                TokenType.IDENTIFIER})
_EXPRESSION_WORDS = frozenset({"CAST", "ARRAY", "MAP", "STRUCT", "INTERVAL"})

class TokenParser(Parser):
    """sqlglot's token cursor with ksql's primitive rules; one instance parses one script."""

    positions: Positions
    end_token: Token | None
    # the custom type names registered when the statement is prepared (ksqlDB's AST builder resolves every
    # written type against its TypeRegistry); None: not known here, types are resolved later (prepared_types)
    types: Collection[str] | None = None
    # what ANTLR's sync remembered for the last type parsed: (tokens possible there, whether the type could
    # end there) - ``types.TypeTail``
    type_tail: tuple[tuple[str, ...], bool] = ((), True)

    # ------------------------------------------------------------------ cursor

    def start(self, tokens: list[Token], sql: str, positions: Positions, end_token: Token | None) -> None:
        """Point the cursor at the first of ``tokens`` (one statement, without its ';')."""
        self.sql = sql
        self.positions = positions
        self.end_token = end_token
        self._tokens = tokens
        self._tokens_size = len(tokens)
        self._index = -1
        self.deferred: KsqlParseError | None = None
        self.follows: list[Follow] = []  # ANTLR's invocation context, as what may follow each enclosing rule
        self.last_duration = ""  # the last duration parsed, as ksqlDB prints it (``parse_duration``)
        self._advance()

    def word(self) -> str | None:
        """The upper-cased text of the current token if it is a bare word (not quoted)."""
        curr = self._curr
        if curr.token_type == TokenType.VAR:
            return curr.text.upper()
        return None

    def next_word(self) -> str | None:
        nxt = self._next
        return nxt.text.upper() if nxt.token_type == TokenType.VAR else None

    def match_word(self, *words: str) -> bool:
        """Consume the sequence of bare words ``words`` if it is next; all or nothing."""
        return self._match_text_seq(*words)

    def expect_word(self, *words: str) -> None:
        for word in words:
            if not self._match_text_seq(word):
                raise self.syntax_error(f"'{word}'")

    def expect_keyword(self, word: str, starts_next: Callable[[Token], bool]) -> None:
        """``match(word)`` with ANTLR's inline recovery (``DefaultErrorStrategy.recoverInline``), worded as
        ksqlDB's ``SyntaxErrorValidator`` words it: the current token is extraneous when ``word`` follows it
        (a reserved word is named as one, else ``Expecting 'WORD'``); ``word`` is missing when the current
        token can begin what follows ``word`` (``starts_next``: ``missing 'WORD' at 'X'``); otherwise a
        mismatch (``Expecting 'WORD'``)."""
        if not self.match_word(word):
            self._recover_inline(word, self.next_word() == word, starts_next)

    def expect_token(self, token_type: TokenType, shown: str, starts_next: Callable[[Token], bool]) -> Token:
        """``expect`` of a symbol (``:=``, ``THEN``...) with ANTLR's inline recovery (``expect_keyword``)."""
        token = self._curr
        if token and token.token_type == token_type:
            self._advance()
            return token
        nxt = self._next
        self._recover_inline(shown, bool(nxt) and nxt.token_type == token_type, starts_next)
        raise AssertionError("unreachable")

    def _recover_inline(self, shown: str, extraneous: bool, starts_next: Callable[[Token], bool]) -> NoReturn:
        token = self._curr
        if token and extraneous:
            found = self.word()
            if found in RESERVED:
                raise self.reserved_error(found)
        elif token and token.token_type != TokenType.SENTINEL and starts_next(token):
            raise self.error(syntax_detail(f"missing '{shown}' at '{token_text(token)}'"), token)
        raise self.syntax_error(f"'{shown}'")

    def starts_expression(self, token: Token) -> bool:
        """ksqlDB's ``expression`` rule can begin with ``token``."""
        return (token.token_type in _EXPRESSION_TOKENS or self.is_identifier(token)
                or token.text.upper() in _EXPRESSION_WORDS)

    def starts_type(self, token: Token) -> bool:
        """ksqlDB's ``type`` rule can begin with ``token`` (a base type is a name)."""
        return self.is_identifier(token) or token.text.upper() in ("ARRAY", "MAP", "STRUCT", "DECIMAL")

    def starts_number(self, token: Token) -> bool:
        """ksqlDB's ``number`` rule begins here (a window or grace period's size)."""
        return token.token_type in (TokenType.NUMBER, TokenType.DASH)

    @contextmanager
    def followed_by(self, follow: Follow) -> Iterator[None]:
        """Parse a rule that ``follow`` may follow at this call site (see ``grammar.follow``)."""
        self.follows.append(follow)
        try:
            yield
        finally:
            self.follows.pop()

    def can_follow(self, token: Token | None) -> bool:
        """``token`` (None: the statement's ';') is in ANTLR's follow set in context of the rule just parsed:
        the innermost frames' sets, outwards as long as a frame may end; below every frame, the statement."""
        for follow in reversed(self.follows):
            if follow.admits(token, self):
                return True
            if not follow.more:
                return False
        return token is None and self.statement_ends(None)

    def expect_close(self, token_type: TokenType, shown: str, after: Follow, *, open_end: bool = False) -> Token:
        """``match`` of a token that ends a rule alone (``)`` of CAST or a parenthesized expression, ``]`` of a
        subscript, ``>`` of a type), ``after`` being what follows that token in its rule. ANTLR's
        ``recoverInline``: extraneous when the token follows the current one; missing when the current token -
        the statement's ';' too - can follow it in context (``missing ')' at 'FROM'``); else a mismatch.

        ``open_end``: what precedes the token is an expression, which could have gone on. ANTLR's ``sync`` in
        the expression's last loop recorded that point (``nextTokensContext``), and a mismatch lists what could
        come there - every operator and the bracket, more than three: no detail."""
        with self.followed_by(after):
            if not self._curr and self.can_follow(None):
                raise self.error(syntax_detail(f"missing '{shown}' at ';'"))
            token, nxt = self._curr, self._next
            mismatch = self.statement_ends(None) if not token else (
                token.token_type != token_type and not (nxt and nxt.token_type == token_type)
                and not self.can_follow(token))
            if open_end and mismatch:
                raise self.syntax_error("an expression or the bracket")
            return self.expect_token(token_type, shown, self.can_follow)

    def expect_list_end(self, close: TokenType, shown: str) -> Token:
        """The bracket closing ``item (',' item)* CLOSE``. After an item ANTLR's ``sync`` at the loop's entry
        expects ``','`` or the bracket: a token is extraneous when one of them follows it (a reserved word is
        named as one), else a mismatch - both list the two: ``Expecting {',', ')'}``."""
        token = self._curr
        if token and token.token_type == close:
            self._advance()
            return token
        nxt = self._next if token else None
        if nxt and nxt.token_type in (TokenType.COMMA, close):
            word = self.word()
            if word is not None and word in RESERVED:
                raise self.reserved_error(word)
        raise self.syntax_error(f"{{',', '{shown}'}}")

    def expect(self, token_type: TokenType, shown: str) -> Token:
        token = self._curr
        if token.token_type != token_type:
            raise self.syntax_error(f"'{shown}'")
        self._advance()
        return token

    def at_statement_end(self) -> bool:
        return not self._curr

    # ------------------------------------------------------------------ errors

    def error(self, message: str, token: Token | None = None, *, located: bool = False) -> KsqlParseError:
        """A parse error located at ``token`` (default: the current token, or the statement's end).

        ``located``: an error about well-formed text (ksqlDB's AST builder), worded ``Line: L, Col: C:``.
        """
        token = token if token is not None else self._curr
        if not token:
            token = self.end_token
        if token:
            return error_at(self.positions, token.start, message, token_text(token), located=located)
        last = self._tokens[-1] if self._tokens else None
        offset = last.end + 1 if last else 0
        return error_at(self.positions, offset, message, token_text(None))

    def literal_error(self, message: str, token: Token) -> KsqlParseError:
        """A bad literal, at the column ksqlDB prints for it: its AST builder turns a 1-based node location
        into a ParsingException, which adds one again, so ksqlDB's column is one past the literal's start.
        We print the same position a ksqlDB user sees (a literal is never empty: start + 1 is on its line)."""
        return error_at(self.positions, token.start + 1, message, token_text(token), prepared=True)

    def syntax_error(self, expected: str | None = None, token: Token | None = None) -> KsqlParseError:
        token = token if token is not None else self._curr
        shown = token_text(token if token else self.end_token)
        at = token if token else self.end_token
        where = self.line_col(at) if at else None
        return self.error(syntax_message(shown, expected, where), token)

    def raise_error(self, message: str, token: Token | None = None) -> NoReturn:  # type: ignore[override]
        """sqlglot's own error hook: re-worded the ksqlDB way and raised at once."""
        expected = message[len("Expecting ") :] if message.startswith("Expecting ") else None
        raise self.syntax_error(f"'{expected}'" if expected else None, token or self._curr)

    # ------------------------------------------------------------------ positions

    def line_col(self, token: Token) -> tuple[int, int]:
        """1-based (line, column) of ``token`` in the submitted text."""
        return self.positions.line_col(token.start)

    def place(self, node: _E, token: Token) -> _E:
        """Record where ``node`` starts, so later (semantic) errors can say ``Line: n, Col: m``."""
        line, col = self.positions.line_col(token.start)
        meta = node.meta
        meta["line"] = line
        meta["col"] = col
        return node

    # ------------------------------------------------------------------ identifiers

    def is_identifier(self, token: Token | None = None) -> bool:
        """Quoted names always; bare words unless ksqlDB reserves them."""
        token = token if token is not None else self._curr
        if token.token_type == TokenType.IDENTIFIER:
            return True
        return token.token_type == TokenType.VAR and token.text.upper() not in RESERVED

    @staticmethod
    def normalize(token: Token) -> str:
        """ksqlDB's identifier rule: quoted names verbatim, bare names upper-cased."""
        return token.text if token.token_type == TokenType.IDENTIFIER else token.text.upper()

    def reserved_error(self, word: str, token: Token | None = None) -> KsqlParseError:
        """ANTLR's extraneous reserved word (``SyntaxErrorValidator``'s first form): the offending token's text as
        written (``getText()``; the case-insensitive stream upper-cases only what the parser looks at), in
        double quotes and then in single quotes with the trailing blank of ksqlDB's message."""
        at = token if token is not None else self._curr
        text = at.text if at is not None and at.text.upper() == word.upper() else word
        return self.error(
            f"{SYNTAX_ERROR}\n\"{text}\" is a reserved keyword and it can't be used as an identifier. "
            f"You can use it as an identifier by escaping it as '{text}' ", token)

    def parse_identifier(self, expected: str = "an identifier", also: Callable[[Token], bool] | None = None) -> str:
        """ksqlDB's ``identifier`` rule. A reserved word in its place is named as one only where ANTLR deletes
        it as extraneous - the token after it can begin the identifier (or ``also``, another alternative
        at that point): ``SelectItem AS from x``. Otherwise it is a plain mismatch against every token that
        could begin an identifier, which ksqlDB's SyntaxErrorValidator prints without detail
        (``SELECT a AS from FROM s``)."""
        token = self._curr
        if not self.is_identifier(token):
            word = token.text.upper()
            if word in RESERVED and token.token_type not in _QUOTED and self._deletable(also):
                raise self.reserved_error(word)
            raise self.syntax_error(expected)
        self._advance()
        return self.normalize(token)

    def _deletable(self, also: Callable[[Token], bool] | None) -> bool:
        """ANTLR's ``singleTokenDeletion`` at an identifier: the token after the current one is expected here."""
        nxt = self._next
        if not nxt or nxt.token_type == TokenType.SENTINEL:
            return False
        return self.is_identifier(nxt) or (also is not None and also(nxt))

    def parse_verbatim_name(self, expected: str = "a name") -> str:
        """A name kept exactly as written (topic names): identifier or string literal."""
        token = self._curr
        if token.token_type == TokenType.STRING or self.is_identifier(token):
            self._advance()
            return token.text
        raise self.syntax_error(expected)

    # ------------------------------------------------------------------ literals

    def parse_string(self, follows: Callable[[Token | None], bool] | None = None) -> str:
        """``match(STRING)``: ksqlDB's string literal is one token, so a miss is ANTLR's ``recoverInline``
        like a keyword's (``expect_keyword``), with the token's symbolic name: ``Expecting STRING`` (the
        current token extraneous before a string, or a mismatch), or ``missing STRING at 'X'`` when ``X``
        can follow the string (``follows``: ``statement_ends`` after a statement's last string)."""
        token = self._curr
        if not token or token.token_type != TokenType.STRING:
            nxt = self._next if token else None
            extraneous = bool(token) and bool(nxt) and nxt.token_type == TokenType.STRING
            if extraneous and self.word() in RESERVED:
                raise self.reserved_error(self.word() or "")
            if not extraneous and follows is not None and follows(token if token else None):
                end = token if token else self.end_token
                if end is not None:
                    raise self.error(syntax_detail(f"missing STRING at '{token_text(end)}'"), token)
            raise self.syntax_error("STRING")
        self._advance()
        return token.text

    def statement_ends(self, token: Token | None) -> bool:
        """``token`` is the ';' that ends the statement (ANTLR's ``singleStatement`` follows)."""
        return not token and self.end_token is not None and self.end_token.token_type == TokenType.SEMICOLON

    def parse_number_token(self, negative: bool) -> str:
        """Validate the current NUMBER token like ksqlDB's literal rules; return its signed text."""
        token = self._curr
        text = token.text
        sign = "-" if negative else ""
        if not _NUMBER.fullmatch(text):
            raise self.literal_error(f"Invalid numeric literal: {sign}{text}", token)
        if text.isdigit():
            if int(text) > _LONG_MAX + (1 if negative else 0):
                raise self.literal_error(f"Invalid numeric literal: {sign}{text}", token)
        elif ("e" in text or "E" in text) and math.isinf(float(text)):
            raise self.literal_error(f"Number overflows DOUBLE: {sign}{text}", token)
        self._advance()
        return sign + text

    def parse_integer(self, expected: str = "an integer") -> int:
        negative = self._curr.token_type == TokenType.DASH and self._next.token_type == TokenType.NUMBER
        if negative:
            self._advance()
        token = self._curr
        if token.token_type != TokenType.NUMBER or not token.text.isdigit():
            raise self.syntax_error(expected)
        return int(self.parse_number_token(negative))

    def _point_number(self, offset: int) -> bool:
        """Whether the token ``offset`` ahead is a '.' right before a number's digits (``.5``)."""
        index = self._index + offset
        if index + 1 >= self._tokens_size:
            return False
        dot, digits = self._tokens[index], self._tokens[index + 1]
        return (dot.token_type == TokenType.DOT and digits.token_type == TokenType.NUMBER
                and digits.text[:1].isdigit() and digits.start == dot.end + 1)

    def parse_literal_value(self) -> Any:
        """A WITH-clause literal as a Python value: str, int, float, bool or None."""
        token = self._curr
        tt = token.token_type
        if tt == TokenType.STRING:
            self._advance()
            return token.text
        if tt == TokenType.TRUE or tt == TokenType.FALSE:
            self._advance()
            return tt == TokenType.TRUE
        if tt == TokenType.NULL:
            self._advance()
            return None
        if tt == TokenType.VAR and token.text.startswith("${"):
            if self.variable_literals:  # ksqlDB's ``variableLiteral``: checking a script's shape before substitution
                self._advance()
                return token.text
            # left by ksql.variable.substitution.enable=false (our wording: ksqlDB's builder is not known here)
            raise error_at(self.positions, token.start, f"Variable '{token.text}' is not substituted: variable "
                           "substitution is disabled (ksql.variable.substitution.enable)", token.text, prepared=True)
        negative = tt == TokenType.DASH and (self._next.token_type == TokenType.NUMBER or self._point_number(1))
        if negative or tt == TokenType.NUMBER or self._point_number(0):
            if negative:
                self._advance()
            point = self._point_number(0)  # DECIMAL_VALUE's '.' DIGIT+ form: '.5' (a '.' token, then the digits)
            if point:
                self._advance()
            text = self.parse_number_token(negative)
            if point:
                text = text.replace("-", "-.") if negative else "." + text
            if text.lstrip("-").isdigit():
                return int(text)
            # ksqlDB's number rule: an exponent makes a floatLiteral (a Double), a point alone a decimalLiteral
            # (a BigDecimal of the text): the value keeps which, and Java's text of it, for the WITH clause's
            # messages
            return JavaDouble(text) if "e" in text.lower() else JavaDecimal(text)
        raise self.syntax_error("a literal")

    # ------------------------------------------------------------------ clauses shared by statements

    def parse_duration(self) -> int:
        """``number windowUnit`` (WINDOW sizes, ADVANCE BY, RETENTION, GRACE PERIOD, WITHIN, TIMEOUT) in ms.

        ksqlDB's grammar takes any ``number`` there - ``1.5``, ``.5``, ``1e3``, ``-1`` - and its AST builder
        reads the text with ``Long.parseLong``: a number that is no long (a point, an exponent, beyond BIGINT)
        fails the statement while it is prepared, i.e. only once the whole text has parsed (``defer``)."""
        first = self._curr  # the error's position: where the number (its sign) starts
        negative = first.token_type == TokenType.DASH and self._next.token_type in (TokenType.NUMBER, TokenType.DOT)
        if negative:
            self._advance()
        token = self._curr
        point = token.token_type == TokenType.DOT and self._next.token_type == TokenType.NUMBER  # ``.5``
        if point:
            self._advance()
        elif token.token_type != TokenType.NUMBER:
            raise self.syntax_error("a duration")
        text = ("-" if negative else "") + ("." if point else "") + self._curr.text
        self._advance()
        unit = self.word()
        if unit not in WINDOW_UNITS_MS:
            raise self.syntax_error("a time unit (MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS)")
        self._advance()
        amount = _java_long(text)
        if amount is None:
            self.defer(PrepareError(f'For input string: "{text}"', self.line_col(first)))
            return 0
        # as ksqlDB's WindowTimeClause prints it (``1 SECONDS``: its TimeUnit, always plural)
        self.last_duration = f"{amount} {unit if unit.endswith('S') else unit + 'S'}"
        # ``TimeUnit.toMillis``: saturated at Long.MIN_VALUE / Long.MAX_VALUE (from memory of the JDK)
        return max(-(2**63), min(2**63 - 1, amount * WINDOW_UNITS_MS[unit]))

    def defer(self, error: KsqlParseError) -> None:
        """An error ksqlDB's AST builder raises: reported after the statement's text parsed (a syntax error
        anywhere in it comes first); the first one wins, as the builder stops there."""
        if self.deferred is None:
            self.deferred = error

    def parse_properties(self, upper_keys: bool = True) -> tuple[dict[str, Any], dict[str, Token]]:
        """``( key = literal, ... )``; keys upper-cased unless ``upper_keys`` is False (connectors).

        Also returns each key's value token, so later checks can point at the offending value.
        """
        self.expect(TokenType.L_PAREN, "(")
        props: dict[str, Any] = {}
        tokens: dict[str, Token] = {}
        written: dict[str, Any] = {}  # the builder's keys
        while True:
            key_token = self._curr
            if key_token.token_type == TokenType.STRING or self.is_identifier(key_token):
                self._advance()
            else:
                raise self.syntax_error("a property name")
            key = key_token.text.upper() if upper_keys else key_token.text
            self.expect(TokenType.EQ, "=")
            tokens[key] = self._curr
            value = self.parse_literal_value()
            # AstBuilder.processTableProperties puts each entry in an ImmutableMap builder, keyed as written
            # (an identifier upper-cased unless quoted, a string as it is): a key given twice fails build()
            # with Guava's 'Multiple entries with same key: <first> and <second>', while the statement is
            # prepared (from memory of ksqlDB's AstBuilder and Guava's RegularImmutableMap)
            built = key_token.text if key_token.token_type in _QUOTED else key_token.text.upper()
            if built in written:
                first = f"{built}={literal_text(written[built])}"
                self.defer(PrepareError(f"Multiple entries with same key: {first} and {built}={literal_text(value)}",
                                        self.line_col(key_token)))
            written.setdefault(built, value)
            props[key] = value
            if not self._match(TokenType.COMMA):
                break
        self.expect_list_end(TokenType.R_PAREN, ")")
        return props, tokens
