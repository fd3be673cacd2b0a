"""PRINT topic on the embedded log: records as ksqlDB prints them (reference §1.4).

ksqlDB does not know a topic's formats when printing, so it guesses from the bytes and prints
``Key format:`` / ``Value format:`` once, then one line per record (the guessing and formatting are the
server's, ``ksqlpy.server.printing``)::

    rowtime: 2022/12/02 17:22:02.556 Z, key: 18, value: {"a":1}, partition: 0
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ksqlpy.server.printing import (
    NO_DATA,
    PrintSession,
    format_rowtime,
    interval_error,
    missing_topic_message,
    poll,
)

__all__ = ["NO_DATA", "format_rowtime", "print_topic"]


def print_topic(log: Any, topic: str, *, from_beginning: bool, interval: int | None, limit: int | None,
                poll_s: float = 0.2, registry: Any = None) -> Iterator[str | None]:
    """Lines for PRINT on ``log``; yields None while waiting so the caller can stay responsive."""
    info = log.describe_topic(topic)
    if info is None:
        from ksqlpy.cli.backend import BackendError

        raise BackendError(missing_topic_message(log, topic))
    refused = interval_error(interval)
    if refused is not None:
        from ksqlpy.cli.backend import BackendError

        raise BackendError(refused)
    parts = range(info.partitions)
    positions = [log.start_offset(topic, p) if from_beginning else log.end_offset(topic, p) for p in parts]
    session = PrintSession(registry, interval, limit)
    while not session.done:
        records = poll(log, topic, positions)
        yield from session.lines(records)
        if not records:
            yield None
            log.wait_for_data(poll_s)
