"""GET /ws/query: a query over a WebSocket (reference §1.8).

The request travels URL-encoded in the ``request`` parameter. Frames: the columns as FieldInfo, then one
``{"row":{"columns":[...]}}`` per row, with ``"tombstone":true`` for a delete of a table result (PRINT: one
JSON string per line). Close codes: 1000 done, 1003 bad statement, 1011 runtime error, 1013
command-sequence timeout.
"""

from __future__ import annotations

from typing import Any

import anyio
from fastapi import WebSocket, WebSocketDisconnect

from ksqlpy.engine.results import TombstoneRow
from ksqlpy.server import queries as Q
from ksqlpy.server.context import READY, ServerContext
from ksqlpy.server.entities import schema_info
from ksqlpy.server.errors import COMMAND_QUEUE_CATCHUP_TIMEOUT, ServerError
from ksqlpy.server.models import KsqlRequest, parse_body
from ksqlpy.server.streaming import rows_of
from ksqlpy.server.values import dumps


async def serve_ws(ctx: ServerContext, ws: WebSocket) -> None:
    await ws.accept()
    version = ws.query_params.get("version")
    if version is not None and version != "1":
        await ws.close(1003, f"Received invalid api version: {version}")
        return
    run: Q.QueryRun | None = None
    try:
        req = parse_body(ws.query_params.get("request", "").encode(), KsqlRequest)
        await anyio.to_thread.run_sync(ctx.wait_for_command, req.commandSequenceNumber)
        run = await Q.start(
            ctx, lambda: Q.start_query(ctx, req.ksql, req.streamsProperties, req.sessionVariables, resource=True))
    except ServerError as e:
        code = 1013 if e.error_code == COMMAND_QUEUE_CATCHUP_TIMEOUT else 1003
        await ws.close(code, e.message[:120])
        return
    try:
        if run.kind == Q.PRINT:
            async for line in run.printer.lines(lambda: ctx.state != READY):
                await ws.send_text(dumps(line).decode())
        else:
            fields = [{"name": n, "schema": schema_info(t)} for n, t, _ in run.columns]
            await ws.send_text(dumps(fields).decode())
            if run.kind == Q.PUSH:
                async for row in rows_of(run.tq, lambda: ctx.state != READY):
                    body: dict[str, Any] = {"columns": run.convert(row)}
                    if isinstance(row, TombstoneRow):  # a delete of a table result, as ksqlDB's StreamedRow
                        body["tombstone"] = True
                    await ws.send_text(dumps({"row": body}).decode())
            else:
                for row in run.rows:
                    await ws.send_text(dumps({"row": {"columns": run.convert(row)}}).decode())
        await ws.close(1000, "done")
    except WebSocketDisconnect:
        pass
    except Exception as e:  # noqa: BLE001 - the client learns why through the close frame
        await ws.close(1011, str(e)[:120])
    finally:
        with anyio.CancelScope(shield=True):
            await Q.closer(ctx, run)()
