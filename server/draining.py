"""Shutdown waits for open streamed responses to finish before connections are closed.

On SIGTERM the server ends every push query (``ServerContext.begin_shutdown``) and each response writes its
last element and ends. Hypercorn's own shutdown then sends HTTP/2 GOAWAY on every connection - and a GOAWAY
that overtakes a stream's last DATA frame makes clients (httpx, among others) fail the stream instead of
reading its end: the stream looked cut mid-frame. ``OPEN`` counts the streamed responses in flight
(``StreamingBody``); ``drained`` waits until none is, and a moment for the last frames to leave, before the
server lets Hypercorn close the connections.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager

FLUSH_S = 0.2  # after the last response ended: Hypercorn's sender writes its final frames


class OpenStreams:
    def __init__(self) -> None:
        self.count = 0

    @contextmanager
    def open(self) -> Iterator[None]:
        self.count += 1
        try:
            yield
        finally:
            self.count -= 1

    async def drained(self, timeout_s: float) -> bool:
        """Wait until no streamed response is open (at most ``timeout_s``); True if none is."""
        end = time.monotonic() + timeout_s
        while self.count and time.monotonic() < end:
            await asyncio.sleep(0.02)
        await asyncio.sleep(FLUSH_S)
        return self.count == 0


OPEN = OpenStreams()
