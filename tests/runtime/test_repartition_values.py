"""Repartition records carry the item as marshal when it writes all of a batch exactly, else as pickle
(``runtime.repartition``); the reader takes either, and batches mixing them (records written before
marshal was used, then after). Every value a row can hold comes back equal and of the same type."""

from __future__ import annotations

import marshal
import math
import pickle
from decimal import Decimal
from enum import IntEnum

from ksqlpy.log.base import RecordBatch
from ksqlpy.runtime.repartition import RepartitionReader, decode_values, encode_values

ITEMS = [
    (("k",), (1, 2.5, "x", b"\x00\xff", True, None)),
    ((7,), ([1, None, 3], {"a": [1.0]}, {"F": "s"}, -0.0, float("nan"), 2**63 - 1, "caf\u00e9\U0001F600")),
    ((None,), ()),
]


def _same(a: object, b: object) -> bool:
    """Equal and of the same types all the way down (NaN equal to NaN, -0.0 not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))  # type: ignore[arg-type]
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)  # type: ignore[attr-defined,index]
    return a == b


def test_plain_values_go_as_marshal_and_come_back_exactly() -> None:
    values = encode_values(ITEMS)
    assert all(v[:1] != b"\x80" for v in values)
    assert all(_same(a, b) for a, b in zip(decode_values(values), ITEMS, strict=True))


class Level(IntEnum):
    LOW = 1


def test_a_value_marshal_cannot_write_exactly_pickles_the_batch() -> None:
    for odd in (Decimal("1.10"), Level.LOW):
        items = [*ITEMS, (("k",), (odd,))]
        values = encode_values(items)
        assert all(v[:1] == b"\x80" for v in values)
        back = decode_values(values)
        assert all(_same(a, b) for a, b in zip(back, items, strict=True))
        assert type(back[-1][1][0]) is type(odd)


def test_a_batch_mixing_pickled_and_marshalled_records_is_read_record_by_record() -> None:
    old = [pickle.dumps(i, pickle.HIGHEST_PROTOCOL) for i in ITEMS]
    values = [old[0], *encode_values(ITEMS[1:]), old[2]]  # the first and last pickled
    assert all(_same(a, b) for a, b in zip(decode_values(values), [*ITEMS, ITEMS[2]], strict=True))


def test_the_reader_appends_timestamp_and_headers() -> None:
    values = encode_values(ITEMS)
    headers = [None, [("h", b"1")], None]
    batch = RecordBatch("t", 2, [0, 1, 2], [b"k"] * 3, values, [10, 11, 12], headers)  # type: ignore[arg-type]
    d = RepartitionReader().decode(batch)
    assert [r[-2:] for r in d.rows] == [(10, None), (11, [("h", b"1")]), (12, None)]
    assert all(_same(r[:-2], i) for r, i in zip(d.rows, ITEMS, strict=True))
    assert d.partitions == [2, 2, 2] and d.tombstones == [False] * 3


def test_values_go_as_marshal_version_2_and_version_4_records_read_back() -> None:
    """No table of shared objects per record (marshal's version 2); records written as version 4 by earlier
    versions of ksqlpy read back the same."""
    assert encode_values(ITEMS) == [marshal.dumps(i, 2) for i in ITEMS]
    assert all(_same(a, b) for a, b in zip(decode_values([marshal.dumps(i, 4) for i in ITEMS]), ITEMS, strict=True))
