"""One shell session: what to do with each statement the user enters.

Shared by the interactive REPL and the -f/-e/stdin runner, so both behave identically. Like the
ksqlDB CLI, the session keeps SET properties and DEFINE variables itself (properties travel with
every request, ``${var}`` is substituted before sending), runs CLI commands (help, output, spool,
exit...) locally, sends SELECT and PRINT to the streaming path and everything else to ``execute``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from ksqlpy.cli import render
from ksqlpy.cli.backend import Backend, BackendError, ListStream
from ksqlpy.cli.console import Console
from ksqlpy.cli.lexer import (
    KEYWORD,
    code_tokens,
    first_words,
    split_statements,
    statement_complete,
    strip_terminator,
)
from ksqlpy.engine.property_names import immutable_name
from ksqlpy.engine.session_statements import unset_override
from ksqlpy.grammar.variables import define as define_variable
from ksqlpy.grammar.variables import undefine as undefine_variable
from ksqlpy.grammar.variables import undefine_warning

# CLI-local commands: no ';' needed, matched on the first word (none of them starts a SQL statement).
CLI_COMMANDS = ("help", "exit", "quit", "clear", "output", "history", "version", "spool", "server",
                "request-pipelining")
# ``set cli <property> <value>``: how query results are drawn (ksqlDB's CliConfig)
CLI_PROPERTIES = ("WRAP", "COLUMN-WIDTH")


def is_cli_command(text: str) -> bool:
    """Whether ``text`` is one of the shell's own commands (case-insensitive, ';' optional): its first word
    is one (``request-pipelining`` is one word), or it starts ``set cli`` or ``run script``."""
    words = strip_terminator(text).split(None, 2)
    if not words:
        return False
    return words[0].lower() in CLI_COMMANDS or [w.lower() for w in words[:2]] in (["set", "cli"], ["run", "script"])

# ksqlDB's answer to a SELECT or PRINT sent to /ksql (a RUN SCRIPT is one /ksql request).
QUERY_ENDPOINT_MESSAGE = ("The following statement types should be issued to the websocket endpoint '/query':\n"
                          "\t* PRINT\n\t* SELECT")

# Statements that may change what completion should offer.
CATALOG_WORDS = {"CREATE", "DROP", "ALTER", "TERMINATE", "INSERT"}


class ExitShell(Exception):  # noqa: N818 - a control-flow signal, not an error
    """EXIT / QUIT was entered."""


class Session:
    """Executes entries against a backend and prints the results to a console."""

    def __init__(self, backend: Backend, console: Console, *, output: str = render.TABULAR,
                 interactive: bool = False, query_row_limit: int | None = None,
                 query_timeout_ms: int | None = None, history: Callable[[], list[str]] | None = None) -> None:
        self.backend = backend
        self.console = console
        self.output = output
        self.interactive = interactive
        self.query_row_limit = query_row_limit
        self.query_timeout_ms = query_timeout_ms
        self.history = history
        self.properties: dict[str, str] = {}
        self.variables: dict[str, str] = {}
        self.backend_changed: Callable[[Backend], None] | None = None  # told when ``server <url>`` switches
        self.wrap = True  # set cli WRAP ON|OFF
        self.column_width = 0  # set cli COLUMN-WIDTH n (0: fitted to the terminal)

    # ------------------------------------------------------------------ entries
    def run_entry(self, text: str) -> bool:
        """Run every statement of ``text`` in order; stops at the first failure (returns False).
        Raises ExitShell on EXIT. An entry of several statements with a syntax error in any of them runs
        none (``refuse_syntax``)."""
        if self.refuse_syntax(text):
            return False
        batch: list[str] = []
        for piece in split_statements(text):
            if self._server_statement(piece):
                batch.append(piece)
                continue
            if batch and not self._run_batch(text, batch):
                return False
            batch = []
            if not self.run_statement(piece):
                return False
        return not batch or self._run_batch(text, batch)

    @staticmethod
    def _server_statement(piece: str) -> bool:
        """A statement ksqlDB's shell has no handler of its own for: it joins the statements next to it in one
        request (SELECT, PRINT, SET, UNSET, DEFINE, UNDEFINE, SHOW VARIABLES, RUN SCRIPT and the shell's commands
        are handled one by one, sending what was gathered before them first)."""
        if is_cli_command(piece) or not code_tokens(piece):
            return False
        words = first_words(piece, 2)
        if not words or words[0] in ("SELECT", "PRINT", "SET", "UNSET", "DEFINE", "UNDEFINE", "RUN"):
            return False
        return not (words[0] in ("SHOW", "LIST") and words[1:] == ["VARIABLES"])

    def _run_batch(self, text: str, batch: list[str]) -> bool:
        """Consecutive statements sent as ONE request, as ksqlDB's shell gathers them (Cli.handleStatements'
        consecutiveStatements, from memory): the server validates them whole, so a statement that fails there
        - an unknown source, a query past the limit - fails the batch with none of it run. The request is the
        entry's text from the first statement to the last (positions within it as typed)."""
        if len(batch) == 1:
            return self.run_statement(batch[0])
        start = text.find(batch[0])
        end = text.find(batch[-1], start) + len(batch[-1]) if start >= 0 else -1
        joined = text[start:end] if start >= 0 and end >= len(batch[-1]) else "".join(batch)
        ok = self.run_statement(joined)
        if any(first_words(p, 1)[:1] and first_words(p, 1)[0] in CATALOG_WORDS for p in batch[1:]):
            self.backend.catalog_changed()
        return ok

    def refuse_unterminated(self, text: str) -> bool:
        """A script (``-e``, ``--file``, piped input, RUN SCRIPT) whose last statement lacks its ';' is refused
        before anything in it runs, as ksqlDB's shell parses the whole text first and its grammar ends every
        statement with ';' - so the embedded engine answers as a server does. The shell's own commands need
        none. Returns True when refused (the error is shown)."""
        pieces = split_statements(text)
        if not pieces:
            return False
        last = pieces[-1]
        if is_cli_command(last) or statement_complete(last) or not code_tokens(last):
            return False
        from ksqlpy import grammar
        from ksqlpy.errors import KsqlError

        start = max(text.rfind(last), 0)
        padding = "".join(c if c == "\n" else " " for c in text[:start])  # positions count in the whole text
        try:
            grammar.parse(padding + text[start:], None, allow_run_script=False, terminated=True)
        except KsqlError as e:
            head = e.message.split("\nStatement: ")[0]
            self.show_error(BackendError(head, statement=text, line=getattr(e, "line", 0),
                                         column=getattr(e, "column", 0), error_code=40001))
            return True
        return False

    def refuse_syntax(self, text: str) -> bool:
        """ksqlDB's shell parses a whole entry (a line typed, ``-e``, a file) with the grammar before it sends
        or runs any statement of it (Cli.handleStatements over KsqlParser.parse, from memory): a syntax error
        in a later statement refuses the entry before an earlier one runs, placed in the whole text. Only
        the grammar's syntax counts here - what the AST builder or the engine refuses is still the
        statement's own error when it runs, after the ones before it. One statement alone is left to its
        own run (the same error); the shell's own commands are not grammar. Returns True when refused."""
        pieces = [p for p in split_statements(text) if code_tokens(p) and not is_cli_command(p)]
        if len(pieces) < 2:
            return False
        from ksqlpy import grammar
        from ksqlpy.errors import KsqlParseError

        cursor = 0
        for piece in pieces:
            start = text.find(piece, cursor)
            if start < 0:  # not found verbatim: no position to give, the statement's run reports it
                continue
            cursor = start + len(piece)
            padding = "".join(c if c == "\n" else " " for c in text[:start])  # positions in the whole text
            try:
                grammar.parse(padding + piece)
            except KsqlParseError as e:
                if e.prepared or e.located:  # the AST builder's refusal: the statement's own, when it runs
                    continue
                head = e.message.split("\nStatement: ")[0]
                self.show_error(BackendError(head, statement=text, line=e.line, column=e.column,
                                             error_code=40001))
                return True
            except Exception:  # noqa: BLE001 - anything else is the statement's own run to report
                continue
        return False

    def run_statement(self, text: str) -> bool:
        words = first_words(text, 3)
        if not words:
            if not text.strip():
                return True
            # not a statement the shell knows (an empty ';', a number...): the parser words the refusal
            words = [""]
        try:
            if is_cli_command(text):
                first = strip_terminator(text).split()[0].lower()
                if first == "run":
                    return self._run_script(self._substitute(text))
                if first == "set":
                    self._set_cli(text)
                else:
                    self._cli_command(text)
                return True
            text = self._substitute(text)
            head = words[0]
            if head == "SELECT":
                self._run_query(text)
            elif head == "PRINT":
                self._run_print(text)
            elif head == "RUN" and len(words) > 1 and words[1] == "SCRIPT":
                return self._run_script(text)
            elif head == "SET":
                self._set(text)
            elif head == "UNSET":
                self._unset(text)
            elif head == "DEFINE":
                self._define(text)
            elif head == "UNDEFINE":
                self._undefine(text)
            elif head in ("SHOW", "LIST") and len(words) > 1 and words[1] == "VARIABLES":
                self._show_variables(text)
            else:
                self._execute(text, head)
            return True
        except BackendError as e:
            self.show_error(e)
            return False
        except (ExitShell, BrokenPipeError):
            raise
        except KeyboardInterrupt:
            self.console.error("Interrupted.")
            return False
        except Exception:  # an engine bug must not kill the shell
            if os.environ.get("KSQLPY_DEBUG"):
                import traceback

                self.console.error(traceback.format_exc().rstrip())
            # the shell's own failure (the engine's are statement errors already): no Python exception text
            self.show_error(BackendError("Internal error: the shell failed unexpectedly running this statement "
                                         "(set KSQLPY_DEBUG=1 to see the details).", statement=text,
                                         error_code=50000))
            return False

    # ------------------------------------------------------------------ errors
    def show_error(self, e: BackendError) -> None:
        """The entities of the statements that ran before the failing one (a statement_error's), then the
        message in red - ksqlDB's Console.printErrorMessage prints a KsqlStatementErrorMessage's entities
        first (from memory) -; for a syntax error, the offending line with a caret under the column."""
        if e.entities:
            self.show_entities(list(e.entities))
        lines = e.message.rstrip().split("\n")
        for line in lines:
            self.console.error(line)
        if e.line and e.statement:
            src = e.statement.split("\n")
            if 1 <= e.line <= len(src):
                number = f"{e.line} | "
                self.console.error(f"{number}{src[e.line - 1]}")
                self.console.error(" " * (len(number) + max(e.column - 1, 0)) + "^")

    # ------------------------------------------------------------------ statements
    def _substitute(self, text: str) -> str:
        """The shell's variables into ``text`` before it is sent, as the ksql CLI substitutes them: on the
        statement as parsed, so a ``${x}`` where no identifier or literal may stand is a syntax error here.
        A reference left undefined goes to the server as written, which names it."""
        if "${" not in text or not self.variables:
            return text
        if str(self.properties.get("ksql.variable.substitution.enable", "true")).lower() == "false":
            return text
        from ksqlpy.errors import KsqlError
        from ksqlpy.grammar import check_variable_positions, substitute_variables

        try:
            check_variable_positions(text)
        except KsqlError as e:
            raise BackendError(e.message, statement=text, line=getattr(e, "line", 0),
                               column=getattr(e, "column", 0)) from e
        return substitute_variables(text, self.variables)

    def _parse_one(self, text: str) -> Any:
        """Parse a statement the shell handles itself; syntax errors carry line and column."""
        from ksqlpy import grammar
        from ksqlpy.errors import KsqlError

        try:
            return grammar.parse_one(text)
        except KsqlError as e:
            raise BackendError(e.message, statement=text, line=getattr(e, "line", 0),
                               column=getattr(e, "column", 0)) from e

    def _execute(self, text: str, head: str) -> None:
        entities = self.backend.execute(text, self.properties)
        if head in CATALOG_WORDS:
            self.backend.catalog_changed()
        self.show_entities(entities)
        if self.interactive and self.output != render.JSON:
            self._watch_backlog(entities)

    def _watch_backlog(self, entities: list[dict[str, Any]]) -> None:
        """A new persistent query over a backlog: its progress line until it caught up (progress.py)."""
        from ksqlpy.cli import progress

        qid = progress.started_query(entities)
        if qid is None:
            return

        def describe(query_id: str) -> dict[str, Any]:
            for e in self.backend.execute(f"EXPLAIN {query_id};", self.properties):
                if e.get("queryDescription"):
                    return dict(e["queryDescription"])
            return {}

        try:
            progress.watch(qid, describe, lambda text: self.console.print(text, end=""))
        except BackendError:
            return  # the query went away meanwhile: nothing to watch

    def show_entities(self, entities: list[dict[str, Any]]) -> None:
        if self.output == render.JSON:
            if entities:
                self.console.print(render.entities_json(entities))
            return
        for e in entities:
            lines = render.entity_lines(e, self.properties)
            if lines:
                if e.get("@type") != "cli_message":
                    self.console.print()
                for line in lines:
                    self.console.print(line)
            for w in render.entity_warnings(e):
                self.console.warning(f"WARNING: {w}")

    def _set(self, text: str) -> None:
        stmt = self._parse_one(text)
        name, value = stmt.name, stmt.value
        self.backend.validate_property(name)
        from ksqlpy.engine import property_names as N
        from ksqlpy.engine.property_values import check_property
        from ksqlpy.errors import KsqlError

        if not N.recognized(name):
            # the server's /is_valid_property consults only its denylist; ksqlDB's CLI (LocalProperties,
            # a strict ConfigResolver) refuses a name it cannot place
            raise BackendError(N.not_recognizable(name), statement=text)
        try:
            check_property(name, value)  # ksqlDB's CLI refuses such values when they are set
        except KsqlError as e:
            raise BackendError(e.message, statement=text) from None
        resolved = immutable_name(name)  # ksqlpy.engine.property_names
        if resolved is not None:
            raise BackendError(f"Cannot override property '{resolved}'", statement=text)
        old = unset_override(self.properties, name)
        self.properties[name] = value
        # ksqlDB's Cli.setProperty (from memory; ksqldb-rest-cli-sql.md §2): the UNSET hint only on a first SET
        if old is None:
            self.console.print(f"Successfully changed local property '{name}' to '{value}'. Use the UNSET command "
                               "to revert your change.")
        else:
            self.console.print(f"Successfully changed local property '{name}' from '{old}' to '{value}'.")

    def _unset(self, text: str) -> None:
        stmt = self._parse_one(text)
        old = unset_override(self.properties, stmt.name)
        if old is None:
            raise BackendError(f"Cannot unset local property '{stmt.name}' which was never set in the first place",
                               statement=text)
        self.console.print(f"Successfully unset local property '{stmt.name}' (value was '{old}').")

    def _define(self, text: str) -> None:
        stmt = self._parse_one(text)
        define_variable(self.variables, stmt.name, stmt.value)

    def _undefine(self, text: str) -> None:
        stmt = self._parse_one(text)
        if undefine_variable(self.variables, stmt.name) is None:
            self.console.warning(undefine_warning(stmt.name) + ".")  # the ksql CLI ends it with a full stop

    def _show_variables(self, text: str) -> None:
        entity = {"@type": "variables", "statementText": text, "warnings": [],
                  "variables": [{"name": k, "value": v} for k, v in self.variables.items()]}
        self.show_entities([entity])

    def _run_script(self, text: str) -> bool:
        """RUN SCRIPT as ksqlDB's shell runs it: the file's statements go to the server as ONE request, so
        SELECT and PRINT (which belong on the query endpoints) are refused before any statement runs, and a
        SET, UNSET, DEFINE or UNDEFINE in the file lasts for the rest of the file only."""
        arg = (strip_terminator(text).split(None, 2)[2:] or [""])[0].strip()
        if arg[:1] in ("'", '"', ""):  # a quoted path, read as the grammar reads a string ('' escapes)
            arg = self._parse_one(text).path
        path = os.path.expanduser(arg)  # or the rest of the line, as ksqlDB's shell splits its arguments
        try:
            with open(path, encoding="utf-8") as f:
                content = f.read()
        except OSError as e:
            raise BackendError(f"Failed to read file: {path} ({e.strerror or e})", statement=text) from e
        content = self._substitute(content)
        if self.refuse_unterminated(content) or self.refuse_syntax(content):  # parsed whole, as a server does
            return False
        for piece in split_statements(content):
            if first_words(piece, 1)[:1] in (["SELECT"], ["PRINT"]):
                raise BackendError(QUERY_ENDPOINT_MESSAGE, statement=piece.strip(), error_code=40002)
        entities = self.backend.execute(content, self.properties)
        self.backend.catalog_changed()
        self.show_entities(entities)
        return True

    # ------------------------------------------------------------------ queries
    def _is_push(self, text: str) -> bool:
        return any(t.kind == KEYWORD and t.text.upper() == "EMIT" for t in code_tokens(text))

    def _run_query(self, text: str) -> None:
        push = self._is_push(text)
        stream = self.backend.query(text, self.properties)
        self.show_stream(stream, push=push)

    def show_stream(self, stream: Any, *, push: bool) -> None:
        """Print rows as they arrive until the query ends, the row limit, the timeout or Ctrl-C."""
        names, types = stream.column_names, stream.column_types
        complete = isinstance(stream, ListStream)
        as_json = self.output == render.JSON
        grid: render.QueryTable | None = None
        if push and self.interactive:
            self.console.info("Press CTRL-C to interrupt")
        if as_json:
            # ksqlDB's Console prints each StreamedRow as it comes (header, rows, final message)
            self.console.print(render.query_header_json(stream.query_id, names, types, getattr(stream, "schema", None)))
        else:
            sample = stream.data if complete else None
            width = self.console.width(unbounded=10_000 if complete else None)
            grid = render.QueryTable(names, width, sample=sample, column_width=self.column_width, wrap=self.wrap)
            for line in grid.header():
                self.console.print(line)
        count = 0
        interrupted = False
        deadline = (time.monotonic() + self.query_timeout_ms / 1000) if self.query_timeout_ms else None
        try:
            for row in stream.rows():
                if row is not None:
                    count += 1
                    if grid is not None:
                        for line in grid.row(row):
                            self.console.print(line)
                    else:
                        tombstone = getattr(row, "columns", None)
                        self.console.print(render.row_json(row if tombstone is None else tombstone,
                                                           tombstone is not None))
                if self.query_row_limit is not None and count >= self.query_row_limit:
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    break
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if interrupted or stream.final_message is None:
                stream.close()
        # as ksqlDB's shell ends every streamed query, push or pull: the rows with no closing rule, the
        # server's final message as it came ("Limit Reached", "Query Completed"), then "Query terminated"
        if stream.final_message and not interrupted:
            self.console.print(render.final_message_json(stream.final_message) if as_json else stream.final_message)
        self.console.print("Query terminated")

    def _run_print(self, text: str) -> None:
        lines = self.backend.print_topic(text, self.properties)
        if self.interactive:
            self.console.info("Press CTRL-C to interrupt")
        deadline = (time.monotonic() + self.query_timeout_ms / 1000) if self.query_timeout_ms else None
        try:
            for line in lines:
                if line is not None:
                    self.console.print(line)
                if deadline is not None and time.monotonic() >= deadline:
                    break
        except KeyboardInterrupt:
            pass
        finally:
            close = getattr(lines, "close", None)
            if close is not None:
                close()
        self.console.print("Topic printing ceased")

    # ------------------------------------------------------------------ CLI commands
    def _cli_command(self, text: str) -> None:
        parts = strip_terminator(text).split(None, 1)
        cmd = parts[0].lower()
        arg = parts[1].strip() if len(parts) > 1 else ""
        if cmd in ("exit", "quit"):
            raise ExitShell()
        if cmd == "help":
            from ksqlpy.cli.help import HELP

            self.console.print(HELP.rstrip("\n"))
        elif cmd == "version":
            from ksqlpy import __version__

            info = self._server_version()
            self.console.print(f"Version: {__version__}" + (f" (server {info})" if info else ""))
        elif cmd == "clear":
            if self.console.color:
                self.console.out.write("\x1b[2J\x1b[H")
                self.console.out.flush()
        elif cmd == "output":
            if not arg:
                self.console.print(f"Current output format: {self.output}")
            elif arg.upper() in (render.TABULAR, render.JSON):
                self.output = arg.upper()
                self.console.print(f"Output format set to {self.output}")
            else:
                raise BackendError(f"Invalid output format: '{arg}' (valid formats: TABULAR, JSON)")
        elif cmd == "history":
            entries = self.history() if self.history else []
            for i, line in enumerate(entries, 1):
                self.console.print(f"{i:4d}: {line}")
        elif cmd == "spool":
            if not arg:
                where = self.console.spool_path
                self.console.print(f"Spooling to '{where}'." if where else "Not spooling.")
            elif arg.upper() == "OFF":
                self.console.stop_spool()
                self.console.print("Spooling stopped.")
            else:
                path = arg.strip("'\"")
                try:
                    self.console.start_spool(path)
                except OSError as e:
                    raise BackendError(f"Cannot spool to '{path}': {e.strerror or e}") from e
                self.console.print(f"Session will be spooled to '{path}'.")
        elif cmd == "request-pipelining":
            self._request_pipelining(arg)
        elif cmd == "server":
            self._server(arg)

    def _server(self, arg: str) -> None:
        """``server``: where statements go; ``server <url>`` (remote shells): talk to another server from now on,
        once it answers ``/info`` (the shell's SET properties and variables stay; the server's state does not)."""
        if not arg:
            self.console.print(str(self.backend.location))
            return
        switch = getattr(self.backend, "switch", None)
        if switch is None:
            raise BackendError("An embedded shell has no server to switch: restart it with --server URL")
        fresh = switch(arg.strip("'\""))
        try:
            info = fresh.server_info()
        except BackendError:
            fresh.close()
            raise
        old, self.backend = self.backend, fresh
        old.close()
        if self.backend_changed is not None:
            self.backend_changed(fresh)
        self.console.print(f"Server now: {fresh.location}")
        version = info.get("version")
        if version:
            self.console.print(f"Server Status: {info.get('serverStatus', 'RUNNING')}")

    def _request_pipelining(self, arg: str) -> None:
        """Off (the default): each request names the last command it saw, so the server runs it after the
        earlier ones (``commandSequenceNumber``); on: requests are sent without waiting for them."""
        if not arg:
            state = "ON" if getattr(self.backend, "pipelining", False) else "OFF"
            self.console.print(f"Current request-pipelining value: {state}")
            return
        if arg.upper() not in ("ON", "OFF"):
            raise BackendError(f"Invalid request-pipelining setting: {arg}. Valid options are 'ON' and 'OFF'.")
        self.backend.pipelining = arg.upper() == "ON"  # type: ignore[attr-defined]
        self.console.print(f"request-pipelining set to {arg.upper()}")

    def _set_cli(self, text: str) -> None:
        """``set cli WRAP ON|OFF`` and ``set cli COLUMN-WIDTH n`` (0: columns share the terminal's width)."""
        args = strip_terminator(text).split()[2:]
        if len(args) != 2:
            raise BackendError("set cli takes a property and a value: set cli WRAP ON|OFF, "
                               "set cli COLUMN-WIDTH <n>")
        name, value = args[0].upper(), args[1]
        if name == "WRAP":
            if value.upper() not in ("ON", "OFF"):
                raise BackendError(f"Invalid value {value} for configuration WRAP: String must be one of: ON, OFF")
            self.wrap = value.upper() == "ON"
        elif name == "COLUMN-WIDTH":
            try:
                width = int(value)
            except ValueError:
                raise BackendError(f"Invalid value {value} for configuration COLUMN-WIDTH: "
                                   "Not a number of type INT") from None
            if width < 0:
                raise BackendError(f"Invalid value {width} for configuration COLUMN-WIDTH: Value must be at least 0")
            self.column_width = width
        else:
            raise BackendError(f"Undefined property: {args[0]}. Valid properties are: {', '.join(CLI_PROPERTIES)}")

    def _server_version(self) -> str:
        if self.backend.mode != "remote":
            return ""
        try:
            return str(self.backend.server_info().get("version", ""))
        except BackendError:
            return ""


def statement_kind(text: str) -> str:
    """A coarse classification used by tests and the runner: 'cli', 'query', 'print' or 'statement'."""
    words = first_words(text, 1)
    if is_cli_command(text):
        return "cli"
    if not words:
        return "empty"
    return {"SELECT": "query", "PRINT": "print"}.get(words[0], "statement")

