"""Which handler and wire format answer a query request: ksqlDB's route table for ``/query`` and
``/query-stream`` (rules §10.2, reference §1.4/§1.5), as one decision over path x Accept x HTTP version x
statement kind.

``/query-stream`` (``QueryStreamHandler``): delimited when the Accept header asks for it, is ``*/*`` or is
absent; ``application/json`` a single JSON array; ``application/vnd.ksql.v1+json`` the StreamedRow format;
protobuf StreamedRow rows. PRINT only as delimited text (else 406). HTTP/1.1 or HTTP/2 only.

``/query`` has three routes sharing the path, the first compatible one wins:

1. Accept admitting ``application/vnd.ksql.v1+json`` or ``application/json`` - a wildcard (``*/*``,
   ``application/*``) too, as Vert.x matches a route whose ``produces`` the header admits - or none: the
   legacy handler. It serves
   PRINT itself (text lines), and a SELECT too when ``ksql.endpoint.migrate.query`` is false (the legacy
   writer: the StreamedRow format plus a bare newline whenever no row came for a while). Its chunked writer
   is not available over HTTP/2 (405). Otherwise it hands a SELECT on to route 2.
2. Accept delimited (also what ``*/*`` resolves to), v1+json, json or none: ``QueryStreamHandler`` in
   compatibility mode - the StreamedRow format, or the delimited format when asked for.
3. Accept ``application/vnd.ksql.v1+protobuf``: StreamedRow with protobuf rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ksqlpy.server.streaming import DELIMITED, JSON, KSQL_V1_JSON, PROTOBUF, accept_list, choose


class Path(Enum):
    QUERY = "/query"
    QUERY_STREAM = "/query-stream"


class Handler(Enum):
    QUERY_STREAM = "query-stream"  # QueryStreamHandler (directly, or /query's SELECT in compatibility mode)
    LEGACY = "legacy"  # /query's own handler: PRINT, and SELECT with ksql.endpoint.migrate.query=false


@dataclass(frozen=True)
class Route:
    handler: Handler
    media: str  # the writer's format (DELIMITED, JSON, KSQL_V1_JSON or PROTOBUF); PRINT writes text lines
    content_type: str  # the response's Content-Type


@dataclass(frozen=True)
class Refusal:
    status: int
    message: str
    error_code: int | None = None  # with an error envelope; None: a plain-text body


NOT_ACCEPTABLE = Refusal(406, "Not Acceptable")
LEGACY_ON_HTTP2 = Refusal(405, "The /query endpoint is not available using HTTP2", 40500)
OLD_HTTP = Refusal(400, "This endpoint is only available when using HTTP1.1 or HTTP2", 40000)

_QUERY_STREAM_TYPES = [DELIMITED, JSON, KSQL_V1_JSON, PROTOBUF]
_QUERY_TYPES = [KSQL_V1_JSON, JSON, DELIMITED, PROTOBUF]


def accepted(path: Path, accept: str | None) -> str | None:
    """The media type the request gets (None: none it accepts is served). ``*/*`` is the delimited
    format on both paths; no Accept header is delimited on /query-stream and the StreamedRow format on
    /query (its first route)."""
    if not accept_list(accept):
        return DELIMITED if path is Path.QUERY_STREAM else KSQL_V1_JSON
    return choose(accept, _QUERY_STREAM_TYPES if path is Path.QUERY_STREAM else _QUERY_TYPES, DELIMITED)


_FIRST_ROUTE = (KSQL_V1_JSON, JSON, "*/*", "application/*")


def _first_route_matches(accept: str | None) -> bool:
    """Whether /query's first route (produces v1+json and json) takes the request: no Accept header, or
    one admitting either type (wildcards included)."""
    prefs = accept_list(accept)
    return not prefs or any(m in _FIRST_ROUTE for m in prefs)


def route(path: Path, accept: str | None, http_version: str, *, is_print: bool, migrate: bool) -> Route | Refusal:
    """The answer's handler and format for one request (see the module docstring)."""
    media = accepted(path, accept)
    if media is None:
        return NOT_ACCEPTABLE
    if path is Path.QUERY_STREAM:
        if http_version not in ("1.1", "2"):
            return OLD_HTTP
        if is_print:
            return Route(Handler.QUERY_STREAM, DELIMITED, DELIMITED) if media == DELIMITED else NOT_ACCEPTABLE
        return Route(Handler.QUERY_STREAM, media, media)
    first_route = _first_route_matches(accept)
    if first_route and (is_print or not migrate):
        if http_version == "2":
            return LEGACY_ON_HTTP2
        return Route(Handler.LEGACY, KSQL_V1_JSON, JSON if is_print else KSQL_V1_JSON)
    if http_version not in ("1.1", "2"):
        return OLD_HTTP
    if media == JSON:  # compatibility mode writes StreamedRow rows for JSON
        media = KSQL_V1_JSON
    if is_print:
        return Route(Handler.QUERY_STREAM, DELIMITED, DELIMITED) if media == DELIMITED else NOT_ACCEPTABLE
    return Route(Handler.QUERY_STREAM, media, media)
