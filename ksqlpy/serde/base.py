"""The serde contracts every format implements, and the error a bad record raises.

Rows travel as tuples in column order; the value representation of each SQL type is the one
``ksqlpy.types`` documents. ``deserialize_batch`` is the runtime's path: one call per fetched batch,
bad records reported by index instead of raising, so one poison record never stops a query.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any

from ksqlpy.errors import KsqlStatementError
from ksqlpy.types import SqlType

Columns = Sequence[tuple[str, SqlType]]


class SerdeError(Exception):
    """A record's bytes do not match the format or schema; the message says what is wrong."""


class ColumnCountMismatch(SerdeError):
    """A record with another number of fields than the columns (DELIMITED, multi-column keys)."""

    def __init__(self, expected: int, got: int) -> None:
        super().__init__(f"Column count mismatch on deserialization. expected: {expected}, got: {got}")
        self.expected = expected
        self.got = got

    def in_topic(self, topic: str) -> str:
        """ksqlDB's ``SerdeUtils`` text, which names the topic."""
        return f"Column count mismatch on deserialization. topic: {topic}, expected: {self.expected}, got: {self.got}"


def deserialization_failure(fmt: str | None, target: str, topic: str, exc: BaseException) -> tuple[str, list[str]]:
    """(``errorMessage``, ``cause``) of the processing log's ``deserializationError`` for a record ``fmt``
    could not read: the message of the exception ksqlDB's deserializer of that format throws, the messages
    of its causes after it. JSON and JSON_SR (``KsqlJsonDeserializer``) name the target, the topic and the
    reason; DELIMITED says ``Error deserializing delimited``, KAFKA ``Error deserializing KAFKA message from
    topic: <t>``, the Connect formats (AVRO, PROTOBUF, PROTOBUF_NOSR) ``Error deserializing message from
    topic: <t>``, the reason being the cause."""
    reason = exc.in_topic(topic) if isinstance(exc, ColumnCountMismatch) else str(exc)
    chain = getattr(exc, "causes", None)
    causes = chain() if callable(chain) else [reason]
    if fmt == "DELIMITED":
        return "Error deserializing delimited", causes
    if fmt == "KAFKA":
        return f"Error deserializing KAFKA message from topic: {topic}", causes
    if fmt in ("AVRO", "PROTOBUF", "PROTOBUF_NOSR"):
        return f"Error deserializing message from topic: {topic}", causes
    return f"Failed to deserialize {target} from topic: {topic}. {reason}", causes


class FormatRuleError(KsqlStatementError, ValueError):
    """A statement asks a format for what it cannot do (a type, a column count, a delimiter, a window type):
    the statement's error, raised by the format whose rule it is, in that rule's words."""


class UnreadableSchemaError(KsqlStatementError):
    """A registered schema its format's translator cannot turn into SQL columns (a type that contains
    itself: SQL types are finite). ksqlDB's ``SchemaRegistryTopicSchemaSupplier`` reports any failure of
    ``SchemaTranslator.toColumns`` as 'Unable to verify if the ... schema for topic: ... is compatible with
    ksqlDB' with it as the reason (``schema_registry.sources.registry_type``)."""


class SinkSchemaError(SerdeError):
    """A row the sink's schema cannot hold: a required field the query does not produce, NULL in a required
    field without a default (``*_SCHEMA_ID``), a NULL element of a PROTOBUF array. ksqlDB's serializer throws
    and the query fails (a StreamsException), so the writer stops the query on it instead of skipping the
    record (an INSERT VALUES is refused)."""


class ValueSerde(abc.ABC):
    """Bytes <-> row tuple for one (format, columns) pair."""

    format: str = "?"

    def __init__(self, columns: Columns) -> None:
        self.columns: list[tuple[str, SqlType]] = list(columns)

    @abc.abstractmethod
    def deserialize(self, data: bytes | None) -> tuple | None:
        """The row, or None for a null (tombstone) record; raises SerdeError."""

    @abc.abstractmethod
    def serialize(self, row: tuple | None) -> bytes | None:
        """The bytes of ``row`` (None -> None, a tombstone)."""

    def deserialize_batch(self, datas: Sequence[bytes | None]) -> tuple[list[tuple | None], list[tuple[int, str]]]:
        """Rows (None where a record failed or is a tombstone) and the (index, reason) of each failure."""
        rows: list[tuple | None] = []
        errors: list[tuple[int, str]] = []
        de = self.deserialize
        for i, data in enumerate(datas):
            try:
                rows.append(de(data))
            except SerdeError as e:
                rows.append(None)
                errors.append((i, str(e)))
        return rows, errors

    def serialize_batch(self, rows: Sequence[tuple | None]) -> list[bytes | None]:
        ser = self.serialize
        return [ser(r) for r in rows]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.format}, {[n for n, _ in self.columns]})"


class KeySerde(abc.ABC):
    """Bytes <-> key tuple. A null key (None bytes) deserializes to None."""

    format: str = "?"
    windowed: bool = False

    def __init__(self, columns: Columns) -> None:
        self.columns: list[tuple[str, SqlType]] = list(columns)

    @abc.abstractmethod
    def deserialize(self, data: bytes | None) -> Any:
        """The key tuple (for windowed keys ``(key_tuple, start_ms, end_ms)``), or None for null bytes."""

    @abc.abstractmethod
    def serialize(self, values: Any, start: int | None = None, end: int | None = None) -> bytes | None:
        """The key bytes; None when the format writes no key (NONE, all-null single column)."""

    def deserialize_batch(self, datas: Sequence[bytes | None]) -> tuple[list[Any], list[tuple[int, str]]]:
        out: list[Any] = []
        errors: list[tuple[int, str]] = []
        de = self.deserialize
        for i, data in enumerate(datas):
            try:
                out.append(de(data))
            except SerdeError as e:
                out.append(None)
                errors.append((i, str(e)))
        return out, errors

    def serialize_batch(self, keys: Sequence[Any]) -> list[bytes | None]:
        """The bytes of each (unwindowed) key; raises like ``serialize`` on the first bad one."""
        ser = self.serialize
        return [ser(k) for k in keys]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.format}, {[n for n, _ in self.columns]})"


class ValueKeySerde(KeySerde):
    """A key serde that reuses a value serde: keys are encoded like single rows of their columns."""

    def __init__(self, columns: Columns, inner: ValueSerde) -> None:
        super().__init__(columns)
        self.format = inner.format
        self._inner = inner
        self.deserialize = inner.deserialize  # type: ignore[method-assign]

    def deserialize(self, data: bytes | None) -> tuple | None:
        return self._inner.deserialize(data)

    def serialize(self, values: Any, start: int | None = None, end: int | None = None) -> bytes | None:
        return self._inner.serialize(values)

    def deserialize_batch(self, datas: Sequence[bytes | None]) -> tuple[list[Any], list[tuple[int, str]]]:
        return self._inner.deserialize_batch(datas)

    def serialize_batch(self, keys: Sequence[Any]) -> list[bytes | None]:
        return self._inner.serialize_batch(keys)
