"""A task processes its batch outside the log transaction and replays the held writes into it."""

from __future__ import annotations

from pathlib import Path

from ksqlpy.log import EmbeddedLog, ProducerRecord
from ksqlpy.runtime.batch_writes import HeldWrites
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.processor import BaseProcessor
from ksqlpy.runtime.task import Task


def test_replay_keeps_order_and_offsets(tmp_path: Path) -> None:
    log = EmbeddedLog(tmp_path / "log")
    log.create_topic("out")
    held = HeldWrites()
    held.produce(ProducerRecord("out", b"a", b"1", 1, partition=0))
    held.produce_batch("out", 0, [b"b", b"c"], [b"2", b"3"], [2, 3])
    held.produce_many([ProducerRecord("out", b"d", b"4", 4, partition=0)])
    held.commit_offsets("g", {("in", 0): 5})
    held.commit_offsets("g", {("in", 0): 7})
    log.create_topic("in")
    with log.transaction() as tx:
        held.replay(tx)
    assert log.fetch("out", 0, 0).values == [b"1", b"2", b"3", b"4"]
    assert log.committed("g", "in", 0) == 7
    log.close()


class _Reader:
    def decode(self, batch):  # noqa: ANN001, ANN201 - the task only passes it on
        return batch


def test_processing_runs_outside_the_log_transaction(tmp_path: Path) -> None:
    """Regression: processing inside the transaction held LMDB's writer lock for the whole batch, so
    worker processes on the EmbeddedLog ran one at a time."""
    log = EmbeddedLog(tmp_path / "log")
    log.create_topic("in")
    log.create_topic("out")
    log.produce(ProducerRecord("in", b"k", b"v", 1, partition=0))
    seen = []

    class Producing(BaseProcessor):
        def process(self, batch, tx):  # noqa: ANN001, ANN202
            with log.transaction():  # would raise "cannot be nested" inside the batch's transaction
                seen.append(len(batch.offsets))
            tx.produce(ProducerRecord("out", b"k", b"v2", 1, partition=0))
            return []

    task = Task(task_id="0_0", log=log, group="g", topic="in", partition=0, reader=_Reader(),  # type: ignore[arg-type]
                processor=Producing(), writer=None, plog=ProcessingLog(), start_at="earliest")
    assert task.poll() == 1 and seen == [1]
    assert log.fetch("out", 0, 0).values == [b"v2"] and log.committed("g", "in", 0) == 1
    log.close()
