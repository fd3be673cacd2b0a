"""The JSON routes' ``produces``: ksqlDB declares each of its old-API routes (``/ksql``, ``/ksql/terminate``,
``/info``, ``/healthcheck``, ``/clusterStatus``, ``/status``, ``/is_valid_property``, ``/v1/metadata``,
``/heartbeat``, ``/lag``) as producing ``application/vnd.ksql.v1+json`` and ``application/json``. Vert.x
routes a request to such a route only when its ``Accept`` admits one of them - no header, the type itself,
or a wildcard (``*/*``, ``application/*``) - and answers any other Accept with its default 406 (plain body
``Not Acceptable``), before the body is read. The query routes make the same decision in
``query_routes.py``; WebSocket and the HTTP/2 streaming routes are not covered here.

Runs innermost, after authentication and the server-state gate, as Vert.x matches routes after the
handlers every route shares.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Receive, Scope, Send

from ksqlpy.server.streaming import JSON, KSQL_V1_JSON, accept_list

PRODUCED = (KSQL_V1_JSON, JSON)

# (method, path pattern) of every route declared with the two JSON types
JSON_ROUTES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (method, re.compile(pattern)) for method, pattern in (
        ("POST", r"/ksql"),
        ("POST", r"/ksql/terminate"),
        ("GET", r"/info"),
        ("GET", r"/healthcheck"),
        ("GET", r"/clusterStatus"),
        ("GET", r"/status"),
        ("GET", r"/status/[^/]+/[^/]+/[^/]+"),
        ("GET", r"/is_valid_property/[^/]+"),
        ("GET", r"/v1/metadata"),
        ("GET", r"/v1/metadata/id"),
        ("POST", r"/heartbeat"),
        ("POST", r"/lag"),
    ))


def _admits(accepted: str, produced: str) -> bool:
    """Whether one Accept media range admits a produced type (``*`` matches any type or subtype)."""
    a_type, _, a_sub = accepted.partition("/")
    p_type, _, p_sub = produced.partition("/")
    return a_type in ("*", p_type) and a_sub in ("*", "", p_sub)


def admits_json(accept: str | None) -> bool:
    """Whether a JSON route takes a request with this Accept header (absent: yes)."""
    prefs = accept_list(accept)
    return not prefs or any(_admits(m, p) for m in prefs for p in PRODUCED)


def is_json_route(method: str, path: str) -> bool:
    return any(method == m and pattern.fullmatch(path) for m, pattern in JSON_ROUTES)


NOT_ACCEPTABLE_BODY = b"Not Acceptable"


class ProducesMiddleware:
    """406 ``Not Acceptable`` for a JSON route whose Accept admits no JSON type (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and is_json_route(scope["method"], scope["path"]):
            accept = [v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"accept"]
            if not admits_json(", ".join(accept) if accept else None):
                await send({"type": "http.response.start", "status": 406,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                        (b"content-length", str(len(NOT_ACCEPTABLE_BODY)).encode())]})
                await send({"type": "http.response.body", "body": NOT_ACCEPTABLE_BODY})
                return
        await self.app(scope, receive, send)
