"""The join task's batch-at-a-time paths give what the record-at-a-time ones gave: runs of one input's
events handed over in one call, internal (repartition) records written as columns, the KAFKA key writer
called directly, a store's changelog and LMDB writes by one call per batch, stream results as rows."""

from __future__ import annotations

import heapq
import marshal
import pickle
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.log.base import ProducerRecord, RecordBatch
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.plan.topology import JoinResult
from ksqlpy.runtime.join_output import JoinOutput
from ksqlpy.runtime.join_rows import key_encoder
from ksqlpy.runtime.join_task import Channel, JoinTask, TaskContext
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.reader import DecodedBatch
from ksqlpy.runtime.repartition import decode_values
from ksqlpy.serde import key_serde
from ksqlpy.state.codec import decode
from ksqlpy.state.store import KeyValueStore
from ksqlpy.types import PRIMITIVES_BY_NAME

# ---------------------------------------------------------------------------- runs of one input


def _run_task(tmp: Path, inputs: dict[str, list[tuple[str, int]]], with_runs: bool) -> tuple[list, list]:
    log = EmbeddedLog(str(tmp / "log"))
    for t in inputs:
        log.create_topic(t, 1)
        with log.transaction() as tx:
            for v, ts in inputs[t]:
                tx.produce(ProducerRecord(t, b"k", v.encode(), ts, None, 0))

    def decode(batch: RecordBatch) -> list[tuple]:
        return [(ts, off, (v.decode(),)) for off, v, ts in zip(batch.offsets, batch.values, batch.timestamps,
                                                                strict=True)]

    seen: list = []
    runs: list = []

    def run(events: list[tuple], i: int, j: int) -> None:
        runs.append((events[i][2][0], j - i))
        seen.extend(e[2][0] for e in events[i:j])

    ctx = TaskContext(0, ProcessingLog(), "q", lambda name, changelog: None)  # type: ignore[arg-type,return-value]
    for t in inputs:
        ctx.channels.append(Channel(t, decode, lambda v, ts: seen.append(v), run=run if with_runs else None))
    task = JoinTask(task_id="0_0", log=log, group="g", ctx=ctx, finish=None, writer=None, max_batch=1000)
    while task.poll():
        pass
    log.close()
    return seen, runs


def test_runs_give_the_order_of_the_event_by_event_merge(tmp_path: Path) -> None:
    """A channel's ``run`` gets consecutive slices whose concatenation is the order a heap of (timestamp,
    input, index) gives - the order the per-event handler sees - over random, tied and unordered times."""
    rnd = random.Random(11)
    for round_ in range(30):
        inputs = {t: [(f"{t}{i}", rnd.choice([rnd.randrange(40), rnd.randrange(4)])) for i in range(rnd.randrange(60))]
                  for t in ("a", "b", "c")}
        if round_ % 2:  # times in order (the run's end found by bisection), ties across inputs included
            inputs = {t: [(f"{t}{i}", ts) for i, (_, ts) in enumerate(sorted(items, key=lambda e: e[1]))]
                      for t, items in inputs.items()}
        heap = [(items[0][1], c, 0) for c, items in enumerate(inputs.values()) if items]
        heapq.heapify(heap)
        lists = list(inputs.values())
        want = []
        while heap:
            _, c, i = heapq.heappop(heap)
            want.append(lists[c][i][0])
            if i + 1 < len(lists[c]):
                heapq.heappush(heap, (lists[c][i + 1][1], c, i + 1))
        by_event, _ = _run_task(tmp_path / f"e{round_}", inputs, with_runs=False)
        by_run, runs = _run_task(tmp_path / f"r{round_}", inputs, with_runs=True)
        assert by_event == want
        assert by_run == want
        assert sum(n for _, n in runs) == len(want)


def test_a_run_spans_every_event_before_the_other_inputs_head(tmp_path: Path) -> None:
    _, runs = _run_task(tmp_path, {"a": [("a1", 1), ("a2", 2), ("a3", 5)], "b": [("b1", 3), ("b2", 4)]}, True)
    assert runs == [("a1", 2), ("b1", 2), ("a3", 1)]
    # a tie goes to the first input: b's run stops before a's event of the same time, a's takes b's
    _, runs = _run_task(tmp_path / "ties", {"a": [("a1", 1), ("a2", 3), ("a3", 3)], "b": [("b1", 2), ("b2", 3),
                                                                                        ("b3", 3)]}, True)
    assert runs == [("a1", 1), ("b1", 1), ("a2", 2), ("b2", 2)]


# ---------------------------------------------------------------------------- the join's key writer

_CASES: list[tuple[str, list[Any]]] = [
    ("INTEGER", [0, 1, -1, 2**31 - 1, -(2**31), 2**31, True, None, "x"]),
    ("BIGINT", [0, 7, -7, 2**63 - 1, -(2**63), 2**63, False, None, 1.5]),
    ("DOUBLE", [0.0, -0.0, 1.5, float("inf"), float("nan"), 3, None, "x"]),
    ("STRING", ["", "abc", "\u00e9\u4e2d", "\ud800", None, 5]),
]


@pytest.mark.parametrize(("type_name", "values"), _CASES)
def test_kafka_key_writer_writes_what_the_key_serde_writes(type_name: str, values: list[Any]) -> None:
    """Every value: the serde's bytes when it can write it, else the same fallback (pickled key); keys
    of another width (windowed: with their bounds) go the general way."""
    t = PRIMITIVES_BY_NAME[type_name]
    fast = key_encoder("KAFKA", [t])
    serde = key_serde("KAFKA", [("K0", t)])
    for v in values:
        try:
            want = serde.serialize((v,))
        except Exception:  # noqa: BLE001
            want = None
        if want is None:
            want = pickle.dumps((v,), pickle.HIGHEST_PROTOCOL)
        assert fast((v,)) == want, v
    assert fast((1, 10, 20)) == pickle.dumps((1, 10, 20), pickle.HIGHEST_PROTOCOL)


# ---------------------------------------------------------------------------- internal topics as columns


def _ctx() -> TaskContext:
    return TaskContext(0, ProcessingLog(), "q", lambda name, changelog: None)  # type: ignore[arg-type,return-value]


def test_internal_records_are_written_as_one_batch_and_read_back(tmp_path: Path) -> None:
    log = EmbeddedLog(str(tmp_path / "log"))
    log.create_topic("rep", 3)
    ctx = _ctx()
    buf = ctx.internal_topic("rep")
    assert ctx.internal_topic("rep") is buf  # one buffer per topic, whatever writes to it
    sent = [((i % 5,), (i, f"r{i}", None), 100 + i, [("h", b"1")] if i == 3 else None) for i in range(20)]
    sent.append((None, (99, "null key", None), 200, None))
    for key, row, ts, hdrs in sent:
        buf.keys.append(None if key is None else str(key).encode())
        buf.payloads.append((key, row))
        buf.timestamps.append(ts)
        buf.headers.append(hdrs)
    with log.transaction() as tx:
        ctx.produce_internal(tx)
    ctx.clear_internal()
    assert not buf.keys and not buf.payloads and not buf.timestamps and not buf.headers
    got = []
    for p in range(3):
        b = log.fetch("rep", p, 0, 100)
        for (key, row), ts, h in zip(decode_values(b.values), b.timestamps, b.headers, strict=True):
            got.append((key, row, ts, list(h) if h else None))
    want = [(k, r, ts, h) for k, r, ts, h in sent]
    assert sorted(got, key=lambda e: e[2]) == want
    # a key lands where its bytes hash, as a record produced one by one would
    for key in {k for k, *_ in sent if k is not None}:
        parts = {p for p in range(3) for v in log.fetch("rep", p, 0, 100).values
                 if decode_values([v])[0][0] == key}
        assert len(parts) == 1
    log.close()


def test_internal_payloads_fall_back_to_pickle_and_read_older_pickled_records() -> None:
    ctx = _ctx()
    buf = ctx.internal_topic("rep")
    buf.keys.append(b"k")
    buf.payloads.append(((1,), (Decimal("1.50"), "x")))
    buf.timestamps.append(1)
    buf.headers.append(None)
    written: list = []

    class Tx:
        def produce_batch(self, topic: str, partition: Any, keys: Any, values: Any, ts: Any, headers: Any) -> None:
            written.append((topic, partition, list(keys), list(values), list(ts), headers))

    ctx.produce_internal(Tx())
    [(topic, partition, keys, values, ts, headers)] = written
    assert (topic, partition, keys, ts, headers) == ("rep", None, [b"k"], [1], None)
    assert values[0][:1] == b"\x80"  # a DECIMAL is no marshal type: the batch is pickled
    assert decode_values(values) == [((1,), (Decimal("1.50"), "x"))]
    older = pickle.dumps(((2,), (2, "y")), pickle.HIGHEST_PROTOCOL)  # what earlier versions wrote
    assert decode_values([marshal.dumps(((1,), (1, "x"))), older]) == [((1,), (1, "x")), ((2,), (2, "y"))]


# ---------------------------------------------------------------------------- store writes per batch


def _store(tmp: Path, log: EmbeddedLog, name: str) -> KeyValueStore:
    kv = KeyValueStore(str(tmp / name), log, "changelog", 0)
    kv.restore()
    return kv


def _contents(kv: KeyValueStore) -> dict:
    with kv.env.begin(db=kv.data, buffers=False) as txn:
        return {k: decode(v) for k, v in txn.cursor()}


@pytest.mark.parametrize("deletes", [False, True])
def test_store_batch_writes_reach_lmdb_and_changelog(tmp_path: Path, deletes: bool) -> None:
    """Puts only (one putmulti) and puts with deletes (key by key) leave the same files and changelog as
    the model, and a store restored from the changelog alone agrees."""
    log = EmbeddedLog(str(tmp_path / "log"))
    log.create_topic("changelog", 1)
    kv = _store(tmp_path, log, "a")
    model: dict = {}
    rnd = random.Random(3)
    for _ in range(6):
        for _ in range(50):
            k = b"k%03d" % rnd.randrange(80)
            if deletes and rnd.random() < 0.3:
                kv.delete(k)
                model.pop(k, None)
            else:
                v = (rnd.randrange(1000), "v")
                kv.put(k, v)
                model[k] = v
        with log.transaction() as tx:
            kv.flush(tx)
        kv.commit_local()
        assert _contents(kv) == model
        assert kv.checkpoint() == log.end_offset("changelog", 0)
    kv.close()
    again = _store(tmp_path, log, "b")
    assert _contents(again) == model
    again.close()
    log.close()


# ---------------------------------------------------------------------------- stream results as rows


class _Collect:
    def __init__(self) -> None:
        self.batches: list[DecodedBatch] = []

    def process(self, d: DecodedBatch, tx: Any) -> list:
        self.batches.append(d)
        return []


def test_stream_results_become_rows_keys_first_null_keys_marked_changes_without_row_dropped() -> None:
    result = JoinResult(key_columns=1, width=2, table=False, windowed=False, window_keys=False,
                        input_schema=None, where=None)  # type: ignore[arg-type]
    down = _Collect()
    out = JoinOutput(result, None, down, partition=4)  # type: ignore[arg-type]
    out.process([((1,), ("a", 1), None, 10, None), ((2,), None, None, 11, None),
                 (None, ("b", 2), None, 12, [("h", b"x")]), ((3,), ("c", 3), None, 13, None)], None)
    [d] = down.batches
    assert d.rows == [(1, "a", 1), (None, "b", 2), (3, "c", 3)]
    assert d.timestamps == [10, 12, 13]
    assert d.partitions == [4, 4, 4]
    assert d.headers == [None, [("h", b"x")], None]
    assert d.tombstones == [False, False, False]
    assert d.null_keys == [1]
