"""JSON number literals read as Jackson reads them in ksqlDB's exact-decimal mode: every literal is a
BigInteger or BigDecimal, so one past a double's range (``1e400``) is a number, not invalid JSON, and INT /
BIGINT take the literal's own low bits (``intValue``/``longValue``), not those of orjson's nearest double."""

from __future__ import annotations

import math
from decimal import Decimal as D

import pytest

from ksqlpy.serde import SerdeError, value_serde
from ksqlpy.types import BIGINT, DOUBLE, INTEGER, STRING, Array, Decimal, SqlType


def _read(t: SqlType, literal: str, batch: bool) -> object:
    serde = value_serde("JSON", [("C", t)])
    data = b'{"C": ' + literal.encode() + b"}"
    if batch:
        rows, errors = serde.deserialize_batch([data])
        if errors:
            raise SerdeError(errors[0][1])
        return rows[0][0]
    return serde.deserialize(data)[0]


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize(("t", "literal", "expected"), [
    (DOUBLE, "1e400", math.inf), (DOUBLE, "-1e400", -math.inf), (DOUBLE, "1e-400", 0.0),
    (BIGINT, "1e400", 0), (INTEGER, "1e400", 0),
    (BIGINT, "12345678901234567890123", 12345678901234567890123 % 2**64),  # BigInteger.longValue
    (BIGINT, "1.8446744073709552e19", 384),  # 18446744073709552000 - 2**64, not orjson's 2**64
    (INTEGER, "4294967301.0", 5),
    (BIGINT, "1.99999999999999999", 1), (BIGINT, "-1.99999999999999999", -1), (INTEGER, "5.0", 5),
    (STRING, "1e400", "1E+400"), (STRING, "[1e400, 1]", "[1E+400, 1]"),
    (Array(DOUBLE), "[1e400, 1]", [math.inf, 1.0]),
])
def test_literals_read_exactly(t: SqlType, literal: str, expected: object, batch: bool) -> None:
    assert _read(t, literal, batch) == expected


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize(("t", "literal", "message"), [
    (Decimal(4, 1), "1e-400", "Cannot fit decimal"),  # an underflow, not orjson's 0.0
    (Decimal(4, 1), "1e400", "Numeric field overflow"),
    (DOUBLE, "NaN", "Invalid JSON"), (DOUBLE, "Infinity", "Invalid JSON"),  # Jackson refuses them too
    (DOUBLE, "1e400,", "Invalid JSON"),
])
def test_literals_that_fail_the_record(t: SqlType, literal: str, message: str, batch: bool) -> None:
    with pytest.raises(SerdeError, match=message):
        _read(t, literal, batch)


def test_exact_decimal_literal_keeps_its_digits() -> None:
    assert _read(Decimal(30, 1), "12345678901234567890123.5", False) == D("12345678901234567890123.5")
