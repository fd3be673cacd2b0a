"""KafkaLog against a real broker (tansu): the same ``Log`` behaviour the EmbeddedLog has."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest

pytest.importorskip("confluent_kafka")

from ksqlpy.log import ProducerRecord, TopicExistsError, UnknownTopicError, open_log  # noqa: E402
from ksqlpy.log.kafka import KafkaLog  # noqa: E402
from ksqlpy.log.kafka_config import client_configs, consumer_config, producer_config  # noqa: E402
from ksqlpy.log.partitioner import partition_for_key  # noqa: E402
from ksqlpy.log.topic_names import InvalidPartitionCount, InvalidReplicationFactor  # noqa: E402


@pytest.fixture
def log(bootstrap: str) -> Iterator[KafkaLog]:
    lg = open_log({"bootstrap.servers": bootstrap})
    assert isinstance(lg, KafkaLog)
    yield lg
    lg.close()


def _name() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


def _all(lg: KafkaLog, topic: str, partition: int = 0) -> list[tuple]:
    out: list[tuple] = []
    offset = lg.start_offset(topic, partition)
    while True:
        b = lg.fetch(topic, partition, offset, 100_000)
        if not b.offsets:
            return out
        out += list(zip(b.offsets, b.keys, b.values, b.timestamps, b.headers, strict=True))
        offset = b.next_offset


def test_topic_lifecycle_with_partitions_and_configs(log: KafkaLog) -> None:
    name = _name()
    info = log.create_topic(name, 3, 1, {"cleanup.policy": "compact", "retention.ms": "1000"})
    got = log.describe_topic(name)
    assert got is not None and (got.partitions, got.replicas) == (3, 1)
    assert got.config == {"cleanup.policy": "compact", "retention.ms": "1000"} == info.config
    assert name in [t.name for t in log.list_topics()]
    with pytest.raises(TopicExistsError):
        log.create_topic(name)
    log.delete_topic(name)
    assert log.describe_topic(name) is None
    with pytest.raises(UnknownTopicError):
        log.delete_topic(name)


@pytest.mark.parametrize(("partitions", "replicas", "refusal"), [
    (0, 1, InvalidPartitionCount), (-2, 1, InvalidPartitionCount), (1, 0, InvalidReplicationFactor),
    (0, 0, InvalidReplicationFactor),
])
def test_counts_the_controller_refuses_are_refused_here_too(log: KafkaLog, partitions: int, replicas: int,
                                                            refusal: type[Exception]) -> None:
    """Tansu creates a topic of 0 partitions; Kafka's controller does not: the log keeps Kafka's rule."""
    name = _name()
    with pytest.raises(refusal):
        log.create_topic(name, partitions, replicas)
    assert log.describe_topic(name) is None


def test_minus_one_leaves_the_counts_to_the_broker(log: KafkaLog) -> None:
    name = _name()
    made = log.create_topic(name, -1, -1)
    assert made == log.describe_topic(name)
    assert made.partitions >= 1 and made.replicas >= 1


def test_a_topic_created_meanwhile_by_another_server(log: KafkaLog) -> None:
    """``concurrent_creates`` (a cluster's servers): the same topic created twice is the topic both wanted."""
    log.create_topic("meanwhile", 2)
    with pytest.raises(TopicExistsError):
        log.create_topic("meanwhile", 2)
    log.concurrent_creates = True
    assert log.create_topic("meanwhile", 2).partitions == 2
    with pytest.raises(TopicExistsError):
        log.create_topic("meanwhile", 4)


def test_illegal_names_and_partitions(log: KafkaLog) -> None:
    with pytest.raises(ValueError, match="illegal"):
        log.create_topic("a b")
    with pytest.raises(ValueError, match="invalid non-positive value"):
        log.create_topic(_name(), 0)


def test_round_trip_of_every_record_field(log: KafkaLog) -> None:
    t = _name()
    log.create_topic(t)
    with log.transaction() as tx:
        tx.produce(ProducerRecord(t, b"k", b"v", 1234, [("h", b"x"), ("n", None)], partition=0))
        tx.produce(ProducerRecord(t, None, b"nokey", 5, None, partition=0))
        tx.produce(ProducerRecord(t, b"tomb", None, 6, None, partition=0))
    rows = _all(log, t)
    assert rows == [(0, b"k", b"v", 1234, [("h", b"x"), ("n", None)]), (1, None, b"nokey", 5, None),
                    (2, b"tomb", None, 6, None)]
    assert log.end_offset(t, 0) == 3 and log.start_offset(t, 0) == 0


def test_produce_returns_partition_and_offset_and_keys_use_the_java_partitioner(log: KafkaLog) -> None:
    t = _name()
    log.create_topic(t, 4)
    for key in (b"alice", b"bob", b"carol", b"dave"):
        p, off = log.produce(ProducerRecord(t, key, b"v", 1))
        assert p == partition_for_key(key, 4)
        assert log.last_written(t) == (p, off)


def test_end_offset_is_exact_after_a_large_batched_write(log: KafkaLog) -> None:
    """ListOffsets on tansu reports a producer batch short; the fetch high watermark is right."""
    t = _name()
    log.create_topic(t, 2)
    with log.transaction() as tx:
        tx.produce_batch(t, 0, [b"k%d" % i for i in range(30_000)], [b"v"] * 30_000, [1] * 30_000)
        tx.produce_batch(t, 1, [b"k"] * 5, [b"v"] * 5, None)
    assert (log.end_offset(t, 0), log.end_offset(t, 1)) == (30_000, 5)
    assert len(_all(log, t, 0)) == 30_000


@pytest.mark.parametrize("exactly_once", [False, True])
def test_a_columnar_batch_larger_than_the_local_queue_arrives_whole_and_in_order(
        bootstrap: str, exactly_once: bool) -> None:
    """The bare produce loop stops at a full local queue; the rest goes record by record from there."""
    t = _name()
    lg = KafkaLog({"bootstrap.servers": bootstrap, "producer.queue.buffering.max.messages": 50},
                  transactional_id=f"tid-{uuid.uuid4().hex}" if exactly_once else None)
    try:
        lg.create_topic(t, 2)
        n = 400
        with lg.transaction() as tx:
            tx.produce_batch(t, 1, [b"k%d" % i for i in range(n)], [b"v%d" % i for i in range(n)],
                             [0 if i == 3 else 1000 + i for i in range(n)])
        rows = _all(lg, t, 1)
        assert [r[2] for r in rows] == [b"v%d" % i for i in range(n)]
        assert rows[3][3] == 0 and rows[4][3] == 1004  # epoch 0 survives librdkafka's "now"
        assert _all(lg, t, 0) == []
    finally:
        lg.close()


def test_a_columnar_batch_with_headers_or_missing_timestamps_keeps_them(log: KafkaLog) -> None:
    t = _name()
    log.create_topic(t, 4)
    keys = [b"alice", b"bob", b"carol"]
    with log.transaction() as tx:
        tx.produce_batch(t, None, keys, [b"1", b"2", b"3"], [5, 6, 7], [None, [("h", b"x")], None])
        tx.produce_batch(t, 0, [b"z"], [b"4"], [None])
    for key in keys:  # unpartitioned: the key's partition, as Kafka's Java producer picks it
        rows = [r for r in _all(log, t, partition_for_key(key, 4)) if r[1] == key]
        assert len(rows) == 1
    bob = [r for r in _all(log, t, partition_for_key(b"bob", 4)) if r[1] == b"bob"][0]
    assert bob[3:] == (6, [("h", b"x")])
    z = [r for r in _all(log, t, 0) if r[1] == b"z"][0]
    assert z[3] > 1_600_000_000_000  # no timestamp: the producer's clock


def test_prefetch_starts_the_read_the_next_fetch_continues(log: KafkaLog) -> None:
    t = _name()
    log.create_topic(t, 2)
    with log.transaction() as tx:
        for p in (0, 1):
            tx.produce_batch(t, p, [b"k"] * 10, [b"%d" % i for i in range(10)], [1] * 10)
    log.prefetch(t, 0, 4)
    log.prefetch(t, 1, 0)
    fetcher = log._fetcher()
    assigned = {tp: off for c in fetcher.sets for tp, off in c.expected.items()}
    assert assigned == {(t, 0): 4, (t, 1): 0}
    assert log.fetch(t, 0, 4).offsets == [4, 5, 6, 7, 8, 9]
    assert log.fetch(t, 1, 0).offsets == list(range(10))
    assert len(fetcher.sets) == 2  # the fetches used the prefetched cursors


def test_fetch_sees_this_process_writes_at_once_and_any_offset(log: KafkaLog) -> None:
    t = _name()
    log.create_topic(t)
    assert log.fetch(t, 0, 0).offsets == []  # caught up (EOF), returns without waiting for data
    for round_ in range(3):
        with log.transaction() as tx:
            tx.produce_batch(t, 0, [None] * 10, [b"%d" % round_] * 10, None)
        b = log.fetch(t, 0, round_ * 10)
        assert b.offsets == list(range(round_ * 10, round_ * 10 + 10))
    assert log.fetch(t, 0, 25, 3).offsets == [25, 26, 27]  # a seek
    assert log.fetch(t, 0, 28).offsets == [28, 29]


def test_two_readers_of_one_partition_keep_their_own_positions(log: KafkaLog) -> None:
    t = _name()
    log.create_topic(t)
    with log.transaction() as tx:
        tx.produce_batch(t, 0, [None] * 100, [b"x"] * 100, None)
    a = b = 0
    for _ in range(10):
        a = log.fetch(t, 0, a, 10).next_offset
        b = log.fetch(t, 0, b, 7).next_offset
    assert (a, b) == (100, 70)


def test_offsets_commit_after_the_records_are_acknowledged(log: KafkaLog) -> None:
    t, out = _name(), _name()
    log.create_topic(t)
    log.create_topic(out)
    assert log.committed("g1", t, 0) is None
    with log.transaction() as tx:
        tx.produce(ProducerRecord(out, b"k", b"v", 1, partition=0))
        tx.commit_offsets("g1", {(t, 0): 42})
    assert log.committed("g1", t, 0) == 42
    assert log.end_offset(out, 0) == 1
    with pytest.raises(RuntimeError), log.transaction() as tx:
        tx.commit_offsets("g1", {(t, 0): 99})
        raise RuntimeError("processing failed")
    assert log.committed("g1", t, 0) == 42


def test_fetch_of_a_missing_topic_raises(log: KafkaLog) -> None:
    with pytest.raises(UnknownTopicError):
        log.end_offset(_name(), 0)


def test_exactly_once_transaction_commits_offsets_with_the_records(bootstrap: str) -> None:
    t, out = _name(), _name()
    lg = KafkaLog({"bootstrap.servers": bootstrap}, transactional_id=f"tid-{uuid.uuid4().hex}")
    try:
        lg.create_topic(t)
        lg.create_topic(out)
        with lg.transaction() as tx:
            tx.produce(ProducerRecord(out, b"a", b"1", 1, partition=0))
            tx.commit_offsets("eos", {(t, 0): 7})
        with pytest.raises(RuntimeError), lg.transaction() as tx:
            tx.produce(ProducerRecord(out, b"b", b"2", 2, partition=0))
            tx.commit_offsets("eos", {(t, 0): 8})
            raise RuntimeError("abort")
        assert lg.committed("eos", t, 0) == 7  # the aborted transaction's offsets never landed
        assert [r[2] for r in _all(lg, out)][0] == b"1"
    finally:
        lg.close()


def test_a_zombie_is_fenced_by_a_newer_instance(bootstrap: str) -> None:
    from ksqlpy.log.kafka import FencedError

    t = _name()
    tid = f"tid-{uuid.uuid4().hex}"
    old = KafkaLog({"bootstrap.servers": bootstrap}, transactional_id=tid)
    old.create_topic(t)
    new = KafkaLog({"bootstrap.servers": bootstrap}, transactional_id=tid)
    try:
        with pytest.raises(FencedError), old.transaction() as tx:
            tx.produce(ProducerRecord(t, b"z", b"zombie", 1, partition=0))
        with new.transaction() as tx:
            tx.produce(ProducerRecord(t, b"n", b"new", 1, partition=0))
    finally:
        old.close()
        new.close()


def test_config_pass_through() -> None:
    cfg = {
        "bootstrap.servers": "b:9092", "security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
        "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required '
                            'username="alice" password="s3\\"cret";',
        "ssl.ca.location": "/ca.pem", "ssl.truststore.location": "/x.jks",
        "ksql.streams.producer.linger.ms": 20, "producer.linger.ms": 7, "consumer.fetch.min.bytes": 10,
        "ksql.streams.num.stream.threads": 4, "ksql.service.id": "x_", "auto.offset.reset": "latest",
        "ksql.streams.client.id": "cid",
    }
    c = client_configs(cfg)
    assert c["common"] == {"bootstrap.servers": "b:9092", "security.protocol": "SASL_SSL",
                           "sasl.mechanisms": "PLAIN", "sasl.username": "alice", "sasl.password": 's3"cret',
                           "ssl.ca.location": "/ca.pem", "client.id": "cid"}
    assert c["producer"] == {"linger.ms": 20}  # ksql.streams.producer.* wins over producer.*
    assert consumer_config(cfg)["fetch.min.bytes"] == 10
    assert consumer_config(cfg)["fetch.queue.backoff.ms"] == 10
    p = producer_config(cfg)
    assert p["linger.ms"] == 20 and p["compression.type"] == "lz4" and p["enable.idempotence"] is True


def test_isolation_probe_says_what_the_broker_does(log: KafkaLog) -> None:
    """The fixture's broker (tansu) shows aborted records to read_committed readers; Kafka hides them."""
    assert log.isolates_aborted() is False


def test_exactly_once_sends_nothing_until_the_batch_commits(bootstrap: str) -> None:
    """Records are held while the batch is processed: a crash then leaves no aborted records."""
    t = _name()
    lg = KafkaLog({"bootstrap.servers": bootstrap}, transactional_id=f"tid-{uuid.uuid4().hex}")
    try:
        lg.create_topic(t)
        with pytest.raises(RuntimeError), lg.transaction() as tx:
            tx.produce(ProducerRecord(t, b"a", b"never", 1, partition=0))
            raise RuntimeError("crash while processing")
        assert lg.end_offset(t, 0) == 0
    finally:
        lg.close()


def test_a_reader_at_the_end_sees_records_another_process_writes(log: KafkaLog, bootstrap: str) -> None:
    """Regression: an EOF seen once made later fetches return nothing without asking librdkafka."""
    t = _name()
    log.create_topic(t)
    assert log.fetch(t, 0, 0).offsets == []
    other = KafkaLog({"bootstrap.servers": bootstrap})  # another writer: this log's write counter stays put
    try:
        other.produce(ProducerRecord(t, b"k", b"v", 1, partition=0))
    finally:
        other.close()
    deadline = time.monotonic() + 10
    got: list[int] = []
    while not got and time.monotonic() < deadline:
        got = log.fetch(t, 0, 0).offsets
    assert got == [0]


def test_deleting_a_topic_this_log_read_does_not_crash_the_process(bootstrap: str) -> None:
    """Regression: librdkafka segfaulted (metadata refresh) once a topic its consumer had fetched was
    deleted; the log now closes such consumers before deleting. Run in a child: a crash would kill pytest."""
    script = f"""
import time
from ksqlpy.log import open_log, ProducerRecord
lg = open_log({{"bootstrap.servers": "{bootstrap}"}})
for i in range(3):
    t = "gone-%d-%d" % (i, time.time_ns())
    lg.create_topic(t)
    lg.produce(ProducerRecord(t, b"k", b"v", 1, partition=0))
    assert lg.fetch(t, 0, 0).offsets == [0]
    lg.end_offset(t, 0)
    lg.delete_topic(t)
    time.sleep(0.5)
    other = "kept-%d-%d" % (i, time.time_ns())
    lg.create_topic(other)
    assert lg.fetch(other, 0, 0).offsets == []
lg.close()
print("ok")
"""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr[-2000:]


def test_a_partition_nobody_reads_any_more_is_released(log: KafkaLog, monkeypatch: pytest.MonkeyPatch) -> None:
    """A state store reads its changelog once, at restore; the partition must not stay assigned and keep
    filling a buffer with everything written to it afterwards."""
    from ksqlpy.log import kafka_fetch

    monkeypatch.setattr(kafka_fetch, "_IDLE_S", 0.4)
    changelog, source = _name(), _name()
    log.create_topic(changelog, 1)
    log.create_topic(source, 1)
    for t in (changelog, source):
        with log.transaction() as tx:
            tx.produce_batch(t, 0, [b"k"] * 10, [b"v"] * 10)
    assert len(_all(log, changelog)) == 10  # the "restore"
    time.sleep(0.5)
    with log.transaction() as tx:  # written after the restore: nobody in this process reads it
        tx.produce_batch(changelog, 0, [b"k"] * 500, [b"v"] * 500)
    for _ in range(3):
        assert len(_all(log, source)) == 10
        time.sleep(0.2)
    fetcher = log._fetcher()
    assert all((changelog, 0) not in c.expected and (changelog, 0) not in c.buf for c in fetcher.sets)
    assert [o for o, *_ in _all(log, changelog)] == list(range(510))  # read again: assigned again, all there
