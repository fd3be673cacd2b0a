"""PRINT <topic>: raw records as text lines, the formats guessed from the bytes (reference §1.4).

    Key format: KAFKA_STRING
    Value format: JSON or KAFKA_STRING
    rowtime: 2022/12/02 17:22:02.556 Z, key: 18, value: {"a":1}, partition: 0
"""

from __future__ import annotations

import asyncio
import datetime as dt
import struct
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson

from ksqlpy.grammar import ast as A
from ksqlpy.server.errors import bad_request

NO_DATA = "¯\\_(ツ)_/¯ - no data processed"


def _guess(data: bytes | None) -> str:
    if data is None:
        return NO_DATA
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {4: "KAFKA_INT", 8: "KAFKA_BIGINT or KAFKA_DOUBLE"}.get(len(data), "KAFKA_BYTES")
    try:
        orjson.loads(data)
        return "JSON or KAFKA_STRING"
    except orjson.JSONDecodeError:
        pass
    if len(data) in (4, 8) and not text.isprintable():
        return "KAFKA_INT" if len(data) == 4 else "KAFKA_BIGINT or KAFKA_DOUBLE"
    return "KAFKA_STRING"


def _render(data: bytes | None, fmt: str) -> str:
    if data is None:
        return "<null>"
    if fmt == "KAFKA_INT":
        return str(struct.unpack(">i", data)[0])
    if fmt.startswith("KAFKA_BIGINT"):
        return str(struct.unpack(">q", data)[0])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "<Failed to deserialize>"


def _rowtime(ms: int) -> str:
    t = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)
    return t.strftime("%Y/%m/%d %H:%M:%S.") + f"{t.microsecond // 1000:03d} Z"


class TopicPrinter:
    def __init__(self, engine: Any, stmt: A.PrintTopic, partitions: int) -> None:
        self.log = engine.log
        self.topic = stmt.topic
        self.interval = max(int(stmt.interval or 1), 1)
        self.limit = stmt.limit
        self.positions = [self.log.start_offset(self.topic, p) if stmt.from_beginning
                          else self.log.end_offset(self.topic, p) for p in range(partitions)]
        self.closed = False

    @classmethod
    def open(cls, engine: Any, stmt: A.PrintTopic) -> TopicPrinter:
        info = engine.log.describe_topic(stmt.topic)
        if info is None:
            similar = [t.name for t in engine.log.list_topics() if t.name.lower() == stmt.topic.lower()]
            hint = f"\n\nDid you mean:\n\t{chr(10).join(similar)}" if similar else ""
            raise bad_request(f"Could not find topic '{stmt.topic}', or the KSQL user does not have permissions to "
                              f"list the topic. Topic names are case-sensitive.{hint}")
        return cls(engine, stmt, info.partitions)

    def close(self) -> None:
        self.closed = True

    async def lines(self, stop: Callable[[], bool] = lambda: False) -> AsyncIterator[str]:
        formats: tuple[str, str] | None = None
        seen = printed = 0
        delay = 0.01
        while not self.closed and not stop():
            got = 0
            for p, pos in enumerate(self.positions):
                batch = self.log.fetch(self.topic, p, pos, 500)
                if not batch.offsets:
                    continue
                got += len(batch.offsets)
                self.positions[p] = batch.next_offset
                for i in range(len(batch.offsets)):
                    if formats is None:
                        formats = (_guess(batch.keys[i]), _guess(batch.values[i]))
                        yield f"Key format: {formats[0]}"
                        yield f"Value format: {formats[1]}"
                    seen += 1
                    if (seen - 1) % self.interval:
                        continue
                    yield (f"rowtime: {_rowtime(batch.timestamps[i])}, key: {_render(batch.keys[i], formats[0])}, "
                           f"value: {_render(batch.values[i], formats[1])}, partition: {p}")
                    printed += 1
                    if self.limit is not None and printed >= self.limit:
                        return
            if not got:
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.1)
            else:
                delay = 0.01
