"""A request path's one trailing slash is no part of the route it names (``/ksql/`` is ``/ksql``), as
Vert.x's router matches a route path without a trailing slash (every one of ksqlDB's): it compares the
two paths each without one trailing slash (from memory of Vert.x 4's RouteState.pathMatchesExact). So
``/info/`` is served as ``/info``, ``/info//`` and ``//info`` are no route (404), and nothing is
redirected (Starlette's 307 to the path without the slash is turned off: ksqlDB's clients do not follow it).

Runs just outside the ``produces`` check and FastAPI's routing - the handlers every route shares
(CORS, authentication and its skip paths, the server-state gate) see the path as it came.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


def route_path(path: str) -> str:
    """The path the routes are matched against: without one trailing slash (``/`` stays ``/``)."""
    return path[:-1] if len(path) > 1 and path.endswith("/") else path


class TrailingSlashMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            path = scope.get("path", "")
            stripped = route_path(path)
            if stripped != path:
                scope = dict(scope, path=stripped)
                raw = scope.get("raw_path")
                if isinstance(raw, bytes) and raw.endswith(b"/"):
                    scope["raw_path"] = raw[:-1]
        await self.app(scope, receive, send)
