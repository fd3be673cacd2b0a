"""Commits behind processing (``ksqlpy.commit.pipelined``): the same records and offsets as committing in
the task's thread, at most one commit in flight, a failed commit aborting to the committed position, and
only tasks that keep nothing between batches pipelined."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.log import EmbeddedLog, ProducerRecord
from ksqlpy.runtime import commit_pipeline
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.processor import BaseProcessor
from ksqlpy.runtime.task import Task


class _Reader:
    def decode(self, batch):  # noqa: ANN001, ANN201 - the processor reads the raw batch
        return batch


class _Copy(BaseProcessor):
    """Writes every input value to ``out`` (nothing kept between batches)."""

    def process(self, batch, tx):  # noqa: ANN001, ANN201
        tx.produce_batch("out", 0, batch.keys, batch.values, batch.timestamps)
        return []


def _log(tmp_path: Path, n: int) -> EmbeddedLog:
    log = EmbeddedLog(tmp_path / "log")
    log.create_topic("in")
    log.create_topic("out")
    with log.transaction() as tx:
        tx.produce_batch("in", 0, [b"k%d" % i for i in range(n)], [b"v%d" % i for i in range(n)],
                         list(range(1, n + 1)))
    return log


def _task(log: EmbeddedLog, processor: Any = None, **kw: Any) -> Task:
    return Task(task_id="0_0", log=log, group="g", topic="in", partition=0, reader=_Reader(),  # type: ignore[arg-type]
                processor=processor or _Copy(), writer=None, plog=ProcessingLog(), start_at="earliest",
                max_batch=100, **kw)


def _drain(task: Task) -> None:
    while task.poll():
        pass


def test_pipelined_commits_write_the_same_records_and_offsets(tmp_path: Path) -> None:
    log = _log(tmp_path, 1050)
    task = _task(log)
    assert commit_pipeline.attach([task], commit_pipeline.Committer()) == 1
    _drain(task)
    out = log.fetch("out", 0, 0, 10_000)
    assert out.values == [b"v%d" % i for i in range(1050)]
    assert out.timestamps == list(range(1, 1051))
    assert log.committed("g", "in", 0) == 1050 and task.committed_position == 1050 and not task.pending
    log.close()


def test_at_most_one_commit_in_flight(tmp_path: Path) -> None:
    """The bounded queue: the next hand-over waits until the previous commit is done."""
    log = _log(tmp_path, 500)
    task = _task(log)
    gate = threading.Event()
    active: list[int] = []
    peak: list[int] = []

    class Slow(commit_pipeline.Committer):
        def submit(self, fn, *args):  # noqa: ANN001, ANN202
            def run() -> None:
                active.append(1)
                peak.append(len(active))
                gate.wait(0.05)
                try:
                    fn(*args)
                finally:
                    active.pop()
            return super().submit(run)

    task.committer = Slow()
    assert task.poll() == 100
    assert task.pending  # handed over, not committed yet
    _drain(task)
    assert max(peak) == 1
    assert log.committed("g", "in", 0) == 500
    log.close()


def test_a_failed_commit_aborts_to_the_committed_position(tmp_path: Path) -> None:
    log = _log(tmp_path, 300)
    task = _task(log)
    aborted: list[bool] = []

    class Failing(commit_pipeline.Committer):
        calls = 0

        def submit(self, fn, *args):  # noqa: ANN001, ANN202
            Failing.calls += 1
            if Failing.calls == 2:
                def fail() -> None:
                    raise OSError("disk full")
                return super().submit(fail)
            return super().submit(fn, *args)

    class Watching(_Copy):
        def abort(self) -> None:
            aborted.append(True)

    task.processor = Watching()
    task.committer = Failing()
    assert task.poll() == 100  # batch 1 handed over
    assert task.poll() == 100  # batch 1 committed; batch 2 handed over (and fails)
    with pytest.raises(OSError, match="disk full"):
        task.poll()  # batch 3 is processed, then the failure of batch 2 surfaces
        task.poll()
    assert aborted and task.position == task.committed_position == 100
    assert log.committed("g", "in", 0) == 100
    task.committer = None  # the batches after the commit are read again, exactly once
    _drain(task)
    assert log.fetch("out", 0, 0, 10_000).values == [b"v%d" % i for i in range(300)]
    log.close()


def test_discard_lets_the_commit_in_flight_finish(tmp_path: Path) -> None:
    log = _log(tmp_path, 200)
    task = _task(log)
    task.committer = commit_pipeline.Committer()
    task.poll()
    task.discard()
    assert not task.pending and task.position == task.committed_position == 100
    assert log.committed("g", "in", 0) == 100
    log.close()


class _Keeping(_Copy):
    def after_commit(self) -> None:  # keeps something between batches
        pass


@pytest.mark.parametrize("case", ["stateless", "keeps state", "transient", "stores", "idle punctuation", "kafka-like log"])
def test_only_tasks_that_keep_nothing_between_batches_are_pipelined(tmp_path: Path, case: str) -> None:
    log = _log(tmp_path, 1)
    task = _task(log, _Keeping() if case == "keeps state" else None, commit=case != "transient")
    if case == "stores":
        task.stores = [object()]  # type: ignore[list-item]
    elif case == "idle punctuation":
        task.idle_ms = 100
    elif case == "kafka-like log":
        task.log = type("Remote", (), {"commits_in_threads": False})()  # type: ignore[assignment]
    assert commit_pipeline.eligible(task) is (case == "stateless")
    log.close()


@pytest.mark.parametrize("pipelined", ["true", "false"])
def test_a_query_with_the_property_gives_the_same_sink(tmp_path: Path, pipelined: str) -> None:
    log = EmbeddedLog(tmp_path / "log")
    log.create_topic("s", 2)
    for i in range(2500):
        log.produce(ProducerRecord("s", None, b'{"A": %d, "B": "x%d"}' % (i, i), i + 1, partition=i % 2))
    with tempfile.TemporaryDirectory() as data:
        eng = Engine(data, {"auto.offset.reset": "earliest", "ksqlpy.commit.pipelined": pipelined}, log=log)
        eng.execute("CREATE STREAM s (a INT, b STRING) WITH (kafka_topic='s', value_format='JSON');"
                    "CREATE STREAM t AS SELECT a * 2 AS a2, b FROM s WHERE a % 5 <> 0;")
        eng.drain(60)
        q = next(iter(eng.queries.values()))
        assert all((t.committer is not None) is (pipelined == "true") for t in q.tasks)
        got = sorted(v for p in range(2) for v in log.fetch("T", p, 0, 10_000).values)
        assert got == sorted(b'{"A2":%d,"B":"x%d"}' % (i * 2, i) for i in range(2500) if i % 5)
        assert [log.committed(q.tasks[0].group, "s", p) for p in range(2)] == [1250, 1250]
        eng.close()
