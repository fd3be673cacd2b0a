"""A JSON record with no JSON in it (zero bytes, or only blanks) is Jackson's MissingNode to ksqlDB's reader
(``readTree`` since Jackson 2.10), not null: a STRING takes its text ``""``, every other type and a wrapped row
fail the record, naming MissingNode. A JSON ``null`` stays NULL."""

from __future__ import annotations

import pytest

from ksqlpy.serde import SerdeError, key_serde, value_serde
from ksqlpy.types import INTEGER, STRING, Array, SqlType

EMPTY = [b"", b"  \n\t"]


def _both(serde, data: bytes) -> tuple:  # type: ignore[no-untyped-def]
    """(deserialize, deserialize_batch) of one record; an error as its message."""
    try:
        one = serde.deserialize(data)
    except SerdeError as e:
        one = str(e)
    rows, errors = serde.deserialize_batch([data])
    return one, (errors[0][1] if errors else rows[0])


@pytest.mark.parametrize("data", EMPTY)
def test_an_unwrapped_string_reads_empty_text(data: bytes) -> None:
    assert _both(value_serde("JSON", [("C", STRING)], wrap_single_value=False), data) == (("",), ("",))


@pytest.mark.parametrize("data", EMPTY)
@pytest.mark.parametrize(("t", "name"), [(INTEGER, "INTEGER"), (Array(STRING), "ARRAY<STRING>")])
def test_other_unwrapped_types_fail_naming_missing_node(data: bytes, t: SqlType, name: str) -> None:
    message = f"Can't convert type. sourceType: MissingNode, requiredType: {name}, path: $"
    assert _both(value_serde("JSON", [("C", t)], wrap_single_value=False), data) == (message, message)


@pytest.mark.parametrize("data", EMPTY)
def test_a_wrapped_row_fails_naming_missing_node(data: bytes) -> None:
    message = "Can't convert type. sourceType: MissingNode, requiredType: STRUCT<`C` STRING, `D` INTEGER>, path: $"
    assert _both(value_serde("JSON", [("C", STRING), ("D", INTEGER)]), data) == (message, message)


def test_json_null_stays_null() -> None:
    assert _both(value_serde("JSON", [("C", STRING)], wrap_single_value=False), b"null") == ((None,), (None,))
    assert _both(value_serde("JSON", [("C", STRING), ("D", INTEGER)]), b"null") == (None, None)


def test_an_empty_string_key() -> None:
    assert key_serde("JSON", [("K", STRING)]).deserialize(b"") == ("",)
