"""Batches packed before the write transaction (``EmbeddedLog.prepare_batch``) store exactly what
``produce_batch`` inside the transaction stores: the same records at the same offsets, in order with what
the transaction already holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.log import EmbeddedLog, ProducerRecord
from ksqlpy.log.record_codec import CHUNK_MAX_RECORDS
from ksqlpy.runtime.batch_writes import HeldWrites


@pytest.fixture
def log(tmp_path: Path):
    lg = EmbeddedLog(tmp_path / "log")
    yield lg
    lg.close()


def _all(log: EmbeddedLog, topic: str) -> list[list[tuple]]:
    """Every partition's records as (offset, key, value, timestamp)."""
    out = []
    for p in range(log.describe_topic(topic).partitions):  # type: ignore[union-attr]
        b = log.fetch(topic, p, 0, 1_000_000)
        out.append(list(zip(b.offsets, b.keys, b.values, b.timestamps, strict=True)))
    return out


def _batch(n: int, start: int = 0) -> tuple[list[bytes], list[bytes], list[int]]:
    keys = [b"k%d" % (i % 97) for i in range(start, start + n)]
    values = [b"v%d" % i for i in range(start, start + n)]
    return keys, values, list(range(start + 1, start + n + 1))


@pytest.mark.parametrize("partition", [None, 2])
@pytest.mark.parametrize("n", [1, 500, CHUNK_MAX_RECORDS * 2 + 7])  # one chunk, several chunks
def test_prepared_batch_stores_what_produce_batch_stores(log: EmbeddedLog, partition: int | None, n: int) -> None:
    log.create_topic("a", 4)
    log.create_topic("b", 4)
    keys, values, tss = _batch(n)
    with log.transaction() as tx:
        tx.produce_batch("a", partition, keys, values, tss)
    prepared = log.prepare_batch("b", partition, keys, values, tss)
    assert prepared is not None
    with log.transaction() as tx:
        tx.produce_prepared(prepared)
    assert _all(log, "b") == _all(log, "a")
    assert sum(map(len, _all(log, "b"))) == n


def test_prepared_batch_follows_records_held_in_the_transaction(log: EmbeddedLog) -> None:
    """Records produced earlier in the same transaction keep their offsets; the prepared ones follow."""
    for t in ("a", "b"):
        log.create_topic(t, 1)
        log.produce(ProducerRecord(t, b"x", b"before", 1))
    k1, v1, t1 = _batch(3)
    k2, v2, t2 = _batch(5, 100)
    with log.transaction() as tx:
        tx.produce_batch("a", None, k1, v1, t1)
        tx.produce_batch("a", None, k2, v2, t2)
        tx.produce(ProducerRecord("a", b"y", b"after", 9))
    with log.transaction() as tx:
        tx.produce_batch("b", None, k1, v1, t1)  # held in the transaction, not put yet
        prepared = log.prepare_batch("b", None, k2, v2, t2)
        assert prepared is not None
        tx.produce_prepared(prepared)
        tx.produce(ProducerRecord("b", b"y", b"after", 9))
    assert _all(log, "b") == _all(log, "a")
    assert log.last_written("b") == (0, 9)


def test_last_written_is_the_last_record_of_the_prepared_batch(log: EmbeddedLog) -> None:
    log.create_topic("t", 8)
    keys, values, tss = _batch(50)
    prepared = log.prepare_batch("t", None, keys, values, tss)
    with log.transaction() as tx:
        tx.produce_prepared(prepared)  # type: ignore[arg-type]
    p, off = log.last_written("t")
    b = log.fetch("t", p, off, 1)
    assert b.values == [values[-1]]


@pytest.mark.parametrize("case", ["null key", "null value", "no timestamps", "null timestamp", "headers", "empty",
                                  "unknown topic", "no such partition"])
def test_batches_that_are_not_plain_are_not_prepared(log: EmbeddedLog, case: str) -> None:
    """Those are produced inside the transaction as before (their rules: sticky partition for a null key,
    the current time for a missing timestamp, headers packed per record, the topic's errors)."""
    log.create_topic("t", 2)
    keys, values, tss = _batch(3)
    topic, partition, headers = "t", None, None
    if case == "null key":
        keys[1] = None  # type: ignore[call-overload]
    elif case == "null value":
        values[1] = None  # type: ignore[call-overload]
    elif case == "no timestamps":
        tss = None  # type: ignore[assignment]
    elif case == "null timestamp":
        tss[0] = None  # type: ignore[call-overload]
    elif case == "headers":
        headers = [[("h", b"1")], None, None]
    elif case == "empty":
        keys, values, tss = [], [], []
    elif case == "unknown topic":
        topic = "nope"
    else:
        partition = 5
    assert log.prepare_batch(topic, partition, keys, values, tss, headers) is None


def test_topic_recreated_after_preparing_is_produced_anew(log: EmbeddedLog) -> None:
    log.create_topic("t", 2)
    keys, values, tss = _batch(20)
    prepared = log.prepare_batch("t", None, keys, values, tss)
    log.delete_topic("t")
    log.create_topic("t", 3)
    log.create_topic("ref", 3)
    with log.transaction() as tx:
        tx.produce_prepared(prepared)  # type: ignore[arg-type]
        tx.produce_batch("ref", None, keys, values, tss)
    assert _all(log, "t") == _all(log, "ref")


def test_held_writes_with_the_prepare_hook_replay_the_same_records(log: EmbeddedLog) -> None:
    log.create_topic("a", 3)
    log.create_topic("b", 3)
    log.create_topic("in", 1)
    for topic, held in (("a", HeldWrites()), ("b", HeldWrites(log.prepare_batch))):
        keys, values, tss = _batch(40)
        held.produce(ProducerRecord(topic, b"r", b"record", 1))
        held.produce_batch(topic, None, keys, values, tss)
        held.produce_batch(topic, None, [None, b"k"], [b"nk", None], [5, 6])  # not plain: kept as it is
        held.commit_offsets("g_" + topic, {("in", 0): 40})
        with log.transaction() as tx:
            held.replay(tx)
    assert _all(log, "b") == _all(log, "a")
    assert log.committed("g_b", "in", 0) == 40
