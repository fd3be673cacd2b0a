"""Serializing a pipeline's output rows and producing them to the sink topic."""

from __future__ import annotations

from typing import Any

from ksqlpy.log.base import LogTransaction, ProducerRecord
from ksqlpy.runtime.processing_log import ProcessingLog


class SinkWriter:
    """Writes ``(key_tuple, value_tuple | None, timestamp)`` rows (or windowed keys) to one topic."""

    def __init__(self, topic: str, key_serde: Any, value_serde: Any, plog: ProcessingLog, query_id: str,
                 *, windowed: bool = False, keyless: bool = False) -> None:
        self.topic = topic
        self.key_serde = key_serde
        self.value_serde = value_serde
        self.plog = plog
        self.query_id = query_id
        self.windowed = windowed
        self.keyless = keyless

    def encode(self, rows: list[tuple]) -> list[ProducerRecord]:
        out: list[ProducerRecord] = []
        ks, vs, topic = self.key_serde, self.value_serde, self.topic
        for row in rows:
            key, value, ts = row[0], row[1], row[-1]
            try:
                if self.keyless:
                    kb = None
                elif self.windowed:
                    kb = ks.serialize(key[0], key[1], key[2])
                else:
                    kb = ks.serialize(key)
            except Exception as e:  # noqa: BLE001 - never stop the query
                self.plog.serialization_error(self.query_id, "key", e, topic)
                continue
            try:
                vb = None if value is None else vs.serialize(value)
            except Exception as e:  # noqa: BLE001
                self.plog.serialization_error(self.query_id, "value", e, topic)
                continue
            out.append(ProducerRecord(topic, kb, vb, ts))
        return out

    def write(self, tx: LogTransaction, rows: list[tuple]) -> int:
        records = self.encode(rows)
        tx.produce_many(records)
        return len(records)
