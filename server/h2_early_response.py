"""A response that ends before its request body does: the rest of the body is dropped, not the connection.

/inserts-stream answers a line that is too long (or a bad row) with an error and ends the response while the
client may still be sending. Hypercorn's HTTP/2 protocol then looks up the finished stream for each further
DATA frame, fails with a KeyError and closes the whole connection - the client sees "server disconnected"
instead of the response it was sent. ``install()`` acknowledges such frames (the connection's flow-control
window stays open) and drops them, at the cost of the frame parsing only. (RFC 9113 8.1 also allows a
RST_STREAM NO_ERROR to stop the client sending, but clients such as httpx then fail the request instead
of reading the response they have.)
"""

from __future__ import annotations

from typing import Any

_INSTALLED = False


def install() -> None:
    """Patch Hypercorn's ``H2Protocol._handle_events`` once (idempotent)."""
    global _INSTALLED
    if _INSTALLED:
        return
    import h2.events
    from hypercorn.protocol.h2 import H2Protocol

    original = H2Protocol._handle_events

    async def handle_events(self: Any, events: list[Any]) -> None:
        pending: list[Any] = []
        for event in events:
            if isinstance(event, h2.events.DataReceived) and event.stream_id not in self.streams:
                if pending:
                    await original(self, pending)
                    pending = []
                if event.stream_id not in self.streams:  # (still) answered and gone
                    self.connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    continue
            pending.append(event)
        await original(self, pending)

    H2Protocol._handle_events = handle_events  # type: ignore[method-assign]
    _INSTALLED = True
