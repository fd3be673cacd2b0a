"""How a negated predicate prints (ksqlDB's ExpressionFormatter over the tree its AstBuilder makes): ``x IS NOT
NULL`` is the IsNotNullPredicate, ``(x IS NOT NULL)``; a NOT written before a predicate - ``NOT x IS NULL``,
``NOT (x IS NULL)`` - is a NotExpression, ``(NOT (x IS NULL))``; the other negated forms are NOT over the
positive predicate."""

from __future__ import annotations

import pytest

from ksqlpy.expr.format import format_expression
from ksqlpy.grammar import parse_expression


@pytest.mark.parametrize(("text", "shown"), [
    ("X IS NOT NULL", "(X IS NOT NULL)"),
    ("NOT X IS NULL", "(NOT (X IS NULL))"),
    ("NOT (X IS NULL)", "(NOT (X IS NULL))"),
    ("NOT X IS NOT NULL", "(NOT (X IS NOT NULL))"),
    ("NOT NOT X IS NULL", "(NOT (NOT (X IS NULL)))"),
    ("X IS NULL AND NOT Y IS NULL", "((X IS NULL) AND (NOT (Y IS NULL)))"),
    ("X NOT BETWEEN 1 AND 5", "(NOT (X BETWEEN 1 AND 5))"),
    ("X NOT LIKE 'a%' ESCAPE '!'", "(NOT (X LIKE 'a%' ESCAPE '!'))"),
    ("X NOT IN (1, 2)", "(NOT (X IN (1, 2)))"),
    ("X IS NOT DISTINCT FROM Y", "(NOT (X IS DISTINCT FROM Y))"),
])
def test_printed(text: str, shown: str) -> None:
    assert format_expression(parse_expression(text)) == shown


def test_the_two_forms_are_different_expressions() -> None:
    # as in ksqlDB, where they are different classes: a GROUP BY of one does not match a select item of the other
    assert parse_expression("NOT X IS NULL") != parse_expression("X IS NOT NULL")
    assert parse_expression("NOT X IS NULL") == parse_expression("NOT (X IS NULL)")
