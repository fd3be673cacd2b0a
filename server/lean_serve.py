"""Serving with the lean lookup front (``server/lean.py``): what it answers, and how it sits beside Hypercorn.

``lookup_answer`` is ``lookups.lookup_body`` (which requests are prepared key lookups, and the route's
answer to them) written as the bytes Hypercorn sends for that answer (it adds ``date`` and ``server``);
None passes the request on to Hypercorn.

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

from ksqlpy.server.config import ServerConfig
from ksqlpy.server.context import ServerContext
from ksqlpy.server.lean import LeanFront, h11_idle
from ksqlpy.server.lookups import enabled, lookup_body


def lean_enabled(config: ServerConfig) -> bool:
    """The front serves plain-HTTP listeners without authentication or CORS, unless turned off."""
    from ksqlpy.server.cors import CorsPolicy

    return (enabled(config) and config.auth_method == "NONE" and CorsPolicy.from_config(config) is None
            and all(lst.scheme == "http" for lst in config.bound_listeners))


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
    """The front's answer: ``lookup_body``'s, as the bytes Hypercorn would write for it."""
    date = _Date()

    def answer(target: bytes, accept: bytes | None, body: bytes) -> bytes | None:
        found = lookup_body(ctx, target, accept, body)
        if found is None:
            return None
        if not found.chunked:
            payload = b"".join(found.parts)
            return b"".join((b"HTTP/1.1 200 \r\ncontent-length: ", str(len(payload)).encode(),
                             b"\r\ncontent-type: ", found.content_type.encode(), b"\r\ndate: ", date(),
                             b"\r\nserver: hypercorn-h11\r\n\r\n", payload))
        # /query-stream: a chunk per part (header, each row, the end), as Hypercorn frames the route's writes
        out = [b"HTTP/1.1 200 \r\ncontent-type: ", found.content_type.encode(), b"\r\ndate: ", date(),
               b"\r\nserver: hypercorn-h11\r\nTransfer-Encoding: chunked\r\n\r\n"]
        for part in found.parts:
            out += (b"%x\r\n" % len(part), part, b"\r\n")
        out.append(b"0\r\n\r\n")
        return b"".join(out)

    return answer


def logged(ctx: ServerContext) -> Callable[[Any, bytes, dict[bytes, bytes], int, bytes], None]:
    """The request log's line for a lookup the front answered (a POST over HTTP/1.1 answered 200), as the
    ASGI middleware writes it for the others."""
    from ksqlpy.server.request_log import RequestFacts, lean_body_length

    def log(peer: Any, target: bytes, headers: dict[bytes, bytes], read: int, response: bytes) -> None:
        if not ctx.request_log.wanted(200):
            return
        agent = headers.get(b"user-agent")
        ctx.request_log.record(RequestFacts(
            host=str(peer[0]) if peer else "null", method="POST", path=target.decode("latin-1"), query="",
            version="HTTP/1.1", user_agent=agent.decode("latin-1") if agent is not None else "-", status=200,
            sent=lean_body_length(response), read=read))

    return log


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
                      config.int("ksql.server.request.max.bytes"), on_answered=logged(ctx))
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
