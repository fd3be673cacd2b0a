"""ksql expressions: sqlglot's operator-precedence parser, bent to ksqlDB's grammar.

sqlglot keeps doing what it is good at - OR / AND, string concatenation, + - * / %, unary minus,
``AT TIME ZONE`` - driven by the operator tables below. Three levels are ksql's own:

- the predicate level (``_parse_equality``): ksqlDB allows ``NOT* value [one predicate]`` - a single
  comparison, [NOT] IN / BETWEEN / LIKE, IS [NOT] NULL or IS [NOT] DISTINCT FROM - not chains;
- the primary level (``_parse_type``): literals, column references, function calls, CAST, CASE,
  constructors and lambdas, followed by subscripts ``[i]`` and dereferences ``->f``;
- normalization happens as nodes are built, so the trees already follow the contract in ``ast.py``
  (every call a FunctionCall, no exp.Paren, identifiers normalized, NOT wrapping negated predicates).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NoReturn

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

from ksqlpy.utf16 import as_units

from . import follow as F
from .ast import Cast, Dereference, FunctionCall, IntervalUnit, MapConstructor, StructConstructor, UnaryPlus
from .base import TokenParser
from .errors import error_at, token_text
from .keywords import CANONICAL_UNIT, RESERVED
from .literals import BigDecimalError, big_decimal_literal
from .types import close_after_type, parse_type
from .with_clause import PrepareError

_T = TokenType
_COMPARISONS: dict[TokenType, type[exp.Expression]] = {
    _T.EQ: exp.EQ,
    _T.NEQ: exp.NEQ,
    _T.GT: exp.GT,
    _T.GTE: exp.GTE,
    _T.LT: exp.LT,
    _T.LTE: exp.LTE,
}
_NEGATABLE = frozenset({_T.IN, _T.BETWEEN, _T.LIKE})


def _column(name: str, table: str | None = None) -> exp.Column:
    if table is None:
        return exp.Column(this=exp.Identifier(this=name))
    return exp.Column(this=exp.Identifier(this=name), table=exp.Identifier(this=table))


class ExpressionParser(TokenParser):
    """The expression half of the ksql parser (tables in sqlglot's style, ksql overrides)."""

    # ---- sqlglot's tables, reduced to what ksql has
    FUNCTIONS: ClassVar[dict[str, Callable]] = {}  # no typed sqlglot functions: all calls are FunctionCall
    NO_PAREN_FUNCTIONS: ClassVar[dict] = {}
    NO_PAREN_FUNCTION_PARSERS: ClassVar[dict] = {}
    ASSIGNMENT: ClassVar[dict] = {}
    DISJUNCTION: ClassVar[dict] = {_T.OR: exp.Or}
    CONJUNCTION: ClassVar[dict] = {_T.AND: exp.And}
    EQUALITY: ClassVar[dict] = {_T.EQ: exp.EQ, _T.NEQ: exp.NEQ}
    COMPARISON: ClassVar[dict] = {_T.GT: exp.GT, _T.GTE: exp.GTE, _T.LT: exp.LT, _T.LTE: exp.LTE}
    BITWISE: ClassVar[dict] = {}
    TERM: ClassVar[dict] = {_T.DASH: exp.Sub, _T.PLUS: exp.Add}
    FACTOR: ClassVar[dict] = {_T.STAR: exp.Mul, _T.SLASH: exp.Div, _T.MOD: exp.Mod}
    EXPONENT: ClassVar[dict] = {}
    JSON_OPERATORS: ClassVar[dict] = {}
    COLUMN_OPERATORS: ClassVar[dict] = {}
    UNARY_PARSERS: ClassVar[dict] = {
        _T.PLUS: lambda self: UnaryPlus(this=self._require(self._parse_unary())),
        _T.DASH: lambda self: self._parse_negation(),
    }
    RANGE_PARSERS: ClassVar[dict] = {
        _T.BETWEEN: lambda self, this: self._parse_between(this),
        _T.IN: lambda self, this: self._parse_in(this),
        _T.IS: lambda self, this: self._parse_is(this),
        _T.LIKE: lambda self, this: self._parse_like(this),
    }
    PRIMARY_PARSERS: ClassVar[dict] = {
        _T.STRING: lambda self, token: exp.Literal(this=token.text, is_string=True),
        _T.NULL: lambda self, token: exp.Null(),
        _T.TRUE: lambda self, token: exp.Boolean(this=True),
        _T.FALSE: lambda self, token: exp.Boolean(this=False),
    }
    # Special forms that look like calls: NAME '(' ... ')', keyed by the upper-cased name.
    FUNCTION_PARSERS: ClassVar[dict[str, Callable[[Any], exp.Expression]]] = {
        "CAST": lambda self: self._parse_ksql_cast(),
        "MAP": lambda self: self._parse_map_constructor(),
        "STRUCT": lambda self: self._parse_struct_constructor(),
    }

    # ------------------------------------------------------------------ entry points

    def parse_expression(self) -> exp.Expression:
        """ksqlDB's ``expression`` (a boolean expression)."""
        with self.followed_by(F.AFTER_BOOLEAN):
            this = self._parse_disjunction()
        if this is None:
            raise self.syntax_error("an expression")
        return this

    def parse_value_expression(self) -> exp.Expression:
        """ksqlDB's ``valueExpression``: arithmetic and concatenation, no predicates."""
        this = self._parse_bitwise()
        if this is None:
            raise self.syntax_error("an expression")
        return this

    # ------------------------------------------------------------------ predicate level

    def _parse_equality(self, parse_is: bool = True) -> exp.Expression | None:
        """ksqlDB's ``NOT* predicated``: one value expression and at most one predicate on it."""
        if self._match(_T.NOT):
            operand = self._require(self._parse_equality())
            # ksqlDB's AstBuilder: ``NOT x IS NULL`` is a NotExpression over IsNullPredicate, printed
            # ``(NOT (x IS NULL))``; only ``x IS NOT NULL`` is its IsNotNullPredicate, ``(x IS NOT NULL)``
            return exp.Not(this=operand, keyword=True) if isinstance(operand, exp.Is) else exp.Not(this=operand)
        with self.followed_by(F.AFTER_PREDICAND):
            this = self._parse_bitwise()
        if this is None:
            return None
        token_type = self._curr.token_type
        comparison = _COMPARISONS.get(token_type)
        if comparison is not None:
            self._advance()
            return comparison(this=this, expression=self.parse_value_expression())
        negate = token_type == _T.NOT and self._next.token_type in _NEGATABLE
        if negate:
            self._advance()
            token_type = self._curr.token_type
        parser = self.RANGE_PARSERS.get(token_type)
        if parser is None:
            return this
        self._advance()
        result = parser(self, this)
        return exp.Not(this=result) if negate else result

    def _parse_bitwise(self) -> exp.Expression | None:
        """ksqlDB's lowest value operator is ``||`` (sqlglot's bitwise operators do not exist in ksql). ksqlDB's
        AstBuilder.visitConcatenation builds the call ``CONCAT(left, right)`` placed at the ``||``, so it is
        that call everywhere after parsing: printed, typed and matched against GROUP BY / PARTITION BY as one."""
        this = self._parse_term()
        while this is not None and self._curr.token_type == _T.DPIPE:
            token = self._curr
            self._advance()
            this = self.place(FunctionCall(name="CONCAT", args=[this, self._require(self._parse_term())]), token)
        return this

    def _require(self, this: exp.Expression | None) -> exp.Expression:
        if this is None:
            raise self.syntax_error("an expression")
        return this

    def _parse_between(self, this: exp.Expression | None) -> exp.Between:
        with self.followed_by(F.BETWEEN_LOW):
            low = self.parse_value_expression()
        self.expect_token(_T.AND, "AND", self.starts_expression)
        return exp.Between(this=this, low=low, high=self.parse_value_expression())

    def _parse_in(self, this: exp.Expression | None, alias: bool = False) -> exp.In:
        self.expect(_T.L_PAREN, "(")
        with self.followed_by(F.IN_LIST):
            values = [self.parse_expression()]
            while self._match(_T.COMMA):
                values.append(self.parse_expression())
        self.expect_list_end(_T.R_PAREN, ")")
        return exp.In(this=this, expressions=values)

    def _parse_like(self, this: exp.Expression | None) -> exp.Expression:
        with self.followed_by(F.LIKE_PATTERN):
            pattern = self.parse_value_expression()
        like: exp.Expression = exp.Like(this=this, expression=pattern)
        if self.match_word("ESCAPE"):
            token = self._curr
            escape = self.parse_string()
            like = exp.Escape(this=like, expression=exp.Literal(this=escape, is_string=True))
            if len(as_units(escape)) != 1:  # ksqlDB's AST builder refuses it (Java length: UTF-16 units)
                raise error_at(self.positions, token.start, "Expected single character escape but got: " + escape,
                               token_text(token), prepared=True)
        return like

    def _parse_is(self, this: exp.Expression | None) -> exp.Expression:
        negate = self._match(_T.NOT)
        if self._match(_T.NULL):
            result: exp.Expression = exp.Is(this=this, expression=exp.Null())
            return exp.Not(this=result) if negate else result
        if self.match_word("DISTINCT", "FROM"):
            # ksqlDB's AstBuilder.visitDistinctFrom: IS NOT DISTINCT FROM is NOT over IS DISTINCT FROM, from
            # parsing on (typed, printed and negated as such)
            distinct = exp.NullSafeNEQ(this=this, expression=self.parse_value_expression())
            return exp.Not(this=distinct) if negate else distinct
        raise self.syntax_error("{'NULL', 'DISTINCT'}")

    def _parse_at_time_zone(self, this: exp.Expression | None) -> exp.Expression | None:
        while this is not None and self.match_word("AT"):
            self.expect_keyword("TIME", lambda t: t.text.upper() == "ZONE")
            self.expect_keyword("ZONE", lambda t: t.token_type == _T.STRING)
            zone = self.parse_string()
            this = exp.AtTimeZone(this=this, zone=exp.Literal(this=zone, is_string=True))
        return this

    def _parse_negation(self) -> exp.Expression:
        """Unary minus; folded into a number literal (``-5``) as ksqlDB does, else exp.Neg."""
        if self._curr.token_type == _T.NUMBER and self._next.token_type not in (_T.L_BRACKET, _T.ARROW):
            return exp.Literal(this=self.parse_number_token(negative=True), is_string=False)
        return exp.Neg(this=self._require(self._parse_unary()))

    # ------------------------------------------------------------------ primary level

    def _parse_type(
        self, parse_interval: bool = True, fallback_to_identifier: bool = False
    ) -> exp.Expression:
        """sqlglot's hook below unary operators: a ksql primary expression and its postfixes."""
        this = self._parse_primary_expression()
        token_type = self._curr.token_type
        while token_type == _T.L_BRACKET or token_type == _T.ARROW:
            self._advance()
            if token_type == _T.L_BRACKET:
                with self.followed_by(F.IN_INDEX):
                    index = self.parse_value_expression()
                self.expect_close(_T.R_BRACKET, "]", F.AFTER_PRIMARY, open_end=True)
                this = exp.Bracket(this=this, expressions=[index])
            elif self._match(_T.STAR):
                this = Dereference(this=this, field="*")
            else:
                this = Dereference(this=this, field=self.parse_identifier("a field name"))
            token_type = self._curr.token_type
        return this

    def _parse_primary_expression(self) -> exp.Expression:
        token = self._curr
        token_type = token.token_type
        primary = self.PRIMARY_PARSERS.get(token_type)
        if primary is not None:
            self._advance()
            return primary(self, token)
        if token_type == _T.NUMBER:
            return exp.Literal(this=self.parse_number_token(negative=False), is_string=False)
        if token_type == _T.VAR or token_type == _T.IDENTIFIER:
            return self._parse_name_expression()
        if token_type == _T.L_PAREN:
            self._advance()
            with self.followed_by(F.IN_PARENS):
                this = self.parse_expression()
            self.expect_close(_T.R_PAREN, ")", F.AFTER_PRIMARY, open_end=True)
            return this
        if token_type == _T.CASE:
            self._advance()
            return self._parse_ksql_case()
        if token_type == _T.DOT and self._next.token_type == _T.NUMBER:
            self._advance()
            return exp.Literal(this="." + self.parse_number_token(negative=False), is_string=False)
        return self._no_expression_at(token)

    def _no_expression_at(self, token: Token) -> NoReturn:
        """Nothing begins a primary expression at ``token``: at the start of a required expression ANTLR's
        sync reports a mismatch against every token that can begin one (no detail) - or, when the token
        after can begin it, deletes this one as extraneous, naming a reserved word as one."""
        nxt = self._next
        word = token.text.upper() if token else ""
        if word in RESERVED and nxt and nxt.token_type != _T.SENTINEL and self.starts_expression(nxt):
            raise self.reserved_error(word)
        raise self.syntax_error("an expression")

    def _parse_name_expression(self) -> exp.Expression:
        """Everything that starts with a word: calls, constructors, column references."""
        token = self._curr
        next_type = self._next.token_type
        upper = token.text.upper()
        bare = token.token_type == _T.VAR
        if next_type == _T.L_PAREN:
            special = self.FUNCTION_PARSERS.get(upper) if bare else None
            if special is not None:
                self._advance(2)
                return special(self)
            if bare and upper in RESERVED:
                raise self.syntax_error()
            self._advance(2)
            return self.place(self._parse_call(upper), token)
        if bare and upper == "ARRAY" and next_type == _T.L_BRACKET:
            self._advance(2)
            with self.followed_by(F.IN_ARRAY):
                items = [] if self._curr.token_type == _T.R_BRACKET else self._parse_list(self.parse_expression)
            self.expect_list_end(_T.R_BRACKET, "]")
            return exp.Array(expressions=items)
        name = self.parse_identifier("an expression", self.starts_expression)
        if self._curr.token_type == _T.STRING:
            return self._type_constructor(name, token)
        if self._curr.token_type == _T.DOT and self.is_identifier(self._next):
            self._advance()
            return self.place(_column(self.parse_identifier(), table=name), token)
        return self.place(_column(name), token)

    def _type_constructor(self, name: str, token: Token) -> exp.Expression:
        """``identifier STRING`` (SqlBase.g4's typeConstructor): from memory of ksqlDB's
        AstBuilder.visitTypeConstructor, only the name DECIMAL (back-quoted or double-quoted: the word is
        reserved) makes a literal - ``new BigDecimal(text)``; any other name fails the statement while it is
        prepared, ``Unknown type: <name>, location:<Optional<NodeLocation>>``."""
        text = self._curr.text
        self._advance()
        if name != "DECIMAL":
            line, col = self.line_col(token)
            self.defer(PrepareError(f"Unknown type: {name}, location:Optional[Line: {line}, Col: {col}]",
                                    (line, col)))
            return self.place(exp.Null(), token)
        try:
            literal = big_decimal_literal(text)
        except BigDecimalError as e:
            self.defer(PrepareError(str(e), self.line_col(token)))
            return self.place(exp.Null(), token)
        return self.place(literal, token)

    def _parse_list(self, item: Callable[[], exp.Expression]) -> list[exp.Expression]:
        items = [item()]
        while self._match(_T.COMMA):
            items.append(item())
        return items

    def _parse_call(self, name: str) -> FunctionCall:
        """After ``NAME(``: ``*``, nothing, or arguments - expressions, time units, lambdas."""
        if self._match(_T.STAR):  # identifier '(' ASTERISK ')': one token expected
            self.expect_close(_T.R_PAREN, ")", F.AFTER_PRIMARY)
            return FunctionCall(name=name, args=[exp.Star()])
        args: list[exp.Expression] = []
        if not self._begins_call_body(self._curr):
            # ANTLR chooses among primaryExpression's three call forms at the name, looking at this token:
            # one that begins none of them (DISTINCT, ALL, a reserved word, an operator) leaves no viable
            # alternative - reported here, never as an extraneous word inside an argument
            raise self.syntax_error(None)
        if self._curr.token_type != _T.R_PAREN:
            with self.followed_by(F.IN_LIST):
                args = self._parse_list(self._parse_argument)
        self.expect_list_end(_T.R_PAREN, ")")
        return FunctionCall(name=name, args=args)

    def _begins_call_body(self, token: Token | None) -> bool:
        """``token`` after ``NAME(`` begins one of the call forms: ``)``, an argument (an expression or a
        time unit) or a lambda (a name or ``(``, both able to begin an expression too)."""
        if token is None or token.token_type == _T.SENTINEL:
            return False
        if token.token_type == _T.R_PAREN:
            return True
        upper = token.text.upper()
        return self.starts_expression(token) or (token.token_type == _T.VAR and upper in CANONICAL_UNIT)

    def _parse_argument(self) -> exp.Expression:
        token = self._curr
        if token.token_type == _T.VAR:
            upper = token.text.upper()
            if upper in CANONICAL_UNIT and upper in RESERVED:
                self._advance()
                return IntervalUnit(unit=CANONICAL_UNIT[upper])
        lambda_params = self._lambda_params_ahead()
        if lambda_params is not None:
            return exp.Lambda(this=self.parse_expression(), expressions=lambda_params)
        start = self._index
        argument = self.parse_expression()
        curr = self._curr
        used = self._index - start  # ``x`` or ``(x)``
        lone_name = isinstance(argument, exp.Column) and (
            used == 1 or used == 3 and self._tokens[start].token_type == _T.L_PAREN)
        if used == 1 and lone_name and curr and curr.token_type == _T.DOT:
            # ``x.`` goes on only as ``x.name``: the call's form is chosen at the dot (no lambda begins so), and
            # the prediction among x's own forms fails at the token after it (``COUNT(s.*)``)
            nxt = self._next
            raise self.syntax_error(None, self.end_token if nxt is None or nxt.token_type == _T.SENTINEL else nxt)
        if lone_name and not (curr and curr.token_type in (_T.COMMA, _T.R_PAREN)):
            # ``x`` and ``(x)`` may begin an argument or a lambda (``x =>``, ``(x) =>``): ANTLR's prediction
            # between them looks at the token after, where neither continues - no viable alternative
            raise self.syntax_error(None)
        return argument

    def _lambda_params_ahead(self) -> list[exp.Identifier] | None:
        """``x =>`` or ``(x, y) =>``: consume the parameters and the arrow, else leave the cursor.

        ``(x`` begins a parenthesized expression or a lambda's parameters: ANTLR predicts at the token after
        the name - a ',' only continues the parameters (that form is then parsed, with its errors); a token
        that continues neither has no viable alternative."""
        if self.is_identifier() and self._next.token_type == _T.FARROW:
            name = self.parse_identifier()
            self._advance()
            return [exp.Identifier(this=name)]
        if self._curr.token_type != _T.L_PAREN or not self.is_identifier(self._next):
            return None
        index = self._index
        self._advance(2)
        after = self._curr
        if after and after.token_type == _T.COMMA:
            params = [exp.Identifier(this=self.normalize(self._prev))]
            with self.followed_by(F.IN_LIST):
                while self._match(_T.COMMA):
                    params.append(exp.Identifier(this=self.parse_identifier()))
            self.expect_list_end(_T.R_PAREN, ")")
            self.expect_token(_T.FARROW, "=>", self.starts_expression)
            return params
        if after and after.token_type == _T.R_PAREN and self._next and self._next.token_type == _T.FARROW:
            self._advance(2)
            return [exp.Identifier(this=self.normalize(self._tokens[index + 1]))]
        if not (after and (after.token_type == _T.R_PAREN or self._continues_name(after))):
            raise self.syntax_error(None)
        self._retreat(index)
        return None

    def _continues_name(self, token: Token) -> bool:
        """``token`` can come after a name in an expression: a call, a qualifier's dot, a type constructor's
        string, a postfix, an operator or a predicate."""
        if token.token_type in (_T.L_PAREN, _T.DOT, _T.STRING):
            return True
        return any(f.admits(token, self) for f in (F.AFTER_PRIMARY, F.AFTER_PREDICAND, F.AFTER_BOOLEAN))

    def _parse_ksql_cast(self) -> Cast:
        with self.followed_by(F.BEFORE_AS):
            this = self.parse_expression()
        self.expect_keyword("AS", self.starts_type)
        with self.followed_by(F.CAST_TYPE):
            to = parse_type(self)
        close_after_type(self, _T.R_PAREN, ")", F.AFTER_PRIMARY)
        return Cast(this=this, to=to)

    def _parse_map_constructor(self) -> MapConstructor:
        keys: list[exp.Expression] = []
        values: list[exp.Expression] = []
        if self._curr.token_type != _T.R_PAREN:
            while True:
                with self.followed_by(F.BEFORE_ASSIGN):
                    keys.append(self.parse_expression())
                self._expect_assign(first=len(keys) == 1)
                with self.followed_by(F.IN_LIST):
                    values.append(self.parse_expression())
                if not self._match(_T.COMMA):
                    break
        self.expect_list_end(_T.R_PAREN, ")")
        return MapConstructor(keys=keys, values=values)

    def _parse_struct_constructor(self) -> StructConstructor:
        names: list[str] = []
        values: list[exp.Expression] = []
        if self._curr.token_type != _T.R_PAREN:
            while True:
                if not names and not self.is_identifier() and self.word() in RESERVED:
                    raise self.syntax_error(None)  # the constructor and a call named STRUCT: neither fits
                names.append(self.parse_identifier("a field name"))
                self._expect_assign(first=len(names) == 1)
                with self.followed_by(F.IN_LIST):
                    values.append(self.parse_expression())
                if not self._match(_T.COMMA):
                    break
        self.expect_list_end(_T.R_PAREN, ")")
        return StructConstructor(names=names, values=values)

    def _expect_assign(self, *, first: bool) -> None:
        """``:=`` after a constructor's key or field name. MAP and STRUCT are also names a function call
        may have, so ANTLR chooses between the constructor and a call by the first ``:=``: without one,
        neither fits and no alternative is viable there. Later entries are past that choice: a missing
        ``:=`` is then reported where it is missing (``missing ':=' at '2'``)."""
        if first and self._curr and self._curr.token_type not in (_T.COLON_EQ, _T.COMMA, _T.R_PAREN):
            raise self.syntax_error(None)
        self.expect_token(_T.COLON_EQ, ":=", self.starts_expression)

    def _parse_ksql_case(self) -> exp.Case:
        """Searched CASE, or simple ``CASE x WHEN v`` with its operand in ``this`` (ksqlDB parses the simple
        form and refuses it when typing it)."""
        curr = self._curr
        if curr and curr.token_type != _T.WHEN and not self.starts_expression(curr):
            raise self.syntax_error(None)  # neither CASE form (simple, searched) continues with this token
        operand = None
        if curr.token_type != _T.WHEN:
            with self.followed_by(F.CASE_OPERAND):
                operand = self.parse_value_expression()
        ifs: list[exp.Expression] = []
        while self._match(_T.WHEN):
            with self.followed_by(F.WHEN_CONDITION):
                condition = self.parse_expression()
            self.expect_token(_T.THEN, "THEN", self.starts_expression)
            with self.followed_by(F.WHEN_RESULT):
                result = self.parse_expression()
            ifs.append(exp.If(this=condition, true=result))
            if self._curr.token_type not in (_T.WHEN, _T.ELSE, _T.END):
                # whenClause+ then ELSE or END: ANTLR's sync at the loop's back edge reports the token as
                # extraneous whatever follows it (a reserved word is named as one)
                word = self._curr.text.upper() if self._curr else ""
                if word in RESERVED:
                    raise self.reserved_error(word)
                raise self.syntax_error("{'WHEN', 'ELSE', 'END'}")
        if not ifs:
            raise self.syntax_error("'WHEN'")
        default = None
        if self._match(_T.ELSE):
            with self.followed_by(F.ELSE_RESULT):
                default = self.parse_expression()
        self.expect(_T.END, "END")
        return exp.Case(this=operand, ifs=ifs, default=default)
