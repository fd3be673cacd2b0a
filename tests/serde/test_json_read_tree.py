"""A JSON record as ksqlDB's reader gets it from Jackson's ``readTree``: with no JSON in it (zero bytes, or
only blanks) a MissingNode (since Jackson 2.10), not null - a STRING takes its text ``""``, every other type
and a wrapped row fail the record, naming MissingNode; a JSON ``null`` stays NULL. Only the first value is
read (FAIL_ON_TRAILING_TOKENS is off): what follows it is ignored, except that a root number or keyword must
be followed by a blank."""

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


@pytest.mark.parametrize(("columns", "wrap", "data", "expected"), [
    ([("C", INTEGER)], True, b'{"C":5}{', (5,)), ([("C", INTEGER)], True, b'{"C":5} junk', (5,)),
    ([("C", INTEGER)], True, b'{"C":1.5}]', (1,)), ([("C", INTEGER)], False, b"5 x", (5,)),
    ([("C", INTEGER)], False, b"5 {", (5,)), ([("C", STRING)], False, b'"a"x', ("a",)),
    ([("C", STRING)], False, b"true x", ("true",)), ([("C", STRING)], False, '"é"é'.encode(), ("é",)),
])
def test_content_after_the_first_value_is_not_read(columns: list, wrap: bool, data: bytes, expected: tuple) -> None:
    assert _both(value_serde("JSON", columns, wrap_single_value=wrap), data) == (expected, expected)


@pytest.mark.parametrize(("t", "data"), [(INTEGER, b"5x"), (STRING, b"truex"), (INTEGER, b'{"C":5'), (INTEGER, b"")])
def test_a_root_scalar_without_a_blank_after_it_or_a_cut_value_fails(t: SqlType, data: bytes) -> None:
    one, batch = _both(value_serde("JSON", [("C", t)], wrap_single_value=False), data)
    assert isinstance(one, str) and one == batch
