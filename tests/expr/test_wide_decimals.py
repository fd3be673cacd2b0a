"""DECIMALs keep every digit up to precision 38 (and beyond) as Java's BigDecimal does, in every operator,
CAST, comparison, built-in function taking a DECIMAL, a Python function's DECIMAL result and a pull query's
key lookup. Python's default decimal context holds 28 digits: any operation run in it rounds (``-d``,
``abs(d)``) or fails (``quantize``) on a wider value."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord
from tests.udf.conftest import Extensions, values

A = "123456789012345678901234567890123456.78"  # 38 digits
B = "123456789012345678901234567890123456.77"
SMALL = "0.00000000000000000000000000000000000012"  # DECIMAL(38, 38)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute("CREATE STREAM s (k STRING KEY, a DECIMAL(38, 2), b DECIMAL(38, 2), z DECIMAL(38, 38), t STRING, "
              "d DOUBLE, l BIGINT) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    yield e
    e.close()


def project(engine: Engine, select: str) -> dict[str, Any]:
    engine.execute(f"CREATE STREAM o AS SELECT k, {select} FROM s;")
    row = f'{{"A": {A}, "B": {B}, "Z": {SMALL}, "T": "{A}", "D": 1.0E30, "L": 9223372036854775807}}'
    engine.log.produce(ProducerRecord("s", b"r", row.encode(), 0))
    engine.drain(10)
    src = engine.catalog.source("O")
    assert src is not None
    raw = engine.log.fetch(src.topic, 0, 0, 10).values[0]
    names = [c.name for c in src.value_columns]
    return dict(zip(names, engine.value_serde(src).deserialize(raw), strict=True))


@pytest.mark.parametrize(("expr", "expected"), [
    ("-a", Decimal("-" + A)),
    ("-(-a)", Decimal(A)),
    ("+a", Decimal(A)),
    ("-(a - a)", Decimal("0.00")),
    ("-z", Decimal("-" + SMALL)),
    ("a + b", Decimal("246913578024691357802469135780246913.55")),
    ("a - b", Decimal("0.01")),
    ("a - 0.001", Decimal("123456789012345678901234567890123456.779")),
    ("a * 1", Decimal(A)),
    ("a * a", Decimal("15241578753238836750495351562566681942783112355403139767652796829976527.9684")),
    ("a / 2", Decimal("61728394506172839450617283945061728.3900000000000")),
    ("a % 7", Decimal("4.78")),
    ("z * 2", Decimal("0.00000000000000000000000000000000000024")),
    ("ABS(-a)", Decimal(A)),
    ("ABS(a)", Decimal(A)),
    ("SIGN(-a)", -1),
    ("ROUND(a)", Decimal("123456789012345678901234567890123457")),
    ("ROUND(-a, 1)", Decimal("-123456789012345678901234567890123456.80")),
    ("ROUND(a, -2)", Decimal("123456789012345678901234567890123500.00")),
    ("TRUNC(-a)", Decimal("-123456789012345678901234567890123456")),
    ("CEIL(-a)", Decimal("-123456789012345678901234567890123456.00")),
    ("FLOOR(a)", Decimal("123456789012345678901234567890123456.00")),
    ("GREATEST(a, b)", Decimal(A)),
    ("LEAST(-a, b)", Decimal("-" + A)),
    ("COALESCE(a, b)", Decimal(A)),
    ("CAST(a AS STRING)", A),
    ("CAST(-a AS STRING)", "-" + A),
    ("CAST(z AS STRING)", SMALL),
    ("CAST(t AS DECIMAL(38, 2))", Decimal(A)),
    ("CAST(a AS DECIMAL(36, 0))", Decimal("123456789012345678901234567890123457")),
    ("CAST(a AS DECIMAL(38, 1))", Decimal("123456789012345678901234567890123456.8")),
    ("CAST(l AS DECIMAL(38, 0))", Decimal("9223372036854775807")),
    # new BigDecimal(1e30, new MathContext(38)) (DecimalUtil.cast): the double's exact binary value, 31 digits
    ("CAST(d AS DECIMAL(38, 2))", Decimal("1000000000000000019884624838656.00")),
    ("CAST(a AS BIGINT)", -1518767018816521536),  # BigDecimal.longValue(): the low 64 bits
    ("a = b", False),
    ("a > b", True),
    ("a = 123456789012345678901234567890123456.780", True),
    ("b < a", True),
    ("a BETWEEN b AND a", True),
    ("a BETWEEN a + 0.01 AND a + 1", False),
    ("a IN (b, 123456789012345678901234567890123456.78)", True),
    ("a IN (b)", False),
    ("TO_JSON_STRING(a)", A),
    ("ARRAY_MAX(ARRAY[a, -a])", Decimal(A)),
    ("ARRAY_SORT(ARRAY[a, -a])[1]", Decimal("-" + A)),
    ("TRANSFORM(ARRAY[a], x => -x)[1]", Decimal("-" + A)),
    ("MAP('k' := -a)['k']", Decimal("-" + A)),
    ("CASE WHEN a > b THEN -a ELSE b END", Decimal("-" + A)),
])
def test_every_digit_is_kept(engine: Engine, expr: str, expected: Any) -> None:
    got = project(engine, f"{expr} AS r")["R"]
    assert got == expected and type(got) is type(expected)
    if isinstance(expected, Decimal):
        assert str(got) == str(expected)  # the scale too


def test_a_python_function_computes_and_returns_a_wide_decimal(tmp_path: Path) -> None:
    ext = Extensions(tmp_path)
    ext.write("wide.py", '''
        from decimal import Decimal
        from ksqlpy.udf import udf

        @udf("WIDE_NEXT", returns="DECIMAL(38, 2)")
        def wide_next(d: Decimal) -> Decimal:  # runs in a context wider than Python's default 28 digits
            return d + Decimal("0.005")

        @udf("WIDE_NEXTS", returns="DECIMAL(38, 2)", vectorized=True)
        def wide_nexts(ds: Decimal) -> Decimal:  # a whole batch (a list) per call, in the same context
            return [d + Decimal("0.005") for d in ds]
    ''')
    try:
        e = ext.engine()
        e.execute("CREATE STREAM s (k STRING KEY, a DECIMAL(38, 2)) WITH (kafka_topic='s', value_format='JSON', "
                  "partitions=1);")
        e.execute("CREATE STREAM o AS SELECT k, WIDE_NEXT(a) AS n, WIDE_NEXTS(a) AS n2 FROM s;")
        e.log.produce(ProducerRecord("s", b"r", f'{{"A": {A}}}'.encode(), 0))
        e.drain(10)
        assert values(e, "O") == [(Decimal("123456789012345678901234567890123456.79"),) * 2]  # half up
    finally:
        ext.close()


def test_pull_queries_find_wide_decimal_keys(tmp_path: Path) -> None:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        e.execute("CREATE TABLE t (k DECIMAL(38, 2) PRIMARY KEY, v INT) WITH (kafka_topic='t', format='JSON', "
                  "partitions=1);")
        e.execute("CREATE TABLE mv AS SELECT * FROM t;")
        e.execute(f"INSERT INTO t (k, v) VALUES ({A}, 1);")
        e.execute(f"INSERT INTO t (k, v) VALUES ({B}, 2);")
        e.drain(10)

        def rows(where: str) -> list[tuple[Any, ...]]:
            return e.execute(f"SELECT * FROM mv WHERE {where};")[0].data["rows"]

        assert rows(f"k = {A}") == [(Decimal(A), 1)]
        assert rows(f"k = {A}0") == [(Decimal(A), 1)]
        assert rows(f"k IN ({B})") == [(Decimal(B), 2)]
    finally:
        e.close()

