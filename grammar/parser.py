"""The ksql parser: a script of ';'-separated statements into the dataclasses of ``ast.py``.

``KsqlParser`` is the class the ``Ksql`` dialect registers as its ``Parser``. It splits the token
stream at ';' (tokens never split inside a string, identifier or comment), dispatches each
statement on its first word through ``STATEMENT_PARSERS`` and stamps every statement with its own
source text and starting line/column.
"""

from __future__ import annotations

from typing import ClassVar

from sqlglot.tokens import Token, TokenType

from ksqlpy.errors import KsqlParseError

from .ast import Statement
from .errors import (
    EOF_TEXT,
    STATEMENT_KEYWORDS,
    Positions,
    error_at,
    expectation,
    failing_line,
    syntax_detail,
    unknown_statement,
    with_statement,
)
from .expressions import ExpressionParser
from .keywords import RESERVED
from .statements import STATEMENT_PARSERS, StatementParser

_STATEMENT_STARTS = "{'CREATE', 'INSERT', 'SELECT', 'SHOW', 'DESCRIBE', 'DROP', ...}"


class KsqlParser(ExpressionParser):
    """Parses ksql scripts; create one per script (it holds the cursor)."""

    STATEMENT_PARSERS: ClassVar[dict[str, StatementParser]] = STATEMENT_PARSERS  # type: ignore[assignment]

    allow_run_script: bool = True
    # a script as ksqlDB's front doors parse it (``statements: singleStatement* EOF``, each ending in ';'):
    # the last statement's ';' is required too (``terminated`` of ``grammar.parse``)
    require_terminator: bool = False
    variable_literals: bool = False  # a ``${x}`` may stand for a literal (the shape check before substitution)
    # what the statement's optional tail could still have begun with at its end (``statements.ends``); None:
    # the statement does not say (queries, CREATE STREAM/TABLE, types), judged by ``_expected_after_end``
    tail: tuple[str, ...] | None = None
    # the whole detail, where the statement ends in a type (``types.expected_after_type``: its remembered
    # point may not admit the ';')
    tail_detail: str | None = None

    def parse(self, raw_tokens: list[Token], sql: str | None = None) -> list[Statement]:  # type: ignore[override]
        """sqlglot's entry point, so ``sqlglot.parse(text, read="ksql")`` yields ksql statements."""
        return self.parse_script(sql or "", raw_tokens)

    def parse_script(self, sql: str, tokens: list[Token]) -> list[Statement]:
        """Parse all statements of a tokenized script."""
        positions = Positions(sql)
        statements: list[Statement] = []
        chunk: list[Token] = []
        # ksqlDB parses the whole text before it prepares any statement: a statement's preparation failure
        # waits until every later statement parsed (a syntax error anywhere comes first)
        prepare_failure: KsqlParseError | None = None
        for token in tokens:
            if token.token_type != TokenType.SEMICOLON:
                chunk.append(token)
                continue
            if not chunk:
                raise self._empty_statement(sql, positions, token)
            statement, failure = self._parse_chunk(sql, positions, chunk, token)
            statements.append(statement)
            prepare_failure = prepare_failure or failure
            chunk = []
        if chunk:
            statement, failure = self._parse_chunk(sql, positions, chunk, None)
            if self.require_terminator:
                raise self._missing_terminator(sql, positions)
            statements.append(statement)
            prepare_failure = prepare_failure or failure
        if prepare_failure is not None:
            raise prepare_failure
        return statements

    def _empty_statement(self, sql: str, positions: Positions, semicolon: Token) -> KsqlParseError:
        """A ';' where a statement should start: ksqlDB's grammar has no empty statement, and ANTLR's
        expected set there is the statement keywords, so ksqlDB words it as an unknown statement."""
        self.start([semicolon], sql, positions, semicolon)
        error = self.error(syntax_detail(unknown_statement(semicolon.text)), semicolon)
        return with_statement(error, failing_line(sql, error.line))

    def _missing_terminator(self, sql: str, positions: Positions) -> KsqlParseError:
        """A complete statement at the end of the text without its ';'. ANTLR's ``singleStatement`` matches
        ';' there and finds EOF; its single-token insertion sees that EOF may follow the ';' (the end of
        ``statements``) and reports the ';' missing at EOF - positioned where the lexer stopped, after any
        trailing blanks and comments. A syntax error, so it comes before any statement's preparation
        failure."""
        error = error_at(positions, len(sql), syntax_detail(f"missing ';' at '{EOF_TEXT}'"), EOF_TEXT)
        return with_statement(error, failing_line(sql, error.line))

    def _parse_chunk(
        self, sql: str, positions: Positions, chunk: list[Token], semicolon: Token | None
    ) -> tuple[Statement, KsqlParseError | None]:
        """The statement, and the first fault found while preparing it (``defer``), if any."""
        self.start(chunk, sql, positions, semicolon)
        start = chunk[0].start
        end = (semicolon or chunk[-1]).end + 1
        self.tail = None
        self.tail_detail = None
        try:
            statement = self.parse_statement()
            if self._curr:
                raise self._trailing(semicolon is not None, statement)
        except KsqlParseError as e:
            # ksqlDB quotes the failing line of the text, not the whole statement
            raise with_statement(e, failing_line(sql, e.line) if e.line else sql[start:end]) from None
        failure = self.deferred
        if failure is not None:
            failure = with_statement(failure, failing_line(sql, failure.line) if failure.line else sql[start:end])
        statement.text = sql[start:end]
        statement.line, statement.column = positions.line_col(start)
        return statement, failure

    def _trailing(self, terminated: bool, statement: Statement) -> KsqlParseError:
        """Text after a complete statement, where ANTLR's ``singleStatement`` matches ';'. One token before
        the ';' is extraneous (ANTLR deletes it and reports it): a reserved word is named as one, anything
        else ``Expecting ';'``. More is a mismatch (``_expected_after_end``)."""
        if terminated and self._next is None or terminated and self._next.token_type == TokenType.SENTINEL:
            word = self.word()
            if word is not None and word in RESERVED:
                return self.reserved_error(word)
            return self.error(syntax_detail("Expecting ';'"))
        if self.word() in STATEMENT_KEYWORDS:
            # a token that begins a statement: ANTLR's single-token insertion (after the deletion failed)
            # finds it may follow the ';' - the next statement of ``statements`` - and reports the ';' missing
            return self.error(syntax_detail(f"missing ';' at '{self._curr.text}'"))
        return self.error(syntax_detail(self._expected_after_end(statement)))

    def _expected_after_end(self, statement: Statement) -> str:
        """What ANTLR's mismatch lists at the ';' when more than one token follows a complete statement.

        DefaultErrorStrategy.sync, at each optional clause or loop the parser passes, remembers the first
        place since the last token it was sure of where the rule could also end (``nextTokensContext``); the
        mismatch at ';' lists what was possible there - ';' and the optional clauses' first tokens - or, with
        no such place, ';' alone. A statement parser records that tail where it ends (``tail``, from
        ``statements.ends``): ``SHOW STREAMS a b`` -> ``{';', 'EXTENDED'}``, ``DROP STREAM s a b`` ->
        ``{';', 'DELETE'}``, ``ASSERT TOPIC t a b`` -> ``{';', 'WITH', 'TIMEOUT'}``, ``DROP TYPE t a b`` ->
        ``';'``. A query ending ``LIMIT n`` has none left (';'); one ending ``EMIT CHANGES|FINAL`` still has
        ``limitClause?``; anything else ends in an expression or name whose loops and optional clauses allow
        many tokens (no detail)."""
        if self.tail_detail is not None:
            return self.tail_detail
        if self.tail is not None:
            return expectation((";", *self.tail))
        before = self._tokens[max(self._index - 3, 0):self._index]
        words = [t.text.upper() for t in before]
        if before and before[-1].token_type == TokenType.NUMBER and (
                words[-2:-1] == ["LIMIT"] or words[-3:-1] == ["LIMIT", "-"]):
            return "Expecting ';'"
        if words[-2:] in (["EMIT", "CHANGES"], ["EMIT", "FINAL"]):
            return "Expecting {';', 'LIMIT'}"
        return ""

    def _extraneous_at_statement_start(self) -> bool:
        """Whether ANTLR's single-token deletion takes the token where a statement should start: the token
        after it may begin ``(singleStatement)* EOF`` - a statement keyword, or the end of the text (a ';'
        may not). Then the token is reported as extraneous input, and a reserved word as one."""
        nxt = self._next
        if nxt is None or nxt.token_type == TokenType.SENTINEL:
            return self.end_token is None
        return nxt.token_type == TokenType.VAR and nxt.text.upper() in STATEMENT_KEYWORDS

    def parse_statement(self) -> Statement:
        """One statement at the cursor (used for top-level statements and by EXPLAIN)."""
        word = self.word()
        parser = self.STATEMENT_PARSERS.get(word) if word else None
        if parser is None:
            if not self._curr:
                raise self.syntax_error(_STATEMENT_STARTS)
            # ANTLR's sync at the ``(singleStatement)* EOF`` loop reports any token that begins no statement -
            # a word, a number, a string, a quoted name, an operator, an unrecognized character - with the
            # statement keywords as its expected set, so SyntaxErrorValidator calls it an unknown statement,
            # quoting the token as written (ANTLR's getText)
            curr = self._curr
            if word in RESERVED and self._extraneous_at_statement_start():
                raise self.reserved_error(word)
            written = curr.text if word is not None else self.sql[curr.start:curr.end + 1]
            raise self.error(syntax_detail(unknown_statement(written)))
        return parser(self)
