"""``join_rows.keys_encoder``: a batch of join keys to their bytes in one C-level map gives, key for key, what
``key_encoder``'s function gives - whether the batch takes the one column's writer whole or goes key by key."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.runtime.join_rows import key_encoder, keys_encoder
from ksqlpy.types import Primitive, SqlType

BATCHES: list[tuple[str, list[str], list[tuple]]] = [
    ("KAFKA", ["BIGINT"], [(1,), (-2,), (2**63 - 1,), (0,)]),
    ("KAFKA", ["BIGINT"], [(1,), (2**70,), (3,)]),  # one key past the writer: the general way for that one
    ("KAFKA", ["BIGINT"], [(1,), (2.5,), ("x",)]),
    ("KAFKA", ["BIGINT"], [(1,), (2, 3), (4,)]),  # a key of another width
    ("KAFKA", ["BIGINT"], [(None,), (5,)]),
    ("KAFKA", ["INTEGER"], [(7,), (2**31,), (-(2**31),)]),
    ("KAFKA", ["DOUBLE"], [(1.5,), (2,), (float("nan"),)]),
    ("KAFKA", ["STRING"], [("a",), ("é\U0001f600",), ("",)]),
    ("KAFKA", ["STRING"], [("a",), (b"raw",), (3,)]),
    ("KAFKA", ["BIGINT"], []),
    ("JSON", ["BIGINT"], [(1,), (2,)]),
    ("JSON", ["BIGINT", "STRING"], [(1, "a"), (2, None)]),
    ("DELIMITED", ["INTEGER", "STRING"], [(1, "a"), (2, "b,c")]),
]


def _types(names: list[str]) -> list[SqlType]:
    return [Primitive(n) for n in names]


@pytest.mark.parametrize("fmt, types, keys", BATCHES)
def test_a_batch_of_keys_is_each_keys_bytes(fmt: str, types: list[str], keys: list[tuple]) -> None:
    each = key_encoder(fmt, _types(types))
    many = keys_encoder(fmt, _types(types))
    expected: list[Any] = []
    for k in keys:
        try:
            expected.append(each(k))
        except Exception as e:  # noqa: BLE001 - the batch must fail alike
            expected.append(type(e))
    if any(isinstance(x, type) for x in expected):
        with pytest.raises(Exception):  # noqa: B017, PT011 - whatever the key's own encoding raised
            many(keys)
        return
    assert many(keys) == expected
