"""EmbeddedLog: topics, offsets, transactions, retention and sharing a directory between processes."""

from __future__ import annotations

import multiprocessing as mp
import threading
import time
from pathlib import Path

import pytest

from ksqlpy.errors import KsqlError
from ksqlpy.log import (
    EmbeddedLog,
    ProducerRecord,
    TopicExistsError,
    UnknownTopicError,
    open_log,
    record_codec,
)
from ksqlpy.log.partitioner import partition_for_key
from ksqlpy.log.topic_names import InvalidPartitionCount, InvalidReplicationFactor, InvalidTopicConfig


@pytest.fixture
def log(tmp_path: Path):
    lg = EmbeddedLog(tmp_path / "log")
    yield lg
    lg.close()


def _all(lg: EmbeddedLog, topic: str, partition: int = 0) -> list[tuple]:
    b = lg.fetch(topic, partition, 0, 1_000_000)
    return list(zip(b.offsets, b.keys, b.values, b.timestamps, b.headers, strict=True))


# -- topics

def test_topic_lifecycle(log: EmbeddedLog) -> None:
    info = log.create_topic("orders", 3, config={"retention.ms": "1000"})
    assert (info.name, info.partitions, info.config) == ("orders", 3, {"retention.ms": "1000"})
    assert log.describe_topic("orders") == info
    assert log.topic_exists("orders") and not log.topic_exists("nope")
    assert [t.name for t in log.list_topics()] == ["orders"]
    with pytest.raises(TopicExistsError):
        log.create_topic("orders")
    log.delete_topic("orders")
    assert log.describe_topic("orders") is None
    with pytest.raises(UnknownTopicError):
        log.delete_topic("orders")


@pytest.mark.parametrize(("bad", "message"), [
    ("", "Topic name is illegal, it can't be empty"),
    ("a b", 'Topic name "a b" is illegal, it contains a character other than ASCII alphanumerics, \'.\', \'_\' '
            "and '-'"),
    ("x/y", 'Topic name "x/y" is illegal'),
    ("ü", 'Topic name "ü" is illegal'),
    (".", 'Topic name cannot be "." or ".."'),
    ("..", 'Topic name cannot be "." or ".."'),
    ("t" * 250, "Topic name is illegal, it can't be longer than 249 characters, topic name: " + "t" * 250),
])
def test_illegal_topic_names_are_rejected_with_kafkas_message(log: EmbeddedLog, bad: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        log.create_topic(bad)
    assert str(caught.value).startswith(message)


def test_a_shared_log_answers_a_topic_created_meanwhile_with_its_description(log: EmbeddedLog) -> None:
    """Servers sharing one log run the same statements at once: with ``concurrent_creates`` the second
    creation of a topic with the same partition count gets the topic; any other clash still fails."""
    log.create_topic("t", 3)
    with pytest.raises(TopicExistsError):
        log.create_topic("t", 3)  # a lone engine: an existing topic is an error
    log.concurrent_creates = True
    assert log.create_topic("t", 3).partitions == 3
    with pytest.raises(TopicExistsError):
        log.create_topic("t", 2)  # not the topic the statement wanted


@pytest.mark.parametrize(("partitions", "replicas", "refusal"), [
    (0, 1, InvalidPartitionCount), (-2, 1, InvalidPartitionCount), (1, 0, InvalidReplicationFactor),
    (1, -2, InvalidReplicationFactor), (0, 0, InvalidReplicationFactor),  # the replication factor first
])
def test_counts_below_one_but_minus_one_are_refused(log: EmbeddedLog, partitions: int, replicas: int,
                                                    refusal: type[Exception]) -> None:
    """The KRaft controller's rule and words (topic_names.check_counts); nothing is created."""
    with pytest.raises(refusal):
        log.create_topic("t", partitions, replicas)
    assert not log.topic_exists("t")


@pytest.mark.parametrize(("retention", "partitions"), [("-2", 1), ("-9223372036854775808", 1), ("-3", 0)])
def test_retention_below_minus_one_is_refused_before_the_counts(log: EmbeddedLog, retention: str,
                                                                 partitions: int) -> None:
    """LogConfig's retention.ms atLeast(-1), judged before the counts (topic_names.check_config)."""
    with pytest.raises(InvalidTopicConfig, match=f"^Invalid value {retention} for configuration retention.ms: "
                                                 "Value must be at least -1$"):
        log.create_topic("t", partitions, 1, {"retention.ms": retention, "cleanup.policy": "delete"})
    assert not log.topic_exists("t")


@pytest.mark.parametrize("retention", ["-1", "0", "604800000"])
def test_retention_of_minus_one_or_more_is_kept(log: EmbeddedLog, retention: str) -> None:
    made = log.create_topic("t", 1, 1, {"retention.ms": retention})
    assert made.config["retention.ms"] == retention


def test_minus_one_is_the_default_count(log: EmbeddedLog) -> None:
    """-1 asks the broker for its default: one partition, one replica here."""
    made = log.create_topic("t", -1, -1)
    assert (made.partitions, made.replicas) == (1, 1)
    assert log.describe_topic("t") == made
    assert log.create_topic("u", 3, -1).replicas == 1


def test_recreated_topic_starts_empty(log: EmbeddedLog) -> None:
    log.create_topic("t")
    with log.transaction() as tx:
        tx.produce(ProducerRecord("t", b"k", b"v", 1))
        tx.commit_offsets("g", {("t", 0): 1})
    log.delete_topic("t")
    log.create_topic("t")
    assert _all(log, "t") == []
    assert log.end_offset("t", 0) == 0
    assert log.committed("g", "t", 0) is None


def test_update_topic_config(log: EmbeddedLog) -> None:
    log.create_topic("t", config={"a": "1", "b": "2"})
    log.update_topic_config("t", {"a": None, "retention.ms": 5})
    assert log.describe_topic("t").config == {"b": "2", "retention.ms": "5"}  # type: ignore[union-attr]


# -- produce / fetch

def test_round_trip_of_every_record_field(log: EmbeddedLog) -> None:
    log.create_topic("t")
    recs = [
        ProducerRecord("t", b"k1", b"v1", 10, partition=0),
        ProducerRecord("t", None, b"v2", 11, partition=0),
        ProducerRecord("t", b"k3", None, 12, partition=0),
        ProducerRecord("t", None, None, -5, partition=0),
        ProducerRecord("t", b"", b"", 13, [("h1", b"x"), ("h\u00e9", None), ("h1", b"")], partition=0),
    ]
    with log.transaction() as tx:
        tx.produce_many(recs)
    got = _all(log, "t")
    assert got == [
        (0, b"k1", b"v1", 10, None),
        (1, None, b"v2", 11, None),
        (2, b"k3", None, 12, None),
        (3, None, None, -5, None),
        (4, b"", b"", 13, [("h1", b"x"), ("h\u00e9", None), ("h1", b"")]),
    ]


def test_missing_timestamp_means_wall_clock(log: EmbeddedLog) -> None:
    log.create_topic("t")
    before = int(time.time() * 1000)
    log.produce(ProducerRecord("t", b"k", b"v"))
    after = int(time.time() * 1000)
    (ts,) = log.fetch("t", 0, 0).timestamps
    assert before <= ts <= after


def test_fetch_from_any_offset_across_chunks(log: EmbeddedLog, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(record_codec, "CHUNK_MAX_RECORDS", 7)
    log.create_topic("t")
    for start in range(0, 100, 25):  # several transactions, each split into several chunks
        with log.transaction() as tx:
            for i in range(start, start + 25):
                tx.produce(ProducerRecord("t", str(i).encode(), b"v%d" % i, i, partition=0))
    for offset in (0, 1, 6, 7, 24, 25, 26, 63, 99):
        for max_records in (1, 5, 13, 1000):
            b = log.fetch("t", 0, offset, max_records)
            want = list(range(offset, min(100, offset + max_records)))
            assert b.offsets == want
            assert b.values == [b"v%d" % i for i in want]
            assert b.timestamps == want
            assert b.next_offset == want[-1] + 1
    assert len(log.fetch("t", 0, 100)) == 0
    assert log.fetch("t", 0, 100).next_offset == -1


def test_fetch_errors(log: EmbeddedLog) -> None:
    log.create_topic("t", 2)
    with pytest.raises(UnknownTopicError):
        log.fetch("missing", 0, 0)
    with pytest.raises(UnknownTopicError):
        log.fetch("t", 2, 0)


def test_produce_returns_partition_and_offset(log: EmbeddedLog) -> None:
    log.create_topic("t", 4)
    assert log.produce(ProducerRecord("t", b"a", b"1", partition=2)) == (2, 0)
    assert log.produce(ProducerRecord("t", b"a", b"1", partition=2)) == (2, 1)
    assert log.last_written("t") == (2, 1)
    p, off = log.produce(ProducerRecord("t", b"zz", b"1"))
    assert (p, off) == (partition_for_key(b"zz", 4), 0 if p != 2 else 2)


def test_keyed_records_use_kafka_partitioner(log: EmbeddedLog) -> None:
    log.create_topic("t", 5)
    keys = [b"key-%d" % i for i in range(50)]
    with log.transaction() as tx:
        for k in keys:
            tx.produce(ProducerRecord("t", k, b"v", 0))
    for p in range(5):
        assert set(log.fetch("t", p, 0).keys) == {k for k in keys if partition_for_key(k, 5) == p}


def test_null_keys_stick_to_one_partition_per_transaction_and_rotate(log: EmbeddedLog) -> None:
    log.create_topic("t", 3)
    used = []
    for _ in range(6):
        with log.transaction() as tx:
            for _ in range(4):
                tx.produce(ProducerRecord("t", None, b"v", 0))
        used.append(log.last_written("t")[0])
    assert sorted(used) == [0, 0, 1, 1, 2, 2]
    assert [log.end_offset("t", p) for p in range(3)] == [8, 8, 8]


def test_explicit_partition_out_of_range(log: EmbeddedLog) -> None:
    log.create_topic("t", 2)
    with pytest.raises(UnknownTopicError, match="no partition 2"):
        log.produce(ProducerRecord("t", b"k", b"v", partition=2))
    with pytest.raises(UnknownTopicError):
        log.produce(ProducerRecord("missing", b"k", b"v"))


def test_produce_batch_matches_per_record_produce(log: EmbeddedLog) -> None:
    log.create_topic("a", 3)
    log.create_topic("b", 3)
    keys = [b"k%d" % i for i in range(30)] + [None]
    values = [b"v%d" % i for i in range(30)] + [None]
    ts = list(range(31))
    with log.transaction() as tx:
        tx.produce_batch("a", None, keys, values, ts, [None] * 30 + [[("h", b"1")]])
    with log.transaction() as tx:
        for k, v, t in zip(keys, values, ts, strict=True):
            tx.produce(ProducerRecord("b", k, v, t, [("h", b"1")] if k is None else None))
    for p in range(3):
        assert _all(log, "a", p) == _all(log, "b", p)
    with log.transaction() as tx:
        tx.produce_batch("a", 1, [b"x", b"y"], [b"1", b"2"])
    assert log.fetch("a", 1, log.end_offset("a", 1) - 2).keys == [b"x", b"y"]
    with pytest.raises(ValueError, match="equal lengths"), log.transaction() as tx:
        tx.produce_batch("a", 0, [b"x"], [b"1", b"2"])



def test_fetch_inside_a_chunk_returns_its_own_bytes(log: EmbeddedLog) -> None:
    """A fetch of some records of a large chunk (one produce_batch) copies just those records out of the
    map: what it returns is bytes, correct after the read transaction ended and other writes moved pages."""
    log.create_topic("c", 1)
    n = 1000
    keys = [None if i % 97 == 0 else b"k%d" % i for i in range(n)]
    values = [None if i % 89 == 0 else b"v%d" % i * (i % 7) for i in range(n)]
    hdrs = [[("h", b"%d" % i)] if i % 50 == 0 else None for i in range(n)]
    with log.transaction() as tx:
        tx.produce_batch("c", 0, keys, values, list(range(n)), hdrs)
    for start, count in ((0, 10), (300, 250), (990, 50), (999, 1), (450, 10_000)):
        b = log.fetch("c", 0, start, count)
        with log.transaction() as tx:  # writes after the read: the returned values must not be views
            tx.produce_batch("c", 0, [b"z"] * 100, [b"w" * 500] * 100)
        end = min(n, start + count)
        assert b.offsets[:end - start] == list(range(start, end))
        assert b.keys[:end - start] == keys[start:end]
        assert b.values[:end - start] == values[start:end]
        assert b.timestamps[:end - start] == list(range(start, end))
        assert b.headers[:end - start] == [None if h is None else [tuple(x) for x in h] for h in hdrs[start:end]]
        assert all(type(v) is bytes for v in b.keys + b.values if v is not None)


# -- transactions and offsets

def test_transaction_commits_records_and_offsets_together(log: EmbeddedLog) -> None:
    log.create_topic("in", 2)
    log.create_topic("out")
    with log.transaction() as tx:
        tx.produce(ProducerRecord("out", b"k", b"v", 1))
        tx.commit_offsets("q1", {("in", 0): 5, ("in", 1): 7})
    assert log.end_offset("out", 0) == 1
    assert log.committed("q1", "in", 0) == 5
    assert log.committed("q1", "in", 1) == 7
    assert log.committed("q2", "in", 0) is None


def test_aborted_transaction_leaves_nothing(log: EmbeddedLog) -> None:
    log.create_topic("in")
    log.create_topic("out", 2)
    with log.transaction() as tx:
        tx.commit_offsets("g", {("in", 0): 1})
    with pytest.raises(RuntimeError, match="boom"), log.transaction() as tx:
        for i in range(100):
            tx.produce(ProducerRecord("out", b"%d" % i, b"v", i))
        tx.commit_offsets("g", {("in", 0): 99})
        raise RuntimeError("boom")
    assert [log.end_offset("out", p) for p in range(2)] == [0, 0]
    assert log.committed("g", "in", 0) == 1
    log.produce(ProducerRecord("out", b"k", b"v", 0, partition=0))
    assert log.fetch("out", 0, 0).offsets == [0]  # offsets were not consumed by the aborted write


def test_nested_transaction_is_an_error(log: EmbeddedLog) -> None:
    log.create_topic("t")
    with log.transaction(), pytest.raises(RuntimeError, match="nested"), log.transaction():
        pass


def test_two_instances_on_one_directory_share_the_environment(tmp_path: Path) -> None:
    a = EmbeddedLog(tmp_path)
    b = EmbeddedLog(tmp_path)
    a.create_topic("t")
    b.produce(ProducerRecord("t", b"k", b"v", 1))
    assert a.fetch("t", 0, 0).values == [b"v"]
    a.close()
    assert b.fetch("t", 0, 0).values == [b"v"]  # still open: reference counted
    b.close()


# -- waiting

def test_wait_for_data_wakes_on_a_write_from_another_thread(log: EmbeddedLog) -> None:
    log.create_topic("t")
    log.fetch("t", 0, 0)
    threading.Timer(0.05, lambda: log.produce(ProducerRecord("t", None, b"v", 0))).start()
    t0 = time.monotonic()
    log.wait_for_data(5.0)
    assert time.monotonic() - t0 < 1.0
    assert len(log.fetch("t", 0, 0)) == 1


def test_wait_for_data_times_out_when_idle(log: EmbeddedLog) -> None:
    log.create_topic("t")
    log.fetch("t", 0, 0)
    t0 = time.monotonic()
    log.wait_for_data(0.05)
    assert 0.04 <= time.monotonic() - t0 < 1.0


def test_wait_for_data_returns_at_once_if_written_since_last_fetch(log: EmbeddedLog) -> None:
    log.create_topic("t")
    log.fetch("t", 0, 0)
    log.produce(ProducerRecord("t", None, b"v", 0))
    t0 = time.monotonic()
    log.wait_for_data(5.0)
    assert time.monotonic() - t0 < 0.5


# -- retention

def test_retention_deletes_old_prefix_only(log: EmbeddedLog, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(record_codec, "CHUNK_MAX_RECORDS", 3)
    log.create_topic("t", config={"retention.ms": "100"})
    log.create_topic("forever", config={"retention.ms": "-1"})
    log.create_topic("compacted", config={"cleanup.policy": "compact", "retention.ms": "100"})
    stamps = [0, 10, 20, 30, 500, 40, 50, 600]
    for topic in ("t", "forever", "compacted"):
        with log.transaction() as tx:
            for i, ts in enumerate(stamps):
                tx.produce(ProducerRecord(topic, None, b"%d" % i, ts, partition=0))
    assert log.enforce_retention(now_ms=135) == 4  # cutoff 35: offsets 0-3 go, 500 stops the scan
    assert log.start_offset("t", 0) == 4
    assert log.fetch("t", 0, 0).offsets == [4, 5, 6, 7]  # reading below start starts at start
    assert log.start_offset("forever", 0) == 0 and log.start_offset("compacted", 0) == 0
    assert log.enforce_retention(now_ms=135) == 0
    assert log.enforce_retention(now_ms=10_000) == 4
    assert (log.start_offset("t", 0), log.end_offset("t", 0)) == (8, 8)
    assert len(log.fetch("t", 0, 0)) == 0
    log.produce(ProducerRecord("t", None, b"new", 10_000, partition=0))
    assert log.fetch("t", 0, 0).offsets == [8]


def test_delete_records(log: EmbeddedLog, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(record_codec, "CHUNK_MAX_RECORDS", 4)
    log.create_topic("t")
    with log.transaction() as tx:
        tx.produce_batch("t", 0, [None] * 10, [b"%d" % i for i in range(10)], list(range(10)))
    assert log.delete_records("t", 0, 6) == 6
    assert log.fetch("t", 0, 0).values == [b"6", b"7", b"8", b"9"]
    assert log.delete_records("t", 0, 3) == 6  # never moves backwards
    assert log.delete_records("t", 0, 99) == 10  # clamped to the end


# -- config factory and processes

def test_open_log_factory(tmp_path: Path) -> None:
    lg = open_log({"log.dir": str(tmp_path / "x")})
    assert isinstance(lg, EmbeddedLog)
    lg.close()
    pytest.importorskip("confluent_kafka")
    with pytest.raises(KsqlError, match="bootstrap.servers"):  # the KafkaLog, failing fast and clearly
        open_log({"bootstrap.servers": "127.0.0.1:1", "ksqlpy.kafka.connect.timeout.ms": 500})


def _child(path: str, n: int) -> None:
    lg = EmbeddedLog(path)
    with lg.transaction() as tx:
        for i in range(n):
            tx.produce(ProducerRecord("shared", b"c%d" % i, b"from-child", i, partition=0))
        tx.commit_offsets("child", {("shared", 0): n})
    lg.close()


def test_second_process_writes_and_parent_sees_it(log: EmbeddedLog) -> None:
    log.create_topic("shared")
    log.produce(ProducerRecord("shared", b"p", b"from-parent", 0, partition=0))
    log.fetch("shared", 0, 0)
    proc = mp.get_context("spawn").Process(target=_child, args=(log.path, 500))
    t0 = time.monotonic()
    proc.start()
    while log.end_offset("shared", 0) < 501 and time.monotonic() - t0 < 30:
        log.wait_for_data(1.0)
    proc.join(30)
    assert proc.exitcode == 0
    b = log.fetch("shared", 0, 0)
    assert b.values == [b"from-parent"] + [b"from-child"] * 500
    assert log.committed("child", "shared", 0) == 500
    log.produce(ProducerRecord("shared", b"p", b"after", 0, partition=0))
    assert log.end_offset("shared", 0) == 502


def _forked_child(path: str, q: mp.Queue) -> None:
    try:
        EmbeddedLog(path)
        q.put("opened")
    except RuntimeError as e:
        q.put(str(e))


def test_forked_child_gets_a_clear_error(log: EmbeddedLog) -> None:
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    proc = ctx.Process(target=_forked_child, args=(log.path, q))
    proc.start()
    msg = q.get(timeout=30)
    proc.join(30)
    assert "spawn" in msg and "forked" in msg


def test_wait_for_data_remembers_the_oldest_snapshot_fetched(log: EmbeddedLog) -> None:
    log.create_topic("a")
    log.create_topic("b")
    log.fetch("a", 0, 0)  # sees nothing
    log.produce(ProducerRecord("a", None, b"new", 0))
    log.fetch("b", 0, 0)  # a newer snapshot, but "a" still has unread data
    t0 = time.monotonic()
    log.wait_for_data(5.0)
    assert time.monotonic() - t0 < 0.5


def test_base_produce_batch_default_matches_the_embedded_one(log: EmbeddedLog) -> None:
    from ksqlpy.log.base import LogTransaction

    log.create_topic("a", 3)
    log.create_topic("b", 3)
    keys, values = [b"k%d" % i for i in range(20)], [b"v%d" % i for i in range(20)]
    with log.transaction() as tx:
        tx.produce_batch("a", None, keys, values, list(range(20)))
        LogTransaction.produce_batch(tx, "b", None, keys, values, list(range(20)))
    for p in range(3):
        assert _all(log, "a", p) == _all(log, "b", p)


def test_fetch_reads_headers_null_keys_and_values_at_any_offset(log: EmbeddedLog) -> None:
    """Headers are filled in after the batch loop for the records that have them: they must line up."""
    log.create_topic("h", 1)
    expect = []
    with log.transaction() as tx:
        for i in range(5000):  # more than one chunk
            hd = [("n", str(i).encode()), ("empty", None)] if i % 7 == 0 else None
            key = None if i % 5 == 0 else f"k{i}".encode()
            value = None if i % 11 == 0 else f"v{i}".encode() * (i % 3)
            tx.produce(ProducerRecord("h", key, value, 1000 + i, hd, partition=0))
            expect.append((i, key, value, 1000 + i, hd))
    assert _all(log, "h") == expect
    for start, n in ((3, 10), (4090, 20), (4999, 5)):
        b = log.fetch("h", 0, start, n)
        assert list(zip(b.offsets, b.keys, b.values, b.timestamps, b.headers, strict=True)) == expect[start:start + n]


def test_produce_batch_with_empty_null_and_zero_fields(log: EmbeddedLog) -> None:
    """The columnar fast path is taken only when no key, value or timestamp is None; empty bytes and a
    timestamp of 0 are ordinary values either way."""
    log.create_topic("z", 1)
    cases = [
        ([b"a", b"", b"c"], [b"1", b"2", b""], [5, 0, 7]),  # falsy but not None: fast path
        ([b"a", None, b"c"], [b"1", b"2", b"3"], [5, 6, 7]),  # a null key
        ([b"a", b"b", b"c"], [None, b"2", b"3"], [1, 2, 3]),  # a tombstone
        ([b"a", b"b", b"c"], [b"1", b"2", b"3"], [1, None, 3]),  # a missing timestamp: the log's clock
    ]
    expect = []
    for keys, values, tss in cases:
        with log.transaction() as tx:
            tx.produce_batch("z", 0, keys, values, tss)
        expect += list(zip(keys, values, tss, strict=True))
    got = log.fetch("z", 0, 0, 100)
    assert list(zip(got.keys, got.values, strict=True)) == [(k, v) for k, v, _ in expect]
    assert [t for t, (_, _, e) in zip(got.timestamps, expect, strict=True) if e is not None] == [
        e for _, _, e in expect if e is not None]
    assert all(t > 1_000_000 for t, (_, _, e) in zip(got.timestamps, expect, strict=True) if e is None)


def test_chunks_are_cut_at_the_record_and_byte_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk ends before the record that would pass either limit; an oversized record stands alone."""
    monkeypatch.setattr(record_codec, "CHUNK_MAX_RECORDS", 4)
    monkeypatch.setattr(record_codec, "CHUNK_MAX_BYTES", 100)
    sizes = [10, 10, 10, 10, 10, 60, 50, 150, 5, 95, 6]
    recs = [bytes([i]) * s for i, s in enumerate(sizes)]
    chunks = record_codec.build_chunks(recs)
    starts = [s for s, _ in chunks]
    assert starts == [0, 4, 6, 7, 8, 10]
    assert [record_codec.chunk_count(c) for _, c in chunks] == [4, 2, 1, 1, 2, 1]
    got = []
    for _, c in chunks:
        base, pos = record_codec.chunk_positions(c)
        got += [c[base + pos[i]:base + pos[i + 1]] for i in range(record_codec.chunk_count(c))]
    assert got == recs
