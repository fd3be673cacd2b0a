"""A lean HTTP/1.1 front for prepared key lookups, in front of Hypercorn on cleartext listeners.

Why: a key lookup answered through Hypercorn, h11, Starlette and FastAPI costs ~1 ms of server CPU and
takes several event-loop turns; each turn drops the GIL (``epoll``, ``recv``, ``send``), and while a query
runs in the engine's background thread each drop is a wait of up to a switch interval to get it back. The
front answers a repeated key lookup (``POST /query-stream`` or ``POST /query`` whose statement is a prepared
lookup, ``engine/pull_cache.py``) inside ``data_received``: one turn, one write, the bytes Hypercorn would
have sent for the same request.

Every other request is Hypercorn's. The front owns each connection's transport and cuts the bytes it
reads at request boundaries (``Content-Length``): a request it does not answer itself is passed on to a
Hypercorn ``TCPServer`` for that connection (made on first use), whose reader sees those requests as if
it read them from the socket and whose writer writes to the socket directly. The front answers only while
Hypercorn has nothing in progress on the connection, so responses keep their order. What it cannot cut
safely - HTTP/2 prior knowledge, ``Upgrade``, chunked bodies, a head it does not understand - makes the
connection Hypercorn's for good from that byte on. The front is not used with TLS or authentication.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from typing import Any

import h11

MAX_HEAD = 16 * 1024
MAX_BODY = 64 * 1024
LEAN_TARGETS = (b"/query-stream", b"/query")
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
_RAW = frozenset((b"transfer-encoding", b"upgrade", b"http2-settings"))  # no boundary the front can cut
_NOT_LEAN = frozenset((b"expect", b"te", b"trailer"))

# (target, accept header or None, body) -> the whole response (status line, headers, body) or None
Answer = Callable[[bytes, "bytes | None", bytes], "bytes | None"]
# a transport -> (Hypercorn's protocol for it, whether Hypercorn is idle on it, tell Hypercorn the
# connection was used - its keep-alive timeout starts again)
OpenInner = Callable[[asyncio.Transport], "tuple[asyncio.Protocol, Callable[[], bool], Callable[[], None]]"]
# (the client's address, target, headers, request body length, the response written) after an answer
Answered = Callable[[Any, bytes, "dict[bytes, bytes]", int, bytes], None]


def parse_head(head: bytes) -> tuple[bytes, bytes, dict[bytes, bytes], int] | None:
    """``(method, target, headers by lower-case name, body length)`` of an HTTP/1.1 request head
    (without its blank line) whose end the front can find, or None."""
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or parts[2] != b"HTTP/1.1" or _TOKEN.match(parts[0]) is None:
        return None
    headers: dict[bytes, bytes] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or _TOKEN.match(name) is None or b"\n" in line or b"\r" in line or b"\x00" in line:
            return None
        name = name.lower()
        if name in headers or name in _RAW:
            return None  # a repeated header or a feature only h11 handles
        headers[name] = value.strip(b" \t")
    length = headers.get(b"content-length", b"0")
    if not length.isdigit():
        return None
    return parts[0], parts[1], headers, int(length)


def lean_candidate(method: bytes, target: bytes, headers: dict[bytes, bytes]) -> bool:
    """Whether a request may be a lookup the front answers (the answer function decides the rest)."""
    if method != b"POST" or target not in LEAN_TARGETS or b"host" not in headers:
        return False
    if any(name in headers for name in _NOT_LEAN):
        return False
    connection = headers.get(b"connection")
    return connection is None or connection.lower() == b"keep-alive"


def h11_idle(conn: Any) -> bool:
    """Whether Hypercorn's h11 connection is between requests (nothing read, nothing being answered)."""
    return isinstance(conn, h11.Connection) and conn.our_state is h11.IDLE and conn.their_state is h11.IDLE \
        and not conn.trailing_data[0]


class LeanProtocol(asyncio.Protocol):
    """One client connection (see the module docstring)."""

    def __init__(self, front: LeanFront) -> None:
        self.front = front
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.inner: Any = None  # Hypercorn's StreamReaderProtocol for this connection, once needed
        self.inner_idle: Callable[[], bool] = lambda: True
        self.inner_used: Callable[[], None] = lambda: None
        self.raw = False  # every byte is Hypercorn's from now on
        self.body_left = 0  # bytes of a passed-on request's body still to come
        self.last = time.monotonic()
        self.idle_timer: asyncio.TimerHandle | None = None

    # ---------------------------------------------------------------- transport events
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.front.connections.add(self)
        self.idle_timer = self.front.loop.call_later(self.front.keep_alive_timeout, self._idle)

    def connection_lost(self, exc: Exception | None) -> None:
        self.front.connections.discard(self)
        if self.idle_timer is not None:
            self.idle_timer.cancel()
        if self.inner is not None:
            self.inner.connection_lost(exc)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else False

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def idle(self) -> bool:
        return not self.buffer and not self.body_left and not self.raw and self.inner_idle()

    def _idle(self) -> None:
        """The keep-alive timeout of a connection only the front has served (once Hypercorn shares it,
        Hypercorn's own timeout applies, restarted by the lookups the front answers)."""
        self.idle_timer = None
        if self.inner is not None:
            return
        left = self.front.keep_alive_timeout - (time.monotonic() - self.last)
        if left > 0:
            self.idle_timer = self.front.loop.call_later(left, self._idle)
        elif self.transport is not None:
            self.transport.close()

    # ---------------------------------------------------------------- requests
    def data_received(self, data: bytes) -> None:
        self.last = time.monotonic()
        if self.raw:
            return self.inner.data_received(data)
        if self.body_left:
            part = data[:self.body_left]
            self.body_left -= len(part)
            self._pass_on(part)
            data = data[len(part):]
        buf = self.buffer + data if self.buffer else data
        while buf:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > MAX_HEAD or buf.startswith(b"PRI "):
                    return self._go_raw(buf)
                break
            parsed = parse_head(buf[:end])
            if parsed is None:
                return self._go_raw(buf)
            method, target, headers, length = parsed
            start = end + 4
            if lean_candidate(method, target, headers) and length <= self.front.max_body:
                if len(buf) < start + length:
                    break  # the rest of the body is on its way
                if self.inner_idle() and self._answer(target, headers, buf[start:start + length]):
                    buf = buf[start + length:]
                    continue
            whole = min(len(buf), start + length)
            self._pass_on(buf[:whole])
            self.body_left = start + length - whole
            buf = buf[whole:]
        self.buffer = buf

    def _answer(self, target: bytes, headers: dict[bytes, bytes], body: bytes) -> bool:
        if self.front.closing:
            return False
        try:
            response = self.front.answer(target, headers.get(b"accept"), body)
        except Exception:  # noqa: BLE001 - any surprise: the ordinary path answers (and reports) it
            return False
        if response is None or self.transport is None:
            return False
        self.front.answered += 1  # (counted first: a test reads it as soon as the response arrives)
        self.transport.write(response)
        if self.front.on_answered is not None:
            self.front.on_answered(self.transport.get_extra_info("peername"), target, headers, len(body), response)
        if self.inner is not None:
            self.inner_used()
        return True

    def _pass_on(self, data: bytes) -> None:
        if self.inner is None:
            if self.transport is None or self.transport.is_closing():
                return
            self.inner, self.inner_idle, self.inner_used = self.front.open_inner(self.transport)
            self.front.passed_on += 1
        self.inner.data_received(data)

    def _go_raw(self, buf: bytes) -> None:
        self._pass_on(buf)
        self.buffer = b""
        self.raw = self.inner is not None


class LeanFront:
    """The cleartext listeners' connections (see the module docstring)."""

    def __init__(self, answer: Answer, open_inner: OpenInner, keep_alive_timeout: float, max_body: int,
                 on_answered: Answered | None = None) -> None:
        self.answer = answer
        self.on_answered = on_answered  # the request log's line for a lookup the front answered
        self.open_inner = open_inner
        self.keep_alive_timeout = keep_alive_timeout
        self.max_body = min(max_body, MAX_BODY)
        self.loop = asyncio.get_running_loop()
        self.connections: set[LeanProtocol] = set()
        self.servers: list[asyncio.base_events.Server] = []
        self.closing = False
        self.answered = 0  # requests answered by the front, connections that also needed Hypercorn
        self.passed_on = 0

    async def start(self, sockets: list[Any]) -> None:
        for sock in sockets:
            self.servers.append(await self.loop.create_server(lambda: LeanProtocol(self), sock=sock))

    def close(self) -> None:
        """Stop accepting and close the idle connections; Hypercorn closes its busy ones when they are done
        (its worker context's ``terminated``)."""
        self.closing = True
        for server in self.servers:
            server.close()
        for conn in list(self.connections):
            if conn.transport is not None and conn.idle():
                conn.transport.close()
