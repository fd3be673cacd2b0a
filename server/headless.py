"""Headless mode: ``ksqlpy server --queries-file FILE`` (or ``ksql.queries.file``) runs the statements of one
SQL file at start-up and serves no REST API, as ksqlDB's ``StandaloneExecutor`` does (from memory of ksqlDB's
KsqlServerMain.createExecutable, StandaloneExecutor and ServerOptions).

The rules, in ksqlDB's order:

* the whole file is parsed first (``DEFINE`` applies to the statements after it; a syntax error anywhere
  stops the server before anything runs);
* only the statements that build a fixed set of queries are allowed: ``SET``/``UNSET``, ``DEFINE``/
  ``UNDEFINE``, ``CREATE STREAM``/``TABLE`` (``SOURCE`` ones too), ``CREATE TYPE``, ``CREATE ... AS SELECT``,
  ``INSERT INTO ... SELECT`` and ``INSERT INTO ... VALUES`` - any other is refused, named with its position;
* the file must start at least one persistent query;
* the statements are validated together in a sandbox of the engine, then run in order; a failure stops the
  server (exit status 1) with the statement's error;
* there is no command topic: every start runs the file again, so the queries get the same ids
  (``CSAS_<SINK>_0``, ...) and carry on from their committed positions and state.

The processing log's topic and stream are created first, as ``ksql.logging.processing.*`` say.
"""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any

from ksqlpy.engine.script import prepared_statements
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import ast as A
from ksqlpy.server.config import ServerConfig

LOG = logging.getLogger("ksqlpy.server")

QUERIES_FILE = "ksql.queries.file"

# the statements StandaloneExecutor has a handler for, named as ksqlDB's statement classes are
SUPPORTED: tuple[tuple[type, str], ...] = (
    (A.SetProperty, "SET"), (A.UnsetProperty, "UNSET"), (A.DefineVariable, "DEFINE"),
    (A.UndefineVariable, "UNDEFINE"), (A.CreateSource, "CREATE STREAM / CREATE TABLE"),
    (A.CreateType, "CREATE TYPE"), (A.CreateAsSelect, "CREATE STREAM AS SELECT / CREATE TABLE AS SELECT"),
    (A.InsertInto, "INSERT INTO ... SELECT"), (A.InsertValues, "INSERT INTO ... VALUES"),
)
NO_QUERIES = ("The SQL file does not contain any persistent queries. i.e. it contains no 'INSERT INTO', "
              "'CREATE TABLE x AS SELECT' or 'CREATE STREAM x AS SELECT' style statements.")


class HeadlessError(Exception):
    """The queries file cannot be run: the server stops (exit status 1) with this message."""


def queries_file(config: ServerConfig, option: str | None) -> str | None:
    """The file headless mode runs: the command-line option first, then ``ksql.queries.file``."""
    value = option or str(config.get(QUERIES_FILE) or "").strip()
    return value or None


def _position(text: str, piece_start: int) -> str:
    line = text.count("\n", 0, piece_start) + 1
    col = piece_start - (text.rfind("\n", 0, piece_start) + 1) + 1
    return f"Line: {line}, Col: {col}"


def prepare(text: str, variables: dict[str, str] | None = None) -> list[A.Statement]:
    """Parse the whole file as any script is prepared (``engine.script``: DEFINE/UNDEFINE, CREATE TYPE and
    the substitution switch apply to the statements after them; every statement ends in ';'), holding each
    statement to the kinds headless mode runs before the next is prepared, and check that one of them starts
    a persistent query."""
    supported = tuple(kind for kind, _ in SUPPORTED)
    out: list[A.Statement] = []
    try:
        for stmt, start in prepared_statements(text, variables, terminated=True):
            if not isinstance(stmt, supported):
                kinds = "\n".join(f"\t{name}" for _, name in SUPPORTED)
                raise HeadlessError(f"{_position(text, start)}: Unsupported statement. Only the following "
                                    f"statements are supported in headless mode:\n{kinds}\n"
                                    f"Statement: {stmt.text}")
            out.append(stmt)
    except KsqlError as e:
        raise HeadlessError(str(e)) from e
    if not any(isinstance(s, A.CreateAsSelect | A.InsertInto) for s in out):
        raise HeadlessError(NO_QUERIES)
    return out


def start(engine: Any, config: ServerConfig, text: str) -> list[str]:
    """Run the file on ``engine`` (validated first, as a whole); returns the ids of the queries started."""
    from ksqlpy.engine.processing_log import open_processing_log
    from ksqlpy.engine.sandbox import validate

    open_processing_log(engine, config.properties, config.service_id, engine.execute_statement)
    statements = prepare(text)
    try:
        validate(engine, statements, {})
    except KsqlError as e:
        stmt = getattr(e, "sandbox_statement", None)
        raise HeadlessError(f"{e}\nStatement: {stmt.text.strip()}" if stmt is not None else str(e)) from e
    started: list[str] = []
    for stmt in statements:
        try:
            result = engine.execute_statement(stmt)
        except KsqlError as e:
            raise HeadlessError(f"{e}\nStatement: {stmt.text.strip()}") from e
        if getattr(result, "query_id", None):
            started.append(result.query_id)
    engine.start()
    return started


def run(config: ServerConfig, path: str) -> int:
    """Headless mode for the life of the process: run the file, then the queries until SIGTERM/SIGINT."""
    from ksqlpy.engine import Engine

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise HeadlessError(f"Could not read the queries file '{path}': {e.strerror or e}") from e
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    from ksqlpy.engine.data_lock import DataDirectoryInUse

    try:
        engine = Engine(config.data_dir, config.engine_properties)
    except (DataDirectoryInUse, KsqlError) as e:
        raise HeadlessError(str(e)) from e
    try:
        started = start(engine, config, text)
        print(f"ksqlpy server running headless (no REST API): {path}, queries {', '.join(started)}", flush=True)
        stop.wait()
        LOG.info("shutting down")
    finally:
        engine.close()
    return 0
