"""GET /ws/query: a query over a WebSocket (reference §1.8).

The request travels URL-encoded in the ``request`` parameter. Frames: the columns as FieldInfo, then one
``{"row":{"columns":[...]}}`` per row; a table's pull query with consistency tokens on ends with
``{"consistencyToken":{"consistencyToken":"..."}}`` and is bounded by the token its ``requestProperties``
bring, as on /query (a store behind it fails the run: 1011). PRINT: one JSON string per record line, as
ksqlDB's PrintPublisher sends them - no ``Key format:``/``Value format:`` lines, and INTERVAL samples the
records before the formats are guessed (printing.PrintSession). A push query over a table leaves
the table's deletes out, as ksqlDB's PushQueryPublisher builds its transient query with excludeTombstones
(its rows are ``StreamedRow.pushRow`` of a value, which a delete lacks): LIMIT counts the rows shown. Every failure after the handshake is a close frame, as ksqlDB's WSQueryEndpoint
closes it (code, reason):

* an invalid ``version`` -> 1003 ``Received invalid api version: <v>``;
* a ``request`` that is not a KsqlRequest -> 1003 ``Error parsing request: <Jackson's detail>``;
* ``commandSequenceNumber`` not reached in time -> 1013 (try again later) with the timeout's message;
* a statement that does not parse -> 1003 ``Error parsing query: <parser's message>``;
* a statement that is not SELECT or PRINT -> 1003 ``Statement type `<ksqlDB class>' not supported for this
  resource`` (the statement's class, where /query names its PreparedStatement wrapper);
* any other refusal of the query (analysis, limits) -> 1003 with its message;
* a failure while rows stream -> 1011; the end of the rows (LIMIT, completion) -> 1000 ``done``;
* the server shutting down while rows stream -> 1001 (going away) with ksqlDB's 50303 message.

Every close the server makes is ksqlDB's ``SessionUtil.closeSilently`` (from memory): first a final text
frame ``{"error":"<the whole message>"}`` - the normal end's ``{"error":"done"}`` too -, then the close frame
with the code and the message as its reason; a reason longer than a close frame allows (123 bytes) is cut
and ends with ``...`` (the final frame keeps it whole). A failure without a message is named
``KSQL exception: <its class>`` (``WebSocketSubscriber.onError``).

Refusals before the handshake (the server-state gate, authentication) are HTTP responses with the error
envelope, as for every other endpoint (gate.py, auth.py).
"""

from __future__ import annotations

import anyio
from fastapi import WebSocket, WebSocketDisconnect

from ksqlpy.server import queries as Q
from ksqlpy.server.context import READY, ServerContext
from ksqlpy.server.entities import schema_info
from ksqlpy.server.errors import COMMAND_QUEUE_CATCHUP_TIMEOUT, ServerError
from ksqlpy.server.models import BodyError, KsqlRequest, parse_body
from ksqlpy.server.properties import check_overrides
from ksqlpy.server.routing import bind_request
from ksqlpy.server.statement_classes import java_class
from ksqlpy.server.streaming import rows_of
from ksqlpy.server.values import dumps

NORMAL = 1000
GOING_AWAY = 1001
INVALID_MESSAGE_TYPE = 1003
INTERNAL_ERROR = 1011
TRY_AGAIN_LATER = 1013
MAX_REASON_BYTES = 123
SHUTTING_DOWN = "The server is shutting down"


def close_reason(message: str) -> str:
    """``message`` as a close frame's reason: at most 123 bytes of UTF-8, cut ones ending in ``...``."""
    if len(message.encode()) <= MAX_REASON_BYTES:
        return message
    cut = message.encode()[:MAX_REASON_BYTES - 3].decode(errors="ignore")
    return cut + "..."


async def close(ws: WebSocket, code: int, message: str) -> None:
    """SessionUtil.closeSilently: the message whole in a final ``{"error": ...}`` frame, then the close frame
    with it as the (cut) reason; a client already gone is ignored."""
    try:
        await ws.send_text(dumps({"error": message}).decode())
        await ws.close(code, close_reason(message))
    except (WebSocketDisconnect, RuntimeError):
        pass


class _Refusal(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _request(ws: WebSocket) -> KsqlRequest:
    version = ws.query_params.get("version")
    if version is not None and version != "1":
        raise _Refusal(INVALID_MESSAGE_TYPE, f"Received invalid api version: {version}")
    raw = ws.query_params.get("request")
    if raw is None:  # Jackson given no text at all
        raise _Refusal(INVALID_MESSAGE_TYPE, 'Error parsing request: argument "content" is null')
    try:
        return parse_body(raw.encode(), KsqlRequest)
    except BodyError as e:
        raise _Refusal(INVALID_MESSAGE_TYPE, f"Error parsing request: {e.detail}") from e


def _start(ctx: ServerContext, req: KsqlRequest) -> Q.QueryRun:
    """Parse, check and start the request's statement (in a worker thread); _Refusal says how to close."""
    try:
        ctx.wait_for_command(req.commandSequenceNumber)
    except ServerError as e:
        if e.error_code == COMMAND_QUEUE_CATCHUP_TIMEOUT:
            raise _Refusal(TRY_AGAIN_LATER, e.message) from e
        raise
    try:
        overrides = check_overrides(req.streamsProperties, ctx.denied)
    except ServerError as e:
        raise _Refusal(INVALID_MESSAGE_TYPE, e.message) from e
    try:  # the first statement, as ksqlDB's WSQueryEndpoint takes it
        stmts = Q.parse_statements(ctx, req.ksql, req.sessionVariables, resource=True, overrides=overrides)
        if not stmts:
            raise ServerError(40001, '"ksql" field must be populated', req.ksql)
        stmt = stmts[0]
    except ServerError as e:
        raise _Refusal(INVALID_MESSAGE_TYPE, f"Error parsing query: {e.message}") from e
    if not Q.is_query(stmt):
        raise _Refusal(INVALID_MESSAGE_TYPE,
                       f"Statement type `{java_class(stmt)}' not supported for this resource")
    try:
        sql = req.ksql if len(stmts) == 1 else stmt.text  # statements after the first are not run
        # ksqlDB's PushQueryPublisher runs the push query with excludeTombstones (its rows are
        # StreamedRow.pushRow of the value; from memory): a table's deletes are left out before LIMIT counts
        return Q.start_query(ctx, sql, req.streamsProperties, req.sessionVariables, resource=True,
                             exclude_tombstones=True)
    except ServerError as e:
        raise _Refusal(INVALID_MESSAGE_TYPE, e.message) from e


async def serve_ws(ctx: ServerContext, ws: WebSocket) -> None:
    await ws.accept()
    run: Q.QueryRun | None = None
    try:
        req = _request(ws)
        bind_request(req.requestProperties)  # a pull query's consistency bound, as on /query
        run = await Q.start(ctx, lambda: _start(ctx, req))
    except _Refusal as e:
        await close(ws, e.code, e.message)
        return
    except ServerError as e:
        await close(ws, INVALID_MESSAGE_TYPE, e.message)
        return
    stopping = False

    def stop() -> bool:
        nonlocal stopping
        stopping = stopping or ctx.state != READY
        return stopping

    try:
        if run.kind == Q.PRINT:
            async for line in run.printer.lines(stop, websocket=True):
                await ws.send_text(dumps(line).decode())
        else:
            fields = dumps([{"name": n, "schema": schema_info(t)} for n, t, _ in run.columns]).decode()
            await ws.send_text(fields)
            if run.kind == Q.PUSH:
                async for row in rows_of(run.tq, stop):  # a table's deletes never come (see _start)
                    frame = dumps({"row": {"columns": run.convert(row)}}).decode()
                    run.sent += len(frame)  # a scalable push query's bytes count (pull_limits.py)
                    await ws.send_text(frame)
                failure = getattr(run.tq, "error", None)
                if failure is not None and not stopping:  # failed while running: the close frame says why
                    await close(ws, INTERNAL_ERROR, failure)
                    return
            else:
                run.sent += len(fields)  # a pull query's bytes, for the bandwidth limit (pull_limits.py)
                for row in run.rows:
                    frame = dumps({"row": {"columns": run.convert(row)}}).decode()
                    run.sent += len(frame)
                    await ws.send_text(frame)
                if run.error is not None:  # failed when it ran: the close frame says why, as any failure
                    await close(ws, INTERNAL_ERROR, run.error)
                    return
                if run.consistency_token is not None:  # StreamedRow.consistencyToken, after the rows
                    await ws.send_text(dumps({"consistencyToken": {"consistencyToken": run.consistency_token}
                                              }).decode())
        if stopping:
            await close(ws, GOING_AWAY, SHUTTING_DOWN)
        else:
            await close(ws, NORMAL, "done")
    except WebSocketDisconnect:
        pass
    except Exception as e:  # noqa: BLE001 - the client learns why through the final frame and the close frame
        message = getattr(e, "message", None) or str(e)
        await close(ws, INTERNAL_ERROR, message if message.strip() else f"KSQL exception: {type(e).__name__}")
    finally:
        with anyio.CancelScope(shield=True):
            await Q.closer(ctx, run)()
