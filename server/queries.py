"""SELECT and PRINT for /query, /query-stream and /ws/query: start a query, then stream its output.

``start_query`` is synchronous (it runs in a worker thread: parsing, planning and pull queries touch the
engine under its lock); the returned ``QueryRun`` is then streamed asynchronously in any wire format.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ksqlpy.engine.config import as_bool
from ksqlpy.engine.pull import PullExecutionError
from ksqlpy.engine.pull_header import PULL_STREAM, PULL_TABLE, pull_columns, pull_query_id, source_schema
from ksqlpy.engine.results import TombstoneRow
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import ast as A
from ksqlpy.plan.logical import Aggregate, Scan
from ksqlpy.server.context import READY, ServerContext
from ksqlpy.server.errors import (
    MAX_PUSH_QUERIES_EXCEEDED,
    SERVER_ERROR,
    SERVER_SHUTTING_DOWN,
    ServerError,
    bad_request,
    envelope,
    from_ksql_error,
)
from ksqlpy.server.ksql import prepare, session_variables
from ksqlpy.server.properties import check_overrides
from ksqlpy.server.pull_limits import Ticket, admit_scalable_push
from ksqlpy.server.scalable_push import is_scalable
from ksqlpy.server.streaming import (
    DELIMITED,
    JSON,
    Column,
    StreamedRowWriter,
    UnwritableRow,
    Writer,
    batches_of,
)
from ksqlpy.server.values import row_converter

LOG = logging.getLogger(__name__)
PUSH, PRINT = "push", "print"


@dataclass
class QueryRun:
    kind: str
    query_id: str
    columns: list[Column] = field(default_factory=list)
    rows: list[Any] = field(default_factory=list)  # pull queries: the whole result
    tq: Any = None  # push queries: the engine's TransientQuery
    printer: Any = None  # PRINT: a TopicPrinter
    convert: Callable[[Any], list[Any]] = list
    limit: int | None = None  # pull queries: the LIMIT clause
    schema: str | None = None  # the header's schema text, when it is not the columns' (see _source_schema)
    source_hosts: list[str] = field(default_factory=list)  # a cluster's pull query: the hosts that served it
    # a debug request's pull query (``request.ksql.debug.request``): the host (host:port) that served each row,
    # written as the row's ``sourceHost`` in the StreamedRow format, as ksqlDB does
    row_hosts: list[str] | None = None
    # a table's pull query with ksql.query.pull.consistency.token.enabled: the token written after its rows
    consistency_token: str | None = None
    # a table's pull query that failed when it ran (ksqlDB's HARouting, after the header): the message of the
    # 50000 error element written after the header and the rows read before the failure
    error: str | None = None
    # a pull query admitted by the host's pull-query limits (pull_limits.py): ended by ``closer`` with the bytes
    # its response took (``sent``, counted as the parts are written)
    ticket: Ticket | None = None
    sent: int = 0


def _scalable(ctx: ServerContext, stmt: A.SelectStatement, tq: Any, props: dict[str, Any]) -> bool:
    """ksqlDB's rule (``scalable_push.py``) over the query as written; the plan adds what the AST does not
    show (an aggregate without GROUP BY, a table function). The rows are the same either way, but the id,
    and a scalable query leaves out records with a null key."""
    plan = tq.plan
    if plan.find(Aggregate) is not None or not isinstance(plan.bottom, Scan):
        return False
    # a SOURCE table's CST_ query materializes it without a sink (ksqlDB's EngineExecutor.sourceTablePlan
    # plans it with no sink, from memory), so it is not among getQueriesWithSink: not a writer here
    source = plan.bottom.source
    cst = source.created_by_query if getattr(source, "is_source", False) else None
    writers = len([q for q in ctx.engine.catalog.queries_writing(source.name) if q != cst])
    return is_scalable(stmt.query, ctx.config.properties, props, writers)


def _rename(engine: Any, tq: Any, new_id: str) -> None:
    with engine.lock:
        engine.transient.pop(tq.query_id, None)
        tq.query_id = new_id
        if not tq.done:
            engine.transient[new_id] = tq


def _skip_null_keys(engine: Any, tq: Any) -> None:
    """A scalable push query taps the persistent query's output, where ksqlDB ignores records whose key is
    NULL (a conventional push query shows them): drop such source records before the query's pipeline. It
    ignores records whose value is NULL too (ScalablePushRegistry.handleRow, from memory: "we don't currently
    handle null in either field"): a table's deletes - and so a WHERE's rows that stop matching, which a
    conventional push query shows as tombstones - are left out."""
    tq.keep_deletes = False
    n_keys = len(tq.plan.input_source.key_columns)
    if not n_keys:
        return
    with engine.lock:
        for task in tq.tasks:
            task.processor = _NullKeyFilter(task.processor, n_keys)


class _NullKeyFilter:
    """Wraps a push query's processor: records read with a null Kafka key are left out (a key whose
    columns are NULL is still a key)."""

    def __init__(self, inner: Any, n_keys: int) -> None:
        self.inner = inner
        self.n_keys = n_keys

    def process(self, d: Any, tx: Any) -> Any:
        if d.null_keys:
            drop = set(d.null_keys)
            keep = [i for i in range(len(d.rows)) if i not in drop]
            # every other field of a DecodedBatch is a list parallel to its rows, or None (``olds``: not carried)
            d = dataclasses.replace(d, null_keys=[], **{f.name: [getattr(d, f.name)[i] for i in keep]
                                                        for f in dataclasses.fields(d) if f.name != "null_keys"
                                                        and getattr(d, f.name) is not None})
        return self.inner.process(d, tx)

    def __getattr__(self, name: str) -> Any:  # init, flush, after_commit, abort, punctuate... of the wrapped one
        return getattr(self.inner, name)


def max_push_error(ctx: ServerContext) -> ServerError:
    n, limit = ctx.push_count(), ctx.max_push_queries
    return ServerError(MAX_PUSH_QUERIES_EXCEEDED,
                       "Not executing statement(s) as it would cause the number of active, push queries to exceed "
                       "the configured limit. Terminate existing PUSH queries, or increase the "
                       "'ksql.max.push.queries' setting via the 'ksql-server.properties' file. Current push query "
                       f"count: {n}. Configured limit: {limit}.")


PREPARED_STATEMENT_CLASS = "io.confluent.ksql.parser.KsqlParser$PreparedStatement"


def parse_statements(ctx: ServerContext, sql: str, variables: dict[str, Any], *, resource: bool,
                     overrides: dict[str, Any] | None = None) -> list[A.Statement]:
    """A query request's statements, of any kind (DEFINE/UNDEFINE applied and left out). ``resource``:
    /query (and /ws/query), whose empty ``ksql`` is refused before parsing."""
    if resource and not sql.strip():
        raise bad_request('"ksql" field must be populated')
    return [p.stmt for p in prepare(ctx, sql, session_variables(variables), overrides)
            if not isinstance(p.stmt, A.DefineVariable | A.UndefineVariable)]


def is_query(stmt: A.Statement) -> bool:
    return isinstance(stmt, A.SelectStatement | A.PrintTopic)


def parse_one(ctx: ServerContext, sql: str, variables: dict[str, Any], *, resource: bool,
              overrides: dict[str, Any] | None = None) -> A.Statement:
    """The single SELECT/PRINT of a query request. /query (``resource``) looks at its first statement
    first, as ksqlDB's StreamedQueryResource does: one that is no query is refused naming the class of
    its PreparedStatement wrapper (the same text for every kind of statement); the query is then handed
    to the /query-stream handler, which - as for /query-stream itself - wants exactly one statement."""
    stmts = parse_statements(ctx, sql, variables, resource=resource, overrides=overrides)
    if resource and stmts and not is_query(stmts[0]):
        raise bad_request(f"Statement type `{PREPARED_STATEMENT_CLASS}' not supported for this resource")
    if len(stmts) != 1:
        raise ServerError(40001, f"Expected exactly one KSQL statement; found {len(stmts)} instead", sql.strip())
    stmt = stmts[0]
    if not is_query(stmt):
        raise ServerError(40001, "Only SELECT and PRINT statements can be issued to this endpoint", stmt.text)
    return stmt


def prepared_run(ctx: ServerContext, sql: str, properties: dict[str, Any], variables: dict[str, Any]
                 ) -> QueryRun | None:
    """A repeated key lookup answered on the event loop from the engine's prepared lookups, or None.
    It costs a fraction of a millisecond and never waits for the engine lock, while the hop to a worker
    thread and back would cost two hand-overs of the GIL - each up to a switch interval behind a busy
    query."""
    if properties or variables or ctx.engine is None or getattr(ctx, "membership", None) is not None \
            and ctx.membership.remote:  # a cluster routes pull queries (routing.py)
        return None
    from ksqlpy.engine.pull_cache import run_cached

    try:
        hit = run_cached(ctx.engine, sql, unlocked_only=True)
    except KsqlError as e:
        raise from_ksql_error(e, sql.strip()) from e
    if hit is None:
        return None
    run = _pull_run(ctx, hit[1], hit[0].data, None)
    run.ticket = admit_pull(ctx, forwarded(properties))
    return run


def forwarded(properties: dict[str, Any]) -> bool:
    """Did another server of the cluster forward this pull query here (its internal request flags)?"""
    from ksqlpy.server.routing import INTERNAL_REQUEST, SKIP_FORWARDING, split_internal

    internal = split_internal(properties)[1]
    return any(as_bool(internal.get(flag, "false")) for flag in (INTERNAL_REQUEST, SKIP_FORWARDING))


def admit_pull(ctx: ServerContext, forwarded: bool) -> Ticket | None:
    """The host's pull-query limits let one more pull query in, or answer 429 (pull_limits.py); a query
    another server forwarded was counted by the rate and concurrency limits there."""
    limits = getattr(ctx, "pull_limits", None)
    return None if limits is None else limits.admit(forwarded)


def start_query(ctx: ServerContext, sql: str, properties: dict[str, Any], variables: dict[str, Any],
                *, resource: bool = False, check: Callable[[A.Statement, dict[str, Any]], Any] | None = None,
                exclude_tombstones: bool = False) -> QueryRun:
    """Parse, check and start the request's SELECT or PRINT. ``check(statement, overrides)`` runs once
    the statement is known and before anything starts (the route may refuse it). In a cluster a table's
    pull query is answered by the servers holding its partitions (``routing.py``). ``exclude_tombstones``:
    the endpoint's rows have no tombstone form (the WebSocket), so a push query leaves a table's deletes out."""
    from ksqlpy.server.routing import routed_start

    was_forwarded = forwarded(properties)
    tickets: list[Ticket | None] = []

    def admit() -> None:  # once per request: the partitions a routed query then reads here are the same query
        if not tickets:
            tickets.append(admit_pull(ctx, was_forwarded))

    def local(props: dict[str, Any]) -> QueryRun:
        return _start_local(ctx, sql, props, variables, resource=resource, check=check,
                            exclude_tombstones=exclude_tombstones, admit=admit)

    try:
        run = routed_start(ctx, sql, properties, variables, local)
    except BaseException as e:
        for ticket in tickets:
            if ticket is not None:
                ticket.finish()
        if isinstance(e, KsqlError) and not isinstance(e, ServerError):
            raise from_ksql_error(e, sql.strip()) from e
        raise
    if tickets:
        run.ticket = tickets[0]
    return run


def _start_local(ctx: ServerContext, sql: str, properties: dict[str, Any], variables: dict[str, Any],
                 *, resource: bool = False, check: Callable[[A.Statement, dict[str, Any]], Any] | None = None,
                 exclude_tombstones: bool = False, admit: Callable[[], None] = lambda: None) -> QueryRun:
    props = check_overrides(properties, ctx.denied)
    engine = ctx.engine
    if not props and not variables:
        from ksqlpy.engine.pull_cache import run_cached

        try:
            hit = run_cached(engine, sql)  # a repeated key lookup: no parsing, analysis or compiling
        except KsqlError as e:
            raise from_ksql_error(e, sql.strip()) from e
        if hit is not None:
            admit()
            return _pull_run(ctx, hit[1], hit[0].data, None)
    stmt = parse_one(ctx, sql, variables, resource=resource, overrides=props)
    # the route may refuse the statement; what it answers names the response's format
    media = getattr(check(stmt, props), "media", None) if check is not None else None
    if isinstance(stmt, A.PrintTopic):
        from ksqlpy.server.printing import TopicPrinter

        return QueryRun(PRINT, "", printer=TopicPrinter.open(engine, stmt))
    assert isinstance(stmt, A.SelectStatement)
    try:
        if stmt.query.emit is not None:
            if not ctx.push_slots.try_take():  # check and count in one step (admission.py)
                raise max_push_error(ctx)
            ticket = None
            try:
                with engine.lock:  # (re-entrant) no poll of the new query before it is set up as scalable
                    tq = engine.push_query(stmt.text, props)
                    if _scalable(ctx, stmt, tq, props):
                        try:  # the scalable push queries' bandwidth (pull_limits.py)
                            ticket = admit_scalable_push(getattr(ctx, "push_v2_bandwidth", None))
                        except ServerError:
                            tq.close()  # never registered: closed here
                            raise
                        _rename(engine, tq, "SCALABLE_PUSH_QUERY_" + tq.query_id.removeprefix("transient_"))
                        _skip_null_keys(engine, tq)
                    elif media in (DELIMITED, JSON) or exclude_tombstones:
                        # formats without a tombstone row: a table's deletes are left out before the LIMIT
                        # counts rows, as ksqlDB's QueryStreamEndpoint - and the WebSocket's
                        # PushQueryPublisher - build the transient query with excludeTombstones (its queue
                        # never sees them; from memory)
                        tq.keep_deletes = False
            except BaseException:
                ctx.push_slots.give_back()  # it never started
                raise
            ctx.register_push(tq)
            cols = [(n, t, False) for n, t in tq.columns]
            return QueryRun(PUSH, tq.query_id, cols, tq=tq, convert=row_converter([t for _, t, _ in cols]),
                            ticket=ticket)
        from ksqlpy.engine.pull_admission import Refused, admission

        try:
            with admission(admit):  # the engine admits it after the analysis, before the plan runs (ksqlDB's order)
                result = engine.execute_statement(stmt, props)
        except Refused as e:
            raise e.refusal from None  # the limit's 429
    except PullExecutionError as e:
        return dataclasses.replace(
            _pull_run(ctx, stmt.query.source.name, e.data, stmt.query.limit, alias=stmt.query.source.alias),
            error=exhausted_message(sql))
    except KsqlError as e:
        raise from_ksql_error(e, stmt.text) from e
    return _pull_run(ctx, stmt.query.source.name, result.data or {}, stmt.query.limit,
                     alias=stmt.query.source.alias)


def exhausted_message(sql: str) -> str:
    """What a table's pull query that failed when it ran says. ksqlDB's HARouting runs the physical plan on
    the hosts of each partition after the response's header; a host whose run throws (a local run's error
    becomes 'Error executing query locally at node ...', only logged) gives way to the partition's next host,
    and when none is left the query ends with this error, whatever the hosts' errors were (from memory of
    HARouting.executeRounds and groupByHost)."""
    return f"Unable to execute pull query: {sql.strip()}. Exhausted standby hosts to try."


def _pull_run(ctx: ServerContext, source_name: str, data: dict[str, Any], limit: int | None,
              alias: str | None = None) -> QueryRun:
    catalog = ctx.engine.catalog
    kind, cols = pull_columns(catalog, source_name, list(data.get("columns") or []))
    return QueryRun(kind, pull_query_id(kind, alias or source_name), cols, rows=list(data.get("rows") or []),
                    convert=row_converter([t for _, t, _ in cols]), limit=limit,
                    schema=source_schema(catalog, source_name, cols), consistency_token=data.get("consistencyToken"))


SHUTDOWN_MESSAGE = "The server is shutting down"  # ksqlDB's words for its 50303
KEEPALIVE_S = 1.0  # the legacy /query writer's newline when no row came for this long


def row_error(e: Exception) -> dict[str, Any]:
    """The error element that ends a response whose next row its format cannot write (a NULL element of an
    ARRAY in protobuf rows): as any failure in mid-stream, a 50000 ``generic_error``, then the end - the
    rows before it stay, the stream stays well-formed."""
    return envelope(SERVER_ERROR, f"Failed to write a row of the query: {e}")


def _logged(e: Exception) -> Exception:
    """``e``, logged with its trace unless it is a row its format cannot represent (the client's answer)."""
    if not isinstance(e, UnwritableRow):
        LOG.warning("failed to write a row of a query", exc_info=e)
    return e


async def chunks(ctx: ServerContext, run: QueryRun, writer: Writer) -> AsyncIterator[bytes]:
    """The response body of a SELECT in ``writer``'s format: the header, each row, the final message and
    the end each a write of its own (a chunk on HTTP/1.1, a DATA frame on HTTP/2), so a client that reads
    one JSON document per chunk parses every one."""
    head = writer.header(more=run.kind != PULL_TABLE or bool(run.rows) or run.consistency_token is not None
                         or run.error is not None)
    run.sent += len(head)
    yield head
    if run.kind == PUSH:
        tq = run.tq
        if tq.limit is None or tq.limit > 0:
            idle = KEEPALIVE_S if writer.keepalive else None
            async for batch in batches_of(tq, lambda: ctx.state != READY, idle_s=idle):
                if not batch:
                    yield writer.keepalive
                for row in batch:  # a table's delete is a tombstone row (dropped by the delimited formats)
                    try:
                        chunk = writer.row(run.convert(row), tombstone=isinstance(row, TombstoneRow))
                    except Exception as e:  # noqa: BLE001 - UnwritableRow, or any failure to write it (logged)
                        yield writer.error(row_error(_logged(e)))
                        yield writer.end()
                        return
                    run.sent += len(chunk)
                    yield chunk
        failure = getattr(tq, "error", None)
        if failure is not None and ctx.state == READY:  # failed while running: its rows so far, then why
            yield writer.error(envelope(SERVER_ERROR, failure))
        elif tq.limit is not None and tq.emitted >= tq.limit:
            yield writer.final("Limit Reached")
        elif ctx.state != READY:  # ended by the server's shutdown (SIGTERM): the last element says so
            yield writer.final(SHUTDOWN_MESSAGE) or writer.error(envelope(SERVER_SHUTTING_DOWN, SHUTDOWN_MESSAGE))
        yield writer.end()
        return
    for chunk in pull_chunks(run, writer, header=False):
        yield chunk


def pull_chunks(run: QueryRun, writer: Writer, header: bool = True) -> Iterator[bytes]:
    """The parts of a pull query's response: the header, each row, the final message or the consistency
    token, the end; their bytes are added to ``run.sent`` (the bandwidth limit's count)."""
    for part in _pull_parts(run, writer, header):
        run.sent += len(part)
        yield part


def _pull_parts(run: QueryRun, writer: Writer, header: bool) -> Iterator[bytes]:
    final = run.kind == PULL_STREAM  # a table's pull query has no final message
    token = run.consistency_token
    after = final or token is not None or run.error is not None  # an element follows the rows
    if header:
        yield writer.header(more=bool(run.rows) or after)
    convert, row = run.convert, writer.row
    last = len(run.rows) - 1
    hosts = run.row_hosts if isinstance(writer, StreamedRowWriter) else None
    for i, values in enumerate(run.rows):
        try:
            if hosts is not None:
                chunk = writer.row(convert(values), more=after or i < last, source_host=hosts[i])
            else:
                chunk = row(convert(values), more=after or i < last)
        except Exception as e:  # noqa: BLE001 - every element before it ended with its separator: the error closes the array
            yield writer.error(row_error(_logged(e)))
            yield writer.end()
            return
        yield chunk
    if run.error is not None:  # the query failed when it ran: the error ends the response
        yield writer.error(envelope(SERVER_ERROR, run.error))
        yield writer.end()
        return
    if final:
        hit = run.limit is not None and len(run.rows) >= run.limit
        yield writer.final("Limit Reached" if hit else "Query Completed")
    if token is not None:
        yield writer.consistency(token)
    yield writer.end()


async def start(ctx: ServerContext, fn: Callable[[], QueryRun]) -> QueryRun:
    """Run ``start_query`` in a worker thread; if the request is cancelled meanwhile (the client left),
    the query that was started anyway is closed instead of leaking."""
    import anyio

    holder: list[QueryRun] = []

    def work() -> QueryRun:
        holder.append(fn())
        return holder[0]

    try:
        run = await anyio.to_thread.run_sync(work)
        await anyio.lowlevel.checkpoint()  # a cancellation that came while the thread ran lands here
        return run
    except BaseException:
        if holder:
            with anyio.CancelScope(shield=True):
                await closer(ctx, holder[0])()
        raise


def closer(ctx: ServerContext, run: QueryRun | None) -> Callable[[], Any]:
    """What to run when the response ends, however it ends."""
    import anyio

    async def close() -> None:
        if run is None:
            return
        if run.ticket is not None:
            run.ticket.finish(run.sent)
        if run.kind == PUSH:
            await anyio.to_thread.run_sync(ctx.close_push, run.query_id)
        elif run.kind == PRINT and run.printer is not None:
            run.printer.close()

    return close
