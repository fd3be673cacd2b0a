"""DELIMITED text with no CSV record in it (zero bytes, only line breaks) fails the record with ksqlDB's
``No fields in record`` - for one column as for several, keys as values, whichever reader runs (one record,
a batch, the columnar batch) - while empty lines before a record are skipped, as commons-csv's DEFAULT
format (ignoreEmptyLines) does for ksqlDB's KsqlDelimitedDeserializer."""

from __future__ import annotations

import pytest

from ksqlpy.serde import SerdeError, key_serde, value_serde
from ksqlpy.types import INTEGER, STRING

NO_RECORD = [b"", b"\n", b"\r\n", b"\r\n\n\r"]


def _serde(n: int):  # type: ignore[no-untyped-def]
    return value_serde("DELIMITED", [(f"C{i}", STRING if i == 0 else INTEGER) for i in range(n)])


@pytest.mark.parametrize("data", NO_RECORD)
@pytest.mark.parametrize("n", [1, 2])
def test_no_record_is_an_error(data: bytes, n: int) -> None:
    with pytest.raises(SerdeError, match="^No fields in record$"):
        _serde(n).deserialize(data)
    rows, errors = _serde(n).deserialize_batch([b"x" + b",1" * (n - 1), data])
    assert rows[1] is None and errors == [(1, "No fields in record")]
    assert _serde(n).deserialize_columns([b"x" + b",1" * (n - 1), data]) is None  # the row reader reports it


@pytest.mark.parametrize("data", NO_RECORD)
def test_a_key_with_no_record_is_an_error(data: bytes) -> None:
    with pytest.raises(SerdeError, match="No fields in record"):
        key_serde("DELIMITED", [("K", STRING)]).deserialize(data)


def test_a_row_of_one_null_writes_what_does_not_read_back() -> None:
    s = _serde(1)
    assert s.serialize((None,)) == b""
    with pytest.raises(SerdeError, match="No fields in record"):
        s.deserialize(s.serialize((None,)))
    assert _serde(2).deserialize(_serde(2).serialize((None, None))) == (None, None)  # ',' is a record


@pytest.mark.parametrize("data,row", [(b"\nx", ("x",)), (b"\r\n\r\nx\r\ny", ("x",)), (b' \n', (" ",)),
                                      (b'\n"a,b"', ("a,b",))])
def test_empty_lines_before_the_record_are_skipped(data: bytes, row: tuple) -> None:  # type: ignore[type-arg]
    assert _serde(1).deserialize(data) == row
    assert _serde(1).deserialize_batch([data]) == ([row], [])
