"""The command runner: every server of a service id executes the command topic, live and in order.

ksqlDB's distributed statement execution. A server that accepts a distributed statement validates it in
a sandbox of its engine (against every command already in the topic), writes it to the command topic and
waits for its own runner to execute it; the runners of all servers read the same single-partition topic,
so every server runs the same statements in the same order, and query ids (numbered by the command's
offset) are the same everywhere.

Two servers can validate statements concurrently against the same state: the one written second then
fails when it runs (it fails the same way on every server, which records it as an ERROR status) and its
server answers with that error. A command remembers the server that wrote it (``origin``): only that
server carries out a ``DROP ... DELETE TOPIC``'s deletion, the others drop the source alone (the topic
is gone, or another command may have created a new one under the name), as a replay does.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ksqlpy import grammar
from ksqlpy.engine.command_log import COMMAND_VERSION, Command, CommandLog, execute_command
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import ast as A

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine
    from ksqlpy.engine.results import StatementResult

LOG = logging.getLogger("ksqlpy.commands")

POLL_S = 0.1  # how often an idle runner looks for commands written by other servers
_KEEP_RESULTS = 1000  # results kept for the writers that wait for them


@dataclass
class Outcome:
    """What running one command gave: a result or the error it raised."""

    result: StatementResult | None
    error: BaseException | None


Listener = Callable[[Command, "StatementResult | None", "BaseException | None"], None]


class CommandRunner:
    """Reads the command topic from where the start-up replay ended and executes each new command."""

    def __init__(self, engine: Engine, commands: CommandLog, origin: str, on_result: Listener | None = None) -> None:
        self.engine = engine
        self.commands = commands
        self.origin = origin
        self.on_result = on_result
        self.next_offset = 0  # the next command to execute
        self.results: dict[int, Outcome] = {}
        self._cond = threading.Condition()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def replayed_to(self, next_offset: int) -> None:
        """The start-up replay executed everything before ``next_offset``."""
        with self._cond:
            self.next_offset = max(self.next_offset, next_offset)
            self._cond.notify_all()

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="ksqlpy-command-runner", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    @property
    def last_executed(self) -> int:
        """The offset of the last command executed here (-1: none)."""
        return self.next_offset - 1

    # ------------------------------------------------------------------ waiting
    def wait_for(self, offset: int, timeout_s: float) -> bool:
        """Block until the command at ``offset`` has been executed here; False on timeout."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self.next_offset <= offset:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._stop.is_set():
                    return False
                self._wake.set()
                self._cond.wait(min(remaining, POLL_S))
        return True

    def catch_up(self, timeout_s: float) -> bool:
        """Wait until every command in the topic now has been executed here."""
        return self.wait_for(self.commands.next_offset() - 1, timeout_s)

    def take(self, offset: int) -> Outcome | None:
        with self._cond:
            return self.results.pop(offset, None)

    # ------------------------------------------------------------------ the loop
    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                ran = self.run_available()
            except Exception:  # noqa: BLE001 - the runner must survive a broken read
                LOG.exception("reading the command topic failed")
                ran = 0
            if not ran:
                self._wake.wait(POLL_S)
                self._wake.clear()

    def run_available(self) -> int:
        """Execute every command the topic holds past ``next_offset``; returns how many ran."""
        ran = 0
        while not self._stop.is_set():
            batch = self.commands.fetch_from(self.next_offset)
            if not batch:
                return ran
            for cmd in batch:
                if cmd.offset < self.next_offset:
                    continue
                outcome = self._execute(cmd) if cmd.statement else Outcome(None, None)
                with self._cond:
                    if cmd.origin == self.origin:
                        self.results[cmd.offset] = outcome
                        while len(self.results) > _KEEP_RESULTS:
                            self.results.pop(next(iter(self.results)))
                    self.next_offset = cmd.offset + 1
                    self._cond.notify_all()
                ran += 1
        return ran

    def _execute(self, cmd: Command) -> Outcome:
        if cmd.version > COMMAND_VERSION:
            outcome = Outcome(None, KsqlError(f"Command version {cmd.version} is newer than this server's "
                                              f"({COMMAND_VERSION}); skipped"))
        else:
            outcome = run_command(self.engine, cmd, own=cmd.origin == self.origin)
        if self.on_result is not None:
            try:
                self.on_result(cmd, outcome.result, outcome.error)
            except Exception:  # noqa: BLE001
                LOG.exception("recording the status of command %s failed", cmd.command_id)
        if outcome.error is not None and cmd.origin != self.origin:
            LOG.warning("command %s at offset %d failed: %s", cmd.command_id, cmd.offset, outcome.error)
        return outcome


def run_command(engine: Engine, cmd: Command, *, own: bool) -> Outcome:
    """Execute one command as its offset. A command another server wrote drops without deleting topics
    (its server deleted them)."""
    try:
        result = None
        for stmt in grammar.parse(cmd.statement, None):
            if isinstance(stmt, A.Drop) and not own:
                stmt.delete_topic = False
            result = execute_command(engine, stmt, cmd.offset, cmd.streams_properties, cmd.plan_rules,
                                     rerun=not own, prepared=cmd.prepared,
                                     config=cmd.plan_config, injected=cmd.injected)
        return Outcome(result, None)
    except Exception as e:  # noqa: BLE001 - reported as the command's status
        return Outcome(None, e)
