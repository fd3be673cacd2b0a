"""KafkaLog: the ``Log`` interface on a Kafka cluster through confluent-kafka (librdkafka).

Topics are created, described and deleted with the admin client (partitions, replicas and explicit
configs: some brokers only describe configs that were set at creation). Reads go through per-thread
cursor sets (``kafka_fetch``); writes through one throughput-tuned producer per log.

Transactions, by ``processing.guarantee``:

``at_least_once``
    records are produced as the block runs; on exit the producer is flushed (every record acknowledged)
    and only then are the input offsets committed. A crash before the commit re-processes the batch.
``exactly_once_v2`` (a ``transactional_id`` is given)
    one Kafka transaction per block: outputs, changelog records and the input offsets
    (``send_offsets_to_transaction``) commit together or abort together. A newer instance with the same
    transactional id fences a zombie: its next transactional call fails with ``FencedError``.

Offsets of a group are committed through the group's member consumer when this process has one
(``register_member``; the broker then checks its generation, fencing members that lost the partition),
and through a plain consumer with that ``group.id`` otherwise (engine-assigned tasks).
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from confluent_kafka import OFFSET_INVALID, Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic

from ksqlpy.errors import KsqlError
from ksqlpy.log.base import (
    Headers,
    Log,
    LogTransaction,
    ProducerRecord,
    RecordBatch,
    TopicExistsError,
    TopicInfo,
    UnknownTopicError,
)
from ksqlpy.log.kafka_config import admin_config, consumer_config, producer_config
from ksqlpy.log.kafka_fetch import EPOCH_ZERO, EndProbe, Fetcher
from ksqlpy.log.topic_names import (
    BROKER_DEFAULT,
    InvalidPartitionCount,
    InvalidReplicationFactor,
    InvalidTopicConfig,
    check_config,
    check_counts,
    check_topic_name,
)

_TIMEOUT = 30.0
_FEW_CONFIGS = 12  # a broker describing no more configs than this lists only the ones set on the topic


class KafkaLogError(KsqlError):
    """A Kafka operation failed (delivery, commit, broker unreachable)."""


class FencedError(KafkaLogError):
    """A newer instance took over this transactional id (``producer``) or this group member's
    partitions (the group moved on: a stale generation)."""

    def __init__(self, message: str, *, producer: bool) -> None:
        super().__init__(message)
        self.producer = producer


_PRODUCER_FENCED = (KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH)
_MEMBER_FENCED = (KafkaError.ILLEGAL_GENERATION, KafkaError.UNKNOWN_MEMBER_ID, KafkaError.FENCED_INSTANCE_ID,
                  KafkaError.REBALANCE_IN_PROGRESS)


def _raise_for(e: KafkaException, what: str) -> None:
    err = e.args[0] if e.args else None
    if isinstance(err, KafkaError) and err.code() in _PRODUCER_FENCED + _MEMBER_FENCED:
        raise FencedError(f"{what}: fenced: {err.str()}", producer=err.code() in _PRODUCER_FENCED) from e
    raise KafkaLogError(f"{what}: {err.str() if isinstance(err, KafkaError) else e}") from e


class _DeliveryErrors:
    """Collects failed deliveries. A separate object, so producers do not reference the log: a cycle
    would keep librdkafka clients (and their threads) alive after ``close()`` until a full GC."""

    def __init__(self) -> None:
        self.errors: list[KafkaError] = []

    def __call__(self, err: KafkaError | None, msg: Any) -> None:
        if err is not None:
            self.errors.append(err)

    def take(self) -> list[KafkaError]:
        errs, self.errors = self.errors, []
        return errs


class KafkaTransaction(LogTransaction):
    """Produces into the log's producer and collects offset commits for the end of the block."""

    def __init__(self, log: KafkaLog, producer: Producer, *, deferred: bool = False) -> None:
        self._log = log
        self._producer = producer
        self.offsets: dict[str, dict[tuple[str, int], int]] = {}
        self.topics: set[str] = set()
        self.count = 0
        # exactly-once: records are held until the block ends and sent inside a short transaction, so a
        # crash while a batch is processed leaves no aborted records behind (brokers that do not hide
        # aborted records from read_committed readers would show them)
        self.held: list[tuple[Any, ...]] | None = [] if deferred else None  # _write_batch arguments

    def _send(self, topic: str, key: bytes | None, value: bytes | None, partition: int | None,
              timestamp: int | None, headers: Headers | None) -> None:
        if self.held is not None:
            self.held.append((topic, [key], [value], partition, None if timestamp is None else [timestamp],
                              None if headers is None else [headers]))
            self.topics.add(topic)
            self.count += 1
            return
        self._write(topic, key, value, partition, timestamp, headers)
        self.count += 1

    def release(self) -> None:
        """Send the held records (exactly-once, inside the open transaction)."""
        held, self.held = self.held or [], None
        for op in held:
            self._write_batch(*op)

    def _write(self, topic: str, key: bytes | None, value: bytes | None, partition: int | None,
               timestamp: int | None, headers: Headers | None) -> None:
        kw: dict[str, Any] = {}
        if partition is not None:
            kw["partition"] = partition
        if timestamp is not None:
            kw["timestamp"] = timestamp or EPOCH_ZERO
        if headers:
            kw["headers"] = [(k, v) for k, v in headers]
        p = self._producer
        self.topics.add(topic)
        while True:
            try:
                p.produce(topic, value, key, **kw)
                break
            except BufferError:
                p.poll(0.05)  # the local queue is full: let deliveries drain it

    def _write_batch(self, topic: str, keys: Sequence[bytes | None], values: Sequence[bytes | None],
                     partition: int | None, timestamps: Sequence[int | None] | None,
                     headers: Sequence[Headers | None] | None) -> None:
        """A column of records in one loop of bare ``produce`` calls (the per-record keyword dict and
        call layers cost as much as librdkafka's own enqueue); records with headers, a missing
        timestamp or a full local queue take the record-at-a-time path from where the loop stopped."""
        n = len(values)
        self.topics.add(topic)
        i = 0
        if timestamps is not None and (headers is None or not any(headers)) and None not in timestamps:
            tss = timestamps if 0 not in timestamps else [t or EPOCH_ZERO for t in timestamps]
            produce = self._producer.produce
            part = -1 if partition is None else partition  # -1: librdkafka's "unassigned", the partitioner picks
            try:
                # positional (topic, value, key, partition, callback, on_delivery, timestamp): cheaper to parse
                for i in range(n):  # noqa: B007 - i tells the fallback where the loop stopped
                    produce(topic, values[i], keys[i], part, None, None, tss[i])
                return
            except BufferError:
                pass  # record i was not taken: the slow path retries from it
        write = self._write
        for j in range(i, n):
            write(topic, keys[j], values[j], partition, timestamps[j] if timestamps is not None else None,
                  headers[j] if headers is not None else None)

    def produce(self, record: ProducerRecord) -> None:
        self._send(record.topic, record.key, record.value, record.partition, record.timestamp, record.headers)

    def produce_batch(self, topic: str, partition: int | None, keys: Sequence[bytes | None],
                      values: Sequence[bytes | None], timestamps: Sequence[int | None] | None = None,
                      headers: Sequence[Headers | None] | None = None) -> None:
        n = len(values)
        if len(keys) != n or (timestamps is not None and len(timestamps) != n) or (
                headers is not None and len(headers) != n):
            raise ValueError("produce_batch: keys, values, timestamps and headers must have equal lengths")
        self.count += n
        if self.held is not None:
            self.held.append((topic, keys, values, partition, timestamps, headers))
            self.topics.add(topic)
            return
        self._write_batch(topic, keys, values, partition, timestamps, headers)

    def commit_offsets(self, group: str, offsets: dict[tuple[str, int], int]) -> None:
        self.offsets.setdefault(group, {}).update(offsets)


class KafkaLog(Log):
    """See the module docstring. ``config`` holds ksqlpy/ksqlDB properties (``bootstrap.servers``...)."""

    remote_commit = True

    def __init__(self, config: dict[str, Any], *, transactional_id: str | None = None) -> None:
        self.config = dict(config)
        if not self.config.get("bootstrap.servers") and not self.config.get("ksql.streams.bootstrap.servers"):
            raise KsqlError("KafkaLog needs 'bootstrap.servers'")
        self.admin = AdminClient(admin_config(self.config))
        self.check_connection()
        self._consumer_conf = consumer_config(self.config, **{"group.id": f"ksqlpy-reader-{uuid.uuid4().hex}"})
        self._errors = _DeliveryErrors()
        self._gens: dict[str, int] = {}  # topic -> completed writes by this process (see kafka_fetch)
        self._local = threading.local()
        self._fetchers: list[Fetcher] = []
        self._probe: EndProbe | None = None
        self._group_consumers: dict[str, Consumer] = {}
        self._members: dict[str, Consumer] = {}
        self._lock = threading.RLock()
        self._tx_lock = threading.RLock()
        self.transactional_id = transactional_id
        self._producer = Producer(producer_config(self.config, **{
            "delivery.report.only.error": True, "on_delivery": self._errors,
            "partitioner": "murmur2_random"}))
        self._txn: Producer | None = None
        if transactional_id is not None:
            self._txn = Producer(producer_config(self.config, **{
                "transactional.id": transactional_id, "delivery.report.only.error": True,
                "on_delivery": self._errors, "partitioner": "murmur2_random"}))
            try:
                self._txn.init_transactions(_TIMEOUT)
            except KafkaException as e:
                _raise_for(e, f"initializing transactions for {transactional_id!r}")
        self._single: Producer | None = None
        self._closed = False

    # ---------------------------------------------------------------- helpers
    def check_connection(self) -> None:
        """Fail fast, with one clear error, when the cluster cannot be reached."""
        timeout = float(self.config.get("ksqlpy.kafka.connect.timeout.ms", 10_000)) / 1000
        try:
            self.admin.list_topics(timeout=timeout)
        except KafkaException as e:
            servers = self.config.get("bootstrap.servers") or self.config.get("ksql.streams.bootstrap.servers")
            raise KafkaLogError(f"Kafka is not reachable at bootstrap.servers={servers} within {timeout:g}s: "
                                f"{e.args[0]}") from e

    def _fetcher(self) -> Fetcher:
        f = getattr(self._local, "fetcher", None)
        if f is None:
            f = self._local.fetcher = Fetcher(self._consumer_conf, self._gens, self.end_offset)
            with self._lock:
                self._fetchers.append(f)
        return f

    def _end_probe(self) -> EndProbe:
        with self._lock:
            if self._probe is None:
                self._probe = EndProbe(self._consumer_conf)
            return self._probe

    def _group_consumer(self, group: str) -> Consumer:
        with self._lock:
            member = self._members.get(group)
            if member is not None:
                return member
            c = self._group_consumers.get(group)
            if c is None:
                c = self._group_consumers[group] = Consumer({**self._consumer_conf, "group.id": group})
            return c

    def register_member(self, group: str, consumer: Consumer | None) -> None:
        """Commit ``group``'s offsets through ``consumer`` (a subscribed member), or stop doing so (None)."""
        with self._lock:
            if consumer is None:
                self._members.pop(group, None)
            else:
                self._members[group] = consumer

    # ---------------------------------------------------------------- topics
    def create_topic(self, name: str, partitions: int = 1, replicas: int = 1,
                     config: dict[str, str] | None = None) -> TopicInfo:
        check_topic_name(name)  # Kafka's rules and messages (topic_names.py)
        cfg = {str(k): str(v) for k, v in (config or {}).items()}
        check_config(cfg)  # as a Kafka controller does (a laxer broker, Tansu, may not)
        check_counts(partitions, replicas)  # -1 goes to the broker: its default
        fut = self.admin.create_topics([NewTopic(name, partitions, replicas, config=cfg)],
                                       operation_timeout=_TIMEOUT, request_timeout=_TIMEOUT)[name]
        try:
            fut.result()
        except KafkaException as e:
            err = e.args[0]
            if err.code() == KafkaError.TOPIC_ALREADY_EXISTS:
                exists = TopicExistsError(f"Topic {name!r} already exists")
                exists.__cause__ = e
                return self._created_meanwhile(name, partitions, exists)
            if err.code() == KafkaError.INVALID_REPLICATION_FACTOR:  # e.g. more replicas than brokers
                raise InvalidReplicationFactor(err.str()) from e
            if err.code() == KafkaError.INVALID_CONFIG:
                raise InvalidTopicConfig(err.str()) from e
            if err.code() == KafkaError.INVALID_PARTITIONS:
                raise InvalidPartitionCount(err.str()) from e
            raise KafkaLogError(f"cannot create topic {name!r}: {err.str()}") from e
        self._wait_for(name, present=True)
        if BROKER_DEFAULT in (partitions, replicas):  # the broker chose: what it made
            made = self.describe_topic(name)
            if made is not None:
                return made
        return TopicInfo(name, partitions, replicas, cfg)

    def _wait_for(self, name: str, *, present: bool, timeout: float = _TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            md = self.admin.list_topics(timeout=_TIMEOUT).topics.get(name)
            there = md is not None and md.error is None and len(md.partitions) > 0
            if there == present:
                return
            time.sleep(0.02)
        raise KafkaLogError(f"topic {name!r} did not {'appear' if present else 'go away'} within {timeout:g}s")

    def delete_topic(self, name: str) -> None:
        with self._lock:
            fetchers, probe = list(self._fetchers), self._probe
        for f in fetchers:
            f.drop_topic(name)  # before the delete: see Fetcher.drop_topic
        if probe is not None:
            probe.drop_topic(name)
        fut = self.admin.delete_topics([name], operation_timeout=_TIMEOUT, request_timeout=_TIMEOUT)[name]
        try:
            fut.result()
        except KafkaException as e:
            err = e.args[0]
            if err.code() == KafkaError.UNKNOWN_TOPIC_OR_PART:
                raise UnknownTopicError(f"Topic {name!r} does not exist") from e
            raise KafkaLogError(f"cannot delete topic {name!r}: {err.str()}") from e
        self._wrote([name])
        self._wait_for(name, present=False)

    def describe_topic(self, name: str) -> TopicInfo | None:
        md = self.admin.list_topics(timeout=_TIMEOUT).topics.get(name)
        if md is None or md.error is not None or not md.partitions:
            return None
        replicas = len(next(iter(md.partitions.values())).replicas) or 1
        return TopicInfo(name, len(md.partitions), replicas, self._topic_config(name))

    def topic_exists(self, name: str) -> bool:
        """Metadata only (``describe_topic`` also describes the configs: a second round trip)."""
        md = self.admin.list_topics(timeout=_TIMEOUT).topics.get(name)
        return md is not None and md.error is None and bool(md.partitions)

    def _topic_config(self, name: str) -> dict[str, str]:
        """Configs set on the topic, not broker defaults. Kafka describes every config and marks the
        set ones DYNAMIC_TOPIC_CONFIG; tansu describes only the ones set at creation, marked default."""
        try:
            res = self.admin.describe_configs([ConfigResource("topic", name)], request_timeout=_TIMEOUT)
            entries = next(iter(res.values())).result()
        except KafkaException:
            return {}
        usable = {k: e for k, e in entries.items() if e.value is not None and not e.is_sensitive}
        dynamic = {k: e.value for k, e in usable.items() if e.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value}
        if dynamic or len(usable) > _FEW_CONFIGS:
            return dynamic
        return {k: e.value for k, e in usable.items()}

    def list_topics(self) -> list[TopicInfo]:
        out = []
        for name, md in self.admin.list_topics(timeout=_TIMEOUT).topics.items():
            if md.error is None and md.partitions:
                replicas = len(next(iter(md.partitions.values())).replicas) or 1
                out.append(TopicInfo(name, len(md.partitions), replicas, {}))
        return sorted(out, key=lambda t: t.name)

    # ---------------------------------------------------------------- writing
    @property
    def exactly_once(self) -> bool:
        return self._txn is not None

    @contextmanager
    def transaction(self) -> Iterator[KafkaTransaction]:
        if self._txn is not None:
            with self._tx_lock:
                yield from self._eos_transaction(self._txn)
            return
        tx = KafkaTransaction(self, self._producer)
        yield tx
        self._flush(self._producer)
        self._wrote(tx.topics)
        for group, offsets in tx.offsets.items():
            self._commit(group, offsets)

    def _eos_transaction(self, p: Producer) -> Iterator[KafkaTransaction]:
        tx = KafkaTransaction(self, p, deferred=True)
        yield tx  # the batch is processed; nothing was sent yet
        try:
            p.begin_transaction()
        except KafkaException as e:
            _raise_for(e, "begin transaction")
        try:
            tx.release()
            self._commit_transaction(p, tx)
        except BaseException as e:
            try:
                p.abort_transaction(_TIMEOUT)
            except KafkaException:
                pass  # fenced or fatal: the broker aborts it when the new instance initializes
            if isinstance(e, KafkaException):
                _raise_for(e, "transaction")
            raise
        errs = self._errors.take()
        if errs:
            raise KafkaLogError(f"delivery failed: {errs[0].str()}")

    def _commit_transaction(self, p: Producer, tx: KafkaTransaction) -> None:
        """Commit the open transaction with the offsets committed in it, then note the topics it wrote."""
        for group, offsets in tx.offsets.items():
            tps = [TopicPartition(t, part, off) for (t, part), off in offsets.items()]
            p.send_offsets_to_transaction(tps, self._group_consumer(group).consumer_group_metadata(), _TIMEOUT)
        p.commit_transaction(_TIMEOUT)
        self._wrote(tx.topics)

    @contextmanager
    def streamed_transaction(self) -> Iterator[KafkaTransaction]:
        """One Kafka transaction around a long block (a backfill task's whole output): begun before the
        block, records sent as they are produced (not held in memory), committed with the block's offset
        commits when it ends, aborted when it raises. Needs the transactional id given at construction: a
        newer instance with the same id aborts this one's open transaction (``init_transactions``)."""
        p = self._txn
        if p is None:
            raise KafkaLogError("a streamed transaction needs a transactional id")
        with self._tx_lock:
            try:
                p.begin_transaction()
            except KafkaException as e:
                _raise_for(e, "begin transaction")
            tx = KafkaTransaction(self, p)
            try:
                yield tx
                self._commit_transaction(p, tx)
            except BaseException as e:
                with contextlib.suppress(KafkaException):
                    p.abort_transaction(_TIMEOUT)
                if isinstance(e, KafkaException):
                    _raise_for(e, "transaction")
                raise
        errs = self._errors.take()
        if errs:
            raise KafkaLogError(f"delivery failed: {errs[0].str()}")

    def confirm_producer(self, group: str, offsets: dict[tuple[str, int], int]) -> None:
        """Exactly-once: prove this instance still owns its transactional id before it processes (a resumed
        zombie finds out here, not after a batch). An offsets-only transaction re-committing ``offsets``
        (the positions it resumes from) reaches the transaction coordinator, which fences a stale epoch."""
        p = self._txn
        if p is None or not offsets:
            return
        with self._tx_lock:
            try:
                p.begin_transaction()
                tps = [TopicPartition(t, part, off) for (t, part), off in offsets.items()]
                p.send_offsets_to_transaction(tps, self._group_consumer(group).consumer_group_metadata(), _TIMEOUT)
                p.commit_transaction(_TIMEOUT)
            except KafkaException as e:
                with contextlib.suppress(KafkaException):
                    p.abort_transaction(_TIMEOUT)
                _raise_for(e, "confirming the transactional producer")

    def _flush(self, p: Producer) -> None:
        remaining = p.flush(_TIMEOUT)
        if remaining:
            raise KafkaLogError(f"{remaining} records not delivered within {_TIMEOUT:g}s")
        errs = self._errors.take()
        if errs:
            raise KafkaLogError(f"delivery failed: {errs[0].str()} ({len(errs)} records)")

    def _commit(self, group: str, offsets: dict[tuple[str, int], int]) -> None:
        tps = [TopicPartition(t, p, off) for (t, p), off in offsets.items()]
        try:
            self._group_consumer(group).commit(offsets=tps, asynchronous=False)
        except KafkaException as e:
            _raise_for(e, f"committing offsets of {group!r}")

    def produce(self, record: ProducerRecord) -> tuple[int, int]:
        with self._lock:
            if self._single is None:
                self._single = Producer(producer_config(self.config, **{"linger.ms": 0,
                                                                       "partitioner": "murmur2_random"}))
            single = self._single
        got: list[Any] = []
        kw: dict[str, Any] = {"on_delivery": lambda err, msg: got.append((err, msg))}
        if record.partition is not None:
            kw["partition"] = record.partition
        if record.timestamp is not None:
            kw["timestamp"] = record.timestamp or EPOCH_ZERO
        if record.headers:
            kw["headers"] = list(record.headers)
        single.produce(record.topic, record.value, record.key, **kw)
        single.flush(_TIMEOUT)
        if not got:
            raise KafkaLogError(f"record to {record.topic!r} not delivered within {_TIMEOUT:g}s")
        err, msg = got[0]
        if err is not None:
            raise KafkaLogError(f"delivery to {record.topic!r} failed: {err.str()}")
        where = (msg.partition(), msg.offset())
        self._note_written(record.topic, *where)
        return where

    def _wrote(self, topics: set[str] | list[str]) -> None:
        for t in topics:
            self._gens[t] = self._gens.get(t, 0) + 1

    def _note_written(self, topic: str, partition: int, offset: int) -> None:
        self._wrote([topic])
        lw = getattr(self._local, "last", None)
        if lw is None:
            lw = self._local.last = {}
        lw[topic] = (partition, offset)

    def last_written(self, topic: str) -> tuple[int, int]:
        lw = getattr(self._local, "last", None) or {}
        if topic not in lw:
            raise KeyError(f"nothing was written to topic {topic!r} by this thread")
        return lw[topic]

    def isolates_aborted(self, timeout: float = 10.0) -> bool:
        """Does a read_committed consumer skip an aborted transaction's records? (see kafka_isolation)"""
        from ksqlpy.log.kafka_isolation import isolates_aborted

        return isolates_aborted(self, timeout)

    # ---------------------------------------------------------------- reading
    def fetch(self, topic: str, partition: int, offset: int, max_records: int = 10000) -> RecordBatch:
        if offset < 0:
            offset = self.start_offset(topic, partition)
        return self._fetcher().fetch(topic, partition, offset, max_records)

    def prefetch(self, topic: str, partition: int, offset: int) -> None:
        if offset >= 0:
            self._fetcher().prefetch(topic, partition, offset)

    def end_offset(self, topic: str, partition: int) -> int:
        return self._end_probe().end(topic, partition, 0)

    def start_offset(self, topic: str, partition: int) -> int:
        try:
            return self._end_probe().watermarks(topic, partition, _TIMEOUT)[0]
        except KafkaException as e:
            raise UnknownTopicError(f"cannot read {topic}-{partition}: {e.args[0]}") from e

    def committed(self, group: str, topic: str, partition: int) -> int | None:
        c = self._group_consumer(group)
        with self._lock:
            try:
                got = c.committed([TopicPartition(topic, partition)], timeout=_TIMEOUT)
            except KafkaException as e:
                raise KafkaLogError(f"reading committed offsets of {group!r}: {e.args[0]}") from e
        off = got[0].offset
        return None if off in (OFFSET_INVALID, -1) or off < 0 else off

    def groups(self) -> list[str]:
        try:
            listed = self.admin.list_consumer_groups(request_timeout=_TIMEOUT).result()
        except KafkaException as e:
            raise KafkaLogError(f"listing consumer groups: {e.args[0]}") from e
        return sorted(g.group_id for g in listed.valid)

    def delete_groups(self, groups: Collection[str]) -> None:
        """Delete the groups on the broker (``DeleteGroups``), after closing this log's own consumers of them
        (a group with a live member cannot be deleted)."""
        names = sorted(set(groups))
        if not names:
            return
        with self._lock:
            consumers = [self._group_consumers.pop(g) for g in names if g in self._group_consumers]
        for c in consumers:
            with contextlib.suppress(KafkaException, RuntimeError):
                c.close()
        for name, fut in self.admin.delete_consumer_groups(names, request_timeout=_TIMEOUT).items():
            try:
                fut.result()
            except KafkaException as e:
                err = e.args[0]
                if err.code() not in (KafkaError.GROUP_ID_NOT_FOUND, KafkaError.INVALID_GROUP_ID):
                    raise KafkaLogError(f"cannot delete consumer group {name!r}: {err.str()}") from e

    def wait_for_data(self, timeout_s: float) -> None:
        time.sleep(min(timeout_s, 0.01))  # fetches themselves wait for broker responses

    def close(self) -> None:
        """Flush, close the consumers and drop every client (librdkafka destroys them, threads and all)."""
        if self._closed:
            return
        self._closed = True
        for p in (self._producer, self._txn, self._single):
            if p is not None:
                p.flush(5)
        for f in self._fetchers:
            f.close()
        if self._probe is not None:
            self._probe.close()
        for c in self._group_consumers.values():
            try:
                c.close()
            except (KafkaException, RuntimeError):
                pass
        self._fetchers = []
        self._local = threading.local()
        self._probe = None
        self._group_consumers = {}
        self._members = {}
        self._producer = self._txn = self._single = None  # type: ignore[assignment]
        self.admin = None  # type: ignore[assignment]
