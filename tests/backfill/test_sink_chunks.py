"""On the embedded log a task stages its plain sink records as the log's own chunks (``job.SinkLayout``,
``stages.Out``) and the driver appends them as they are (``handoff.write_chunks``): the sink must then hold
exactly what ``produce_batch`` of the same records stores - partitions by key hash, order, offsets, several
chunks per partition - and anything that is not plain (headers, a null key or value) stays a record row."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from ksqlpy.backfill.handoff import BackfillResult, HandOff, write_chunks
from ksqlpy.backfill.job import SINK, SINK_CHUNK, SinkLayout
from ksqlpy.backfill.stages import Out
from ksqlpy.log.embedded import EmbeddedLog


def _records(n: int, seed: int) -> tuple[list[bytes], list[bytes], list[int]]:
    rnd = random.Random(seed)
    keys = [f"k{rnd.randrange(300)}".encode() * rnd.randrange(1, 4) for _ in range(n)]
    values = [bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 40))) * rnd.randrange(1, 30) for _ in range(n)]
    return keys, values, [1_000 + i * 7 - rnd.randrange(500) for i in range(n)]


def _everything(log: EmbeddedLog, topic: str, partitions: int) -> dict[int, list[tuple[Any, ...]]]:
    out: dict[int, list[tuple[Any, ...]]] = {}
    for p in range(partitions):
        rows, offset = [], 0
        while True:
            b = log.fetch(topic, p, offset)
            if not b.offsets:
                break
            rows += list(zip(b.offsets, b.keys, b.values, b.timestamps, b.headers, strict=True))
            offset = b.next_offset
        out[p] = rows
    return out


@pytest.mark.parametrize("partition", [-1, 1])
def test_chunks_store_what_produce_batch_stores(tmp_path: Any, partition: int) -> None:
    calls = [_records(n, seed) for seed, n in ((1, 9_000), (2, 3), (3, 5_000))]  # > 4,096 records and > 1 MB
    produced, chunked = EmbeddedLog(str(tmp_path / "a")), EmbeddedLog(str(tmp_path / "b"))
    try:
        for log in (produced, chunked):
            log.create_topic("other", 1)  # (so that the sink's topic id is not the first one)
            log.create_topic("sink", 3)
        for keys, values, ts in calls:
            with produced.transaction() as tx:
                tx.produce_batch("sink", None if partition < 0 else partition, keys, values, ts)
        layout = SinkLayout("sink", *chunked.topic_layout("sink"))  # type: ignore[misc]
        out = Out(None, layout)
        for keys, values, ts in calls:
            out.add_many(SINK, partition, keys, values, ts)
        batches = out.take()
        rows = sum(b.num_rows for b in batches)
        assert all(set(b.column(0).to_pylist()) == {SINK_CHUNK} for b in batches)
        assert len(calls) <= rows < sum(len(c[0]) for c in calls) // 100  # chunks, not records
        written = 0
        for b in batches:
            with chunked.transaction() as tx:
                written += write_chunks(tx, layout, b)
        assert written == sum(len(c[0]) for c in calls)
        want = _everything(produced, "sink", 3)
        assert sum(map(len, want.values())) == written
        assert _everything(chunked, "sink", 3) == want
    finally:
        produced.close()
        chunked.close()


def test_records_that_are_not_plain_stay_record_rows(tmp_path: Any) -> None:
    layout = SinkLayout("sink", 2, 3)
    for keys, values, ts, headers in (([b"a", None], [b"1", b"2"], [1, 2], None),  # a keyless record
                                      ([b"a", b"b"], [b"1", None], [1, 2], None),  # a tombstone
                                      ([b"a", b"b"], [b"1", b"2"], [1, 2], [b"h", None])):  # headers
        out = Out(None, layout)
        out.add_many(SINK, -1, keys, values, ts, headers)
        (b,) = out.take()
        assert b.column(0).to_pylist() == [SINK, SINK]
        assert b.column(3).to_pylist() == values
    out = Out(None, None)  # no layout (Kafka): record rows
    out.add_many(SINK, -1, [b"a"], [b"1"], [1])
    assert out.take()[0].column(0).to_pylist() == [SINK]


def test_the_driver_refuses_chunks_for_a_topic_that_changed(tmp_path: Any) -> None:
    log = EmbeddedLog(str(tmp_path))
    try:
        log.create_topic("sink", 2)
        layout = SinkLayout("sink", *log.topic_layout("sink"))  # type: ignore[misc]
        out = Out(None, layout)
        out.add_many(SINK, -1, [b"a", b"b"], [b"1", b"2"], [1, 2])
        (batch,) = out.take()
        log.delete_topic("sink")
        log.create_topic("sink", 2)  # recreated: another id
        query = SimpleNamespace(sink=SimpleNamespace(topic="sink"), aggregation=None)
        handoff = HandOff(SimpleNamespace(log=log), query, BackfillResult("Q", {}), None, layout)  # type: ignore[arg-type]
        with pytest.raises(RuntimeError, match="the sink topic 'sink' changed while the backfill ran"):
            with log.transaction() as tx:
                handoff.consume(batch, tx)
        assert _everything(log, "sink", 2) == {0: [], 1: []}
    finally:
        log.close()
