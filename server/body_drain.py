"""An HTTP/1.x answer given before its request body was read keeps the connection: the rest of the body is
read (bounded) after the answer.

Hypercorn's HTTP/1.1 protocol recycles a connection for the next request only when both sides are done; an
app that answers before it has read the body (a 406 from the Accept check, a refusal before the route reads
it, a 503 while the server starts) leaves the request unfinished, and Hypercorn closes the connection - a
client that already sent its next request on it sees "server disconnected" (under load, when the body
arrives after the answer). This middleware, outermost, reads what the app left of the body before the answer's
last body message goes out (where Hypercorn decides), so the connection carries the next request. Bounded in bytes and time: a body that goes on (an
insert stream over HTTP/1.1) is cut off and the connection closed, as before. HTTP/2 has its own rule
(``h2_early_response``).
"""

from __future__ import annotations

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

DRAIN_MAX_BYTES = 1 << 20
DRAIN_MAX_SECONDS = 1.0


class BodyDrainMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int = DRAIN_MAX_BYTES, max_seconds: float = DRAIN_MAX_SECONDS) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_seconds = max_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("http_version") == "2" or scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        done = False

        async def watched() -> Message:
            nonlocal done
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                done = True
            return message

        held: Message | None = None  # the answer's start, while the body may still have to be read

        async def drain_then_send(message: Message) -> None:
            nonlocal held
            if done:
                pass
            elif message["type"] == "http.response.start":
                held = message
                return
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                # Hypercorn decides at the answer's last body message whether the connection is reused
                if not await self._drain(watched) and held is not None:
                    held = {**held, "headers": [*held.get("headers", []), (b"connection", b"close")]}
            if held is not None:
                await send(held)
                held = None
            await send(message)

        await self.app(scope, watched, drain_then_send)

    async def _drain(self, receive: Receive) -> bool:
        """Read the rest of the body without keeping it: whether it ended within ``max_bytes`` and
        ``max_seconds`` (if not, Hypercorn closes the connection after the answer, which says so)."""
        seen = 0
        with anyio.move_on_after(self.max_seconds):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect" or not message.get("more_body", False):
                    return True
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    return False
        return False
