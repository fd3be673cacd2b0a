"""CAST to DECIMAL(p, s) as ksqlDB's ``DecimalUtil.cast`` overloads (from memory): an INT/BIGINT/DOUBLE is the
exact value rounded to ``p`` significant digits (``new BigDecimal(x, new MathContext(p))``), a STRING its trimmed
text, a DECIMAL itself; ``ensureMax`` bounds that value by 10^(p-s) before ``setScale(s, HALF_UP)``. The overflow
message is /work/shared/reference/ksqldb-rules.md 2.6's; a failing CAST is logged as ``Error processing <type>``."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.expr import runtime
from ksqlpy.log.base import ProducerRecord


@pytest.mark.parametrize(("value", "precision", "scale", "expected"), [
    (2.675, 20, 2, "2.67"),      # the binary value 2.67499999..., not the text 2.675
    (2.675, 3, 2, "2.67"),
    (0.045, 2, 2, "0.05"),       # 0.0449999... is 0.045 at two digits, then 0.05 at scale 2
    (0.045, 20, 2, "0.04"),
    (9.95, 2, 1, "9.9"),         # 9.9499999... at two digits is under the bound 10
    (-0.0, 4, 2, "0.00"),        # no negative zero
    (-0.004, 4, 2, "0.00"),
    (999, 3, 0, "999"),
    (7, 20, 1, "7.0"),
    (2**63 - 1, 19, 0, "9223372036854775807"),
    (" 9.995 ", 3, 2, "10.00"),  # under the bound as written, rounded up past it at the scale
    ("1e1", 4, 0, "10"),
    (Decimal("9.995"), 3, 2, "10.00"),
    (Decimal("-1.005"), 3, 2, "-1.01"),
    (Decimal("1.50"), 3, 2, "1.50"),
])
def test_cast_values(value: Any, precision: int, scale: int, expected: str) -> None:
    got = runtime.cast_decimal(value, precision, scale)
    assert str(got) == expected


@pytest.mark.parametrize(("value", "precision", "scale", "got"), [
    (9999, 3, 0, "10000"),         # 9999 at three digits is 1.00E+4, shown plain
    (-1000, 4, 1, "-1000"),
    (99.96, 3, 1, "100"),          # 99.9599... at three digits
    (1e20, 20, 2, "100000000000000000000"),
    ("10", 3, 2, "10"),
    (Decimal("-99.999"), 3, 2, "-99.999"),
])
def test_overflow_names_the_bound_and_the_value_it_checked(value: Any, precision: int, scale: int, got: str) -> None:
    with pytest.raises(ArithmeticError) as e:
        runtime.cast_decimal(value, precision, scale)
    assert str(e.value) == (f"Numeric field overflow: A field with precision {precision} and scale {scale} must round "
                            f"to an absolute value less than 10^{precision - scale}. Got {got}")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_doubles_fail_as_the_big_decimal_constructor(value: float) -> None:
    with pytest.raises(ArithmeticError, match="^Infinite or NaN$"):
        runtime.cast_decimal(value, 10, 2)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute("CREATE STREAM S (ID INT KEY, D DOUBLE, L BIGINT) WITH (kafka_topic='s', format='JSON', partitions=1);")
    yield e
    e.close()


def test_a_failing_cast_is_null_alone_and_logged_with_the_overflow(engine: Engine) -> None:
    engine.execute("CREATE STREAM O AS SELECT ID, CAST(D AS DECIMAL(3,2)) A, CAST(L AS DECIMAL(2,0)) B, L FROM S;")
    with engine.log.transaction() as tx:
        tx.produce(ProducerRecord("s", orjson.dumps(1), orjson.dumps({"D": 12.5, "L": 123}), 0, None, partition=0))
    engine.drain()
    logged = [(m["errorMessage"], m["cause"]) for m in
              (entry["message"]["recordProcessingError"] for entry in engine.plog.entries)]
    assert logged == [
        ("Error processing DECIMAL(3, 2)", ["Numeric field overflow: A field with precision 3 and scale 2 must round "
                                            "to an absolute value less than 10^1. Got 12.5"]),
        ("Error processing DECIMAL(2, 0)", ["Numeric field overflow: A field with precision 2 and scale 0 must round "
                                            "to an absolute value less than 10^2. Got 120"]),
    ]
    batch = engine.log.fetch("O", 0, 0)
    assert [orjson.loads(v) for v in batch.values if v is not None] == [{"A": None, "B": None, "L": 123}]
