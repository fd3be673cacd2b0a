"""Expressions come out normalized exactly as the contract in grammar/ast.py says."""

from __future__ import annotations

import pytest
from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import ast as A
from ksqlpy.grammar import parse_expression as pe


def col(name: str, table: str | None = None) -> exp.Column:
    if table is None:
        return exp.Column(this=exp.Identifier(this=name))
    return exp.Column(this=exp.Identifier(this=name), table=exp.Identifier(this=table))


def num(text: str) -> exp.Literal:
    return exp.Literal(this=text, is_string=False)


def s(text: str) -> exp.Literal:
    return exp.Literal(this=text, is_string=True)


# --------------------------------------------------------------------------- names and literals


def test_identifiers_are_normalized() -> None:
    assert pe("price") == col("PRICE")
    assert pe("`Price`") == col("Price")
    assert pe('"Price"') == col("Price")
    assert pe("o.`Id`") == col("Id", "O")
    assert pe("`weird``name`") == col("weird`name")
    assert "quoted" not in pe("`Price`").this.args or not pe("`Price`").this.args["quoted"]


def test_non_reserved_keywords_are_column_names() -> None:
    for word in (
        "KEY",
        "TIMESTAMP",
        "DATE",
        "TIME",
        "SOURCE",
        "ID",
        "VALUE",
        "FORMAT",
        "TYPE",
        "SECOND",
        "MAP",
        "ARRAY",
    ):
        assert pe(word) == col(word)
    for word in ("SELECT", "FROM", "WINDOW", "SIZE", "TOPIC", "WITHIN"):
        with pytest.raises(KsqlParseError):
            pe(word)
        assert pe(f"`{word}`") == col(word)


def test_literals() -> None:
    assert pe("'it''s'") == s("it's")
    assert pe("42") == num("42")
    assert pe("1.50") == num("1.50")
    assert pe("1e3") == num("1e3")
    assert pe("2.5E-3") == num("2.5E-3")
    assert pe("TRUE") == exp.Boolean(this=True)
    assert pe("false") == exp.Boolean(this=False)
    assert pe("NULL") == exp.Null()


def test_unary_minus_folds_into_number_literals() -> None:
    assert pe("-5") == num("-5")
    assert pe("-9223372036854775808") == num("-9223372036854775808")
    assert pe("-x") == exp.Neg(this=col("X"))
    assert pe("-(5)") == exp.Neg(this=num("5"))
    # unary plus is kept (ksqlDB's ArithmeticUnaryExpression with sign PLUS), never folded: +5 is not a literal
    assert pe("+x") == A.UnaryPlus(this=col("X"))
    assert pe("+5") == A.UnaryPlus(this=num("5"))
    assert pe("+-5") == A.UnaryPlus(this=num("-5"))
    assert pe("-+x") == exp.Neg(this=A.UnaryPlus(this=col("X")))
    assert pe("+x * 2") == exp.Mul(this=A.UnaryPlus(this=col("X")), expression=num("2"))
    assert pe("1 + +x") == exp.Add(this=num("1"), expression=A.UnaryPlus(this=col("X")))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("9223372036854775808", "Invalid numeric literal: 9223372036854775808"),
        ("-9223372036854775809", "Invalid numeric literal: -9223372036854775809"),
        ("1.7976931348623159E308", "Number overflows DOUBLE: 1.7976931348623159E308"),
        ("-1.8E308", "Number overflows DOUBLE: -1.8E308"),
    ],
)
def test_literal_overflow(text: str, message: str) -> None:
    with pytest.raises(KsqlParseError, match=message):
        pe(text)


# --------------------------------------------------------------------------- operators


def test_arithmetic_precedence() -> None:
    assert pe("a + b * c") == exp.Add(this=col("A"), expression=exp.Mul(this=col("B"), expression=col("C")))
    assert pe("(a + b) * c") == exp.Mul(this=exp.Add(this=col("A"), expression=col("B")), expression=col("C"))
    assert pe("a - b - c") == exp.Sub(this=exp.Sub(this=col("A"), expression=col("B")), expression=col("C"))
    assert pe("a % b / c") == exp.Div(this=exp.Mod(this=col("A"), expression=col("B")), expression=col("C"))


def test_concatenation_binds_loosest_among_value_operators() -> None:
    """``||`` is the call CONCAT(left, right), as ksqlDB's AstBuilder.visitConcatenation builds it."""
    assert pe("a || b + c") == A.FunctionCall(
        name="CONCAT", args=[col("A"), exp.Add(this=col("B"), expression=col("C"))]
    )
    assert pe("a || b || c") == A.FunctionCall(
        name="CONCAT", args=[A.FunctionCall(name="CONCAT", args=[col("A"), col("B")]), col("C")]
    )


def test_boolean_precedence() -> None:
    a_eq_b = exp.EQ(this=col("A"), expression=col("B"))
    assert pe("NOT a = b AND c OR d") == exp.Or(
        this=exp.And(this=exp.Not(this=a_eq_b), expression=col("C")), expression=col("D")
    )
    assert pe("a OR b AND c") == exp.Or(this=col("A"), expression=exp.And(this=col("B"), expression=col("C")))


@pytest.mark.parametrize(
    ("text", "klass"),
    [
        ("=", exp.EQ),
        ("<>", exp.NEQ),
        ("!=", exp.NEQ),
        ("<", exp.LT),
        ("<=", exp.LTE),
        (">", exp.GT),
        (">=", exp.GTE),
    ],
)
def test_comparisons(text: str, klass: type[exp.Expression]) -> None:
    assert pe(f"a {text} 1") == klass(this=col("A"), expression=num("1"))


def test_predicates() -> None:
    a = col("A")
    assert pe("a IN (1, 2)") == exp.In(this=a, expressions=[num("1"), num("2")])
    assert pe("a NOT IN (1)") == exp.Not(this=exp.In(this=a, expressions=[num("1")]))
    assert pe("a BETWEEN 1 AND 2") == exp.Between(this=a, low=num("1"), high=num("2"))
    assert pe("a NOT BETWEEN 1 AND 2") == exp.Not(this=exp.Between(this=a, low=num("1"), high=num("2")))
    assert pe("a LIKE 'x%'") == exp.Like(this=a, expression=s("x%"))
    assert pe("a NOT LIKE 'x!%' ESCAPE '!'") == exp.Not(
        this=exp.Escape(this=exp.Like(this=a, expression=s("x!%")), expression=s("!"))
    )
    assert pe("a IS NULL") == exp.Is(this=a, expression=exp.Null())
    assert pe("a IS NOT NULL") == exp.Not(this=exp.Is(this=a, expression=exp.Null()))
    assert pe("a IS DISTINCT FROM b") == exp.NullSafeNEQ(this=a, expression=col("B"))
    # ksqlDB's AstBuilder.visitDistinctFrom: NOT over IS DISTINCT FROM
    assert pe("a IS NOT DISTINCT FROM b") == exp.Not(this=exp.NullSafeNEQ(this=a, expression=col("B")))


@pytest.mark.parametrize(
    "text",
    [
        "a IN ()",
        "a = b = c",
        "a + NOT b",
        "a IS TRUE",
        "a LIKE 'x' ESCAPE 'ab'",
        "a BETWEEN 1 OR 2",
        "a NOT = b",
    ],
)
def test_invalid_predicates(text: str) -> None:
    with pytest.raises(KsqlParseError):
        pe(text)


def test_never_produces_paren() -> None:
    tree = pe("((a + (b)) * ((c)))")
    assert not list(tree.find_all(exp.Paren))


# --------------------------------------------------------------------------- calls and constructors


def test_every_call_is_a_function_call() -> None:
    assert pe("count(*)") == A.FunctionCall(name="COUNT", args=[exp.Star()])
    assert pe("SUBSTRING(s, 1, 2)") == A.FunctionCall(name="SUBSTRING", args=[col("S"), num("1"), num("2")])
    assert pe("`concat`(a, 'b')") == A.FunctionCall(name="CONCAT", args=[col("A"), s("b")])
    assert pe("UNIX_TIMESTAMP()").call_args == []
    for name in ("SUM", "MAX", "COALESCE", "IFNULL", "LEN", "ABS", "IF", "REPLACE", "DATE"):
        node = pe(f"{name}(x)")
        assert isinstance(node, A.FunctionCall) and node.fname == name


def test_time_unit_arguments() -> None:
    call = pe("TIMESTAMPADD(MILLISECONDS, 5, ts)")
    assert call.call_args[0] == A.IntervalUnit(unit="MILLISECONDS")
    assert pe("DATEADD(Days, 1, d)").call_args[0] == A.IntervalUnit(unit="DAYS")
    assert pe("f(MILLISECOND)").call_args[0] == A.IntervalUnit(unit="MILLISECONDS")
    assert pe("f(SECOND)").call_args[0] == col("SECOND")  # singular units are also column names


def test_lambdas() -> None:
    single = pe("TRANSFORM(xs, x => x * 2)")
    assert single.call_args[1] == exp.Lambda(
        this=exp.Mul(this=col("X"), expression=num("2")), expressions=[exp.Identifier(this="X")]
    )
    double = pe("REDUCE(m, 0, (acc, k, v) => acc + v)")
    assert double.call_args[2].expressions == [exp.Identifier(this=n) for n in ("ACC", "K", "V")]
    assert pe("f((a), b)").call_args == [col("A"), col("B")]  # not a lambda without =>


def test_constructors() -> None:
    assert pe("ARRAY[1, 2]") == exp.Array(expressions=[num("1"), num("2")])
    assert pe("ARRAY[]") == exp.Array(expressions=[])
    assert pe("MAP('a' := 1, 'b' := 2)") == A.MapConstructor(
        keys=[s("a"), s("b")], values=[num("1"), num("2")]
    )
    assert pe("STRUCT(name := 'x', `Age` := 3)") == A.StructConstructor(
        names=["NAME", "Age"], values=[s("x"), num("3")]
    )
    assert pe("MAP()") == A.MapConstructor(keys=[], values=[])


def test_cast_targets_are_ksqlpy_types() -> None:
    assert pe("CAST(x AS BIGINT)") == A.Cast(this=col("X"), to=T.BIGINT)
    assert pe("CAST(x AS DECIMAL(10, 2))").args["to"] == T.Decimal(10, 2)
    assert pe("CAST(x AS MAP<STRING, ARRAY<INT>>)").args["to"] == T.Map(T.STRING, T.Array(T.INTEGER))
    assert pe("CAST(x AS address)").args["to"] == A.TypeName("ADDRESS")


def test_case_expressions() -> None:
    searched = pe("CASE WHEN a > 1 THEN 'big' WHEN a > 0 THEN 'small' ELSE 'none' END")
    assert isinstance(searched, exp.Case)
    assert [i.args["true"] for i in searched.args["ifs"]] == [s("big"), s("small")]
    assert searched.args["default"] == s("none")
    simple = pe("CASE a WHEN 1 THEN 'one' END")
    assert simple.args["ifs"] == [exp.If(this=num("1"), true=s("one"))]
    assert simple.args["this"] == col("A") and simple.args.get("default") is None


def test_subscripts_and_dereference() -> None:
    assert pe("arr[1]") == exp.Bracket(this=col("ARR"), expressions=[num("1")])
    assert pe("m['k']") == exp.Bracket(this=col("M"), expressions=[s("k")])
    assert pe("a->b->c") == A.Dereference(this=A.Dereference(this=col("A"), field="B"), field="C")
    assert pe("t.s->`f`[0]") == exp.Bracket(
        this=A.Dereference(this=col("S", "T"), field="f"), expressions=[num("0")]
    )
    assert pe("s->*") == A.Dereference(this=col("S"), field="*")


def test_at_time_zone() -> None:
    assert pe("ts AT TIME ZONE 'UTC'") == exp.AtTimeZone(this=col("TS"), zone=s("UTC"))
    with pytest.raises(KsqlParseError):
        pe("ts AT TIME ZONE utc")


def test_reserved_words_are_not_function_names() -> None:
    with pytest.raises(KsqlParseError):
        pe("WINDOW(1)")
