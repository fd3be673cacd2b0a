"""The test-jar functions ``ksqlpy test`` registers behave as ksqlDB's (their cases rely on it)."""

from __future__ import annotations

import pytest

from ksqlpy.functions import builtin_registry
from ksqlpy.testing.udfs import register_test_functions
from ksqlpy.types import BOOLEAN, INTEGER, STRING


def test_bad_udf_on_a_boolean_returns_zero_or_throws() -> None:
    registry = builtin_registry()
    register_test_functions(registry)
    r = registry.scalars["BAD_UDF"].resolve([BOOLEAN])
    assert r.return_type == INTEGER
    assert r.impl(False) == 0
    with pytest.raises(RuntimeError, match="You asked me to throw"):
        r.impl(True)
    assert registry.scalars["BAD_UDF"].resolve([STRING]).impl("d1") is None
