"""Prepared key lookups answered before routing: the body of the answer, and an ASGI middleware using it.

``lookup_body`` decides, for one complete ``POST /query-stream`` or ``POST /query`` request, whether it is a
prepared key lookup that can be answered straight away, and returns the exact body and media type the
route would send. Whenever the route could answer differently - a body it would reject, request
properties or variables, a command sequence number to wait for, a media type not written here, a
statement that is not prepared, an error, a server that is not ready - it returns None and the route
answers.

``LookupMiddleware`` uses it on every protocol (HTTP/2 - what ksqlDB's Java client speaks -, TLS, with
authentication): it sits inside the gate and authentication middleware and skips FastAPI's routing,
dependency solving and response machinery, about a third of a lookup's server CPU. The lean HTTP/1.1
front (``lean.py``) uses it before any of Hypercorn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from ksqlpy.engine.config import as_bool, resolve
from ksqlpy.server import queries as Q
from ksqlpy.server import query_routes as R
from ksqlpy.server.context import ServerContext
from ksqlpy.server.errors import ServerError
from ksqlpy.server.gate import replay_body
from ksqlpy.server.streaming import PROTOBUF, WRITERS

LEAN_PROPERTY = "ksqlpy.server.lean.lookups"
_WHOLE_BODY_ROWS = 1000  # as app._query_response: /query answers up to this many rows in one body
_MAX_BODY = 64 * 1024
# per path: (its route, the statement field, the properties field)
PATHS = {
    b"/query-stream": (R.Path.QUERY_STREAM, "sql", "properties"),
    b"/query": (R.Path.QUERY, "ksql", "streamsProperties"),
}


@dataclass(frozen=True)
class Answer:
    """A lookup's response: its Content-Type and body parts; ``chunked``: each part a write of its own
    (/query-stream: a chunk or DATA frame per part), else one body with its length (/query)."""

    content_type: str
    parts: list[bytes]
    chunked: bool


def lookup_body(ctx: ServerContext, target: bytes, accept: bytes | None, body: bytes,
                http_version: str = "1.1") -> Answer | None:
    """The route's answer to a prepared key lookup, or None (see the module docstring)."""
    if ctx.engine is None:
        return None
    try:
        ctx.check_ready()
    except ServerError:
        return None
    path, field, props_field = PATHS[target]
    try:
        args = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(args, dict):
        return None
    sql = args.get(field)
    if type(sql) is not str:
        return None
    for name in (props_field, "sessionVariables", "requestProperties"):
        value = args.get(name, {})
        if type(value) is not dict or (value and name != "requestProperties"):
            return None
    if args.get("commandSequenceNumber") is not None:
        return None
    migrate = as_bool(resolve("ksql.endpoint.migrate.query", ctx.config.properties, default="true"))
    route = R.route(path, None if accept is None else accept.decode("latin-1"), http_version, is_print=False,
                    migrate=migrate)
    if not isinstance(route, R.Route) or route.handler is not R.Handler.QUERY_STREAM or route.media == PROTOBUF:
        return None
    try:
        run = Q.prepared_run(ctx, sql, {}, {})
    except ServerError:
        return None
    if run is None or run.kind != Q.PULL_TABLE or len(run.rows) > _WHOLE_BODY_ROWS:
        return None
    writer = WRITERS[route.media](run.query_id, run.columns, run.schema)
    parts = [p for p in Q.pull_chunks(run, writer) if p]
    return Answer(route.content_type, parts, chunked=path is R.Path.QUERY_STREAM)


class LookupMiddleware:
    """Answers prepared key lookups before routing (see the module docstring); anything else, and any
    request it declines, reaches the app with its body replayed."""

    answered = 0  # lookups answered here, all instances (for tests and diagnostics)

    def __init__(self, app: ASGIApp, ctx: ServerContext) -> None:
        self.app = app
        self.ctx = ctx

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or scope.get("method") != "POST" or path not in ("/query-stream", "/query"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more and size <= _MAX_BODY:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left before its request was whole (as GateMiddleware does)
            body = message.get("body", b"")
            chunks.append(body)
            size += len(body)
            more = bool(message.get("more_body", False))
        whole = b"".join(chunks)
        found = None
        if not more:
            accept = None
            for name, value in scope.get("headers", ()):
                if name == b"accept":
                    accept = value
                    break
            try:
                found = lookup_body(self.ctx, path.encode(), accept, whole, str(scope.get("http_version", "1.1")))
            except Exception:  # noqa: BLE001 - any surprise: the route answers (and reports) it
                found = None
        if found is None:
            await self.app(scope, replay_body(whole, more, receive), send)
            return
        LookupMiddleware.answered += 1
        media = found.content_type.encode()
        if not found.chunked:
            payload = b"".join(found.parts)
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-length", str(len(payload)).encode()), (b"content-type", media)]})
            await send({"type": "http.response.body", "body": payload})
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", media)]})
        for part in found.parts:
            await send({"type": "http.response.body", "body": part, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})




def enabled(config: Any) -> bool:
    """On unless turned off - or a pull-query limit is set: every pull query then goes through the routes,
    which count it (pull_limits.py)."""
    from ksqlpy.server.pull_limits import SETTINGS, UNLIMITED

    if any(int(config.get(name, UNLIMITED)) < UNLIMITED for name in SETTINGS):
        return False
    return str(config.get(LEAN_PROPERTY, "true")).strip().lower() != "false"
