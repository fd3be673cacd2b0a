"""``application/vnd.ksql.v1+protobuf``: the StreamedRow format with rows as protobuf messages.

ksqlDB answers a query in this media type with the StreamedRow array of ``/query``, but the header also
carries ``protoSchema`` (the ``.proto`` of one row, as Connect's ProtobufData writes it for the result
columns: message ``ConnectDefault1``, a field per column numbered from 1, nested messages
``ConnectDefault2``... for STRUCTs and ``ConnectDefault<n>Entry`` {key = 1; value = 2} messages for MAPs)
and each row is ``{"row":{"protobufBytes":"<base64 of the message>"}}`` (no schema-registry framing).
A map field is written as repeated entry messages, which is the same wire format as ``map<K, V>``, so
rows are encoded with the ``map<K, V>`` form of the schema.
"""

from __future__ import annotations

import base64
from typing import Any

from ksqlpy.serde.base import SinkSchemaError
from ksqlpy.server.streaming import PROTOBUF, StreamedRowWriter, UnwritableRow


class ProtobufRowWriter(StreamedRowWriter):
    """StreamedRow JSON with ``protoSchema`` in the header and ``protobufBytes`` rows (raw engine rows in)."""

    media_type = PROTOBUF

    def _schemas(self) -> tuple[Any, Any, str]:
        """(parsed file and message to encode with, the header's protoSchema text), built once."""
        cached = getattr(self, "_proto", None)
        if cached is None:
            from ksqlpy.serde.protobuf_schema import parse_proto
            from ksqlpy.serde.protobuf_types import schema_text

            cols = [(n, t) for n, t, _ in self.columns]
            file = parse_proto(schema_text(cols))
            cached = self._proto = (file, file.messages[0], schema_text(cols, map_entries=True))
        return cached

    def header_fields(self) -> dict[str, Any]:
        return {**super().header_fields(), "protoSchema": self._schemas()[2]}

    def row_element(self, values: list[Any], tombstone: bool) -> dict[str, Any]:
        from ksqlpy.serde.protobuf_types import row_to_message
        from ksqlpy.serde.protobuf_wire import encode

        file, msg, _ = self._schemas()
        cols = [(n, t) for n, t, _ in self.columns]
        try:
            body = encode(file, msg, row_to_message(file, msg, tuple(values), cols))
        except SinkSchemaError as e:  # protobuf has no NULL element of a repeated field
            raise UnwritableRow(str(e)) from e
        return {"row": {"protobufBytes": base64.b64encode(body).decode("ascii")}}
