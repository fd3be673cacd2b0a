"""One ASGI body write, one HTTP/2 DATA frame: what streaming clients of ksqlDB depend on.

ksqlDB (Vert.x) writes the header and every row of a query response as a write of its own, and clients read
one JSON document per DATA frame (the Node ``ksqldb-client`` parses each ``data`` event; the Java client
each chunk). Hypercorn's HTTP/2 protocol instead appends every ``http.response.body`` message to a per-stream
buffer that a sender task drains in frames as large as the flow-control window allows, so rows written in
quick succession share a frame. ``install()`` makes a body write wait until the sender has taken what it
pushed: each write then leaves as its own frame(s) (a write larger than the peer's frame size is split, as
anywhere), and a client that stops reading holds up its own writer (back-pressure) rather than a buffer.
HTTP/1.1 needs nothing: h11 frames each body message as one chunk.
"""

from __future__ import annotations

from typing import Any

_INSTALLED = False


def install() -> None:
    """Patch Hypercorn's ``H2Protocol.stream_send`` once (idempotent)."""
    global _INSTALLED
    if _INSTALLED:
        return
    from hypercorn.protocol.events import Body, Data
    from hypercorn.protocol.h2 import H2Protocol

    original = H2Protocol.stream_send

    async def stream_send(self: Any, event: Any) -> None:
        await original(self, event)
        if isinstance(event, Body | Data):
            buffer = self.stream_buffers.get(event.stream_id)
            if buffer is not None:
                await buffer.drain()

    H2Protocol.stream_send = stream_send  # type: ignore[method-assign]
    _INSTALLED = True
