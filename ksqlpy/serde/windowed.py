"""Windowed keys in Kafka Streams' binary layout, so windowed sinks interoperate with ksqlDB.

ksqlDB writes windowed table keys with Kafka Streams' windowed serializers:

* time windows (TUMBLING, HOPPING) - ``TimeWindowedSerializer`` / ``WindowKeySchema.toBinary``:
  ``serialized key || int64 BE window start``. The end is not stored; readers compute
  ``start + window size`` (capped at Long.MAX_VALUE on overflow, as Kafka does).
* session windows - ``SessionWindowedSerializer`` / ``SessionKeySchema.toBinary``:
  ``serialized key || int64 BE window end || int64 BE window start``.

A null inner key is written as zero key bytes followed by the window.
"""

from __future__ import annotations

import struct
from operator import itemgetter
from typing import Any

from ksqlpy.serde.base import FormatRuleError, KeySerde, SerdeError

_FIRST, _SECOND = itemgetter(0), itemgetter(1)

_Q = struct.Struct(">q")
_QQ = struct.Struct(">qq")
_LONG_MAX = 2**63 - 1
TIME_WINDOWS = ("TUMBLING", "HOPPING")
WINDOW_TYPES = (*TIME_WINDOWS, "SESSION")


def _check_window(start: int, end: int) -> None:
    """Kafka's ``Window`` constructor, which every window read from a key is built with: no negative start,
    no end before the start (a session's bytes hold both)."""
    if start < 0:
        raise SerdeError("Window startMs time cannot be negative.")
    if end < start:
        raise SerdeError("Window endMs time cannot be smaller than window startMs time.")


class WindowedKeySerde(KeySerde):
    """Wraps a key serde: ``deserialize`` -> ``(key_tuple, start_ms, end_ms)``."""

    windowed = True

    def __init__(self, inner: KeySerde, window: str, window_size_ms: int | None = None) -> None:
        super().__init__(inner.columns)
        w = window.strip().upper()
        if w not in WINDOW_TYPES:
            raise FormatRuleError(f"Unknown window type {window!r}; expected one of {', '.join(WINDOW_TYPES)}")
        # a positive size under a millisecond (WINDOW_SIZE='10 NANOSECONDS') is 0 ms: the source is accepted and
        # each key it reads is refused as Kafka's TimeWindow refuses an empty window
        if w in TIME_WINDOWS and (window_size_ms is None or window_size_ms < 0):
            raise FormatRuleError(f"{w} windowed keys need a positive window size")
        self.inner = inner
        self.format = inner.format
        self.window = w
        self.session = w == "SESSION"
        self.window_size_ms = window_size_ms

    def deserialize(self, data: bytes | None) -> Any:
        if data is None:
            return None
        if self.session:
            if len(data) < 16:
                raise SerdeError(f"Session-windowed key too short: {len(data)} bytes, need at least 16")
            end, start = _QQ.unpack_from(data, len(data) - 16)
            key = self.inner.deserialize(data[:-16])
            _check_window(start, end)
            return key, start, end
        if len(data) < 8:
            raise SerdeError(f"Time-windowed key too short: {len(data)} bytes, need at least 8")
        start = _Q.unpack_from(data, len(data) - 8)[0]
        end = start + self.window_size_ms  # type: ignore[operator]
        if end > _LONG_MAX:
            end = _LONG_MAX
        key = self.inner.deserialize(data[:-8])
        _check_window(start, end)
        if end == start:  # Kafka's TimeWindow constructor, after its Window super-constructor's checks
            raise SerdeError("Window endMs must be greater than window startMs.")
        return key, start, end

    def serialize(self, values: Any, start: int | None = None, end: int | None = None) -> bytes | None:
        """``serialize(key_tuple, start, end)`` or ``serialize((key_tuple, start, end))``."""
        if start is None:
            if values is None:
                return None
            values, start, end = values
        key = self.inner.serialize(values) or b""
        if self.session:
            if end is None:
                raise SerdeError("a session-windowed key needs the window end")
            return key + _QQ.pack(end, start)
        return key + _Q.pack(start)

    def serialize_batch(self, keys: Any) -> list[bytes | None]:
        """``serialize`` of each ``(key_tuple, start, end)`` (None stays None), one inner batch call."""
        return self.serialize_batch_with_base(keys)[0]

    def serialize_batch_with_base(self, keys: Any) -> tuple[list[bytes | None], list[bytes | None]]:
        """The windowed key bytes and the base (inner) key bytes of each key: Kafka Streams places a
        windowed record by its base key (``WindowedStreamPartitioner``), so writers need both."""
        bases = list(map(_FIRST, keys)) if all(keys) else [None if k is None else k[0] for k in keys]
        inner = self.inner.serialize_batch(bases)
        return self._windowed(keys, inner), inner

    def _windowed(self, keys: Any, inner: list[bytes | None]) -> list[bytes | None]:
        if self.session:
            if any(k is not None and k[2] is None for k in keys):
                raise SerdeError("a session-windowed key needs the window end")
            pack2 = _QQ.pack
            return [None if k is None else (kb or b"") + pack2(k[2], k[1]) for k, kb in zip(keys, inner, strict=True)]
        pack = _Q.pack
        if all(keys) and all(inner):  # (non-empty tuples and key bytes: the common case, by C-level maps)
            return list(map(bytes.__add__, inner, map(pack, map(_SECOND, keys))))
        return [None if k is None else (kb or b"") + pack(k[1]) for k, kb in zip(keys, inner, strict=True)]

