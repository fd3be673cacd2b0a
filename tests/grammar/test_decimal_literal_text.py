"""A ``DECIMAL '<text>'`` literal prints as ksqlDB's ExpressionFormatter prints its DecimalLiteral node:
``BigDecimal.toString`` of ``new BigDecimal(text)`` - an exponent where the value has a positive one (``1E+3``)
or its adjusted exponent is below -6 (``1E-7``), plain digits with the written scale otherwise - in the
statement text a CSAS stores, EXPLAIN's plan and error messages. Its type and value stay DECIMAL(4, 0) 1000."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from ksqlpy import types as T
from ksqlpy.engine.engine import Engine
from ksqlpy.expr.format import format_expression
from ksqlpy.expr.printer import format_literal
from ksqlpy.grammar import parse_expression

CASES = [
    ("1e3", "1E+3"), ("1E+3", "1E+3"), ("12e2", "1.2E+3"), ("1.5e1", "15"), ("1200", "1200"),
    ("1000.", "1000"), ("1.50", "1.50"), ("0.0000001", "1E-7"), ("0.000001", "0.000001"), ("1e-7", "1E-7"),
    ("-0.0", "0.0"), ("-0", "0"), ("-2.5e4", "-2.5E+4"), ("+7", "7"),
]


@pytest.mark.parametrize(("text", "printed"), CASES)
def test_printed_as_big_decimal(text: str, printed: str) -> None:
    assert format_expression(parse_expression(f"`DECIMAL` '{text}'")) == printed


def test_one_printer_for_decimal_values() -> None:
    assert format_literal(Decimal("1E+3"), T.Decimal(4, 0)) == "1E+3"
    assert format_literal(Decimal("-0.00"), T.Decimal(3, 2)) == "0.00"  # BigDecimal has no negative zero


@pytest.fixture()
def engine(tmp_path: Path) -> Engine:
    e = Engine(str(tmp_path))
    e.execute("CREATE STREAM S (ID INT KEY, V DECIMAL(6,2)) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    return e


def test_statement_text_and_plan(engine: Engine) -> None:
    [created] = engine.execute("CREATE STREAM T AS SELECT ID, V + `DECIMAL` '1e3' AS A, `DECIMAL` '2E2' AS B, "
                               "ARRAY[`DECIMAL` '3e1', 1.5] AS C FROM S WHERE V > `DECIMAL` '1e1';")
    text = created.injected_text
    assert "(S.V + 1E+3) A" in text and "2E+2 B" in text and "ARRAY[3E+1, 1.5] C" in text
    assert "WHERE (S.V > 1E+1)" in text
    [explained] = engine.execute("EXPLAIN SELECT `DECIMAL` '1e3' X FROM S WHERE V > `DECIMAL` '5E+1' EMIT CHANGES;")
    plan = explained.data["executionPlan"]
    assert "1E+3 AS X" in plan and "Predicate: (V > 5E+1)" in plan
    fields = {f["name"]: f["schema"] for f in explained.data["fields"]}
    assert fields["X"] == {"type": "DECIMAL", "parameters": {"precision": 4, "scale": 0}}


def test_type_error_names_the_literal_as_printed(engine: Engine) -> None:
    with pytest.raises(Exception, match=r"Cannot compare 1E\+3 \(DECIMAL\(4, 0\)\) to 'a' \(STRING\) with EQUAL"):
        engine.execute("SELECT ID FROM S WHERE `DECIMAL` '1e3' = 'a' EMIT CHANGES;")
