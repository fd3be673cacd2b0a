"""Bounds on the server's connections: how many, how long a new one may take to send its request head,
and the file descriptors they need.

Every listener's connections pass through ``GuardedProtocol`` (``install`` wraps the event loop's
``create_server``, so the lean front's and Hypercorn's listeners, cleartext and TLS, are bounded alike):

- ``ksqlpy.server.connections.max``: connections past it are answered ``503`` and closed at once, so a
  flood of idle connections cannot use up the descriptors the listeners and the engine need (a full
  descriptor table made ``accept()`` fail in a loop and the server unreachable). The count is a ``Slots``
  (``admission.py``): taken on accept, given back when the connection is lost. Capped at start-up to
  what the descriptor limit leaves after ``FD_RESERVE`` for the engine's files.
- ``ksqlpy.server.header.timeout.ms``: a new connection that has not sent a complete request head (HTTP/1.1)
  or the HTTP/2 preface by then is closed (slow-header clients hold a connection while sending nothing
  useful).
- ``ksql.idle.connection.timeout.seconds`` (ksqlDB's name): a connection with no request in progress is
  closed after it; Hypercorn's keep-alive timeout and the lean front's (``main.hypercorn_config``).

``raise_fd_limit`` lifts the soft descriptor limit to the hard one at start-up, as the JVM does.

A connection the client closed is closed at once (``close_on_eof``): Hypercorn's TCPServer otherwise waits
for its keep-alive timer before closing its side, and each connection a client had closed held a descriptor
(CLOSE-WAIT) for the whole idle timeout.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections.abc import Callable
from typing import Any

from ksqlpy.server.admission import Slots
from ksqlpy.server.config import ServerConfig

LOG = logging.getLogger("ksqlpy.server")
FD_RESERVE = 256  # descriptors kept for the engine (log and state files), listeners and worker pipes
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_FULL_BODY = (b'{"@type":"generic_error","error_code":50300,"message":"Too many connections: the server is at its '
              b'limit (ksqlpy.server.connections.max)."}')
_FULL = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\n"
         b"content-length: " + str(len(_FULL_BODY)).encode() + b"\r\n\r\n" + _FULL_BODY)


def raise_fd_limit() -> int:
    """Raise the soft limit on open files to the hard limit; the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            LOG.info("raised the open-file limit from %d to %d", soft, hard)
            soft = hard
        except (ValueError, OSError) as e:  # pragma: no cover - a sandbox that forbids it
            LOG.warning("could not raise the open-file limit from %d: %s", soft, e)
    return int(soft) if soft != resource.RLIM_INFINITY else 1 << 20


def connection_limit(config: ServerConfig, fd_limit: int) -> int:
    """``ksqlpy.server.connections.max``, capped to what the descriptor limit leaves."""
    wanted = config.int("ksqlpy.server.connections.max")
    room = max(fd_limit - FD_RESERVE, 16)
    if wanted > room:
        LOG.warning("ksqlpy.server.connections.max=%d is more than the open-file limit (%d) leaves; using %d",
                    wanted, fd_limit, room)
        return room
    return wanted


class ConnectionGuard:
    """What every accepted connection is checked against (one per server)."""

    def __init__(self, max_connections: int, header_timeout_s: float) -> None:
        self.slots = Slots(lambda: max_connections)
        self.header_timeout_s = header_timeout_s
        self.refused = 0
        self.timed_out = 0

    def wrap(self, factory: Callable[[], asyncio.BaseProtocol]) -> Callable[[], asyncio.BaseProtocol]:
        return lambda: GuardedProtocol(self, factory)


class GuardedProtocol(asyncio.Protocol):
    """Sits between a transport and the server's protocol: admission, the header timeout, the count."""

    def __init__(self, guard: ConnectionGuard, factory: Callable[[], asyncio.BaseProtocol]) -> None:
        self.guard = guard
        self.factory = factory
        self.inner: Any = None
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.head = b""  # the first bytes, until a request head is complete

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        if not self.guard.slots.try_take():
            self.guard.refused += 1
            transport.write(_FULL)
            transport.close()
            return
        self.inner = self.factory()
        if self.guard.header_timeout_s > 0:
            self.timer = asyncio.get_running_loop().call_later(self.guard.header_timeout_s, self._too_slow)
        self.inner.connection_made(transport)

    def _too_slow(self) -> None:
        self.timer = None
        self.guard.timed_out += 1
        if self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if self.inner is None:
            return
        if self.timer is not None:
            self.head += data
            if b"\r\n\r\n" in self.head or self.head.startswith(_H2_PREFACE):
                self.timer.cancel()
                self.timer = None
                self.head = b""
            elif len(self.head) > 65536:  # no head end in 64 KiB: Hypercorn refuses it (431); stop looking
                self.head = self.head[-3:]
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.inner is not None:
            self.guard.slots.give_back()
            inner, self.inner = self.inner, None
            inner.connection_lost(exc)


_EOF_PATCHED = False


def close_on_eof() -> None:
    """Patch Hypercorn's ``TCPServer._read_data`` (once): when the client's side ends, stop the keep-alive
    timer, so the connection's task group ends (after any response in progress) and the socket is closed."""
    global _EOF_PATCHED
    if _EOF_PATCHED:
        return
    from hypercorn.asyncio.tcp_server import TCPServer

    original = TCPServer._read_data

    async def read_data(self: Any) -> None:
        await original(self)
        await self.idle_task.stop()

    TCPServer._read_data = read_data  # type: ignore[method-assign]
    _EOF_PATCHED = True


def install(loop: asyncio.AbstractEventLoop, guard: ConnectionGuard) -> None:
    """Every server created on ``loop`` from now on admits its connections through ``guard``; a connection
    closed by its client is closed at once."""
    close_on_eof()
    create_server = loop.create_server

    async def guarded_create_server(protocol_factory: Callable[[], asyncio.BaseProtocol], *args: Any,
                                    **kwargs: Any) -> asyncio.AbstractServer:
        return await create_server(guard.wrap(protocol_factory), *args, **kwargs)

    loop.create_server = guarded_create_server  # type: ignore[method-assign]
