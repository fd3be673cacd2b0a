"""Reading a sink topic back for the harnesses: every record, decoded with the spec codecs, per partition."""

from __future__ import annotations

from typing import Any

from ksqlpy.testing.compare import ActualRecord
from ksqlpy.testing.specserde import decode_windowed


def read_partitions(log: Any, topic: str, partitions: int, key_codec: Any, value_codec: Any,
                    window: str | None = None, size_ms: int | None = None) -> list[list[ActualRecord]]:
    """The records of ``topic`` per partition in offset order; ``window`` ('time' | 'session') splits
    windowed keys into the inner key and the window (``size_ms`` gives a time window's end)."""
    out: list[list[ActualRecord]] = []
    for p in range(partitions):
        records: list[ActualRecord] = []
        offset, end = log.start_offset(topic, p), log.end_offset(topic, p)
        while offset < end:
            batch = log.fetch(topic, p, offset, 10000)
            if not len(batch):
                break
            for i in range(len(batch)):
                key_bytes, win = batch.keys[i], None
                if window:
                    key_bytes, win = decode_windowed(key_bytes, window, size_ms)
                records.append(ActualRecord(
                    partition=p, offset=batch.offsets[i], key=key_codec.decode(key_bytes),
                    value=value_codec.decode(batch.values[i]), timestamp=batch.timestamps[i],
                    window=win, headers=batch.headers[i], key_bytes=key_bytes))
            offset = batch.next_offset
        out.append(records)
    return out
