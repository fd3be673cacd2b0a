"""A distributed statement accepted by this server: validate, write to the command topic, wait for it.

ksqlDB's ``DistributingExecutor``: the statement is checked in a sandbox of the engine once this server
has executed every command already written (so it is checked against what every server will have when
it runs), then written to the command topic; this server's command runner executes it in topic order,
like every other server's does, and its result answers the request. A statement the sandbox refuses is
never written. ``IF NOT EXISTS`` on an existing object is answered without writing anything.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ksqlpy.engine.command_log import command_id, plan_config, prepared_text
from ksqlpy.engine.results import StatementResult
from ksqlpy.engine.sandbox import Sandbox
from ksqlpy.engine.statements import is_unexpected
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import ast as A
from ksqlpy.server.command_rate import take_command_permit
from ksqlpy.server.errors import COMMAND_QUEUE_CATCHUP_TIMEOUT, SERVER_ERROR, ServerError

if TYPE_CHECKING:
    from ksqlpy.server.context import ServerContext

LOG = logging.getLogger("ksqlpy.server")


def catch_up_error(seq: int) -> ServerError:
    return ServerError(COMMAND_QUEUE_CATCHUP_TIMEOUT, "Timed out while waiting for a previous command to "
                       f"execute. command sequence number: {seq}", status=503)


def _sandboxed(ctx: ServerContext, stmt: A.Statement, properties: dict[str, Any]) -> StatementResult | None:
    """The statement run against a sandbox of the engine: its KsqlError is the request's error; None when
    the sandbox could not run it (a gap there must not refuse a statement the engine would run)."""
    engine = ctx.engine
    with engine.lock:
        box = Sandbox(engine)
    try:
        return box.execute_statement(stmt, properties)
    except KsqlError as e:
        if not is_unexpected(e):
            raise
        LOG.warning("validating %s in the sandbox failed unexpectedly; running it", type(stmt).__name__,
                    exc_info=e.__cause__)
        return None
    except Exception:  # noqa: BLE001
        LOG.warning("validating %s in the sandbox failed unexpectedly; running it", type(stmt).__name__,
                    exc_info=True)
        return None


def submit(ctx: ServerContext, stmt: A.Statement, properties: dict[str, Any]) -> tuple[StatementResult, int, str]:
    """Validate, write and execute a distributed statement; returns (result, sequence number, command id).
    Sequence number -1: nothing was written (IF NOT EXISTS on an existing object)."""
    runner, commands = ctx.runner, ctx.commands
    assert runner is not None and commands is not None
    cid = command_id(stmt)
    timeout = ctx.command_timeout_s
    with ctx.ddl_lock:
        end = commands.next_offset() - 1
        if not runner.wait_for(end, timeout):
            raise catch_up_error(end)
        checked = _sandboxed(ctx, stmt, properties)
        if checked is not None and checked.unchanged:
            return checked, -1, cid
        # ksql.server.command.topic.rate.limit: a permit per statement written (command_rate.py)
        take_command_permit(getattr(ctx, "command_rate", None))
        # the statement as the sandbox's injectors left it: what this and every server runs, now and on replay
        stored = prepared_text(stmt, checked)
        seq = commands.append(cid, stored.text, properties, ctx.original_properties, origin=runner.origin,
                              prepared=stored.prepared and checked is not None, plan_config=plan_config(ctx.engine),
                              injected=stored.injected)
        if not runner.wait_for(seq, max(timeout, 60.0)):  # a CREATE ... AS SELECT may take a while to start
            raise catch_up_error(seq)
    outcome = runner.take(seq)
    if outcome is None:
        raise ServerError(SERVER_ERROR, f"The command {cid} at offset {seq} was executed without a result", status=500)
    if outcome.error is not None:
        raise outcome.error
    assert outcome.result is not None
    return outcome.result, seq, cid
