"""The FastAPI application: ksqlDB's REST routes (reference §1) over one ``ServerContext``.

Handlers stay thin: they parse the body, hand the synchronous engine work to a worker thread, and turn
the result into ksqlDB's JSON. Errors anywhere become the ksqlDB error envelope; routes that do not exist
answer 404 with a plain ``Not Found`` body, as ksqlDB's Vert.x router does.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import PlainTextResponse, RedirectResponse, Response

from ksqlpy.engine.config import as_bool, resolve
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import ast as A
from ksqlpy.server import cluster_routes
from ksqlpy.server import queries as Q
from ksqlpy.server import query_routes as R
from ksqlpy.server.auth import BasicAuthMiddleware, allowed_roles, load_user_roles
from ksqlpy.server.body_drain import BodyDrainMiddleware
from ksqlpy.server.config import LOGIN_CONFIG, ServerConfig
from ksqlpy.server.context import READY, ServerContext
from ksqlpy.server.cors import CorsMiddleware, CorsPolicy
from ksqlpy.server.errors import (
    HTTP2_ONLY,
    INTERNAL_ERROR_MESSAGE,
    NOT_FOUND,
    SERVER_ERROR,
    ServerError,
    bad_request,
    envelope,
)
from ksqlpy.server.gate import GateMiddleware, ServerStateMiddleware
from ksqlpy.server.inserts import LineTooLong, RowInserter, acks, line_batches
from ksqlpy.server.internal_listener import check_internal
from ksqlpy.server.jaas import users_file
from ksqlpy.server.ksql import run_request
from ksqlpy.server.lookups import LookupMiddleware
from ksqlpy.server.lookups import enabled as lookups_enabled
from ksqlpy.server.models import (
    CloseQueryArgs,
    HeartbeatMessage,
    InsertsStreamHeader,
    KsqlRequest,
    LagReportingMessage,
    QueryStreamArgs,
    TerminateArgs,
    body_schema,
    parse_body,
)
from ksqlpy.server.produces import ProducesMiddleware
from ksqlpy.server.properties import check_valid_property
from ksqlpy.server.request_log import RequestLogMiddleware
from ksqlpy.server.routing import bind_request, source_hosts_header
from ksqlpy.server.skip_paths import SKIP_PATHS, skip_paths
from ksqlpy.server.streaming import (
    DELIMITED,
    JSON,
    PROTOBUF,
    WRITERS,
    LegacyStreamedRowWriter,
    StreamingBody,
    choose,
)
from ksqlpy.server.trailing_slash import TrailingSlashMiddleware
from ksqlpy.server.values import dumps

LOG = logging.getLogger("ksqlpy.server")
KSQL_VERSION = "0.29.0"  # the ksqlDB REST API version served (clients check it)


class KsqlJSONResponse(Response):
    """JSON via orjson (exact decimals); old-API responses are always ``application/json``."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return dumps(content)


def error_response(e: ServerError) -> Response:
    return KsqlJSONResponse(e.body(), status_code=e.status, headers=e.headers)


async def in_thread(fn: Any, *args: Any) -> Any:
    return await anyio.to_thread.run_sync(fn, *args)


def create_app(config: ServerConfig, ctx: ServerContext | None = None) -> FastAPI:
    ctx = ctx or ServerContext(config)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        threading.Thread(target=ctx.initialize, name="ksqlpy-init", daemon=True).start()
        yield
        ctx.begin_shutdown()
        await in_thread(ctx.close)

    app = FastAPI(title="ksqlpy REST API", version=KSQL_VERSION, lifespan=lifespan, docs_url="/docs",
                  redoc_url=None, description="ksqlDB-compatible REST API served by ksqlpy.",
                  redirect_slashes=False)  # a trailing slash is matched, not redirected (trailing_slash.py)
    app.state.ctx = ctx
    _install_error_handlers(app)
    _routes(app, ctx)
    app.add_middleware(ProducesMiddleware)  # innermost: Vert.x matches a route's produces last
    app.add_middleware(TrailingSlashMiddleware)  # the route's path: one trailing slash is none
    if lookups_enabled(config):  # innermost: after the gate and authentication
        app.add_middleware(LookupMiddleware, ctx=ctx)
    from ksqlpy.server.metrics import install as install_metrics

    # GET /metrics and the request counters: inside the gate and authentication (what they refuse is not
    # counted), around everything that answers, prepared lookups included
    install_metrics(app, ctx)
    app.add_middleware(GateMiddleware, max_bytes=config.int("ksql.server.request.max.bytes"))
    if config.auth_method == "BASIC":
        realm = str(config.get("authentication.realm", "KsqlServer"))
        users, roles = load_user_roles(str(config.get("authentication.users.file")
                                           or users_file(str(config.get(LOGIN_CONFIG)), realm)))
        app.add_middleware(BasicAuthMiddleware, users=users, roles=roles,
                           allowed=allowed_roles(config.get("authentication.roles", "*")),
                           skip=skip_paths(config.get(SKIP_PATHS)),
                           realm=realm)
    # before authentication: ksqlDB's ServerStateHandler comes before AuthHandlers (ServerVerticle.buildRouter)
    app.add_middleware(ServerStateMiddleware, ctx=ctx)
    cors = CorsPolicy.from_config(config)
    if cors is not None:  # before the /chc probes, the gate and authentication, as ksqlDB's CORS handler
        app.add_middleware(CorsMiddleware, policy=cors)
    app.add_middleware(BodyDrainMiddleware)  # whatever answered before reading the body
    # outermost, as ksqlDB's LoggingHandler is the router's first handler: every request's line
    app.add_middleware(RequestLogMiddleware, log=ctx.request_log)
    return app


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServerError)
    async def server_error(request: Request, e: ServerError) -> Response:
        return error_response(e)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, e: RequestValidationError) -> Response:
        return error_response(bad_request(f"Invalid request: {e.errors()}"))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, e: StarletteHTTPException) -> Response:
        if e.status_code == 404:
            return PlainTextResponse("Not Found", status_code=404)
        return PlainTextResponse(str(e.detail), status_code=e.status_code)

    @app.exception_handler(KsqlError)
    async def ksql_error(request: Request, e: KsqlError) -> Response:
        return error_response(ServerError(e.error_code, e.message))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, e: Exception) -> Response:
        LOG.exception("unexpected error on %s", request.url.path)
        return KsqlJSONResponse(envelope(SERVER_ERROR, INTERNAL_ERROR_MESSAGE), status_code=500)


_WHOLE_BODY_ROWS = 1000


def _query_response(ctx: ServerContext, run: Q.QueryRun, route: R.Route, path: R.Path) -> Response:
    if run.kind == Q.PRINT:
        async def text() -> AsyncIterator[bytes]:
            async for line in run.printer.lines(lambda: ctx.state != READY, idle_s=Q.KEEPALIVE_S):
                yield line.encode() + b"\n"  # an empty line: no record for a while (the keepalive)

        return StreamingBody(text(), route.content_type, on_close=Q.closer(ctx, run))
    if route.media == PROTOBUF:
        from ksqlpy.server.protobuf_rows import ProtobufRowWriter

        writer: Any = ProtobufRowWriter(run.query_id, run.columns, run.schema)
        run.convert = list  # the writer encodes the engine's values itself
    elif route.handler is R.Handler.LEGACY:
        writer = LegacyStreamedRowWriter(run.query_id, run.columns, run.schema)
    else:
        writer = WRITERS[route.media](run.query_id, run.columns, run.schema)
    if path is R.Path.QUERY and run.kind == Q.PULL_TABLE and len(run.rows) <= _WHOLE_BODY_ROWS:
        # /query's key lookup: one body with its length (its clients read lines); /query-stream writes
        # the header and each row on their own, as its clients parse one JSON document per chunk
        whole = b"".join(Q.pull_chunks(run, writer))
        if run.ticket is not None:
            run.ticket.finish(run.sent)
        return Response(whole, media_type=route.content_type, headers=source_hosts_header(run))
    body = StreamingBody(Q.chunks(ctx, run, writer), route.content_type, on_close=Q.closer(ctx, run))
    body.headers.update(source_hosts_header(run))
    return body


def _refusal(refusal: R.Refusal) -> Response:
    if refusal.error_code is None:
        return PlainTextResponse(refusal.message, status_code=refusal.status)
    return KsqlJSONResponse(envelope(refusal.error_code, refusal.message), status_code=refusal.status)


class _Refused(Exception):
    def __init__(self, refusal: R.Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


async def _serve_query(ctx: ServerContext, request: Request, path: R.Path, sql: str, properties: dict[str, Any],
                       variables: dict[str, Any]) -> Response:
    """/query and /query-stream: route the request (query_routes.py), start its statement, answer."""
    accept = request.headers.get("accept")
    http = str(request.scope.get("http_version", "1.1"))

    def migrate(overrides: dict[str, Any]) -> bool:
        return as_bool(resolve("ksql.endpoint.migrate.query", ctx.config.properties, overrides, default="true"))

    as_select = R.route(path, accept, http, is_print=False, migrate=migrate(properties))
    if isinstance(as_select, R.Refusal) and as_select is R.NOT_ACCEPTABLE:
        return _refusal(as_select)
    chosen: list[R.Route] = []

    def check(stmt: Any, overrides: dict[str, Any]) -> R.Route:
        found = R.route(path, accept, http, is_print=isinstance(stmt, A.PrintTopic), migrate=migrate(overrides))
        if isinstance(found, R.Refusal):
            raise _Refused(found)
        chosen.append(found)
        return found

    run = None
    if isinstance(as_select, R.Route):
        run = Q.prepared_run(ctx, sql, properties, variables)
        if run is not None:
            chosen.append(as_select)
    if run is None:
        try:
            run = await Q.start(ctx, lambda: Q.start_query(ctx, sql, properties, variables,
                                                           resource=path is R.Path.QUERY, check=check))
        except _Refused as e:
            return _refusal(e.refusal)
        if not chosen:  # a prepared lookup answered inside start_query: a SELECT
            if isinstance(as_select, R.Refusal):
                await Q.closer(ctx, run)()
                return _refusal(as_select)
            chosen.append(as_select)
    return _query_response(ctx, run, chosen[-1], path)


def backfill_statuses(ctx: ServerContext) -> list[dict[str, Any]]:
    service = getattr(ctx.engine, "_backfills", None)
    return service.statuses() if service is not None else []


def _routes(app: FastAPI, ctx: ServerContext) -> None:
    # ------------------------------------------------------------------ probes and info
    @app.get("/chc/ready", tags=["health"])
    @app.get("/chc/live", tags=["health"])
    async def probes() -> Response:
        return KsqlJSONResponse({})

    @app.get("/", include_in_schema=False)
    async def root() -> Response:
        return RedirectResponse("/info", status_code=307)

    @app.get("/info", tags=["info"])
    async def info() -> Response:
        return KsqlJSONResponse({"KsqlServerInfo": {"version": KSQL_VERSION, "kafkaClusterId": ctx.cluster_id,
                                                    "ksqlServiceId": ctx.config.service_id,
                                                    "serverStatus": "DEGRADED" if ctx.replay_errors else "RUNNING"}})

    @app.get("/healthcheck", tags=["info"])
    async def healthcheck() -> Response:
        # ksqlDB's HealthCheckAgent runs three checks - metastore, kafka, commandRunner (from memory) -; a
        # persistent query in ERROR is none of them (SHOW QUERIES and DESCRIBE say it)
        ok = {"isHealthy": True}
        runner_ok = ctx.engine is not None and ctx.state == READY
        return KsqlJSONResponse({"isHealthy": runner_ok,
                                 "details": {"metastore": ok, "kafka": ok, "commandRunner": {"isHealthy": runner_ok}},
                                 "serverState": ctx.state})

    @app.get("/clusterStatus", tags=["info"])
    async def cluster_status() -> Response:
        return KsqlJSONResponse(await in_thread(cluster_routes.cluster_status, ctx))

    @app.get("/v1/metadata", tags=["info"])
    async def metadata() -> Response:
        return KsqlJSONResponse({"version": KSQL_VERSION, "clusterId": _cluster_id(ctx)})

    @app.get("/v1/metadata/id", tags=["info"])
    async def metadata_id() -> Response:
        return KsqlJSONResponse(_cluster_id(ctx))

    @app.get("/is_valid_property/{property}", tags=["info"])
    async def is_valid_property(property: str) -> Response:
        shared = as_bool(resolve("ksql.runtime.feature.shared.enabled", ctx.config.properties, {}, default="false"))
        check_valid_property(property, ctx.denied, shared)
        return KsqlJSONResponse(True)

    @app.get("/status", tags=["status"])
    async def statuses() -> Response:
        return KsqlJSONResponse({"commandStatuses": {k: v["status"] for k, v in list(ctx.statuses.items())}})

    @app.get("/backfills", tags=["status"])
    async def backfills() -> Response:
        """The Spark backfills of this server (docs/backfill.md): per run its phase, per source partition
        its offsets and records read, the rate and ETA."""
        return KsqlJSONResponse({"backfills": await in_thread(backfill_statuses, ctx)})

    @app.get("/backfills/{query_id}", tags=["status"])
    async def backfill(query_id: str) -> Response:
        found = [s for s in await in_thread(backfill_statuses, ctx) if s["queryId"] == query_id.upper()]
        if not found:
            raise ServerError(NOT_FOUND, f"No backfill of query {query_id.upper()} ran on this server")
        return KsqlJSONResponse(found[0])

    @app.get("/status/{type}/{entity}/{action}", tags=["status"])
    async def status(type: str, entity: str, action: str) -> Response:
        found = ctx.statuses.get(f"{type}/{entity}/{action}")
        if found is None:
            raise ServerError(NOT_FOUND, "Command not found")
        return KsqlJSONResponse(found)

    @app.post("/heartbeat", include_in_schema=False)
    async def heartbeat(request: Request) -> Response:
        check_internal(ctx.config, request.scope)
        cluster_routes.take_heartbeat(ctx, parse_body(await request.body(), HeartbeatMessage))
        return KsqlJSONResponse({"isOk": True})

    @app.post("/lag", include_in_schema=False)
    async def lag(request: Request) -> Response:
        check_internal(ctx.config, request.scope)
        cluster_routes.take_lag(ctx, parse_body(await request.body(), LagReportingMessage))
        return KsqlJSONResponse({"isOk": True})  # ksqlDB's LagReportingResponse(true), as /heartbeat's

    # ------------------------------------------------------------------ statements
    @app.post("/ksql", tags=["statements"], openapi_extra=body_schema(KsqlRequest))
    async def ksql(request: Request) -> Response:
        req = parse_body(await request.body(), KsqlRequest)
        return KsqlJSONResponse(await in_thread(run_request, ctx, req))

    @app.post("/ksql/terminate", tags=["statements"], openapi_extra=body_schema(TerminateArgs))
    async def terminate_cluster(request: Request) -> Response:
        args = parse_body(await request.body(), TerminateArgs)  # an empty body too is refused, as any
        patterns = []
        for p in args.deleteTopicList:
            try:
                patterns.append(re.compile(p))
            except re.error as e:  # ksqlDB's KsqlResource: the pattern alone, not the compiler's complaint
                raise bad_request(f"Invalid pattern: {p}") from e
        return KsqlJSONResponse(await in_thread(_terminate_cluster, ctx, patterns))

    # ------------------------------------------------------------------ queries
    @app.post("/query", tags=["queries"], openapi_extra=body_schema(KsqlRequest))
    async def query(request: Request) -> Response:
        req = parse_body(await request.body(), KsqlRequest)
        if req.commandSequenceNumber is not None:
            await in_thread(ctx.wait_for_command, req.commandSequenceNumber)
        bind_request(req.requestProperties)  # a forwarded pull query's flags, a consistency token (routing.py)
        return await _serve_query(ctx, request, R.Path.QUERY, req.ksql, req.streamsProperties, req.sessionVariables)

    @app.post("/query-stream", tags=["queries"], openapi_extra=body_schema(QueryStreamArgs))
    async def query_stream(request: Request) -> Response:
        args = parse_body(await request.body(), QueryStreamArgs)
        bind_request(args.requestProperties)
        return await _serve_query(ctx, request, R.Path.QUERY_STREAM, args.sql, args.properties,
                                  args.sessionVariables)

    @app.post("/close-query", tags=["queries"], openapi_extra=body_schema(CloseQueryArgs))
    async def close_query(request: Request) -> Response:
        args = parse_body(await request.body(), CloseQueryArgs)
        if not await in_thread(ctx.close_push, args.queryId):
            raise bad_request(f"No query with id {args.queryId}")
        return Response(status_code=200)

    @app.post("/inserts-stream", tags=["queries"], openapi_extra=body_schema(InsertsStreamHeader))
    async def inserts_stream(request: Request) -> Response:
        if request.scope.get("http_version") != "2":
            # the body is not read here: see body_drain (a bounded one keeps the connection)
            raise ServerError(HTTP2_ONLY, "This endpoint is only available when using HTTP2")
        media = choose(request.headers.get("accept"), [DELIMITED, JSON], DELIMITED) or DELIMITED
        batches = line_batches(request.stream(), ctx.config.int("ksqlpy.server.inserts.line.max.bytes"))
        try:
            first = await anext(batches, None)
        except LineTooLong as e:
            raise bad_request(str(e)) from None
        if not first:
            raise bad_request("Invalid JSON in request: no insert stream header")
        header = parse_body(first[0], InsertsStreamHeader)
        inserter = await in_thread(RowInserter.open, ctx.engine, header.target)
        return StreamingBody(acks(inserter, first[1:], batches, media == JSON), media, watch_disconnect=False)

    @app.websocket("/ws/query")
    async def ws_query(ws: WebSocket) -> None:
        from ksqlpy.server.websocket import serve_ws

        await serve_ws(ctx, ws)


def _cluster_id(ctx: ServerContext) -> dict[str, Any]:
    """ksqlDB's ServerClusterId: the scope of the Kafka cluster and the ksql cluster (the service id), and an
    ``id`` that is always "" (unused, kept for Confluent's metadata format)."""
    return {"scope": {"path": [], "clusters": {"kafka-cluster": ctx.cluster_id,
                                                 "ksql-cluster": ctx.config.service_id}}, "id": ""}


def _delete_subjects(engine: Any, src: Any) -> None:
    """A deleted sink's schemas go with it, as ksqlDB's ClusterTerminator cleans up sink schemas."""
    from ksqlpy.schema_registry import is_configured, subject
    from ksqlpy.schema_registry.sources import SR_FORMATS

    registry = engine.schema_registry
    if not is_configured(registry) or not hasattr(registry, "delete_subject"):
        return
    for is_key, fmt in ((True, src.key_format), (False, src.value_format)):
        if fmt in SR_FORMATS:
            try:
                registry.delete_subject(subject(src.topic, is_key))
            except Exception:  # noqa: BLE001 - best effort, as ksqlDB's: the cluster terminates regardless
                LOG.warning("could not delete the schema of %s", src.topic, exc_info=True)


def _terminate_cluster(ctx: ServerContext, patterns: list[re.Pattern[str]]) -> list[dict[str, Any]]:
    """TERMINATE CLUSTER: stop every query, delete matching ksql-created sink topics and the command topic."""
    engine = ctx.engine
    if ctx.runner is not None:  # no command runs after it, and the runner would read a deleted topic
        ctx.runner.close()
    with ctx.ddl_lock, engine.lock:
        for qid in list(engine.queries):
            engine.stop_persistent(qid)
        for src in engine.catalog.sources():
            if src.created_by_query and any(p.fullmatch(src.name) or p.fullmatch(src.topic) for p in patterns):
                if engine.log.topic_exists(src.topic):
                    engine.log.delete_topic(src.topic)
                _delete_subjects(engine, src)
        if ctx.commands is not None and engine.log.topic_exists(ctx.commands.topic):
            engine.log.delete_topic(ctx.commands.topic)
        ctx.state = "TERMINATED"
    cid = "cluster/TerminateCluster/terminate"
    return [{"@type": "currentStatus", "statementText": "TERMINATE CLUSTER;", "commandId": cid,
             "commandStatus": {"status": "SUCCESS", "message": "Terminated KSQL cluster", "queryId": None},
             "commandSequenceNumber": -1, "warnings": []}]
