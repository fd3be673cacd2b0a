"""The shell's progress line for a new persistent query working through a backlog."""

from __future__ import annotations

import io
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ksqlpy.cli import progress
from ksqlpy.cli.console import Console
from ksqlpy.cli.embedded import EmbeddedBackend
from ksqlpy.cli.session import Session
from ksqlpy.log.base import ProducerRecord


def _description(offsets: list[tuple[int, int]]) -> dict[str, Any]:
    return {"tasksMetadata": [{"taskId": f"0_{p}", "taskState": "RUNNING",
                               "topicOffsets": [{"topicPartition": {"topic": "s", "partition": p}, "offset": off,
                                                 "endOffset": end, "lag": end - off}]}
                              for p, (off, end) in enumerate(offsets)]}


def test_the_line_counts_records_rate_and_eta_until_caught_up() -> None:
    states = iter([[(0, 1000), (0, 1000)], [(250, 1000), (250, 1000)], [(1000, 1000), (1000, 1000)]])
    now = [0.0]
    written: list[str] = []

    def sleep(s: float) -> None:
        now[0] += 1.0

    last = progress.watch("CTAS_X_1", lambda q: _description(next(states)), written.append,
                          clock=lambda: now[0], sleep=sleep)
    assert last is not None and last.lag == 0 and last.done == 2000
    assert written[0].startswith("\rCTAS_X_1: 0 / 2,000 records (0%)")
    assert "\rCTAS_X_1: 500 / 2,000 records (25%), 500 records/s, ETA 3s" in written[1]
    assert written[-1].startswith("\rCTAS_X_1: caught up, 2,000 records") and written[-1].endswith("\n")


def test_nothing_is_shown_for_a_query_without_backlog() -> None:
    written: list[str] = []
    assert progress.watch("CSAS_Y_2", lambda q: _description([(5, 5)]), written.append) is None
    assert written == []


def test_a_query_that_stops_moving_is_left_after_the_stall_time() -> None:
    now = [0.0]
    written: list[str] = []

    def sleep(s: float) -> None:
        now[0] += 10.0

    last = progress.watch("Q", lambda q: _description([(1, 9)]), written.append, stall_s=25,
                          clock=lambda: now[0], sleep=sleep)
    assert last is not None and last.lag == 8
    assert written[-1] == "\n"


def test_an_interactive_shell_shows_progress_for_a_new_query_over_a_backlog(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = io.StringIO(), io.StringIO()
    backend = EmbeddedBackend(str(tmp_path / "data"))
    engine = backend.engine
    # the engine's runner stopped: the query moves one batch per task each time the line waits, so the
    # backlog is seen on every machine however fast
    engine._stop.set()
    engine._runner.join()
    engine._runner = None

    def one_batch_each(seconds: float) -> None:
        for q in list(engine.queries.values()):
            engine._poll_timed(q)

    # only the progress module's view of ``time`` is replaced: patching ``time.sleep`` itself also drove the
    # queries from any other thread that sleeps (py4j's worker threads left by a Spark test), racing this one
    monkeypatch.setattr(progress, "time", SimpleNamespace(sleep=one_batch_each, monotonic=time.monotonic))
    try:
        session = Session(backend, Console(out, err, color=False), interactive=True)
        assert session.run_entry("CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON', "
                                 "partitions=2); SET 'auto.offset.reset'='earliest';")
        with backend.engine.log.transaction() as tx:
            tx.produce_many([ProducerRecord("s", None, b'{"V": %d}' % i, 1000 + i, None, i % 2)
                             for i in range(30000)])
        assert session.run_entry("CREATE STREAM copy AS SELECT * FROM s;")
        shown = out.getvalue()
        assert "Created query with ID CSAS_COPY_" in shown
        assert ": 0 / 30,000 records (0%), 0 records/s" in shown
        assert "records/s, ETA " in shown
        assert shown.rstrip().endswith(": caught up, 30,000 records")
    finally:
        backend.close()
