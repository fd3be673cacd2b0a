"""An aggregate call is resolved by the types of all its arguments before its literal arguments are checked
to be literals (ksqlDB's order): a call no signature accepts says so, a fitting one with a column where a
literal belongs says that."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError

LITERAL = "Parameter {} passed to function {} must be a literal constant, but was expression: '{}'"


@pytest.mark.parametrize("call, message", [
    ("LATEST_BY_OFFSET(V, W)", "Function 'LATEST_BY_OFFSET' does not accept parameters (INTEGER, STRING)."),
    ("LATEST_BY_OFFSET(V, N)", LITERAL.format(2, 'LATEST_BY_OFFSET', 'N')),
    ("EARLIEST_BY_OFFSET(V, N, true)", LITERAL.format(2, 'EARLIEST_BY_OFFSET', 'N')),
    ("TOPK(V, W)", "Function 'TOPK' does not accept parameters (INTEGER, STRING)."),
    ("TOPK(V, N)", LITERAL.format(2, 'TOPK', 'N')),
    ("TOPKDISTINCT(V, D)", "Function 'TOPKDISTINCT' does not accept parameters (INTEGER, DOUBLE)."),
])  # fmt: skip
def test_signature_before_literal_check(tmp_path: Path, call: str, message: str) -> None:
    with Engine(str(tmp_path)) as e:
        e.execute("CREATE STREAM S (K STRING KEY, V INT, W STRING, N INT, D DOUBLE) "
                  "WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
        with pytest.raises(KsqlError) as err:
            e.execute(f"CREATE TABLE T AS SELECT K, {call} AS A FROM S GROUP BY K;")
        assert str(err.value).splitlines()[0].endswith(message)
