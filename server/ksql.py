"""POST /ksql: parse a request's statements, check them, run them in order, answer with entities.

All statements are parsed (and checked for SELECT/PRINT, which belong on /query) before any runs, so a
syntax error anywhere fails the request with nothing executed. SET/UNSET/DEFINE/UNDEFINE change only the
rest of the request. Distributed statements go through the command topic (``ServerContext.run_distributed``);
the rest are answered locally.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, NoReturn

from ksqlpy import grammar
from ksqlpy.engine.command_log import is_distributed
from ksqlpy.engine.config import as_bool
from ksqlpy.engine.property_names import denied, is_denied
from ksqlpy.engine.query_statements import transient_id
from ksqlpy.engine.results import StatementResult
from ksqlpy.engine.sandbox import validate
from ksqlpy.engine.session_statements import check_override, set_override, unset_override
from ksqlpy.engine.statements import is_unexpected
from ksqlpy.errors import KsqlError, KsqlParseError
from ksqlpy.grammar import ast as A
from ksqlpy.grammar.errors import failing_line, split_statement_suffix
from ksqlpy.grammar.variables import define as define_variable
from ksqlpy.grammar.variables import from_json as variables_from_json
from ksqlpy.grammar.variables import undefine as undefine_variable
from ksqlpy.grammar.variables import undefine_warning
from ksqlpy.server import entities as E
from ksqlpy.server.context import ServerContext
from ksqlpy.server.errors import (
    BAD_REQUEST,
    QUERY_ENDPOINT,
    ServerError,
    from_ksql_error,
)
from ksqlpy.server.models import KsqlRequest
from ksqlpy.server.properties import check_overrides
from ksqlpy.server.response_limits import ResponseBudget

LOG = logging.getLogger("ksqlpy.server")
_REQUEST_LOCAL = (A.SetProperty, A.UnsetProperty, A.DefineVariable, A.UndefineVariable)

QUERY_ENDPOINT_MESSAGE = ("The following statement types should be issued to the websocket endpoint '/query':\n"
                          "\t* PRINT\n\t* SELECT")


@dataclass
class Prepared:
    stmt: A.Statement
    warning: str | None = None  # UNDEFINE of an unknown variable
    variables: dict[str, str] | None = None  # SHOW VARIABLES: the request's variables at that point


def session_variables(raw: dict[str, Any]) -> dict[str, str]:
    """A request's ``sessionVariables`` as the variables its statements see (grammar/variables.py)."""
    return variables_from_json(raw)


SUBSTITUTION = "ksql.variable.substitution.enable"


def prepare(ctx: ServerContext, text: str, variables: dict[str, str], overrides: dict[str, Any] | None = None,
            *, detail_only: bool = False) -> list[Prepared]:
    """Parse every statement, applying DEFINE/UNDEFINE to ``variables`` as later statements see them.

    Whether ``${name}`` is substituted is ``ksql.variable.substitution.enable`` as each statement sees it,
    as ksqlDB's RequestHandler prepares each statement with the session's properties at that point: the
    request's own overrides over the server's, then a SET or UNSET of it earlier in the request.
    A syntax error names the failing line as its statement; ``detail_only`` (``/ksql``) leaves the
    ``Statement:`` line out of the message, as ksqlDB's /ksql does (its query endpoints keep it)."""
    server_enabled = as_bool(ctx.engine.prop(SUBSTITUTION, "true"))
    enabled = as_bool((overrides or {}).get(SUBSTITUTION, server_enabled))
    out: list[Prepared] = []
    # each statement is prepared against the types the request's earlier statements leave registered (ksqlDB
    # prepares it against its sandbox): a CREATE TYPE adds its name, a DROP TYPE removes it
    types = set(ctx.engine.catalog.types())
    try:
        pieces = grammar.split_statements(text)
    except KsqlError as e:
        raise from_ksql_error(e, text) from e
    cursor = 0
    # ksqlDB parses the whole text before it prepares a statement: a statement's preparation failure waits
    # until every later statement's syntax is checked (a syntax error anywhere comes first)
    unprepared: ServerError | None = None
    for piece in pieces:
        start = text.find(piece, cursor)
        cursor = start + len(piece) if start >= 0 else cursor
        # positions count from the start of the request, as ksqlDB parses it whole: the piece is parsed
        # behind blanks standing for the text before it (line breaks kept)
        padding = "".join(c if c == "\n" else " " for c in text[:start]) if start > 0 else ""
        if not piece.endswith(";"):  # the last statement, unterminated: parsed to the end of the text, where
            piece = text[start:]     # the grammar finds its ';' missing (at EOF, after any trailing blanks)
        try:
            if unprepared is not None:  # syntax only from here on (no substitution, no types)
                grammar.parse(padding + piece, None, allow_run_script=False, terminated=True)
                continue
            stmts = grammar.parse(padding + piece, variables if enabled else None, allow_run_script=False,
                                  types=frozenset(types), terminated=True)
        except KsqlParseError as e:
            head, statement = split_statement_suffix(e.message)
            if statement is not None and e.line and not (enabled and variables):
                statement = failing_line(text, e.line)
            statement = statement or piece.strip()
            message = head if detail_only or "\nStatement: " not in e.message else f"{head}\nStatement: {statement}"
            error = ServerError(e.error_code, message, statement)
            if e.prepared or e.located:
                unprepared = unprepared or error
                continue
            raise error from e
        except KsqlError as e:
            if unprepared is not None:
                continue
            raise from_ksql_error(e, piece.strip()) from e
        for stmt in stmts:
            warning = None
            if isinstance(stmt, A.SetProperty) and stmt.name == SUBSTITUTION:
                enabled = as_bool(stmt.value)
            elif isinstance(stmt, A.UnsetProperty) and stmt.name == SUBSTITUTION:
                enabled = server_enabled
            elif isinstance(stmt, A.CreateType):
                types.add(stmt.name)
            elif isinstance(stmt, A.DropType):
                types.discard(stmt.name)
            elif isinstance(stmt, A.DefineVariable):
                define_variable(variables, stmt.name, stmt.value)
            elif isinstance(stmt, A.UndefineVariable) and undefine_variable(variables, stmt.name) is None:
                warning = undefine_warning(stmt.name)
            shown = dict(variables) if isinstance(stmt, A.Show) and stmt.what.upper() == "VARIABLES" else None
            out.append(Prepared(stmt, warning, shown))
    if unprepared is not None:
        raise unprepared
    return out


def _query_descriptions(ctx: ServerContext, stmt: A.Statement) -> StatementResult:
    from ksqlpy.engine.describe import explain_query, push_query_details

    engine = ctx.engine
    with engine.lock:  # every live query, as SHOW QUERIES lists them: the persistent ones, then the push queries
        data = [explain_query(engine, A.Explain(query_id=qid, text=stmt.text)) for qid in list(engine.queries)]
        data += [push_query_details(engine, t) for t in list(engine.transient.values())]
    return StatementResult("query_descriptions", stmt.text, data=data)


def run_statement(ctx: ServerContext, stmt: A.Statement, props: dict[str, Any]) -> dict[str, Any] | None:
    engine = ctx.engine
    try:
        if is_distributed(stmt, frozenset(qid.upper() for qid in list(engine.transient))):
            result, seq, cid = ctx.run_distributed(stmt, props)
            if seq < 0:
                return E.warning_entity(stmt.text, result.message)
            # the statement as the injectors left it (DistributingExecutor: injected.getMaskedStatementText())
            return E.current_status(result.injected_text or stmt.text, cid, seq, result)
        if isinstance(stmt, A.Terminate):  # a transient push query
            found = transient_id(engine, stmt.query_id or "")
            tq = engine.transient.get(found) if found is not None else None
            if tq is not None:
                ctx.close_push(found) or _close(engine, tq)
            # the id as the statement wrote it, as ksqlDB's TerminateQueryEntity carries it
            return E.to_entity(engine, StatementResult("terminate_query", stmt.text, query_id=stmt.query_id),
                               overrides=props, host=ctx.host)
        if isinstance(stmt, A.Show) and stmt.extended and stmt.what.upper() == "QUERIES":
            result = _query_descriptions(ctx, stmt)
        else:
            result = engine.execute_statement(stmt, props)  # SHOW ... EXTENDED: the engine describes
    except KsqlError as e:
        raise statement_error(e, stmt.text) from e
    return E.to_entity(engine, result, overrides=props, host=ctx.host)


def statement_error(e: KsqlError, statement: str | None) -> ServerError:
    """A statement's error as /ksql answers it: a KsqlStatementException's raw details without the
    ``Statement: ...`` line its message ends with on the query endpoints, and the statement that line names
    as ``statementText`` (ksqlDB's KsqlResource: ``Errors.badStatement(e.getRawUnloggedDetails(),
    e.getSqlStatement())``, from memory) - for an expression's error that is the expression."""
    err = from_ksql_error(e, statement)
    if err.statement is not None:
        head, named = split_statement_suffix(err.message)
        if named is not None:
            err.message, err.statement = head, named
    return err


def _close(engine: Any, tq: Any) -> bool:
    with engine.lock:
        tq.close()
    return True


def run_request(ctx: ServerContext, req: KsqlRequest) -> list[dict[str, Any]]:
    """The whole of POST /ksql (runs in a worker thread: the engine is synchronous). The persistent-query
    cap's refusal names the request's whole text as its ``statementText``, whichever statement met it, a
    request's first or its only one (``sandbox.CapacityRefusal``)."""
    from ksqlpy.engine.sandbox import CapacityRefusal

    try:
        return _run_request(ctx, req)
    except ServerError as e:
        if isinstance(e.__cause__, CapacityRefusal):
            e.statement = req.ksql
        raise


def _run_request(ctx: ServerContext, req: KsqlRequest) -> list[dict[str, Any]]:
    ctx.wait_for_command(req.commandSequenceNumber)
    # no emptiness check: as ksqlDB's KsqlResource, a ksql that parses to no statement (empty, blank or only
    # comments) validates and runs nothing and answers 200 [] - "ksql" field must be populated is /query's
    props = check_overrides(req.streamsProperties, ctx.denied)
    prepared = prepare(ctx, req.ksql, session_variables(req.sessionVariables), props, detail_only=True)
    for i, p in enumerate(prepared):
        if isinstance(p.stmt, A.SelectStatement | A.PrintTopic):
            _refuse_query(ctx, [q.stmt for q in prepared[:i]], p.stmt, props)
        if isinstance(p.stmt, A.SetProperty):
            if is_denied(p.stmt.name, ctx.denied):
                raise ServerError(BAD_REQUEST, denied([p.stmt.name]), p.stmt.text)
            try:
                check_override(p.stmt.name, p.stmt.value)
            except KsqlError as e:
                raise from_ksql_error(e, p.stmt.text) from e
    _validate(ctx, [p.stmt for p in prepared], props)
    entities: list[dict[str, Any]] = []
    budget = ResponseBudget(ctx.config.int("ksqlpy.server.response.max.bytes"))  # response_limits.py
    for p in prepared:
        stmt = p.stmt
        if isinstance(stmt, A.SetProperty):
            set_override(props, stmt.name, stmt.value)
            continue
        if isinstance(stmt, A.UnsetProperty):
            unset_override(props, stmt.name)
            continue
        if isinstance(stmt, A.DefineVariable | A.UndefineVariable):
            if p.warning:
                entities.append(E.warning_entity(stmt.text, p.warning))
            continue
        if p.variables is not None:  # the session's variables are the request's (sessionVariables, DEFINE)
            entities.append(E.variables_entity(stmt.text, p.variables))
            continue
        try:
            entity = run_statement(ctx, stmt, props)
        except ServerError as e:
            if entities and e.statement is not None:  # what ran before it is listed with the error
                e.entities = list(entities)
            raise
        if entity is not None:
            budget.add(entity)
            entities.append(entity)
    return entities


def _refuse_query(ctx: ServerContext, before: list[A.Statement], stmt: A.Statement, props: dict[str, Any]) -> NoReturn:
    """A SELECT or PRINT in /ksql is refused (40002, ``QUERY_ENDPOINT_MESSAGE``) where ksqlDB's RequestValidator
    meets it: after the statements before it are validated (their errors first) and after the query is
    prepared - its sanitizer wants every source it names to exist, as the statements before it leave the
    catalog (a table a CREATE TABLE AS earlier in the request makes counts). From memory of ksqlDB's
    RequestValidator.validate (prepare, then the statement's validator: CustomValidators.QUERY_ENDPOINT) and
    AstSanitizer's DataSourceExtractor ('<name> does not exist.')."""
    catalog = ctx.engine.catalog
    if any(not isinstance(s, _REQUEST_LOCAL) for s in before):
        box = _validate(ctx, before, props, always=True)
        if box is not None:
            catalog = box.catalog
    if isinstance(stmt, A.SelectStatement):
        from ksqlpy.engine.pull import check_sources

        try:
            check_sources(catalog, stmt.query)
        except KsqlError as e:
            raise statement_error(e, stmt.text) from e
    raise ServerError(QUERY_ENDPOINT, QUERY_ENDPOINT_MESSAGE, stmt.text)


def _validate(ctx: ServerContext, statements: list[A.Statement], props: dict[str, Any],
              always: bool = False) -> Any:
    """A request of several statements is validated as a whole before any of them runs: in order, against
    one sandbox of the engine that keeps their effects (``engine/sandbox.py``); the first failure fails the
    request. (One statement alone needs no sandbox: running it is its validation - unless ``always``.)
    Returns the sandbox in the state the statements left it, or None (not validated, or not validatable)."""
    runnable = [s for s in statements if not isinstance(s, _REQUEST_LOCAL)]
    if len(runnable) < (1 if always else 2):
        return None
    try:
        return validate(ctx.engine, statements, props,
                        next_offset=ctx.commands.next_offset() if ctx.commands is not None else None)
    except KsqlError as e:
        if is_unexpected(e):
            # the sandbox failed where the engine may not (a bug of the sandbox, logged by dispatch): the
            # request runs, and a statement that really fails says so when it runs. A user error raised from
            # a library's exception (a value no serializer writes) is no bug: it fails the request here.
            LOG.warning("validating a request in the sandbox failed unexpectedly; running it")
            return None
        stmt = getattr(e, "sandbox_statement", None)
        raise statement_error(e, stmt.text if stmt is not None else None) from e
    except Exception:  # noqa: BLE001 - a sandbox gap must not refuse a request that would run
        LOG.warning("validating a request in the sandbox failed unexpectedly; running it", exc_info=True)
        return None
