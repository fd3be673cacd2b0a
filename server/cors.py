"""Cross-origin requests (CORS), as ksqlDB's ServerVerticle sets up Vert.x's ``CorsHandler``: off unless
``access.control.allow.origin`` is set, then in front of every route - the /chc probes, the server-state gate and
authentication come after it, so a browser's preflight needs no credentials.

- ``access.control.allow.origin``: comma-separated origins; ``*`` in one matches any run of characters (``*``
  alone: any origin). A request without an ``Origin`` header is not a CORS request: nothing changes.
- An origin none of them matches: 403 ``CORS Rejected - Invalid origin`` (error code 40300), before anything else
  - on every route, a WebSocket handshake included.
- A preflight (``OPTIONS`` with ``Access-Control-Request-Method``) from an allowed origin: 204 with
  ``Access-Control-Allow-Origin`` (the request's origin: credentials are allowed, so never ``*``),
  ``Access-Control-Allow-Credentials: true``, ``Access-Control-Allow-Methods`` (``access.control.allow.methods``,
  default ``GET,POST,HEAD``) and ``Access-Control-Allow-Headers`` (``access.control.allow.headers``, default
  ``X-Requested-With,Content-Type,Accept,Origin``); no route runs.
- Any other request from an allowed origin: handled as usual, its answer (errors included) carrying
  ``Access-Control-Allow-Origin`` and ``Access-Control-Allow-Credentials``.

From memory of ksqlDB's ServerVerticle.setupCorsHandler (the three properties, the default methods and headers,
``allowCredentials(true)``, wildcards turned into a regular expression) and Vert.x 4's CorsHandlerImpl (preflight
204, the origin echoed when credentials are allowed, ``fail(403, "CORS Rejected - Invalid origin")``, which
ksqlDB's failure handler answers as error code 40300).
"""

from __future__ import annotations

import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ksqlpy.server.errors import FORBIDDEN, envelope
from ksqlpy.server.gate import send_error

ALLOW_ORIGIN = "access.control.allow.origin"
ALLOW_METHODS = "access.control.allow.methods"
ALLOW_HEADERS = "access.control.allow.headers"
DEFAULT_METHODS = ("GET", "POST", "HEAD")
DEFAULT_HEADERS = ("X-Requested-With", "Content-Type", "Accept", "Origin")
REJECTED = "CORS Rejected - Invalid origin"


def _items(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if str(v).strip()]
    return [v.strip() for v in str(value or "").split(",") if v.strip()]


def origin_pattern(allowed: str) -> re.Pattern[str]:
    """The allowed origins as one expression: each origin literal but for ``*``, any run of characters."""
    parts = [".*".join(re.escape(piece) for piece in origin.split("*")) for origin in _items(allowed)]
    return re.compile("|".join(f"(?:{p})" for p in parts))


class CorsPolicy:
    def __init__(self, origins: str, methods: Any = None, headers: Any = None) -> None:
        self.pattern = origin_pattern(origins)
        self.methods = ",".join(_items(methods) or DEFAULT_METHODS)
        self.headers = ",".join(_items(headers) or DEFAULT_HEADERS)

    @classmethod
    def from_config(cls, config: Any) -> CorsPolicy | None:
        """The policy the server's properties configure, or None: CORS is off (the origin list is empty)."""
        origins = str(config.get(ALLOW_ORIGIN, "") or "")
        if not _items(origins):
            return None
        return cls(origins, config.get(ALLOW_METHODS), config.get(ALLOW_HEADERS))

    def allows(self, origin: str) -> bool:
        return self.pattern.fullmatch(origin) is not None


def _origin_headers(origin: str) -> list[tuple[bytes, bytes]]:
    return [(b"access-control-allow-credentials", b"true"), (b"access-control-allow-origin", origin.encode("latin-1"))]


class CorsMiddleware:
    def __init__(self, app: ASGIApp, policy: CorsPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        raw_origin = headers.get(b"origin")
        if raw_origin is None:  # not a cross-origin request
            await self.app(scope, receive, send)
            return
        origin = raw_origin.decode("latin-1")
        if not self.policy.allows(origin):
            await send_error(send, 403, envelope(FORBIDDEN, REJECTED), scope=scope)
            return
        added = _origin_headers(origin)
        if scope["type"] == "http" and scope["method"] == "OPTIONS" and b"access-control-request-method" in headers:
            await send({"type": "http.response.start", "status": 204, "headers": [
                *added, (b"access-control-allow-methods", self.policy.methods.encode("latin-1")),
                (b"access-control-allow-headers", self.policy.headers.encode("latin-1")), (b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return

        async def with_origin(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.http.response.start", "websocket.accept"):
                message = dict(message)
                message["headers"] = [*message.get("headers", []), *added]
            await send(message)

        await self.app(scope, receive, with_origin)
