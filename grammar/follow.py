"""What may follow a rule where it is called: ANTLR's follow set in context, one frame per enclosing rule.

When ``match`` misses a required token, ANTLR's DefaultErrorStrategy (``recoverInline``) first tries to
delete the current token (the expected one follows it: ``extraneous input``), then to insert the expected
one: the current token can follow it *given the rules the parser is in* (``singleTokenInsertion`` asks
``ATN.nextTokens(state after the token, ctx)``, which walks the invocation stack). That is why ksqlDB says
``missing ')' at 'FROM'`` for an unclosed ``CAST(x AS INT`` in a select item, ``missing ')' at 'EMIT'``
in WHERE, but ``Expecting ')'`` for the same text inside a function's arguments (the argument list needs its
own ``)`` first). A recursive-descent parser has that context only on its call stack, so every call site that
matters pushes a ``Follow`` frame (``TokenParser.followed_by``): the tokens that may come after the called
rule there, and whether that place may itself end (``more``: the caller's own follow applies too).

The frames model ksqlDB's SqlBase.g4 (from memory): ``query``'s fixed clause order, ``selectItem``'s alias,
``tableElement``'s key/header suffixes, and the expression rules' operators and brackets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlglot.tokens import Token, TokenType

if TYPE_CHECKING:
    from .base import TokenParser

_T = TokenType


@dataclass(frozen=True)
class Follow:
    """The tokens that may follow a rule at one call site."""

    tokens: frozenset[TokenType] = frozenset()
    words: frozenset[str] = frozenset()  # bare keywords (VAR tokens), upper-case
    identifier: bool = False             # an identifier may follow (a select item's alias)
    end: bool = False                    # the statement's ';' may follow
    more: bool = False                   # the call site may end here: the enclosing frame applies too

    def admits(self, token: Token | None, parser: TokenParser) -> bool:
        """``token`` (None: the statement's end) is in this frame's own set."""
        if token is None:
            return self.end and parser.statement_ends(None)
        if token.token_type in self.tokens:
            return True
        if token.token_type == _T.VAR and token.text.upper() in self.words:
            return True
        return self.identifier and parser.is_identifier(token)


def _follow(tokens: tuple[TokenType, ...] = (), words: str = "", *, identifier: bool = False, end: bool = False,
            more: bool = False) -> Follow:
    return Follow(frozenset(tokens), frozenset(words.split()), identifier, end, more)


# ---- inside expressions (primaryExpression, valueExpression, predicated, booleanExpression)

# after a primary expression: its subscript / dereference loop, then valueExpression's operators (ANTLR's
# follow sees through the precedence predicates, so every operator is in it)
AFTER_PRIMARY = _follow((_T.L_BRACKET, _T.ARROW, _T.STAR, _T.SLASH, _T.MOD, _T.PLUS, _T.DASH, _T.DPIPE), "AT",
                        more=True)
# after the value expression of ``predicated``: one predicate
AFTER_PREDICAND = _follow((_T.EQ, _T.NEQ, _T.LT, _T.LTE, _T.GT, _T.GTE, _T.NOT, _T.BETWEEN, _T.IN, _T.LIKE, _T.IS),
                          more=True)
# after a boolean expression's operand: AND / OR
AFTER_BOOLEAN = _follow((_T.AND, _T.OR), more=True)
BETWEEN_LOW = _follow((_T.AND,))
LIKE_PATTERN = _follow((), "ESCAPE", more=True)
IN_PARENS = _follow((_T.R_PAREN,))
IN_LIST = _follow((_T.COMMA, _T.R_PAREN))            # arguments, IN lists, constructors' values, VALUES
IN_ARRAY = _follow((_T.COMMA, _T.R_BRACKET))
IN_INDEX = _follow((_T.R_BRACKET,))
BEFORE_ASSIGN = _follow((_T.COLON_EQ,))              # a MAP constructor's key
BEFORE_AS = _follow((), "AS")                        # CAST's operand
CASE_OPERAND = _follow((_T.WHEN,))
WHEN_CONDITION = _follow((_T.THEN,))
WHEN_RESULT = _follow((_T.WHEN, _T.ELSE, _T.END))
ELSE_RESULT = _follow((_T.END,))

# ---- query clauses, in ``query``'s order: SELECT items FROM relation [WINDOW] [WHERE] [GROUP BY]
# [PARTITION BY] [HAVING] [EMIT] [LIMIT], then the statement's ';'
SELECT_ITEM = _follow((_T.COMMA,), "AS FROM", identifier=True)
JOIN_CRITERIA = _follow((), "JOIN INNER LEFT RIGHT FULL WINDOW WHERE GROUP PARTITION HAVING EMIT LIMIT", end=True)
WINDOW_CLAUSE = _follow((), "WHERE GROUP PARTITION HAVING EMIT LIMIT", end=True)
WHERE_CLAUSE = _follow((), "GROUP PARTITION HAVING EMIT LIMIT", end=True)
GROUP_BY_ITEM = _follow((_T.COMMA,), "PARTITION HAVING EMIT LIMIT", end=True)
PARTITION_BY_ITEM = _follow((_T.COMMA,), "HAVING EMIT LIMIT", end=True)
HAVING_CLAUSE = _follow((), "EMIT LIMIT", end=True)
WITHIN_CLAUSE = _follow((), "GRACE ON")

# ---- types: a column definition (then its key / header suffix, ',' or ')'), ALTER's ADD COLUMN, CREATE TYPE,
# CAST's target, and the types nested in ARRAY / MAP / STRUCT
COLUMN_TYPE = _follow((_T.COMMA, _T.R_PAREN), "PRIMARY KEY HEADERS HEADER")
COLUMN_END = _follow((_T.COMMA, _T.R_PAREN))
ADDED_COLUMN_TYPE = _follow((_T.COMMA,), end=True)
STATEMENT_END = _follow(end=True)
CAST_TYPE = IN_PARENS
ELEMENT_TYPE = _follow((_T.GT,))
MAP_KEY_TYPE = _follow((_T.COMMA,))
FIELD_TYPE = _follow((_T.COMMA, _T.GT))
AFTER_TYPE = _follow(more=True)  # a type ends with its bracket: what follows is its call site's
