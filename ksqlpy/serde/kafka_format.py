"""ksqlDB's KAFKA format: one column in Kafka's standard primitive serializations.

INT is 4 bytes big-endian, BIGINT 8 bytes big-endian, DOUBLE 8-byte IEEE-754 big-endian, STRING
UTF-8 (invalid sequences read as U+FFFD, like Java), BYTES as is. Null bytes are null. It is the
default key format; a key with no columns (a keyless stream) reads as ``()`` and writes no key.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from functools import partial
from itertools import repeat
from operator import itemgetter
from typing import Any

from ksqlpy.serde.base import Columns, FormatRuleError, SerdeError, ValueSerde
from ksqlpy.utf16 import JAVA_UTF8

_I = struct.Struct(">i")
_Q = struct.Struct(">q")
_D = struct.Struct(">d")
_first = itemgetter(0)
# String.getBytes(UTF_8): a lone surrogate (half of a character cut by SUBSTRING) has no UTF-8 form, '?'
_utf8: Callable[[str], bytes] = partial(str.encode, encoding="utf-8", errors="replace")
_STRUCTS = {"INTEGER": _I, "BIGINT": _Q, "DOUBLE": _D}


def _fixed(st: struct.Struct, java: str) -> tuple[Callable[[bytes], Any], Callable[[Any], bytes]]:
    size = st.size
    unpack, pack = st.unpack, st.pack

    def de(b: bytes) -> Any:
        if len(b) != size:
            raise SerdeError(f"Size of data received by {java}Deserializer is not {size}")
        return unpack(b)[0]

    def ser(v: Any) -> bytes:
        try:
            return pack(v)
        except struct.error as e:
            raise SerdeError(f"KAFKA format cannot write {v!r} as {java.upper()}: {e}") from None
    return de, ser


_CODECS: dict[str, tuple[Callable[[bytes], Any], Callable[[Any], bytes]]] = {
    "INTEGER": _fixed(_I, "Integer"),
    "BIGINT": _fixed(_Q, "Long"),
    "DOUBLE": _fixed(_D, "Double"),
    "STRING": (lambda b: bytes(b).decode("utf-8", JAVA_UTF8), _utf8),
    "BYTES": (bytes, bytes),
}


def column_writer(type_name: str) -> Callable[[Any], bytes] | None:
    """The bare writer of one non-null INT, BIGINT, DOUBLE or STRING value (what ``serialize`` writes
    for a one-column row), for hot paths that call it per record; it raises where ``serialize`` fails.
    None for the other types."""
    st = _STRUCTS.get(type_name)
    if st is not None:
        return st.pack
    return _utf8 if type_name == "STRING" else None


class KafkaValueSerde(ValueSerde):
    """The KAFKA format over at most one column. With none (a value without columns) it is ksqlDB's
    ``KsqlVoidSerde``: whatever the bytes, the value reads as NULL, and nothing is written."""

    format = "KAFKA"

    def __init__(self, columns: Columns) -> None:
        super().__init__(columns)
        if len(self.columns) > 1:
            raise FormatRuleError("The 'KAFKA' format only supports a single field")
        if self.columns:
            t = self.columns[0][1]
            if t.name not in _CODECS:
                raise FormatRuleError(f"The 'KAFKA' format does not support type '{t.name}'")
            self._de, self._ser = _CODECS[t.name]

    def deserialize(self, data: bytes | None) -> tuple | None:
        if data is None or not self.columns:  # no value columns: ksqlDB's KsqlVoidSerde reads NULL
            return None
        return (self._de(data),)

    def serialize(self, row: tuple | None) -> bytes | None:
        if row is None or not self.columns:
            return None
        v = row[0]
        return None if v is None else self._ser(v)

    def deserialize_batch(self, datas: Sequence[bytes | None]) -> tuple[list[tuple | None], list[tuple[int, str]]]:
        """Fixed-size types: one ``struct.unpack`` per record, which already returns the row tuple."""
        st = _STRUCTS.get(self.columns[0][1].name) if self.columns else None
        if st is not None:
            unpack = st.unpack
            try:
                return list(map(unpack, datas)), []  # (one C loop; a null key raises TypeError)
            except (struct.error, TypeError):
                pass
            try:
                return [None if d is None else unpack(d) for d in datas], []
            except (struct.error, TypeError):
                pass  # a record of the wrong size: the generic path reports it
        elif self.columns and self.columns[0][1].name == "STRING":
            try:  # one C loop decoding (as ``_CODECS``: invalid UTF-8 as Java's U+FFFD), one zip making the tuples
                return list(zip(map(str, datas, repeat("utf-8"), repeat(JAVA_UTF8)))), []
            except TypeError:  # a null record: the generic path
                pass
        return super().deserialize_batch(datas)

    def serialize_batch(self, rows: Sequence[tuple | None]) -> list[bytes | None]:
        st = _STRUCTS.get(self.columns[0][1].name) if self.columns else None
        if st is not None:
            pack = st.pack
            try:
                return list(map(pack, map(_first, rows)))  # (a null row or value raises: the loop below)
            except (struct.error, TypeError, IndexError):
                pass
            try:
                return [None if r is None or r[0] is None else pack(r[0]) for r in rows]
            except struct.error:
                pass  # the generic path raises the format's error
        elif self.columns and self.columns[0][1].name == "STRING":
            try:  # (a null row or value, or one that is not a string: the generic path)
                return list(map(_utf8, map(_first, rows)))
            except (TypeError, IndexError, UnicodeEncodeError):
                pass
        return super().serialize_batch(rows)
