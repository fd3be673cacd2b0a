"""Backfills run by a live engine (the server, the shell): one reused Spark session, one thread per run.

A CREATE ... AS SELECT with ``ksqlpy.backfill`` set (``mode``) creates its sink and query as usual, with
the query held (``BACKFILLING``) at the inputs' end offsets, and hands the query to ``begin``: a thread
computes the history on Spark and commits it (``run.run_on``), then the query runs on. Meanwhile the
engine serves everything else; the run's progress (``progress``) shows in EXPLAIN / SHOW QUERIES
EXTENDED (task offsets and a ``backfill`` entry), ``GET /backfills`` on the server and the metrics.

* The Spark session is started by the first backfill and reused by every later one (Spark keeps one per
  JVM); ``close`` (the engine's) stops it.
* TERMINATE of a backfilling query cancels its Spark jobs (by their job tag) and rolls the statement back.
* Rollback (failure or cancel): the sink and its topic are dropped by the statement runner the engine was
  given (the server's command topic, the shell's command log), so no orphan topic is left and a restart
  does not bring the query back.
* Resume: the run's staging directory (``<staging root>/<query id>``) and a marker (``<query id>.json``)
  outlive a crash. When the command log replays the statement on restart and the marker says the run
  had not finished, the backfill runs again: ranges whose staged output is complete are not recomputed,
  and batches the driver had committed (counted under the group ``_ksqlpy-backfill-<query id>`` in the
  same log transaction as the batch) are not written again.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ksqlpy.backfill.progress import Phase, Progress

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

_LOG = logging.getLogger("ksqlpy.backfill")
BACKFILLING = "BACKFILLING"


class MarkerState:
    RUNNING = "RUNNING"
    DONE = "DONE"
    FAILED = "FAILED"


@dataclass
class BackfillRun:
    query_id: str
    sql: str
    progress: Progress
    tag: str
    cancel: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    result: Any = None
    error: BaseException | None = None
    finished: threading.Event = field(default_factory=threading.Event)
    interrupted: bool = False  # stopped by the engine's close: resumed when the statement is replayed

    def status(self) -> dict[str, Any]:
        s = self.progress.snapshot()
        if self.result is not None:
            r = self.result
            s.update({"recordsRead": r.records_read or s["recordsRead"], "sinkRecords": r.sink_records,
                      "stateEntries": r.state_entries, "lateRecords": r.late_records,
                      "processingErrors": r.processing_errors, "startupSeconds": r.details.get("startup_seconds"),
                      "tasks": r.details.get("tasks")})
        return s


class BackfillService:
    """The backfills of one engine (``engine.backfills``)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.session: Any = None
        self.runs: dict[str, BackfillRun] = {}  # running and finished runs of this process, by query id
        self._lock = threading.Lock()
        self._closed = False
        self._owned = False

    # ------------------------------------------------------------------ the session
    def spark(self) -> Any:
        """The reused Spark session (started on first use)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the engine is closing: no backfill can start")
            if self.session is None:
                from pyspark import SparkContext

                from ksqlpy.backfill.session import spark_session

                # a session this process had already (a test's, an application's) is not ours to stop
                self._owned = SparkContext._active_spark_context is None
                props = self.engine.effective_properties()
                self.session = spark_session(self.engine.prop("spark.master"), props)
                if not any(k == "spark.log.level" for k in props):
                    self.session.sparkContext.setLogLevel("ERROR")
            return self.session

    def session_up(self) -> bool:
        return self.session is not None

    # ------------------------------------------------------------------ markers (resume after a crash)
    def _root(self) -> str:
        from ksqlpy.backfill.run import staging_root

        return staging_root(self.engine)

    def _marker(self, query_id: str) -> str:
        return os.path.join(self._root(), f"{query_id}.json")

    def marker(self, query_id: str) -> dict[str, Any] | None:
        try:
            with open(self._marker(query_id)) as f:
                return dict(json.load(f))
        except (OSError, ValueError):
            return None

    def _mark(self, query_id: str, sql: str, state: str) -> None:
        path = self._marker(query_id)
        with open(path + ".tmp", "w") as f:
            json.dump({"queryId": query_id, "sql": sql, "state": state, "at": time.time()}, f)
        os.replace(path + ".tmp", path)

    def finished_before(self, query_id: str, sql: str) -> bool:
        """Did an earlier process finish (or give up) this statement's backfill? (A replayed statement
        whose run was done must not run again; one whose run was cut short resumes.)"""
        m = self.marker(query_id)
        return m is not None and m.get("sql") == sql and m.get("state") in (MarkerState.DONE, MarkerState.FAILED)

    # ------------------------------------------------------------------ runs
    def begin(self, query: Any, partitions: int) -> BackfillRun:
        """Hold ``query`` and backfill it in a thread of its own; returns at once."""
        from ksqlpy.backfill.run import pinned_ranges

        ranges = pinned_ranges(self.engine, query, partitions)
        staging = os.path.join(self._root(), query.query_id)
        os.makedirs(staging, mode=0o700, exist_ok=True)
        query.state = BACKFILLING
        self._mark(query.query_id, query.sql, MarkerState.RUNNING)
        run = BackfillRun(query.query_id, query.sql, Progress(query.query_id, ranges, staging),
                          tag=f"ksqlpy-backfill-{query.query_id}-{os.getpid()}")
        query.backfill = run
        self.runs[query.query_id] = run
        run.thread = threading.Thread(target=self._work, args=(query, partitions, run),
                                      name=f"ksqlpy-backfill-{query.query_id}", daemon=True)
        run.thread.start()
        return run

    def _work(self, query: Any, partitions: int, run: BackfillRun) -> None:
        from ksqlpy.backfill import staging
        from ksqlpy.backfill.run import Cancelled, drop_markers, run_on

        try:
            session = self.spark()
            run.result = run_on(self.engine, query, partitions, session, run.progress,
                                cancelled=run.cancel.is_set, job_group=run.tag)
            with self.engine.lock:
                if run.cancel.is_set():
                    raise Cancelled(f"the backfill of {query.query_id} was cancelled")
                if query.state == BACKFILLING:
                    query.state = "RUNNING"  # the runner polls it from the handed-over positions on
            run.progress.enter(Phase.DONE)
            self._mark(query.query_id, run.sql, MarkerState.DONE)
            staging.remove(run.progress.staging)
            drop_markers(self.engine, query.query_id)  # (after DONE: a resume no longer needs them)
            _LOG.info("backfill of %s done: %s", query.query_id, run.status())
        except BaseException as e:  # noqa: BLE001 - whatever happened, the statement is rolled back
            cancelled = run.cancel.is_set() or isinstance(e, Cancelled)
            run.error = e
            if run.interrupted:  # the engine is closing: marker and staged output stay for the resume
                run.progress.error = "interrupted by the engine's close; resumed when the statement is replayed"
                run.progress.enter(Phase.CANCELLED)
                _LOG.info("backfill of %s interrupted by close: it resumes on restart", query.query_id)
                return
            run.progress.error = str(e) or type(e).__name__
            run.progress.enter(Phase.CANCELLED if cancelled else Phase.FAILED)
            if cancelled:
                _LOG.info("backfill of %s cancelled: rolling the statement back", query.query_id)
            else:
                _LOG.error("backfill of %s failed: rolling the statement back", query.query_id, exc_info=e)
            self._rollback(query, run)
        finally:
            query.backfill = None
            run.finished.set()

    def _rollback(self, query: Any, run: BackfillRun) -> None:
        """Drop the query and its sink with its topic (``DROP ... DELETE TOPIC``), so the statement can be
        run again and nothing it created is left; then the staging directory."""
        from ksqlpy.backfill import staging
        from ksqlpy.backfill.run import drop_markers

        sink = query.sink
        sql = f"DROP {sink.kind} IF EXISTS `{sink.name}` DELETE TOPIC;"
        statements = getattr(self.engine, "backfill_statements", None)  # default: the engine itself
        try:
            if statements is not None:
                statements(sql)
            else:
                self.engine.execute(sql)
        except Exception:  # noqa: BLE001 - the original error is what the status shows
            _LOG.exception("backfill of %s: could not drop %s", query.query_id, sink.name)
        try:
            self._mark(query.query_id, run.sql, MarkerState.FAILED)
        except OSError:
            pass
        staging.remove(run.progress.staging)
        drop_markers(self.engine, query.query_id)

    def cancel(self, query_id: str) -> bool:
        """Cancel a running backfill (TERMINATE): its Spark jobs are cancelled, the statement rolled back."""
        run = self.runs.get(query_id)
        if run is None or run.finished.is_set():
            return False
        run.cancel.set()
        session = self.session
        if session is not None:
            try:
                session.sparkContext.cancelJobsWithTag(run.tag)
            except Exception:  # noqa: BLE001 - the run checks its flag between steps anyway
                _LOG.warning("cancelling the Spark jobs of %s failed", query_id, exc_info=True)
        return True

    def wait(self, query_id: str, timeout_s: float | None = None) -> BackfillRun:
        run = self.runs[query_id]
        run.finished.wait(timeout_s)
        return run

    def statuses(self) -> list[dict[str, Any]]:
        return [r.status() for _, r in sorted(self.runs.items())]

    def running(self) -> list[BackfillRun]:
        return [r for r in self.runs.values() if not r.finished.is_set()]

    def close(self) -> None:
        """Cancel what runs (their statements roll back), wait for the threads, stop the Spark session."""
        with self._lock:
            self._closed = True
        for run in self.running():
            run.interrupted = True
            self.cancel(run.query_id)
        for run in list(self.runs.values()):
            if run.thread is not None:
                run.thread.join(60)
        if self.session is not None and self._owned:
            try:
                self.session.stop()
            except Exception:  # noqa: BLE001
                _LOG.warning("stopping the Spark session failed", exc_info=True)
        self.session = None
