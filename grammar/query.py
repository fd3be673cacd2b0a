"""The SELECT query: select items, FROM and JOINs, WINDOW, WHERE, GROUP BY, PARTITION BY, HAVING,
EMIT and LIMIT, in ksqlDB's fixed clause order.

sqlglot's SELECT parser knows nothing of WITHIN, WINDOW TUMBLING or EMIT, so this is a small
recursive-descent layer over the same token cursor; every expression inside is parsed by
``ExpressionParser``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, NoReturn

from sqlglot import exp
from sqlglot.errors import ParseError
from sqlglot.tokens import TokenType

from ksqlpy.errors import KsqlParseError

from . import follow as F
from .ast import JoinClause, Query, SelectItem, SourceRef, WindowSpec, WithinSpec
from .errors import SYNTAX_ERROR, syntax_detail, token_text
from .keywords import CLAUSE_STARTS, RESERVED

if TYPE_CHECKING:
    from .expressions import ExpressionParser

_JOIN_STARTS = frozenset({"JOIN", "INNER", "LEFT", "RIGHT", "FULL"})
_CLAUSE_END = RESERVED | CLAUSE_STARTS


def parse_query(p: ExpressionParser) -> Query:
    """``SELECT ... FROM ... [clauses]`` - the query of a SELECT, CSAS/CTAS or INSERT INTO."""
    # the query of CREATE ... AS: ANTLR's match(SELECT) recovers inline (a token that can begin a select
    # item has SELECT missing before it)
    p.expect_keyword("SELECT", lambda token: token.token_type == TokenType.STAR or p.starts_expression(token))
    select = [_parse_select_item(p)]
    while p._match(TokenType.COMMA):
        select.append(_parse_select_item(p))
    if p.word() != "FROM":
        _refuse_select_list_end(p)
    p.expect_word("FROM")
    query = Query(select=select, source=_parse_source(p))
    while p.word() in _JOIN_STARTS:
        query.joins.append(_parse_join(p))
    if p.match_word("WINDOW"):
        query.window = _parse_window(p)
    if p.match_word("WHERE"):
        with p.followed_by(F.WHERE_CLAUSE):
            query.where = p.parse_expression()
    _expect_by_after(p, "GROUP")
    if p.match_word("GROUP", "BY"):
        query.group_by = _parse_grouping(p, F.GROUP_BY_ITEM)
    _expect_by_after(p, "PARTITION")
    if p.match_word("PARTITION", "BY"):
        query.partition_by = _parse_grouping(p, F.PARTITION_BY_ITEM)
        query.partition_by_written = True
    if p.match_word("HAVING"):
        with p.followed_by(F.HAVING_CLAUSE):
            query.having = p.parse_expression()
    if p.match_word("EMIT"):
        if p.word() not in ("CHANGES", "FINAL"):
            raise p.syntax_error("{'CHANGES', 'FINAL'}")
        query.emit = p.word()
        p._advance()
    if p.match_word("LIMIT"):
        query.limit = parse_limit(p)
    if not query.joins:  # (a join's qualifiers are checked with its sources: analysis.join_scope)
        _check_qualifiers(p, query)
    return query


def _check_qualifiers(p: ExpressionParser, query: Query) -> None:
    """ksqlDB's AstBuilder, while it prepares the statement - before the source, an INSERT target or a sink
    is looked up: a column's qualifier, in any clause, must be the FROM source's name or alias."""
    allowed = {query.source.name, query.source.alias}
    exprs = [i.expr for i in query.select] + [query.where, query.having, *query.group_by, *query.partition_by]
    for e in exprs:
        for col in e.find_all(exp.Column) if e is not None else ():
            if col.table and col.table not in allowed:
                error = KsqlParseError(f"'{col.table}' is not a valid stream/table name or alias.",
                                       *p.line_col(p._prev), prepared=True, silent=True)
                if p._curr:
                    # text the query cannot take follows (``FROM L OUTER JOIN R ...``: OUTER is no alias and
                    # starts no join): the statement does not parse, and that syntax error comes first
                    p.defer(error)
                    return
                raise error


def _starts_expression(p: ExpressionParser) -> bool:
    """Whether the current token can begin an expression (ANTLR's first set of ``groupBy``/``partitionBy``)."""
    token = p._curr
    return bool(token) and token.token_type != TokenType.SENTINEL and p.starts_expression(token)


def _expect_by_after(p: ExpressionParser, word: str) -> None:
    """``GROUP``/``PARTITION`` in clause position must be followed by ``BY``. ANTLR's recovery words the miss
    as its parser does: when the next token can begin the grouping it reports the keyword as missing there
    (``missing 'BY' at 'K'``), otherwise a mismatch with the one token expected (``Expecting 'BY'``)."""
    if p.word() != word or p.next_word() == "BY":
        return
    p._advance()
    if _starts_expression(p):  # ANTLR shows the token's text in single quotes, a string's own quotes kept
        raise p.error(syntax_detail(f"missing 'BY' at '{token_text(p._curr)}'"), p._curr)
    raise p.syntax_error("'BY'")


def _refuse_select_list_end(p: ExpressionParser) -> NoReturn:
    """After a select item only ``,`` or ``FROM`` fits (ANTLR's loop over ``(',' selectItem)*`` then
    ``FROM``): a token there is extraneous when ``FROM`` follows it - a reserved word is then named as one -
    else a mismatch; both list the two tokens (as ``Expecting {',', ')'}`` after a column definition)."""
    word = p.word()
    if word in RESERVED and p.next_word() == "FROM":
        raise p.reserved_error(word)
    raise p.syntax_error("{',', 'FROM'}")


def parse_limit(p: ExpressionParser) -> int:
    """``LIMIT n``: a number that is not an integer is rejected with ksqlDB's message."""
    return parse_integer_number(p, "LIMIT", "an integer limit")


_INT_MAX = 2**31 - 1


def parse_integer_number(p: ExpressionParser, command: str, expected: str) -> int:
    """The ``number`` of a clause that wants an integer (LIMIT, PRINT's INTERVAL): the grammar takes any
    number, then ksqlDB's ParserUtil.processIntegerNumber refuses one that is not an integer literal."""
    index = 1 if p._curr.token_type == TokenType.DASH else 0
    token = p._tokens[p._index + index] if p._index + index < p._tokens_size else None
    if token is not None and token.token_type == TokenType.NUMBER and (
            not token.text.isdigit() or int(token.text) > _INT_MAX):
        # ksqlDB's AST builder words this one without a position (the error still carries it); an integer
        # beyond INT is a LongLiteral (ParserUtil.visitIntegerLiteral), which processIntegerNumber refuses the
        # same way - unless it is no long either ('Invalid numeric literal', as every literal)
        if token.text.isdigit():
            _ = p.parse_integer(expected)  # a number beyond BIGINT fails as a literal first
        line, col = p.line_col(token)
        raise KsqlParseError(f"Value must be integer for command: {command}", line, col, token.text,
                             prepared=True, silent=True)
    return p.parse_integer(expected)


def _parse_select_item(p: ExpressionParser) -> SelectItem:
    if p._match(TokenType.STAR):
        return SelectItem(exp.Star())
    if p.is_identifier() and p._next.token_type == TokenType.DOT and _token_after_next(p) != TokenType.STAR:
        after = p._tokens[p._index + 2] if p._index + 2 < p._tokens_size else None
        if after is None or after.token_type == TokenType.SENTINEL or not p.is_identifier(after):
            # `name.` then neither a column nor '*': the select item's prediction (expression, source.*)
            # finds no viable alternative at that token
            raise p.syntax_error(None, after if after is not None and after.token_type != TokenType.SENTINEL
                                 else p.end_token)
    if p.is_identifier() and p._next.token_type == TokenType.DOT and _token_after_next(p) == TokenType.STAR:
        source = p.parse_identifier()
        p._advance(2)
        return SelectItem(exp.Column(this=exp.Star(), table=exp.Identifier(this=source)))
    with p.followed_by(F.SELECT_ITEM):
        item = SelectItem(p.parse_expression())
    if p.match_word("AS") or p.is_identifier():  # FROM, the only follower, is reserved
        item.alias = p.parse_identifier("an alias")
    return item


def _token_after_next(p: ExpressionParser) -> TokenType | None:
    index = p._index + 2
    return p._tokens[index].token_type if index < p._tokens_size else None


def _parse_source(p: ExpressionParser) -> SourceRef:
    line, column = p.line_col(p._curr)
    source = SourceRef(p.parse_identifier("a source name"), line=line, column=column)
    if p.match_word("AS") or _implicit_alias_ahead(p):
        source.alias = p.parse_identifier("an alias")
    return source


def _implicit_alias_ahead(p: ExpressionParser) -> bool:
    """A name after a source is its alias unless it starts the next clause (``EMIT CHANGES``)."""
    if not p.is_identifier():
        return False
    word, following = p.word(), p.next_word()
    return not (
        word == "EMIT" and following in ("CHANGES", "FINAL") or word == "PARTITION" and following == "BY"
    )


def _parse_join(p: ExpressionParser) -> JoinClause:
    """``joinType JOIN aliasedRelation joinWindow? joinCriteria``. A token that fits nowhere names what
    could have come there, in the lexer's order as ANTLR lists them: ``OUTER?`` before ``JOIN``, the
    optional window (or its grace period) before ``ON``."""
    kind = p.word() or "INNER"
    p._advance()
    if kind == "JOIN":
        kind = "INNER"
    else:
        if kind != "INNER":
            p.match_word("OUTER")
        _expect_join(p)
    right = _parse_source(p)
    within = _parse_within(p) if p.match_word("WITHIN") else None
    if p.word() != "ON":
        raise p.syntax_error("'ON'" if within is not None and within.grace_ms is not None
                             else "{'GRACE', 'ON'}" if within is not None else "{'WITHIN', 'ON'}")
    p._advance()
    with p.followed_by(F.JOIN_CRITERIA):
        on = p.parse_expression()
    return JoinClause(kind=kind, right=right, on=on, within=within)


def _expect_join(p: ExpressionParser) -> None:
    """``JOIN`` after the join type; missing where the token can begin the joined source (``missing 'JOIN'
    at 'T'``). ``OUTER?`` is behind the parser by then: the joinType rule may end before it, so no
    alternative lists it."""
    p.expect_keyword("JOIN", p.is_identifier)


def _parse_within(p: ExpressionParser) -> WithinSpec:
    if p._match(TokenType.L_PAREN):
        before = p.parse_duration()
        p.expect_token(TokenType.COMMA, ",", p.starts_number)
        after = p.parse_duration()
        p.expect_close(TokenType.R_PAREN, ")", F.WITHIN_CLAUSE)
    else:
        before = after = p.parse_duration()
    grace = None
    if p.match_word("GRACE"):
        p.expect_keyword("PERIOD", p.starts_number)
        grace = p.parse_duration()
    return WithinSpec(before_ms=before, after_ms=after, grace_ms=grace)


_WINDOW_KINDS = ("TUMBLING", "HOPPING", "SESSION")


def _parse_window(p: ExpressionParser) -> WindowSpec:
    line, column = p.line_col(p._curr) if p._curr else (0, 0)
    # ksqlDB's grammar allows a name before the window kind (``WINDOW w TUMBLING (...)``); it names nothing.
    # Consumed whatever follows, as ANTLR does: a missing kind is then reported at the token after it.
    named = p.word() not in _WINDOW_KINDS and p.is_identifier()
    if named:
        p._advance()
    kind = p.word()
    if kind not in _WINDOW_KINDS:  # without a name, IDENTIFIER is a fourth alternative: no list is shown
        raise p.syntax_error("{'TUMBLING', 'HOPPING', 'SESSION'}" if named else
                             "{IDENTIFIER, 'TUMBLING', 'HOPPING', 'SESSION'}")
    p._advance()
    p.expect(TokenType.L_PAREN, "(")
    if kind != "SESSION":
        p.expect_keyword("SIZE", p.starts_number)
    spec = WindowSpec(type=kind, size_ms=p.parse_duration(), line=line, column=column)
    spec.printed["size"] = p.last_duration
    if kind == "HOPPING":
        p.expect(TokenType.COMMA, ",")
        p.expect_keyword("ADVANCE", lambda t: p.normalize(t) == "BY" and t.token_type == TokenType.VAR)
        p.expect_keyword("BY", p.starts_number)
        spec.advance_ms = p.parse_duration()
        spec.printed["advance"] = p.last_duration
    # ``(',' retentionClause)? (',' gracePeriodClause)?``: ANTLR looks past the comma to choose; a word that
    # is neither leaves it no viable alternative
    graced = False
    if p._curr and p._curr.token_type == TokenType.COMMA:
        if p.next_word() not in ("RETENTION", "GRACE"):
            p._advance()
            raise p.syntax_error()
        p._advance()
        if p.match_word("RETENTION"):
            spec.retention_ms = p.parse_duration()
            spec.printed["retention"] = p.last_duration
            if p._match(TokenType.COMMA):
                p.expect_keyword("GRACE", lambda t: p.normalize(t) == "PERIOD" and t.token_type == TokenType.VAR)
                _grace(p, spec)
                graced = True
        else:
            p._advance()
            _grace(p, spec)
            graced = True
    if graced:  # the window's last clause: ')' alone is expected (missing where the next clause begins)
        p.expect_close(TokenType.R_PAREN, ")", F.WINDOW_CLAUSE)
    else:  # ANTLR's sync before the optional ``(',' gracePeriodClause)?`` expects ',' or ')'
        p.expect_list_end(TokenType.R_PAREN, ")")
    return spec


def _grace(p: ExpressionParser, spec: WindowSpec) -> None:
    """``GRACE PERIOD windowSize`` after its ``GRACE``."""
    p.expect_keyword("PERIOD", p.starts_number)
    spec.grace_ms = p.parse_duration()
    spec.printed["grace"] = p.last_duration


def _parse_grouping(p: ExpressionParser, follow: F.Follow) -> list[exp.Expression]:
    """GROUP BY / PARTITION BY: ``e1, e2`` or the wrapped form ``(e1, e2)`` (also ``()``).

    ksqlDB's grammar has both alternatives; ``(a, b)`` is only the wrapped list when nothing but the
    next clause follows it - ``(a) + 1`` or ``(x IS NULL)`` are single parenthesized expressions.
    Text that fits neither is reported as ANTLR's prediction between the two does: the alternative that
    reads further is chosen and fails with its own error; when both stop at the same token, no alternative
    is viable there (``GROUP BY (a EMIT``).
    """
    def listed() -> list[exp.Expression]:
        with p.followed_by(follow):
            return p._parse_list(p.parse_value_expression)

    def wrapped() -> list[exp.Expression]:
        p._advance()
        with p.followed_by(F.IN_LIST):
            items = [] if p._curr.token_type == TokenType.R_PAREN else p._parse_list(p.parse_value_expression)
        p.expect_list_end(TokenType.R_PAREN, ")")
        return items

    if p._curr.token_type != TokenType.L_PAREN:
        return listed()
    start = p._index
    as_wrapped = _attempt(p, wrapped)
    if as_wrapped.error is None and (not p._curr or p.word() in _CLAUSE_END):
        return as_wrapped.items
    p._retreat(start)
    as_listed = _attempt(p, listed)
    if as_listed.error is None:
        return as_listed.items
    for error in (as_wrapped.error, as_listed.error):  # what the AST builder refuses in well-formed text
        if error is not None and not error.raw_message.startswith(SYNTAX_ERROR):
            raise error
    if as_listed.end == as_wrapped.end:
        p._retreat(as_listed.end)
        raise p.syntax_error(None)
    if as_listed.end > as_wrapped.end:
        raise as_listed.error
    p._retreat(start)
    return wrapped() if as_wrapped.error is None else _raise(as_wrapped.error)


class _Attempt(NamedTuple):
    items: list[exp.Expression]
    error: KsqlParseError | None
    end: int  # the token it stopped at


def _attempt(p: ExpressionParser, parse: Callable[[], list[exp.Expression]]) -> _Attempt:
    try:
        return _Attempt(parse(), None, p._index)
    except (KsqlParseError, ParseError) as e:
        error = e if isinstance(e, KsqlParseError) else p.syntax_error()
        return _Attempt([], error, p._index)


def _raise(error: KsqlParseError) -> NoReturn:
    raise error
