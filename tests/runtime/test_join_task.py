"""The multi-input join task: stream synchronization, batch limits, one transaction per batch."""

from __future__ import annotations

from typing import Any

from ksqlpy.log import open_log
from ksqlpy.log.base import ProducerRecord, RecordBatch
from ksqlpy.runtime.join_task import Channel, JoinTask, TaskContext
from ksqlpy.runtime.processing_log import ProcessingLog


def _task(tmp_path: Any, seen: list, max_batch: int = 100) -> tuple[Any, JoinTask]:
    log = open_log({"log.dir": str(tmp_path / "log")})
    for t in ("a", "b"):
        log.create_topic(t, 1)

    def decode(batch: RecordBatch) -> list[tuple]:
        return [(ts, off, (batch.topic, v.decode())) for off, v, ts in
                zip(batch.offsets, batch.values, batch.timestamps, strict=True)]

    ctx = TaskContext(0, ProcessingLog(), "q", lambda name, changelog: None)  # type: ignore[arg-type,return-value]
    for t in ("a", "b"):
        ctx.channels.append(Channel(t, decode, lambda topic, v, ts: seen.append((topic, v, ts))))
    return log, JoinTask(task_id="0_0", log=log, group="g", ctx=ctx, finish=None, writer=None, max_batch=max_batch)


def _send(log: Any, topic: str, items: list[tuple[str, int]]) -> None:
    with log.transaction() as tx:
        for v, ts in items:
            tx.produce(ProducerRecord(topic, b"k", v.encode(), ts, None, 0))


def test_lowest_timestamp_first_across_inputs_offset_order_within(tmp_path: Any) -> None:
    seen: list = []
    log, task = _task(tmp_path, seen)
    _send(log, "a", [("a1", 5), ("a2", 1), ("a3", 9)])
    _send(log, "b", [("b1", 2), ("b2", 6)])
    assert task.poll() == 5
    assert [v for _, v, _ in seen] == ["b1", "a1", "a2", "b2", "a3"]
    assert log.committed("g", "a", 0) == 3 and log.committed("g", "b", 0) == 2


def test_a_cut_batch_stops_processing_where_it_ends(tmp_path: Any) -> None:
    seen: list = []
    log, task = _task(tmp_path, seen, max_batch=2)
    _send(log, "a", [("a1", 1), ("a2", 2), ("a3", 3)])
    _send(log, "b", [("b1", 4)])
    task.poll()
    assert [v for _, v, _ in seen] == ["a1", "a2"]  # b1 (ts 4) waits: a3 (ts 3) is not fetched yet
    task.poll()
    task.poll()
    assert [v for _, v, _ in seen] == ["a1", "a2", "a3", "b1"]
    assert task.poll() == 0


def test_runs_of_one_input_keep_the_order_of_a_merge_by_timestamp_then_input(tmp_path: Any) -> None:
    """Events of one input are handled in runs up to the other input's head: ties go to the first input,
    and the order is the one a heap of (timestamp, input, index) gives, over random timestamps."""
    import heapq
    import random

    rnd = random.Random(5)
    for round_ in range(20):
        seen: list = []
        log, task = _task(tmp_path / str(round_), seen)
        inputs = {t: [(f"{t}{i}", rnd.choice([rnd.randrange(30), rnd.randrange(5)])) for i in range(rnd.randrange(40))]
                  for t in ("a", "b")}
        for t, items in inputs.items():
            if items:
                _send(log, t, items)
        task.poll()
        heap = [(items[0][1], c, 0) for c, items in enumerate(inputs.values()) if items]
        heapq.heapify(heap)
        lists = list(inputs.values())
        want = []
        while heap:
            ts, c, i = heapq.heappop(heap)
            want.append(lists[c][i][0])
            if i + 1 < len(lists[c]):
                heapq.heappush(heap, (lists[c][i + 1][1], c, i + 1))
        assert [v for _, v, _ in seen] == want
        log.close()


def test_an_input_found_empty_is_fetched_again_before_an_older_record_is_passed(tmp_path: Any) -> None:
    """Inputs are fetched one after another: ``a`` is found empty, then a record lands in ``a`` and a
    newer one in ``b``, and the fetch of ``b`` sees its record. ``a``'s older record must still be
    processed first (the doc scenario: a table row inserted, then a stream row that joins it)."""
    seen: list = []
    log, task = _task(tmp_path, seen)
    real_fetch = log.fetch
    raced = []

    def fetch(topic: str, partition: int, offset: int, max_records: int = 10000) -> RecordBatch:
        if topic == "b" and not raced:
            raced.append(True)
            _send(log, "a", [("a1", 1)])
            _send(log, "b", [("b1", 2)])
        return real_fetch(topic, partition, offset, max_records)

    log.fetch = fetch  # type: ignore[method-assign]
    assert task.poll() == 2
    assert [v for _, v, _ in seen] == ["a1", "b1"]
