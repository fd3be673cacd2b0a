"""The wait of a multi-input task for an input whose records are still upstream in this process
(``runtime.alignment``): bounded as ``max.task.idle.ms`` bounds Kafka Streams', never across
sub-topologies that feed each other, and what the join task does while it waits."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord, RecordBatch
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.runtime.alignment import Upstream, feeders, reads, upstream_first, writes
from ksqlpy.runtime.join_task import Channel, JoinTask, TaskContext
from ksqlpy.runtime.processing_log import ProcessingLog


class _Fake:
    """An upstream task: ``left`` records to process, ``processed`` so far."""

    def __init__(self, left: int) -> None:
        self.left = left
        self.processed = 0
        self.upstream_tasks: list[Any] = []

    def has_input(self) -> bool:
        return self.left > 0

    def step(self) -> None:
        self.left -= 1
        self.processed += 1


def test_an_upstream_that_progresses_is_waited_for_until_it_has_nothing_left() -> None:
    up = _Fake(3)
    wait = Upstream([up], 0)
    for _ in range(3):
        assert wait.pending()
        up.step()
    assert not wait.pending()


def test_a_stalled_upstream_is_waited_for_at_most_max_task_idle_ms() -> None:
    up = _Fake(5)
    assert Upstream([up], 0).pending()  # the first look: it may be about to run
    zero = Upstream([up], 0)
    zero.pending()
    assert not zero.pending()  # no record processed since: not waited for past this poll
    bounded = Upstream([up], 80)
    bounded.pending()
    assert bounded.pending()  # stalled, but for less than 80 ms
    time.sleep(0.1)
    assert not bounded.pending()
    up.step()
    assert bounded.pending()  # it moved again: waited for again


def test_a_negative_max_task_idle_ms_never_waits() -> None:
    assert not Upstream([_Fake(5)], -1).pending()


def test_an_upstream_of_the_upstream_counts() -> None:
    top = _Fake(1)
    mid = _Fake(0)
    mid.upstream_tasks = [top]
    wait = Upstream([mid], 0)
    assert wait.pending()
    top.step()
    assert not wait.pending()


def _task(tmp: Path, upstream: Any) -> tuple[JoinTask, list[str], EmbeddedLog]:
    log = EmbeddedLog(str(tmp / "log"))
    for t in ("a", "b"):
        log.create_topic(t, 1)
    with log.transaction() as tx:
        for i in range(5):
            tx.produce(ProducerRecord("a", b"k", f"a{i}".encode(), 100 + i, None, 0))

    def decode(batch: RecordBatch) -> list[tuple]:
        return [(ts, off, (v.decode(),)) for off, v, ts in zip(batch.offsets, batch.values, batch.timestamps,
                                                                strict=True)]

    seen: list[str] = []
    ctx = TaskContext(0, ProcessingLog(), "q", lambda name, changelog: None)  # type: ignore[arg-type,return-value]
    for t in ("a", "b"):
        ctx.channels.append(Channel(t, decode, lambda v, ts: seen.append(v)))
    ctx.channels[1].upstream = upstream
    return JoinTask(task_id="0_0", log=log, group="g", ctx=ctx, finish=None, writer=None, max_batch=100), seen, log


def test_the_join_task_waits_for_the_records_upstream_then_takes_them_in_time_order(tmp_path: Path) -> None:
    up = _Fake(1)
    task, seen, log = _task(tmp_path, Upstream([up], 0))
    assert task.poll() == 0 and seen == []  # b is empty, its upstream holds a record: a waits
    with log.transaction() as tx:  # the upstream runs: its record lands in b
        tx.produce(ProducerRecord("b", b"k", b"b0", 102, None, 0))
    up.step()
    assert task.poll() == 6
    assert seen == ["a0", "a1", "a2", "b0", "a3", "a4"]
    log.close()


def test_the_join_task_goes_on_when_its_upstream_stalls(tmp_path: Path) -> None:
    task, seen, log = _task(tmp_path, Upstream([_Fake(1)], 0))
    assert task.poll() == 0
    assert task.poll() == 5  # the upstream processed nothing between the two polls
    assert seen == ["a0", "a1", "a2", "a3", "a4"]
    log.close()


def test_sub_topologies_feeding_each_other_do_not_wait_for_each_other(tmp_path: Path) -> None:
    """A foreign-key join's left side writes the subscription topic its right side reads, which writes
    the response topic the left side reads: neither waits for the other. A re-keyed side is waited for."""
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        engine.execute("CREATE TABLE L (ID INT PRIMARY KEY, FK INT) WITH (kafka_topic='l', value_format='JSON', "
                       "partitions=2);")
        engine.execute("CREATE TABLE R (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='r', value_format='JSON', "
                       "partitions=2);")
        engine.execute("CREATE TABLE FKJ AS SELECT L.ID, R.V FROM L JOIN R ON L.FK = R.ID;")
        engine.execute("CREATE STREAM S (ID INT KEY, FK INT) WITH (kafka_topic='s', value_format='JSON', "
                       "partitions=2);")
        engine.execute("CREATE STREAM SJ AS SELECT S.FK, R.V FROM S JOIN R ON S.FK = R.ID;")
        fk, sj = (q.topology for q in engine.queries.values())
        subs = {s.id: s for s in fk.sub_topologies}
        both_ways = [(a.id, b.id) for a in subs.values() for b in subs.values()
                     if writes(a) & reads(b) and writes(b) & reads(a)]
        assert both_ways  # the subscription and response topics
        fed = {(r, w) for (r, _), ws in feeders(fk).items() for w in ws}
        assert not fed & set(both_ways)
        links = feeders(sj)
        assert len(links) == 1  # the join's re-keyed stream, fed by the sub-topology re-keying it
        (reader, topic), (writer,) = next(iter(links.items()))
        assert "repartition" in topic.lower() and reader != writer
        for order in (sj.sub_topologies, list(reversed(sj.sub_topologies))):  # the re-keying first, always
            ids = [s.id for s in upstream_first(order, sj)]
            assert ids.index(writer) < ids.index(reader)
    finally:
        engine.close()
