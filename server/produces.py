"""Each route's ``produces``, as ksqlDB's ServerVerticle declares them - one content-negotiation rule for
every route. Vert.x routes a request to a route only when its ``Accept`` admits one of the types the route
produces - no header, the type itself, or a wildcard (``*/*``, ``application/*``) - and answers a request no
route of its path takes with its default 406 (plain body ``Not Acceptable``), before the body is read:

- the old-API routes (``/ksql``, ``/ksql/terminate``, ``/info``, ``/healthcheck``, ``/clusterStatus``,
  ``/status``, ``/is_valid_property``, ``/v1/metadata``, ``/heartbeat``, ``/lag``) produce
  ``application/vnd.ksql.v1+json`` and ``application/json``;
- ``/query-stream`` the delimited type, ``application/json``, ``application/vnd.ksql.v1+json`` and
  ``application/vnd.ksql.v1+protobuf``; ``/query``'s three routes together the same four (which of them
  answers, and PRINT's own 406, is ``query_routes.py``'s decision);
- ``/inserts-stream`` the delimited type and ``application/json`` only (its acks have no StreamedRow form:
  ``application/vnd.ksql.v1+json`` is refused too);
- ``/close-query``, ``/``, ``/chc/*``, ``/ws/query`` and ksqlpy's own routes declare none: any Accept.

Runs innermost, after authentication and the server-state gate, as Vert.x matches routes after the
handlers every route shares.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Receive, Scope, Send

from ksqlpy.server.streaming import DELIMITED, JSON, KSQL_V1_JSON, PROTOBUF, accept_list

PRODUCED = (KSQL_V1_JSON, JSON)  # the old-API (JSON) routes'
STREAMING = (DELIMITED, JSON, KSQL_V1_JSON, PROTOBUF)  # /query-stream's, and /query's routes together
INSERTS = (DELIMITED, JSON)  # /inserts-stream's

# (method, path pattern, produced types) of every route that declares what it produces
ROUTES: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (method, re.compile(pattern), produced) for method, pattern, produced in (
        ("POST", r"/ksql", PRODUCED),
        ("POST", r"/ksql/terminate", PRODUCED),
        ("GET", r"/info", PRODUCED),
        ("GET", r"/healthcheck", PRODUCED),
        ("GET", r"/clusterStatus", PRODUCED),
        ("GET", r"/status", PRODUCED),
        ("GET", r"/status/[^/]+/[^/]+/[^/]+", PRODUCED),
        ("GET", r"/is_valid_property/[^/]+", PRODUCED),
        ("GET", r"/v1/metadata", PRODUCED),
        ("GET", r"/v1/metadata/id", PRODUCED),
        ("POST", r"/heartbeat", PRODUCED),
        ("POST", r"/lag", PRODUCED),
        ("POST", r"/query-stream", STREAMING),
        ("POST", r"/query", STREAMING),
        ("POST", r"/inserts-stream", INSERTS),
    ))
JSON_ROUTES = tuple((m, p) for m, p, produced in ROUTES if produced == PRODUCED)


def _admits(accepted: str, produced: str) -> bool:
    """Whether one Accept media range admits a produced type (``*`` matches any type or subtype)."""
    a_type, _, a_sub = accepted.partition("/")
    p_type, _, p_sub = produced.partition("/")
    return a_type in ("*", p_type) and a_sub in ("*", "", p_sub)


def admits(accept: str | None, produced: tuple[str, ...]) -> bool:
    """Whether a route producing ``produced`` takes a request with this Accept header (absent: yes)."""
    prefs = accept_list(accept)
    return not prefs or any(_admits(m, p) for m in prefs for p in produced)


def admits_json(accept: str | None) -> bool:
    """Whether an old-API (JSON) route takes a request with this Accept header."""
    return admits(accept, PRODUCED)


def produced_by(method: str, path: str) -> tuple[str, ...] | None:
    """The types the route of ``method path`` produces (None: it declares none and takes any Accept)."""
    return next((produced for m, pattern, produced in ROUTES if method == m and pattern.fullmatch(path)), None)


def is_json_route(method: str, path: str) -> bool:
    return produced_by(method, path) == PRODUCED


NOT_ACCEPTABLE_BODY = b"Not Acceptable"


class ProducesMiddleware:
    """406 ``Not Acceptable`` for a route whose Accept admits none of the types it produces (see the module
    docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        produced = produced_by(scope["method"], scope["path"]) if scope["type"] == "http" else None
        if produced is not None:
            accept = [v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"accept"]
            if not admits(", ".join(accept) if accept else None, produced):
                await send({"type": "http.response.start", "status": 406,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                        (b"content-length", str(len(NOT_ACCEPTABLE_BODY)).encode())]})
                await send({"type": "http.response.body", "body": NOT_ACCEPTABLE_BODY})
                return
        await self.app(scope, receive, send)
