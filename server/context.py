"""One server's state: its engine, command topic, command statuses, push queries and lifecycle.

Start-up (``initialize``) runs in a thread while the HTTP listener already answers 503/50302: open the
engine, replay the command topic (catalog, query ids, positions and state come back), create the
processing log topic and stream, start the engine's background runner, then READY.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable
from typing import Any

from ksqlpy.engine.command_log import Command, CommandLog, replay
from ksqlpy.engine.command_runner import CommandRunner
from ksqlpy.engine.results import StatementResult
from ksqlpy.errors import KsqlError
from ksqlpy.server import plog
from ksqlpy.server.config import ServerConfig
from ksqlpy.server.errors import (
    SERVER_NOT_READY,
    SERVER_SHUT_DOWN,
    SERVER_SHUTTING_DOWN,
    ServerError,
)
from ksqlpy.server.properties import denylist

LOG = logging.getLogger("ksqlpy.server")

INITIALIZING, READY, TERMINATING, TERMINATED = "INITIALIZING", "READY", "TERMINATING", "TERMINATED"


class ServerContext:
    def __init__(self, config: ServerConfig, engine: Any = None) -> None:
        self.config = config
        self.state = INITIALIZING
        self.engine: Any = engine
        self.commands: CommandLog | None = None
        self.runner: CommandRunner | None = None  # executes the command topic live (command_runner.py)
        self.membership: Any = None  # the cluster's hosts and partitions (membership.py)
        self.instance = uuid.uuid4().hex  # this server process, as the origin of the commands it writes
        self.statuses: dict[str, dict[str, Any]] = {}
        self.ddl_lock = threading.Lock()
        self.push_lock = threading.Lock()
        self.push_queries: dict[str, Any] = {}
        from ksqlpy.server.admission import Slots

        # a slot per push query, taken before it starts (admission.py); given back by close_push
        self.push_slots = Slots(lambda: self.max_push_queries)
        from ksqlpy.server.command_rate import command_rate_limiter
        from ksqlpy.server.pull_limits import PullLimits, push_bandwidth

        self.pull_limits = PullLimits.from_config(config)  # ksql.query.pull.max.qps and friends
        self.push_v2_bandwidth = push_bandwidth(config)  # ksql.query.push.v2.max.hourly.bandwidth.megabytes
        self.command_rate = command_rate_limiter(config)  # ksql.server.command.topic.rate.limit
        from ksqlpy.server.request_log import RequestLog, RequestLogPolicy

        # one line per request, as ksqlDB's LoggingHandler (the ASGI middleware and the lean front write it)
        self.request_log = RequestLog(RequestLogPolicy.from_properties(config.properties))
        self.plog_sink: plog.TopicSink | None = None
        self.init_error: str | None = None
        self.replay_errors: list[str] = []
        self.ready = threading.Event()
        self.on_fatal: Callable[[str], None] | None = None  # main: stop the process when start-up fails
        # main: the process serves one engine for its life - its long-lived objects are frozen out of the
        # cyclic GC (runtime/heap_freeze.py); not in-process servers (tests), which open many engines
        self.freeze_heap = False
        self.cluster_id = uuid.uuid5(uuid.NAMESPACE_URL, f"ksqlpy:{config.service_id}").hex[:22]
        # this host as the cluster names it: the internal listener when set (membership.advertised_listener)
        listener = config.internal_listener or config.listeners[0]
        host = "localhost" if listener.host in ("0.0.0.0", "::") else listener.host
        self.host = f"{host}:{listener.port}"
        self.denied = denylist(config.get("ksql.properties.overrides.denylist"))

    # ------------------------------------------------------------------ settings
    @property
    def max_push_queries(self) -> int:
        return self.config.int("ksql.max.push.queries")

    @property
    def command_timeout_s(self) -> float:
        return self.config.int("ksql.server.command.response.timeout.ms") / 1000.0

    @property
    def original_properties(self) -> dict[str, Any]:
        return {k: v for k, v in self.config.engine_properties.items() if k.startswith("ksql.")}

    # ------------------------------------------------------------------ lifecycle
    def initialize(self) -> None:
        """Open the engine and restore from the command topic; never raises (errors leave it not ready)."""
        try:
            self._initialize()
        except Exception as e:  # noqa: BLE001
            LOG.exception("server initialization failed")
            self.init_error = str(e) if isinstance(e, KsqlError) else f"{type(e).__name__}: {e}"
            if self.on_fatal is not None:
                self.on_fatal(self.init_error)
            return
        if self.state == INITIALIZING:
            self.state = READY
            self.ready.set()
            LOG.info("ksqlpy server ready")

    def _initialize(self) -> None:
        if self.engine is None:
            from ksqlpy.engine import Engine

            self.engine = Engine(self.config.data_dir, self.config.engine_properties)
        engine = self.engine
        # the queries share this interpreter with the request path: a task takes Kafka Streams' default
        # max.poll.records per poll, so a pull query never waits behind a 10,000-record batch's stretches
        from ksqlpy.runtime.context import KAFKA_STREAMS_MAX_POLL_RECORDS

        engine.poll_records_default = KAFKA_STREAMS_MAX_POLL_RECORDS
        from ksqlpy.engine.secrets import SecretStore
        from ksqlpy.server.membership import Membership, prepare_engine

        prepare_engine(engine)  # before the replay: the replayed queries start as group members
        engine.backfill_statements = self._rollback_statement  # a failed backfill's DROP: through the topic
        self.commands = CommandLog(engine.log, self.config.service_id, SecretStore(engine.data_dir))
        self.commands.ensure_topic()
        commands = self.commands.read_all()
        if commands:
            LOG.info("replaying %d commands from %s", len(commands), self.commands.topic)
        replay(engine, commands, self._replayed)
        self.runner = CommandRunner(engine, self.commands, self.instance, self._executed)
        self.runner.replayed_to(commands[-1].offset + 1 if commands else 0)
        self.runner.start()
        self._setup_processing_log()
        engine.heap.enabled = self.freeze_heap
        engine.start()
        self.membership = Membership(self)
        self.membership.start()

    def _rollback_statement(self, sql: str) -> None:
        """Run a statement of the engine's own (a failed backfill's DROP) as a request would: through the
        command topic, so every server and a restart see it (directly while the topic is not read yet)."""
        from ksqlpy import grammar

        if self.runner is None or self.commands is None:
            self.engine.execute(sql)
            return
        for stmt in grammar.parse(sql, None):
            self.run_distributed(stmt, {})

    def _replayed(self, cmd: Command, result: StatementResult | None, error: BaseException | None) -> None:
        if error is not None:
            message = str(error) if isinstance(error, KsqlError) else f"{type(error).__name__}: {error}"
            self.replay_errors.append(f"{cmd.command_id} (offset {cmd.offset}): {message}")
            LOG.warning("command %s at offset %d failed on replay: %s", cmd.command_id, cmd.offset, message)
            self.statuses[cmd.command_id] = {"status": "ERROR", "message": message, "queryId": None}
        elif result is not None:
            self.statuses[cmd.command_id] = {"status": "SUCCESS", "message": result.message,
                                             "queryId": result.query_id}

    def _executed(self, cmd: Command, result: StatementResult | None, error: BaseException | None) -> None:
        """A command executed live (written by this server or another): its status."""
        if error is not None:
            message = str(error) if isinstance(error, KsqlError) else f"{type(error).__name__}: {error}"
            self.statuses[cmd.command_id] = {"status": "ERROR", "message": message, "queryId": None}
        elif result is not None:
            self.statuses[cmd.command_id] = {"status": "SUCCESS", "message": result.message,
                                             "queryId": result.query_id}

    def _setup_processing_log(self) -> None:
        self.plog_sink = plog.open_processing_log(self.engine, self.config.properties, self.config.service_id,
                                                  lambda stmt: self.run_distributed(stmt, {}))

    def begin_shutdown(self) -> None:
        """Stop accepting work and end every push query, so open streams finish promptly."""
        if self.state in (TERMINATING, TERMINATED):
            return
        self.state = TERMINATING
        for qid in list(self.push_queries):
            self.close_push(qid)

    def close(self) -> None:
        self.begin_shutdown()
        if self.runner is not None:
            self.runner.close()
        if self.membership is not None:
            self.membership.close()
        engine = self.engine
        if engine is not None:
            try:
                engine.close()
            except Exception:  # noqa: BLE001
                LOG.exception("error closing the engine")
        if self.plog_sink is not None:  # engine.close flushed it after its queries stopped; this stops a sink
            self.plog_sink.close()  # left by an engine that failed to start
        self.state = TERMINATED

    def check_ready(self) -> None:
        """The server-state gate in front of every endpoint but /chc/*."""
        if self.state == READY:
            return
        if self.state == INITIALIZING:
            detail = f": {self.init_error}" if self.init_error else ""
            raise ServerError(SERVER_NOT_READY, f"KSQL is not yet ready to serve requests{detail}", status=503)
        if self.state == TERMINATING:
            raise ServerError(SERVER_SHUTTING_DOWN, "The server is shutting down", status=503)
        raise ServerError(SERVER_SHUT_DOWN, "The server is shut down", status=503)

    # ------------------------------------------------------------------ commands
    def last_command(self) -> int:
        """The offset of the last command this server has executed."""
        if self.runner is not None:
            return self.runner.last_executed
        return self.commands.next_offset() - 1 if self.commands is not None else -1

    def wait_for_command(self, seq: int | None) -> None:
        """``commandSequenceNumber``: wait until this server has executed that command (written by any
        server of the service id)."""
        if seq is None or seq <= self.last_command():
            return
        from ksqlpy.server.distributed import catch_up_error

        runner = self.runner
        if runner is None or not runner.wait_for(seq, self.command_timeout_s):
            raise catch_up_error(seq)

    def run_distributed(self, stmt: Any, properties: dict[str, Any]) -> tuple[StatementResult, int, str]:
        """Execute a distributed statement through the command topic; returns (result, sequence number,
        command id) - see ``server/distributed.py``."""
        from ksqlpy.server.distributed import submit

        result, seq, cid = submit(self, stmt, properties)
        if seq >= 0:
            self.statuses[cid] = {"status": "SUCCESS", "message": result.message, "queryId": result.query_id}
        return result, seq, cid

    # ------------------------------------------------------------------ push queries
    def register_push(self, tq: Any) -> None:
        with self.push_lock:
            self.push_queries[tq.query_id] = tq

    def push_count(self) -> int:
        return self.push_slots.in_use

    def close_push(self, query_id: str) -> bool:
        """End a push query (its stream then finishes) and give its slot back; False if there is no such
        query."""
        with self.push_lock:
            tq = self.push_queries.pop(query_id, None)
        if tq is None:
            return False
        self.push_slots.give_back()
        engine = self.engine
        with engine.lock:
            tq.close()
        return True

    def data_dir(self) -> str:
        return getattr(self.engine, "data_dir", "") or os.getcwd()
