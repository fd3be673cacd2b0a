"""Serving with the lean lookup front (``server/lean.py``): what it answers, and how it sits beside Hypercorn.

``lookup_answer`` decides, for one complete request, whether it is a prepared key lookup the front may
answer, and builds the exact response the ordinary route would send (same status, headers, body bytes;
Hypercorn adds ``date`` and ``server``). Whenever the ordinary route could answer differently - a body it
would reject, request properties or variables, a command sequence number to wait for, a media type the
front does not write, a statement that is not prepared, an error, a server that is not ready - it answers
None and the request is handed to Hypercorn.

``serve_lean`` runs Hypercorn's worker on the TLS and QUIC sockets (none when the front is on) and the
front on the cleartext ones; what the front passes on runs in a Hypercorn ``TCPServer`` per connection
with a worker context of its own, closed in Hypercorn's order on shutdown: stop accepting, close idle
connections, let open responses finish (up to the graceful timeout), then the application's lifespan.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any
from wsgiref.handlers import format_date_time

import orjson

from ksqlpy.server import queries as Q
from ksqlpy.server.config import ServerConfig
from ksqlpy.server.context import ServerContext
from ksqlpy.server.errors import ServerError
from ksqlpy.server.lean import LeanFront, h11_idle
from ksqlpy.server.streaming import DELIMITED, JSON, KSQL_V1_JSON, PROTOBUF, WRITERS, choose

LEAN_PROPERTY = "ksqlpy.server.lean.lookups"
_WHOLE_BODY_ROWS = 1000  # as app._query_response: up to this many rows, one body with its length
# per route: (statement field, properties field, media types offered, default, JSON's stand-in)
_ROUTES = {
    b"/query-stream": ("sql", "properties", [DELIMITED, JSON, KSQL_V1_JSON, PROTOBUF], DELIMITED, JSON),
    b"/query": ("ksql", "streamsProperties", [KSQL_V1_JSON, JSON, DELIMITED, PROTOBUF], DELIMITED, KSQL_V1_JSON),
}


def lean_enabled(config: ServerConfig) -> bool:
    """The front serves plain-HTTP listeners without authentication, unless turned off."""
    on = str(config.get(LEAN_PROPERTY, "true")).strip().lower() != "false"
    return on and config.auth_method == "NONE" and all(lst.scheme == "http" for lst in config.listeners)


class _Date:
    """The ``date`` header Hypercorn sends, formatted once a second."""

    def __init__(self) -> None:
        self.second = -1
        self.text = b""

    def __call__(self) -> bytes:
        now = time.time()
        if int(now) != self.second:
            self.second = int(now)
            self.text = format_date_time(now).encode("ascii")
        return self.text


def lookup_answer(ctx: ServerContext) -> Callable[[bytes, bytes | None, bytes], bytes | None]:
    date = _Date()

    def answer(target: bytes, accept: bytes | None, body: bytes) -> bytes | None:
        if ctx.engine is None:
            return None
        try:
            ctx.check_ready()
        except ServerError:
            return None
        field, props_field, offered, default, json_as = _ROUTES[target]
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
        media = choose(None if accept is None else accept.decode("latin-1"), offered, default)
        if media is None or media == PROTOBUF:
            return None
        if media == JSON:
            media = json_as
        try:
            run = Q.prepared_run(ctx, sql, {}, {})
        except ServerError:
            return None
        if run is None or run.kind != Q.PULL_TABLE or len(run.rows) > _WHOLE_BODY_ROWS:
            return None
        writer = WRITERS[media](run.query_id, run.columns, run.schema)
        payload = b"".join(Q.pull_chunks(run, writer))
        return b"".join((b"HTTP/1.1 200 \r\ncontent-length: ", str(len(payload)).encode(),
                         b"\r\ncontent-type: ", writer.media_type.encode(), b"\r\ndate: ", date(),
                         b"\r\nserver: hypercorn-h11\r\n\r\n", payload))

    return answer


async def serve_lean(app: Any, ctx: ServerContext, config: ServerConfig, hc: Any,
                     shutdown_trigger: Callable[[], Awaitable[None]]) -> None:
    """Hypercorn's worker with the front on the cleartext sockets (see the module docstring)."""
    from hypercorn.asyncio.run import worker_serve
    from hypercorn.asyncio.tcp_server import TCPServer
    from hypercorn.asyncio.worker_context import WorkerContext
    from hypercorn.config import Sockets
    from hypercorn.utils import wrap_app

    loop = asyncio.get_running_loop()
    wrapped = wrap_app(app, hc.wsgi_max_body_size, None)
    sockets = hc.create_sockets()
    context = WorkerContext(None)
    handed: set[asyncio.Task[Any]] = set()
    restarts: set[asyncio.Task[Any]] = set()  # (held: the loop keeps only weak references to tasks)

    def open_inner(transport: asyncio.Transport) -> tuple[asyncio.Protocol, Callable[[], bool], Callable[[], None]]:
        """Hypercorn's side of one connection: a TCPServer reading what the front passes on."""
        reader = asyncio.StreamReader(limit=2 ** 16, loop=loop)
        servers: list[Any] = []
        touched = [loop.time()]

        async def connected(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            if task is not None:
                handed.add(task)
                task.add_done_callback(handed.discard)
            server = TCPServer(wrapped, loop, hc, context, {}, r, w)
            servers.append(server)
            await server

        def idle() -> bool:
            if not servers or reader._buffer:  # noqa: SLF001 - bytes passed on that Hypercorn has not read yet
                return False
            wrapper = getattr(servers[0], "protocol", None)
            return h11_idle(getattr(getattr(wrapper, "protocol", None), "connection", None))

        def used() -> None:
            """A lookup the front answered restarts Hypercorn's keep-alive timeout (at most a few times per
            timeout: it costs a task)."""
            now = loop.time()
            if now - touched[0] < hc.keep_alive_timeout / 8 or not servers:
                return
            touched[0] = now
            server = servers[0]
            group = getattr(server, "_task_group", None)
            if group is not None:
                task = loop.create_task(server.idle_task.restart(group, server._idle_timeout))  # noqa: SLF001
                restarts.add(task)
                task.add_done_callback(restarts.discard)

        protocol = asyncio.StreamReaderProtocol(reader, connected, loop=loop)
        protocol.connection_made(transport)
        return protocol, idle, used

    front = LeanFront(lookup_answer(ctx), open_inner, hc.keep_alive_timeout,
                      config.int("ksql.server.request.max.bytes"))
    app.state.lean_front = front

    async def trigger() -> None:
        await front.start(sockets.insecure_sockets)  # after the lifespan started, as Hypercorn's own
        await shutdown_trigger()
        front.close()
        await context.terminated.set()
        if handed:
            await asyncio.wait(set(handed), timeout=hc.graceful_timeout)

    await worker_serve(wrapped, hc, sockets=Sockets(sockets.secure_sockets, [], sockets.quic_sockets),
                       shutdown_trigger=trigger)
