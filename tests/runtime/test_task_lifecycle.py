"""A task drives its processor and stores through the Processor protocol, in Kafka Streams' order: the
restore phase (stores replay their changelogs, then the processor loads its state, then positions), per
batch process -> flush -> the stores' changelogs in the batch's transaction -> commit -> after_commit, and
abort when the transaction fails."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import StreamsError
from ksqlpy.log import EmbeddedLog, ProducerRecord
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.processor import BaseProcessor, Punctuation
from ksqlpy.runtime.task import Task
from ksqlpy.state.store import KeyValueStore


class _Reader:
    def decode(self, batch: Any) -> Any:
        return batch


class _Recording(BaseProcessor):
    """Counts records into its store; records what the task calls, and what it saw of the store."""

    def __init__(self, kv: KeyValueStore, calls: list[str]) -> None:
        self.kv = kv
        self.calls = calls
        self.count = 0
        self.fail_flush = False

    def init(self) -> None:
        self.calls.append(f"init restored={self.kv.is_restored}")
        self.count = self.kv.get(b"n") or 0

    def process(self, batch: Any, tx: Any) -> list[tuple]:
        self.calls.append("process")
        self.count += len(batch.offsets)
        return []

    def flush(self, tx: Any) -> None:
        self.calls.append("flush")
        if self.fail_flush:
            raise RuntimeError("the batch fails")
        self.kv.put(b"n", self.count)

    def after_commit(self) -> None:
        self.calls.append("after_commit")

    def abort(self) -> None:
        self.calls.append("abort")
        self.count = self.kv.get(b"n") or 0

    def punctuate(self, idle_ms: int) -> Punctuation | None:
        self.calls.append(f"punctuate {idle_ms}")
        return None

    def close(self) -> None:
        self.calls.append("close")


def _setup(tmp_path: Path) -> EmbeddedLog:
    log = EmbeddedLog(tmp_path / "log")
    log.create_topic("in")
    log.create_topic("changelog", 1, 1, {"cleanup.policy": "compact"})
    return log


def _task(log: EmbeddedLog, tmp_path: Path, calls: list[str]) -> tuple[Task, _Recording, KeyValueStore]:
    kv = KeyValueStore(str(tmp_path / "store"), log, "changelog", 0)
    proc = _Recording(kv, calls)
    task = Task(task_id="0_0", log=log, group="g", topic="in", partition=0, reader=_Reader(),  # type: ignore[arg-type]
                processor=proc, writer=None, plog=ProcessingLog(), start_at="earliest", stores=[kv])
    return task, proc, kv


def test_restore_phase_then_batches_in_protocol_order(tmp_path: Path) -> None:
    log = _setup(tmp_path)
    calls: list[str] = []
    task, proc, kv = _task(log, tmp_path, calls)
    assert calls == [] and not kv.is_restored  # constructing reads nothing
    task.init()
    assert calls == ["init restored=True"]
    log.produce(ProducerRecord("in", b"k", b"v", 1, partition=0))
    assert task.poll() == 1
    assert calls[1:] == ["process", "flush", "after_commit"]
    assert log.committed("g", "in", 0) == 1 and log.end_offset("changelog", 0) == 1  # state went with the batch
    task.idle_ms = 5
    task.poll()  # no input: the wall-clock hook
    assert calls[-1] == "punctuate 5"
    task.close()
    assert calls[-1] == "close"


def test_state_comes_back_through_the_restore_phase(tmp_path: Path) -> None:
    log = _setup(tmp_path)
    task, _, _ = _task(log, tmp_path, [])
    task.init()
    for i in range(3):
        log.produce(ProducerRecord("in", b"k", b"v", i, partition=0))
    task.poll()
    task.close()
    shutil.rmtree(tmp_path / "store")  # the local files are gone: the changelog has it
    calls: list[str] = []
    again, proc, _ = _task(log, tmp_path, calls)
    again.init()
    assert proc.count == 3 and again.position == 3
    again.close()


def test_a_failed_batch_aborts_stores_then_processor_and_resumes_from_the_commit(tmp_path: Path) -> None:
    log = _setup(tmp_path)
    calls: list[str] = []
    task, proc, kv = _task(log, tmp_path, calls)
    task.init()
    log.produce(ProducerRecord("in", b"k", b"v", 1, partition=0))
    task.poll()
    log.produce(ProducerRecord("in", b"k", b"v", 2, partition=0))
    proc.fail_flush = True
    with pytest.raises(StreamsError) as failed:  # the query stops, naming the task and record (StreamsException)
        task.poll()
    assert isinstance(failed.value.__cause__, RuntimeError)
    assert calls[-1] == "abort" and proc.count == 1 and task.position == 1  # re-read from the committed offset
    proc.fail_flush = False
    assert task.poll() == 1 and proc.count == 2
    task.close()


@pytest.mark.parametrize("sql", ["SELECT * FROM S EMIT CHANGES;",
                                 "SELECT V, COUNT(*) FROM S GROUP BY V EMIT CHANGES;"])
def test_a_transient_query_leaves_no_state_or_topic_behind(tmp_path: Path, sql: str) -> None:
    """Push queries (and pull queries' scans) keep private state: created only when the query has stores,
    deleted with its internal topics when it closes."""
    engine = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest"})
    try:
        engine.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', "
                       "PARTITIONS=2);")
        topics = {t.name for t in engine.log.list_topics()}
        tq = engine.push_query(sql)
        engine.execute("INSERT INTO S (ID, V) VALUES (1, 2);")
        engine.drain()
        tq.close()
        root = tmp_path / "data" / "state" / "transient"
        assert not root.exists() or list(root.iterdir()) == []
        assert {t.name for t in engine.log.list_topics()} == topics
    finally:
        engine.close()
