"""The Engine: executes statements against a catalog and a log, and runs the resulting queries.

Every front door (shell, REST server, conformance runner) goes through this class. It owns the
catalog, the log, the processing log, properties, its function registry, and the persistent and transient
queries. Analysis and code generation get the functions, properties and custom types from
``session_state()`` (``ksqlpy.session_state``), never from process-wide state.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ksqlpy import grammar
from ksqlpy.catalog import Catalog, QueryInfo, Source
from ksqlpy.engine import statements as S
from ksqlpy.engine.config import DEFAULT_PROPERTIES, Properties, resolve
from ksqlpy.engine.guarantee import GuaranteeInForce, check_engine, check_query
from ksqlpy.engine.pull_cache import PullCache
from ksqlpy.engine.pull_copies import follow as follow_copies
from ksqlpy.engine.queries import (
    PersistentQuery,
    TransientQuery,
    build_persistent,
    build_transient,
    overridden_properties,
)
from ksqlpy.engine.results import StatementResult
from ksqlpy.errors import KsqlStatementError
from ksqlpy.functions import FunctionRegistry
from ksqlpy.grammar import ast as A
from ksqlpy.log import open_log
from ksqlpy.log.base import Log
from ksqlpy.plan.rules import PLAN_RULES
from ksqlpy.private_files import private_dir
from ksqlpy.runtime.context import ALONE, Hosting
from ksqlpy.runtime.coordinator import (
    WorkerManager,
    drain_timeout,
    inline_commit_interval,
    start_workers,
    wants_spares,
    wants_workers,
    workers_caught_up,
)
from ksqlpy.runtime.heap_freeze import HeapFreeze
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.serdes import SerdeFactory
from ksqlpy.schema_registry import open_registry
from ksqlpy.schema_registry.cleanup import delete_internal_subjects
from ksqlpy.session_state import SessionState
from ksqlpy.udf.loader import FunctionSources, load_functions

LOG = logging.getLogger(__name__)
_SWITCH_INTERVAL_S = 0.001  # see Engine.start


class Engine:
    """Executes statements; the ``RuntimeContext`` (``ksqlpy.runtime.context``) of the queries it runs."""

    # records a task takes per poll when ``max.poll.records`` is not set (None: ``context.BATCH_RECORDS``)
    poll_records_default: int | None = None

    def __init__(self, data_dir: str | None = None, properties: dict[str, Any] | None = None,
                 log: Log | None = None, *, lock: bool = True) -> None:
        """``lock=False`` only for the worker processes of an engine that holds the directory's lock."""
        # layers of properties (config.py): defaults < ``config`` (the server's or shell's configuration) <
        # ``session_properties`` (SET) < ``request_properties`` (one request's overrides, while it runs)
        self.config: dict[str, Any] = dict(properties or {})
        self.properties: Properties = Properties(DEFAULT_PROPERTIES, self.config)
        self.session_properties: dict[str, Any] = {}
        self.request_properties: dict[str, Any] = {}
        self.data_dir = data_dir or os.path.join(os.getcwd(), "ksqlpy-data")
        private_dir(self.data_dir)  # 0700 (private_files.py)
        from ksqlpy.engine.data_lock import DataDirectoryLock

        # one engine per data directory (data_lock.py): refused here, before anything is opened or run
        self.data_lock = DataDirectoryLock(self.data_dir).acquire() if lock else None
        try:
            self._open(log)
        except BaseException:
            if self.data_lock is not None:
                self.data_lock.release()
            raise

    def _open(self, log: Log | None) -> None:
        opened = log is None
        if log is None:
            log = open_log({**self.properties, "log.dir": os.path.join(self.data_dir, "log")})
        self.log: Log = log
        self.guarantee: GuaranteeInForce | None = None  # worker processes run under their engine's check
        self.hosting: Hosting = ALONE  # a cluster's server shares its queries (server/membership.py)
        if self.data_lock is not None:
            try:  # exactly-once on a broker that shows aborted records is refused, not broken (guarantee.py)
                self.guarantee = check_engine(log, self.properties)
            except BaseException:
                if opened:
                    log.close()
                raise
        # the schema registry of AVRO / JSON_SR: embedded (durable on this log) unless a URL names one
        self.schema_registry = open_registry(self.properties, log)
        self.serdes = SerdeFactory(self.prop, self.schema_registry)
        self.catalog = Catalog(partitions=lambda topic: self.log.partition_count(topic))
        # built-ins + ksql.extension.dir + installed packages' entry points (ksqlpy.udf.loader)
        self.functions: FunctionRegistry = load_functions(FunctionSources.of(self.properties))
        self.plog = ProcessingLog(include_rows=str(self.properties.get("ksql.logging.processing.rows.include",
                                                                        "false")).lower() == "true")
        self.variables: dict[str, str] = {}
        self.queries: dict[str, PersistentQuery] = {}
        self.transient: dict[str, TransientQuery] = {}
        self.query_counter = 0
        # the plan rule revision (``plan.rules``) statements run under: a replayed command's own
        self.plan_rules = PLAN_RULES
        # running a command its writer already ran (a restart's replay, another server's command): its topic
        # counts were judged then, as ksqlDB judges them only before writing it (``source_statements``)
        self.rerunning_command = False
        self.prepared_command = False  # running a command's prepared text (command_log.execute_command)
        self.injected_properties: frozenset[str] = frozenset()  # the WITH properties its injectors added
        self.transient_counter = 0
        self.lock = threading.RLock()
        self.worker_manager: WorkerManager | None = None  # started with the first query run in workers
        self.pull_cache = PullCache()  # prepared key lookups (pull_cache.py)
        from ksqlpy.engine.metrics import EngineStats

        self.stats = EngineStats()  # per-query runtime statistics, pull latencies (metrics.py)
        self.generation = 0  # moved on by every statement that may change what a prepared lookup used
        self._runner: threading.Thread | None = None
        self._stop = threading.Event()
        # a server's long-lived objects kept out of full collections (runtime/heap_freeze.py); off unless set
        self.heap = HeapFreeze()
        self._backfills: Any = None  # ksqlpy.backfill.service.BackfillService, once a backfill ran
        # how a failed backfill's DROP runs (the server's command topic, the shell's command log)
        self.backfill_statements: Callable[[str], Any] | None = None
        if wants_spares(self):  # ksqlpy.workers=process configured: worker interpreters start now
            self.worker_manager = WorkerManager(self)
            self.worker_manager.prestart()

    @property
    def backfills(self) -> Any:
        """The engine's Spark backfills (``ksqlpy.backfill.service``): one reused session, runs, progress."""
        if self._backfills is None:
            from ksqlpy.backfill.service import BackfillService

            self._backfills = BackfillService(self)
        return self._backfills

    # ------------------------------------------------------------------ properties
    def effective_properties(self) -> Properties:
        """Every property as it resolves now (canonical names; either spelling looks up)."""
        return Properties(DEFAULT_PROPERTIES, self.config, self.session_properties, self.request_properties)

    def overrides(self) -> Properties:
        """What the session and the running request set (not the configuration or the defaults)."""
        return Properties(self.session_properties, self.request_properties)

    def session_state(self) -> SessionState:
        """The functions, properties in force (server, session and statement overrides) and custom types a
        statement is analysed against."""
        return SessionState(self.functions, self.effective_properties(), self.catalog.types(), self.plan_rules)

    def prop(self, name: str, default: Any = None) -> Any:
        """One property, resolved over every layer (either spelling of ``name``)."""
        return resolve(name, self.config, self.session_properties, self.request_properties, default=default)

    def configured(self, name: str, default: Any = None) -> Any:
        """One property as the configuration sets it, session and request overrides ignored: what ksqlDB
        reads through ``SessionConfig.getConfig(false)`` (``ksql.insert.into.values.enabled``,
        ``ksql.source.table.materialization.enabled``) - a server switch a request cannot turn back."""
        return resolve(name, self.config, default=default)

    def explicit_properties(self) -> dict[str, Any]:
        """The properties set by the user (configuration, SET and the running request; not the defaults)."""
        return Properties(self.config, self.session_properties, self.request_properties)

    def owns(self, partition: int) -> bool:
        """The engine builds the tasks of every partition (worker processes run subsets)."""
        return True

    # ------------------------------------------------------------------ statements
    def parse(self, sql: str) -> list[A.Statement]:
        enabled = str(self.prop("ksql.variable.substitution.enable", "true")).lower() == "true"
        # RUN SCRIPT is the shell's (it reads the file itself); ksqlDB's engine does not parse it
        # prepared against the types registered now: execute() parses each statement just before it runs
        return grammar.parse(sql, self.variables if enabled else None, allow_run_script=False,
                             types=frozenset(self.catalog.types()))

    def execute(self, sql: str, properties: dict[str, Any] | None = None,
                run: Callable[[A.Statement, dict[str, Any] | None], StatementResult] | None = None,
                *, command_offset: int | None = None) -> list[StatementResult]:
        """Run every statement of ``sql`` in order; raises the first statement's error. ``run`` replaces
        ``execute_statement`` (e.g. to record statements in the command topic, whose next offset is
        ``command_offset``: the number the sandbox gives the queries the script starts).

        The script is validated whole before anything runs (``script.py``, ksqlDB's KsqlContext.sql): every
        statement prepared, then checked against a sandbox that keeps the effects of those before it."""
        if run is None and not properties:
            from ksqlpy.engine.pull_cache import run_cached

            hit = run_cached(self, sql)  # a repeated key lookup: no parsing, analysis or compiling
            if hit is not None:
                return [hit[0]]
        from ksqlpy.engine.script import prepare_script, validate_script

        run = run or self.execute_statement
        statements = prepare_script(self, sql, properties)
        validate_script(self, statements, properties, command_offset)
        return [run(stmt, properties) for stmt in statements]

    def execute_statement(self, stmt: A.Statement, properties: dict[str, Any] | None = None) -> StatementResult:
        if isinstance(stmt, A.AssertTopic | A.AssertSchema):  # waits, holding the lock for each check only
            from ksqlpy.engine.asserts import run_assertion

            return run_assertion(self, stmt, properties)
        if self._runner is not None and not properties:
            from ksqlpy.engine.pull import run_unlocked, runs_unlocked

            if runs_unlocked(self, stmt):  # a key lookup must not wait for the runner's batches
                return run_unlocked(S.dispatch, self, stmt)  # type: ignore[no-any-return]
        from ksqlpy.engine.pull_cache import changes_catalog

        changes = changes_catalog(stmt)
        if properties:
            from ksqlpy.engine.property_values import check_properties

            check_properties(properties)  # a bad value is named now, not by a query that trips on it
        with self.lock:
            self.generation += changes  # before and after: a lookup prepared meanwhile is voided either way
            try:
                if properties:
                    saved = self.request_properties
                    self.request_properties = dict(properties)
                    try:
                        self.catalog.config = self.effective_properties()  # type: ignore[attr-defined]
                        return S.dispatch(self, stmt)
                    finally:
                        self.request_properties = saved
                self.catalog.config = self.effective_properties()  # type: ignore[attr-defined]
                return S.dispatch(self, stmt)
            finally:
                self.generation += changes

    # ------------------------------------------------------------------ queries
    def next_query_id(self, kind: str, sink: str | None) -> str:
        n = self.query_counter
        self.query_counter += 1
        if kind == "INSERT":
            return f"INSERTQUERY_{n}"
        return f"{kind}_{sink}_{n}".upper()

    def start_persistent(self, query: PersistentQuery) -> None:
        if getattr(query, "overridden_properties", None) is None:  # what EXPLAIN shows it was created with
            query.overridden_properties = overridden_properties(self)  # type: ignore[attr-defined]
        self.queries[query.query_id] = query
        self.catalog.add_query(QueryInfo(query.query_id, query.sql, query.sink_name, query.source_names))
        if wants_workers(self, query):  # ksqlpy.workers=process: the query runs in worker processes
            check_query(self.log, self.effective_properties())  # its own exactly_once_v2 must hold too
            if self.worker_manager is None:
                self.worker_manager = WorkerManager(self)
                self.worker_manager.prestart()  # spares for the restarts and the next queries
            start_workers(self.worker_manager, query)
        else:
            inline_commit_interval(self, query)
        if self._runner is not None:  # its plan and code live as long as it runs (before start: settled then)
            self.heap.settle()

    def stop_persistent(self, query_id: str, cleanup: bool = True) -> None:
        """Stop a query; ``cleanup`` also deletes its internal topics and local state (TERMINATE, DROP).
        An upgrade stops without cleanup: the replacing query, under the same id, resumes from them."""
        if self._backfills is not None:
            self._backfills.cancel(query_id)  # TERMINATE of a backfilling query cancels its Spark jobs
        q = self.queries.pop(query_id, None)
        if q is not None:
            if getattr(q, "workers", None) is not None and self.worker_manager is not None:
                self.worker_manager.stop(query_id)
            q.close()
            if cleanup:
                q.cleanup()
                self.stats.forget(query_id)
                delete_internal_subjects(self.schema_registry, [t.name for t in q.topology.internal_topics()])
            if self.heap.released() and self._runner is not None:  # every few stops: thaw and collect
                self.heap.settle()
        self.catalog.remove_query(query_id)

    def build_persistent(self, plan: Any, sink: Source, query_id: str, sql: str) -> PersistentQuery:
        if getattr(plan, "plan_rules", None) is None:
            plan.plan_rules = self.plan_rules
        return build_persistent(self, plan, sink, query_id, sql)

    def push_query(self, sql: str, properties: dict[str, Any] | None = None) -> TransientQuery:
        stmts = self.parse(sql)
        if len(stmts) != 1 or not isinstance(stmts[0], A.SelectStatement):
            raise KsqlStatementError("Expected a single SELECT statement")
        with self.lock:
            # the request's overrides are in force while the query is analysed (ksqlDB plans a push query
            # against the KsqlConfig the request's streamsProperties overwrite: ksql.suppress.enabled,
            # ksql.lambdas.enabled, ...), as for a statement on /ksql
            saved = self.request_properties
            self.request_properties = {**saved, **(properties or {})}
            try:
                tq = build_transient(self, stmts[0], properties or {})
            finally:
                self.request_properties = saved
        self.stats.push_started += 1
        return tq

    def drain(self, timeout_s: float = 10.0) -> None:
        """Run every persistent query until no task has input left (tests, scripts, the runner).

        Queries run by worker processes (``ksqlpy.workers=process``) are waited for: drain returns once
        they have committed everything their inputs hold (their outputs are then in the log). Raises
        ``DrainTimeout`` (a TimeoutError) naming what was behind when ``timeout_s`` passes first: a drain
        that gave up must not look like one that finished (the caller would read state from before it).
        """
        deadline = time.monotonic() + timeout_s
        seen: Any = None
        progressed = 0
        while time.monotonic() < deadline:
            progressed = 0
            with self.lock:
                for q in list(self.queries.values()):
                    progressed += self._poll_timed(q)
                for t in list(self.transient.values()):
                    progressed += t.poll()
            if progressed:
                continue
            done, seen = workers_caught_up(self.worker_manager, seen)
            if done:
                return
            time.sleep(0.02)
        raise drain_timeout(self.worker_manager, timeout_s, processing=bool(progressed))

    # ------------------------------------------------------------------ background running
    def start(self) -> None:
        """Run queries in a background thread until ``close()``."""
        if self._runner is not None:
            return
        self._stop.clear()
        # a statement thread (a pull query) waits for the GIL up to one switch interval per hand-over
        # while the runner is busy; CPython's default 5 ms alone would spend the pull p99 budget. The
        # interval only matters while a second thread wants the GIL, so the runner alone loses nothing.
        sys.setswitchinterval(min(sys.getswitchinterval(), _SWITCH_INTERVAL_S))
        self.heap.settle()  # what start-up and the restored queries made, out of the runner's collections
        self._runner = threading.Thread(target=self._run, name="ksqlpy-engine", daemon=True)
        self._runner.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            progressed = 0
            # the lock is taken per query poll, not per round, so statements and pull queries get in
            for q in list(self.queries.values()):
                if q.state == "RUNNING" or self._retry_due(q):
                    progressed += self._poll_guarded(q)
            for t in list(self.transient.values()):
                progressed += self._poll_guarded(t)
            # the copies of worker-run tables that pull queries read, caught up with what the workers committed
            progressed += follow_copies(self)
            if not progressed:
                self.log.wait_for_data(0.05)

    def _poll_timed(self, q: PersistentQuery) -> int:
        """Poll a persistent query, recording what it processed and how long it took (metrics.py)."""
        started = time.perf_counter()
        n = q.poll()
        if n:
            self.stats.polled(q.query_id, n, time.perf_counter() - started, q.tasks)
        return n

    def _retry_due(self, q: Any) -> bool:
        """A query in ERROR is retried after its backoff, as ksqlDB restarts failed queries."""
        if q.state != "ERROR" or time.monotonic() < getattr(q, "retry_at", 0.0):
            return False
        q.state = "RUNNING"
        return True

    def _poll_guarded(self, q: Any) -> int:
        """Poll one query; an unexpected failure puts it (only it) in ERROR instead of stopping the loop."""
        try:
            with self.lock:
                return self._poll_timed(q) if self.queries.get(getattr(q, "query_id", "")) is q else q.poll()
        except Exception as e:  # noqa: BLE001 - one broken query must not stop the others
            LOG.exception("query %s failed", getattr(q, "query_id", "?"))
            self.plog.query_error(getattr(q, "query_id", "?"), e)
            message = str(e) or "the query failed unexpectedly (details in the engine's log)"
            if q in self.transient.values():
                q.fail(message)  # its client gets the error as the response's last element (server/queries.py)
                return 0
            backoff = float(self.prop("ksql.query.retry.backoff.initial.ms", 15000)) / 1000.0
            q.state = "ERROR"
            q.error = message
            q.error_at = int(time.time() * 1000)  # QueryError's timestamp (epoch ms)
            q.retry_at = time.monotonic() + backoff
            info = self.catalog.query(q.query_id)
            if info is not None:
                info.state = "ERROR"
            return 0

    # ------------------------------------------------------------------ serdes
    def key_serde(self, source: Source) -> Any:
        return self.serdes.key_serde(source)

    def value_serde(self, source: Source) -> Any:
        return self.serdes.value_serde(source)

    def close(self) -> None:
        if self._backfills is not None:  # interrupted runs resume when the statement is replayed
            self._backfills.close()
        self._stop.set()
        if self._runner is not None:
            self._runner.join(timeout=5)
            self._runner = None
        for t in list(self.transient.values()):
            t.close()
        if self.worker_manager is not None:
            self.worker_manager.close()
        for q in list(self.queries.values()):
            q.close()
        # the queries are stopped and their offsets committed: what they logged must reach the processing-log
        # topic before the log closes (a sink closed earlier lost the entries of records committed after it)
        sink_close = getattr(self.plog.sink, "close", None)
        if sink_close is not None:
            try:
                sink_close()
            except Exception:  # noqa: BLE001 - the engine still closes
                LOG.exception("could not flush the processing log")
        try:
            self.log.close()
        finally:
            if self.data_lock is not None:
                self.data_lock.release()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
