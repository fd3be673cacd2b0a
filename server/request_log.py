"""The request log: one line per request as ksqlDB's server writes it, filtered and rate-limited as it does.

From memory of ksqlDB's ``LoggingHandler`` (installed first on its Vert.x router, so every request is logged,
whatever answers it: a 404, a CORS refusal, a 401, a 503 while starting) and ``LoggingRateLimiter``. When the
response has ended, the line is::

    <client host> - <user or -> [<RFC 1123 time>] "<METHOD> <uri> <HTTP/1.1|HTTP/2.0>" <status> <body bytes sent> "-" "<User-Agent or ->" <body bytes read>

logged at ERROR for a 5xx, WARN for a 4xx, INFO otherwise. Left out, in this order: a status listed in
``ksql.logging.server.skip.response.codes``; a uri that ``ksql.endpoint.logging.ignored.paths.regex`` matches
whole; a request over the rate (a Guava ``RateLimiter``, permits a second) of its exact path in
``ksql.logging.server.rate.limited.request.paths`` (``path:rate,...``) or of its status in
``ksql.logging.server.rate.limited.response.codes`` (``code:rate,...``) - reported by an INFO line ``Hit rate
limit for path <p> with limit <rate>`` (or ``for response code <c>``) at most once every five seconds. The uri
is the path alone unless ``ksql.endpoint.logging.log.queries`` is true (its query string may hold secrets);
the ignore regex sees the same uri.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ksqlpy.engine.config import as_bool
from ksqlpy.javatext import double_to_string, parse_double
from ksqlpy.server.pull_limits import RateLimiter  # Guava's RateLimiter, as the pull-query limits use it

LOGGER_NAME = "ksqlpy.server.requests"
LOG = logging.getLogger(LOGGER_NAME)

LOG_QUERIES = "ksql.endpoint.logging.log.queries"
IGNORED_PATHS = "ksql.endpoint.logging.ignored.paths.regex"
SKIP_CODES = "ksql.logging.server.skip.response.codes"
RATE_LIMITED_PATHS = "ksql.logging.server.rate.limited.request.paths"
RATE_LIMITED_CODES = "ksql.logging.server.rate.limited.response.codes"
SCOPE_KEY = "ksqlpy.request_log"  # the request's RequestFacts in the ASGI scope (authentication sets the user)
_LIMIT_HIT_RATE = 0.2  # "Hit rate limit ..." at most every five seconds
_VERSIONS = {"1.0": "HTTP/1.0", "1.1": "HTTP/1.1", "2": "HTTP/2.0", "2.0": "HTTP/2.0"}


class RequestLogConfigError(ValueError):
    """A request-log setting that is no valid value: the server does not start (Kafka's ConfigException)."""


def _config_error(name: str, value: Any, message: str) -> RequestLogConfigError:
    return RequestLogConfigError(f"Invalid value {value} for configuration {name}: {message}")


def parse_pairs(name: str, value: str) -> dict[str, str]:
    """ksqlDB's ``KsqlConfig.parseStringAsMap``: Guava's ``Splitter.on(",").trimResults()
    .withKeyValueSeparator(":")`` - every entry exactly one ``key:value``, no key twice."""
    if value == "":
        return {}
    pairs: dict[str, str] = {}
    for entry in (part.strip() for part in value.split(",")):
        fields = entry.split(":")
        if len(fields) != 2:
            reason = f"Chunk [{entry}] is not a valid entry"
        elif fields[0] in pairs:
            reason = f"Duplicate key [{fields[0]}] found."
        else:
            pairs[fields[0]] = fields[1]
            continue
        raise RequestLogConfigError(f"Invalid config value for '{name}'. value: {value}. reason: {reason}")
    return pairs


def _java_double(name: str, text: str) -> float:
    try:
        return parse_double(text)  # Double.parseDouble
    except ValueError:
        raise _config_error(name, text, "Not a double") from None


def _java_int(name: str, text: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", text) or not -2 ** 31 <= int(text) < 2 ** 31:
        raise _config_error(name, text, "Not an int")
    return int(text)


@dataclass
class RequestLogPolicy:
    """The settings that decide which requests are logged (``from_properties``)."""

    log_queries: bool = False
    ignored: re.Pattern[str] | None = None
    skip_codes: frozenset[int] = frozenset()
    path_rates: dict[str, float] = field(default_factory=dict)
    code_rates: dict[int, float] = field(default_factory=dict)

    @classmethod
    def from_properties(cls, props: dict[str, Any]) -> RequestLogPolicy:
        """The server's settings, validated as ksqlDB's config definitions do (a bad one stops the start)."""
        regex = str(props.get(IGNORED_PATHS, "") or "")
        try:
            ignored = re.compile(regex) if regex else None
        except re.error as e:
            raise _config_error(IGNORED_PATHS, regex, f"not a regular expression ({e})") from None
        skip: set[int] = set()
        for part in str(props.get(SKIP_CODES, "") or "").split(","):
            if part.strip():
                skip.add(_java_int(SKIP_CODES, part.strip()))
        paths = {p: _java_double(RATE_LIMITED_PATHS, r)
                 for p, r in parse_pairs(RATE_LIMITED_PATHS, str(props.get(RATE_LIMITED_PATHS, "") or "")).items()}
        codes_text = parse_pairs(RATE_LIMITED_CODES, str(props.get(RATE_LIMITED_CODES, "") or ""))
        codes: dict[int, float] = {}
        for code, rate in codes_text.items():
            codes[_java_int(RATE_LIMITED_CODES, code)] = _java_double(RATE_LIMITED_CODES, rate)
        return cls(as_bool(props.get(LOG_QUERIES, "false")), ignored, frozenset(skip), paths, codes)


@dataclass
class RequestFacts:
    """What one request's line says, filled in as the request is answered."""

    host: str
    method: str
    path: str
    query: str
    version: str
    user_agent: str
    user: str | None = None
    status: int = 0
    sent: int = 0
    read: int = 0


def level_of(status: int) -> int:
    return logging.ERROR if status >= 500 else logging.WARNING if status >= 400 else logging.INFO


class RequestLog:
    """Writes the lines (``record``); rate limiters per configured path and status."""

    def __init__(self, policy: RequestLogPolicy, logger: logging.Logger = LOG,
                 clock: Callable[[], float] = time.monotonic, now: Callable[[], float] = time.time) -> None:
        self.policy = policy
        self.logger = logger
        self._now = now
        self._hit = RateLimiter(_LIMIT_HIT_RATE, clock)
        self._by_path = {p: RateLimiter(r, clock) for p, r in policy.path_rates.items()}
        self._by_code = {c: RateLimiter(r, clock) for c, r in policy.code_rates.items()}
        self._limited = bool(self._by_path or self._by_code)

    def uri(self, facts: RequestFacts) -> str:
        return f"{facts.path}?{facts.query}" if self.policy.log_queries and facts.query else facts.path

    def should_log(self, path: str, status: int) -> bool:
        """``LoggingRateLimiter.shouldLog``: the path's limiter, then the status's."""
        for limiter, what in ((self._by_path.get(path), f"path {path}"),
                              (self._by_code.get(status), f"response code {status}")):
            if limiter is not None and not limiter.try_acquire():
                if self._hit.try_acquire():
                    self.logger.info(f"Hit rate limit for {what} with limit {double_to_string(float(limiter.rate))}")
                return False
        return True

    def wanted(self, status: int) -> bool:
        """Whether a request answered ``status`` may need its line (else nothing would be written and no
        limiter counts it): the cheap test before the line's facts are gathered."""
        return self._limited or self.logger.isEnabledFor(level_of(status))

    def record(self, facts: RequestFacts) -> None:
        status = facts.status
        level = level_of(status)
        if not self.wanted(status):
            return
        if status in self.policy.skip_codes:
            return
        uri = self.uri(facts)
        if self.policy.ignored is not None and self.policy.ignored.fullmatch(uri):
            return
        if not self.should_log(facts.path, status):
            return
        if not self.logger.isEnabledFor(level):
            return
        line = (f'{facts.host} - {facts.user or "-"} [{rfc1123(self._now())}] "{facts.method} {uri} '
                f'{facts.version}" {status} {facts.sent} "-" "{facts.user_agent}" {facts.read}')
        self.logger.log(level, line)


def rfc1123(epoch_s: float) -> str:
    """Java's ``DateTimeFormatter.RFC_1123_DATE_TIME`` in GMT: the day of the month without a leading zero."""
    text = formatdate(epoch_s, usegmt=True)  # 'Sun, 06 Nov 1994 08:49:37 GMT'
    return text[:5] + text[5:7].lstrip("0") + text[7:]


def facts_of(scope: Scope) -> RequestFacts:
    headers = scope.get("headers") or []
    agent = next((v.decode("latin-1") for k, v in headers if k.lower() == b"user-agent"), "-")
    client = scope.get("client")
    query = scope.get("query_string", b"")
    path = scope.get("raw_path")
    path_text = path.decode("latin-1").split("?", 1)[0] if isinstance(path, bytes) else scope.get("path", "")
    return RequestFacts(host=str(client[0]) if client else "null",
                        method="GET" if scope["type"] == "websocket" else str(scope.get("method", "-")),
                        path=path_text, query=query.decode("latin-1") if isinstance(query, bytes) else str(query),
                        version=_VERSIONS.get(str(scope.get("http_version", "")), "-"), user_agent=agent)


def set_user(scope: Scope, user: str) -> None:
    """Authentication names the request's user for its line."""
    facts = scope.get(SCOPE_KEY)
    if facts is not None:
        facts.user = user


class RequestLogMiddleware:
    """Outermost: counts the body bytes each way and records the line when the app is done with the request
    (a WebSocket's when it closes, status 101 once accepted)."""

    def __init__(self, app: ASGIApp, log: RequestLog) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        facts = facts_of(scope)
        scope[SCOPE_KEY] = facts

        async def counted_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                facts.read += len(message.get("body", b""))
            elif message["type"] == "websocket.receive":
                facts.read += len(message.get("bytes") or b"") + len((message.get("text") or "").encode())
            return message

        async def counted_send(message: Message) -> None:
            kind = message["type"]
            if kind in ("http.response.start", "websocket.http.response.start"):
                facts.status = int(message["status"])
            elif kind in ("http.response.body", "websocket.http.response.body"):
                facts.sent += len(message.get("body", b""))
            elif kind == "websocket.accept":
                facts.status = 101
            elif kind == "websocket.send":
                facts.sent += len(message.get("bytes") or b"") + len((message.get("text") or "").encode())
            elif kind == "websocket.close" and not facts.status:
                facts.status = 403  # closed before the handshake: the server refuses it with a 403
            await send(message)

        try:
            await self.app(scope, counted_receive, counted_send)
        except BaseException:
            if not facts.status:
                facts.status = 500
            raise
        finally:
            try:
                self.log.record(facts)
            except Exception:  # noqa: BLE001 - the log must never fail a request
                logging.getLogger("ksqlpy.server").exception("request log")


def lean_body_length(response: bytes) -> int:
    """The body bytes of a response the lean front wrote whole (a Content-Length or chunked one)."""
    head_end = response.find(b"\r\n\r\n") + 4
    head = response[:head_end].lower()
    if b"transfer-encoding: chunked" not in head:
        return len(response) - head_end
    total, i = 0, head_end
    while i < len(response):
        line_end = response.find(b"\r\n", i)
        size = int(response[i:line_end], 16)
        if size == 0:
            break
        total += size
        i = line_end + 2 + size + 2
    return total
