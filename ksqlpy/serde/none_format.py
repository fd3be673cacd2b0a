"""ksqlDB's NONE format: a key format for sources without key columns; there are no bytes to read."""

from __future__ import annotations

from ksqlpy.serde.base import Columns, FormatRuleError, ValueSerde


class NoneSerde(ValueSerde):
    """Ignores whatever bytes a record has and writes none."""

    format = "NONE"

    def __init__(self, columns: Columns) -> None:
        super().__init__(columns)
        if self.columns:
            raise FormatRuleError("The 'NONE' format can only be used when no columns are defined")

    def deserialize(self, data: bytes | None) -> tuple | None:
        return ()

    def serialize(self, row: tuple | None) -> bytes | None:
        return None
