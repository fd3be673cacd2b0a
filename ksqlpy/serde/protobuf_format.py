"""ksqlDB's PROTOBUF format: Confluent-framed protobuf messages whose schemas live in the schema registry.

A record is ``magic byte 0 + 4-byte schema id + message indexes + message`` (see ``protobuf_wire``).
Readers parse the writer's ``.proto`` (looked up by the id, parsed once per id) and take the message the
indexes point at; columns are matched to its fields by name (exact, else ignoring case). Writers use the
schema ``KEY_SCHEMA_ID``/``VALUE_SCHEMA_ID`` names (its message ``*_SCHEMA_FULL_NAME``, else the first)
or register the one ksqlDB generates for the columns (``protobuf_types.schema_text``) under
``<topic>-key|value`` on first use. Keys and values are both messages: a single key column is a
one-field message, as in ksqlDB.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy.serde.base import Columns, SerdeError, ValueSerde
from ksqlpy.serde.protobuf_schema import ProtoFile, ProtoMessage, ProtoSchemaError, parse_proto
from ksqlpy.serde.protobuf_types import message_to_row, row_to_message, schema_text
from ksqlpy.serde.protobuf_wire import decode, encode, frame, unframe


def registry_loader(registry: Any) -> Callable[[str], str | None]:
    """Imports resolved as schema references: the latest schema of the subject named like the import
    (how Confluent's serializers and ksqlDB's tests register referenced .proto files)."""
    def load(name: str) -> str | None:
        rs = registry.latest(name)
        return rs.schema if rs is not None else None

    return load


def parse_registered(registry: Any, schema_id: int) -> ProtoFile:
    """The parsed ``.proto`` registered under ``schema_id``; SerdeError if missing or not protobuf."""
    rs = registry.by_id(schema_id)
    if rs is None:
        raise SerdeError(f"Error retrieving Protobuf schema for id {schema_id}: Schema {schema_id} not found")
    try:
        return parse_proto(rs.schema, registry_loader(registry))
    except ProtoSchemaError as e:
        raise SerdeError(f"Schema {schema_id} is not a protobuf schema: {e}") from None


class ProtobufSerde(ValueSerde):
    """Rows <-> Confluent-framed protobuf; ``registry``/``subject`` give the schema ids both ways."""

    format = "PROTOBUF"

    def __init__(self, columns: Columns, *, registry: Any, subject: str, schema_id: int | None = None,
                 full_name: str | None = None, nullable: str | None = None) -> None:
        super().__init__(columns)
        self.nullable = nullable  # *_PROTOBUF_NULLABLE_REPRESENTATION of a generated schema
        self.registry = registry
        self.subject = subject
        self.schema_id = schema_id
        self.full_name = full_name
        self._files: dict[int, ProtoFile] = {}
        self._writer: tuple[int, ProtoFile, ProtoMessage, bytes] | None = None

    def _file(self, schema_id: int) -> ProtoFile:
        f = self._files.get(schema_id)
        if f is None:
            f = self._files[schema_id] = parse_registered(self.registry, schema_id)
            f.unwrap_wrappers = self.nullable == "WRAPPER"
        return f

    def deserialize(self, data: bytes | None) -> tuple | None:
        if data is None:
            return None
        schema_id, indexes, body = unframe(bytes(data))
        file = self._file(schema_id)
        try:
            msg = file.by_indexes(indexes)
            return message_to_row(file, msg, decode(file, msg, body), self.columns)
        except SerdeError:
            raise
        except Exception as e:  # noqa: BLE001 - any malformed record is a bad record
            raise SerdeError(f"Failed to deserialize PROTOBUF message for schema id {schema_id}: {e}") from None

    def writer(self) -> tuple[int, ProtoFile, ProtoMessage, bytes]:
        """(schema id, schema, message, framing prefix) this serde writes with; registers once if generated."""
        if self._writer is None:
            if self.schema_id is not None:
                sid = self.schema_id
                file = self._file(sid)
                try:
                    msg = file.message(self.full_name)
                except ProtoSchemaError as e:
                    raise SerdeError(str(e)) from None
            else:
                text = schema_text(self.columns, self.full_name, nullable=self.nullable)
                sid = self.registry.register(self.subject, text, "PROTOBUF")
                file = self._files[sid] = parse_proto(text)
                file.unwrap_wrappers = self.nullable == "WRAPPER"
                msg = file.messages[0]
            self._writer = (sid, file, msg, frame(sid, file.indexes(msg), b""))
        return self._writer

    def serialize(self, row: tuple | None) -> bytes | None:
        if row is None:
            return None
        _, file, msg, prefix = self.writer()
        try:
            return prefix + encode(file, msg, row_to_message(file, msg, row, self.columns))
        except SerdeError:
            raise
        except Exception as e:  # noqa: BLE001
            raise SerdeError(f"Failed to serialize PROTOBUF message: {e}") from None
