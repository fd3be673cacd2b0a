"""A join task's records fetched but not processed in a poll (an input read ahead of the others' time) stay
decoded in their channel (``Channel.held``): each record is fetched and decoded once, a bad one logged once,
the processing order is the inputs' time order as ever, and an aborted batch fetches again from the
positions."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ksqlpy.log.base import ProducerRecord, RecordBatch
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.runtime.join_task import Channel, JoinTask, TaskContext
from ksqlpy.runtime.processing_log import ProcessingLog

# "dense": one record a millisecond; "sparse": one every 10 ms, so a batch of it runs ten batches ahead
DENSE = [(f"d{i}", i) for i in range(60)]
SPARSE = [(f"s{i}", 10 * i + 5) for i in range(6)] + [("BAD", 65)] + [(f"s{i}", 10 * i + 5) for i in range(7, 12)]


class _Setup:
    def __init__(self, tmp: Path, max_batch: int, fail_on: str | None = None) -> None:
        self.log = EmbeddedLog(str(tmp / "log"))
        for topic, records in (("dense", DENSE), ("sparse", SPARSE)):
            self.log.create_topic(topic, 1)
            with self.log.transaction() as tx:
                for v, ts in records:
                    tx.produce(ProducerRecord(topic, b"k", v.encode(), ts, None, 0))
        self.decoded: Counter[tuple[str, int]] = Counter()
        self.logged: list[int] = []
        self.seen: list[str] = []  # what committed batches processed
        self.batch: list[str] = []  # what the running batch processed so far
        self.fail_on = fail_on
        ctx = TaskContext(0, ProcessingLog(), "q", lambda name, changelog: None)  # type: ignore[arg-type,return-value]
        for topic in ("dense", "sparse"):
            ctx.channels.append(Channel(topic, self._decoder(topic), self._handle))
        self.task = JoinTask(task_id="0_0", log=self.log, group="g", ctx=ctx, finish=None, writer=None,
                             max_batch=max_batch)

    def _decoder(self, topic: str):  # type: ignore[no-untyped-def]
        def decode(batch: RecordBatch) -> list[tuple]:
            out = []
            for off, v, ts in zip(batch.offsets, batch.values, batch.timestamps, strict=True):
                self.decoded[(topic, off)] += 1
                if v == b"BAD":  # what a reader does with a record it cannot read: log it, skip it
                    self.logged.append(off)
                    continue
                out.append((ts, off, (v.decode(),)))
            return out

        return decode

    def _handle(self, v: str, ts: int) -> None:
        if v == self.fail_on:
            self.fail_on = None  # fails once
            raise RuntimeError("the batch fails")
        self.batch.append(v)

    def drain(self) -> int:
        total = 0
        while True:
            try:
                n = self.task.poll()
            except RuntimeError:
                self.task._abort()
                self.batch.clear()
                continue
            self.seen += self.batch
            self.batch.clear()
            if n == 0 and self.task.drained:
                return total
            total += n


def _time_order() -> list[str]:
    both = [(ts, 0, v) for v, ts in DENSE] + [(ts, 1, v) for v, ts in SPARSE if v != "BAD"]
    return [v for _, _, v in sorted(both)]


@pytest.mark.parametrize("max_batch", [4, 7, 100])
def test_every_record_is_decoded_once_and_processed_in_time_order(tmp_path: Path, max_batch: int) -> None:
    s = _Setup(tmp_path, max_batch)
    assert s.drain() == len(DENSE) + len(SPARSE)
    assert s.seen == _time_order()
    assert set(s.decoded.values()) == {1} and len(s.decoded) == len(DENSE) + len(SPARSE)
    assert s.task.ctx.channels[0].position == len(DENSE) and s.task.ctx.channels[1].position == len(SPARSE)
    s.log.close()


def test_a_bad_record_read_ahead_is_logged_once(tmp_path: Path) -> None:
    """The sparse input's batch holds its bad record long before the dense input reaches its time: re-fetched
    at every poll until then, it was logged at every poll."""
    s = _Setup(tmp_path, 4)
    s.drain()
    assert s.logged == [6]
    s.log.close()


def test_an_aborted_batch_is_fetched_again_from_the_positions(tmp_path: Path) -> None:
    s = _Setup(tmp_path, 4, fail_on="d13")
    s.drain()
    assert s.seen == _time_order()  # the failed batch's records again, once each in the end
    assert all(not ch.held for ch in s.task.ctx.channels)
    assert max(s.decoded.values()) == 2  # the held records were dropped with the batch and read again
    s.log.close()
