"""Middleware in front of every route: the server-state gate and the request size limit.

Both answer with ksqlDB's error envelope before any handler runs. The server-state gate
(``ServerStateMiddleware``) comes before authentication, as ksqlDB's ServerVerticle.buildRouter adds its
ServerStateHandler after the CORS handler and the /chc routes and before AuthHandlers: a server starting
or stopping answers 503 whatever the request's credentials. The size limit (``GateMiddleware``), inside
authentication, buffers a request body up to ``ksql.server.request.max.bytes`` and replays it to the app
(so handlers see an ordinary body); /inserts-stream is exempt, it is a stream whose size has no natural bound.
"""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ksqlpy.server.errors import PAYLOAD_TOO_LARGE, ServerError, envelope
from ksqlpy.server.values import dumps

UNGATED = ("/chc/", "/openapi.json", "/docs")
UNBOUNDED = ("/inserts-stream",)


async def send_error(send: Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None,
                     scope: Scope | None = None) -> None:
    """The error envelope as an HTTP response - also to a WebSocket handshake (``scope``), refused
    before the upgrade as ksqlDB's handlers refuse /ws/query (ASGI's websocket.http.response)."""
    data = dumps(body)
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    kind = "http"
    if scope is not None and scope["type"] == "websocket":
        if "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": 1008, "reason": str(body.get("message", ""))[:120]})
            return
        kind = "websocket.http"
    await send({"type": f"{kind}.response.start", "status": status, "headers": raw})
    await send({"type": f"{kind}.response.body", "body": data})


class ServerStateMiddleware:
    """The 503 of a server that is not ready (``ServerContext.check_ready``) for every path but /chc/*, the
    API's own docs and ``/``."""

    def __init__(self, app: ASGIApp, ctx: Any) -> None:
        self.app = app
        self.ctx = ctx

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            path: str = scope["path"]
            if not path.startswith(UNGATED) and path != "/":
                try:
                    self.ctx.check_ready()
                except ServerError as e:
                    await send_error(send, e.status, e.body(), scope=scope)
                    return
        await self.app(scope, receive, send)


class GateMiddleware:
    """``ksql.server.request.max.bytes``: a request body over it is refused with 413 before any handler."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if scope["type"] != "http" or path.startswith(UNBOUNDED) or scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        try:
            declared = int(headers.get(b"content-length", b"0") or 0)
        except ValueError:
            declared = 0
        if declared > self.max_bytes:
            await self._too_large(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            size += len(body)
            if size > self.max_bytes:
                await self._too_large(send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        await self.app(scope, replay_body(b"".join(chunks), False, receive), send)

    async def _too_large(self, send: Send) -> None:
        await send_error(send, 413, envelope(PAYLOAD_TOO_LARGE, f"Request body too large: the limit is "
                                             f"{self.max_bytes} bytes (ksql.server.request.max.bytes)"),
                         {"connection": "close"})


def replay_body(body: bytes, more: bool, receive: Receive) -> Receive:
    """A ``receive`` that first gives the body read already (as one message), then what comes next."""
    given = False

    async def replayed() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return replayed
