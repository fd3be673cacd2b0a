"""PRINT topic on the embedded log: records as ksqlDB prints them (reference §1.4).

ksqlDB does not know a topic's formats when printing, so it guesses from the bytes and prints
``Key format:`` / ``Value format:`` once, then one line per record::

    rowtime: 2022/12/02 17:22:02.556 Z, key: 18, value: {"a":1}, partition: 0
"""

from __future__ import annotations

import struct
import time
from collections.abc import Iterator
from typing import Any

try:  # orjson is a hard dependency of ksqlpy, but keep this module importable without it
    import orjson

    def _loads(b: bytes) -> Any:
        return orjson.loads(b)
except ImportError:  # pragma: no cover
    import json

    def _loads(b: bytes) -> Any:
        return json.loads(b)


NO_DATA = "¯\\_(ツ)_/¯ - no data processed"


def _candidates(data: bytes | None) -> list[str]:
    """Formats the bytes could be in, most specific first (ksqlDB's order of guesses)."""
    if data is None:
        return []
    out: list[str] = []
    n = len(data)
    if n == 4:
        out.append("KAFKA_INT")
    if n == 8:
        out += ["KAFKA_BIGINT", "KAFKA_DOUBLE"]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return out
    try:
        _loads(data)
        out.append("JSON")
    except ValueError:
        pass
    if all(c.isprintable() or c in "\t\r\n" for c in text):
        out.append("KAFKA_STRING")
    return out


def _render(data: bytes | None, fmt: str | None) -> str:
    if data is None:
        return "<null>"
    if fmt == "KAFKA_INT" and len(data) == 4:
        return str(struct.unpack(">i", data)[0])
    if fmt == "KAFKA_BIGINT" and len(data) == 8:
        return str(struct.unpack(">q", data)[0])
    if fmt == "KAFKA_DOUBLE" and len(data) == 8:
        return repr(struct.unpack(">d", data)[0])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "<Failed to deserialize>"


class FormatGuess:
    """Keeps the formats consistent with every record seen so far (ksqlDB narrows the same way)."""

    def __init__(self) -> None:
        self.possible: list[str] | None = None
        self.seen_nonnull = False

    def update(self, data: bytes | None) -> None:
        if data is None:
            return
        cands = _candidates(data)
        if self.possible is None:
            self.possible = cands
        else:
            self.possible = [c for c in self.possible if c in cands]
        self.seen_nonnull = True

    @property
    def best(self) -> str | None:
        if not self.possible:
            return None
        # a value that reads as JSON text is shown as text; binary numbers need the binary format
        for f in ("JSON", "KAFKA_STRING"):
            if f in self.possible:
                return f
        return self.possible[0]

    def describe(self) -> str:
        if not self.seen_nonnull:
            return NO_DATA
        if not self.possible:
            return "MIXED"
        names = list(self.possible)
        return " or ".join(names)


def format_rowtime(ms: int) -> str:
    """``yyyy/MM/dd HH:mm:ss.SSS Z`` in UTC, as PRINT shows it."""
    secs, milli = divmod(ms, 1000)
    t = time.gmtime(secs)
    return time.strftime("%Y/%m/%d %H:%M:%S", t) + f".{milli:03d} Z"


def print_topic(log: Any, topic: str, *, from_beginning: bool, interval: int | None, limit: int | None,
                poll_s: float = 0.2) -> Iterator[str | None]:
    """Lines for PRINT on ``log``; yields None while waiting so the caller can stay responsive."""
    info = log.describe_topic(topic)
    if info is None:
        from ksqlpy.cli.backend import BackendError

        similar = [t.name for t in log.list_topics() if t.name.lower() == topic.lower()]
        hint = f" Did you mean:\n\t{', '.join(similar)}" if similar else ""
        raise BackendError(f"Could not find topic '{topic}', or the KSQL user does not have permissions to list "
                           f"the topic. Topic names are case-sensitive.{hint}")
    parts = range(info.partitions)
    pos = {p: (log.start_offset(topic, p) if from_beginning else log.end_offset(topic, p)) for p in parts}
    keys, values = FormatGuess(), FormatGuess()
    every = max(1, interval or 1)
    counter = printed = 0
    header_done = False
    while limit is None or printed < limit:
        got = 0
        for p in parts:
            batch = log.fetch(topic, p, pos[p], 500)
            if not len(batch):
                continue
            got += len(batch)
            pos[p] = batch.next_offset
            for i in range(len(batch)):
                k, v = batch.keys[i], batch.values[i]
                keys.update(k)
                values.update(v)
                counter += 1
                if (counter - 1) % every:
                    continue
                if not header_done:
                    yield f"Key format: {keys.describe()}"
                    yield f"Value format: {values.describe()}"
                    header_done = True
                yield (f"rowtime: {format_rowtime(batch.timestamps[i])}, key: {_render(k, keys.best)}, "
                       f"value: {_render(v, values.best)}, partition: {p}")
                printed += 1
                if limit is not None and printed >= limit:
                    return
        if not got:
            yield None
            log.wait_for_data(poll_s)
