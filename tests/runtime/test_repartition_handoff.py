"""A repartition topic's committed records handed to the in-process task reading them (``runtime.handoff``):
the reader takes exactly the records, timestamps and offsets the log holds at its position and nothing
else; the topics, the results and the committed positions are those of a run without it; a restart reads
the topic."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.runtime import handoff
from ksqlpy.runtime.handoff import HandOff, Inbox, Outbox
from ksqlpy.runtime.repartition import decode_values, encode_values

# ---------------------------------------------------------------------------------------------- Inbox


def _pairs(first: int, n: int) -> list[tuple[tuple, int]]:
    return [((f"k{i}", i), 1000 + i) for i in range(first, first + n)]


def test_an_inbox_hands_over_only_records_from_exactly_the_position() -> None:
    box = Inbox()
    box.put(10, _pairs(10, 5))  # 10..14
    box.put(20, _pairs(20, 5))  # 20..24: another process wrote 15..19
    box.put(15, _pairs(15, 2))  # 15..16 arrives later (another task of this process committed it)
    assert box.take(5, 100) == []  # below: the log's
    assert box.take(12, 100) == _pairs(12, 5)  # 12..16, contiguous across segments, stops at the gap
    assert box.take(12, 2) == _pairs(12, 2)
    assert box.take(17, 100) == []  # the gap: fetched from the log
    assert box.take(21, 100) == _pairs(21, 4)
    assert len(box) == 12
    box.prune(16)
    assert box.take(12, 100) == []
    assert box.take(15, 100) == _pairs(15, 2)  # a segment is kept until it is wholly below the position
    box.prune(25)
    assert len(box) == 0 and box.take(21, 100) == []


def test_an_inbox_beyond_its_cap_leaves_batches_to_the_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(handoff, "CAP", 8)
    box = Inbox()
    box.put(0, _pairs(0, 6))
    box.put(6, _pairs(6, 6))  # over the cap: not kept
    box.put(12, _pairs(12, 2))
    assert box.take(0, 100) == _pairs(0, 6)
    assert box.take(6, 100) == []
    assert box.take(12, 100) == _pairs(12, 2)


# ---------------------------------------------------------------------------------------------- delivery


def _log_records(log: EmbeddedLog, topic: str, p: int, first: int) -> list[tuple[tuple, int]]:
    b = log.fetch(topic, p, first, 100_000)
    return list(zip(decode_values(b.values), b.timestamps, strict=True))


def _write(log: EmbeddedLog, out: Outbox, topic: str, batches: list[list[tuple[Any, int]]],
           stage: bool = True) -> Any:
    """Write ``batches`` of (key, ts) payload records to ``topic`` in one transaction, as a repartition writer
    does (key bytes, marshalled ``(key, row)``), staging each for the hand-off."""
    with log.transaction() as tx:
        for batch in batches:
            keys = [None if k is None else str(k).encode() for k, _ in batch]
            payloads = [(k, ("row", k, ts)) for k, ts in batch]
            timestamps = [ts for _, ts in batch]
            tx.produce_batch(topic, None, keys, encode_values(payloads), timestamps)
            if stage:
                out.stage(topic, keys, payloads, timestamps)
    return tx


def test_delivered_records_are_the_ones_the_log_holds_at_their_offsets(tmp_path: Path) -> None:
    log = EmbeddedLog(tmp_path / "log")
    log.create_topic("r", 4)
    with log.transaction() as tx:  # another writer's records first: offsets do not start at 0
        tx.produce_batch("r", None, [b"%d" % i for i in range(13)], [b"x"] * 13, list(range(13)))
    ho = HandOff()
    boxes = [ho.subscribe("r", p) for p in range(4)]
    out = Outbox(ho)
    starts = [log.end_offset("r", p) for p in range(4)]
    tx = _write(log, out, "r", [[(i % 37, 500 + i) for i in range(200)], [(i, 900 + i) for i in range(50)]])
    out.deliver(tx)
    for p in range(4):
        got = boxes[p].take(starts[p], 100_000)
        assert got and got == _log_records(log, "r", p, starts[p])


def test_partitions_the_writer_cannot_account_for_are_left_to_the_log(tmp_path: Path) -> None:
    log = EmbeddedLog(tmp_path / "log")
    log.create_topic("r", 4)
    ho = HandOff()
    boxes = [ho.subscribe("r", p) for p in range(4)]
    out = Outbox(ho)
    # a null key goes where the log's sticky partitioner puts it: that partition is not handed over
    tx = _write(log, out, "r", [[(1, 10), (2, 11), (None, 12), (3, 13), (4, 14), (5, 15)]])
    out.deliver(tx)
    handed = {p for p in range(4) if boxes[p].take(0, 100)}
    sticky = {p for p in range(4) if None in [k for (k, _), _ in _log_records(log, "r", p, 0)]}
    assert handed and sticky and not handed & sticky
    for p in handed:
        assert boxes[p].take(0, 100) == _log_records(log, "r", p, 0)
    # a record written beside the staged ones (not staged) makes its partition's count differ
    start = [log.end_offset("r", p) for p in range(4)]
    with log.transaction() as tx:
        tx.produce(ProducerRecord("r", b"7", encode_values([(7, ("row", 7, 20))])[0], 20))
        keys = [b"%d" % i for i in range(20)]
        payloads = [(i, ("row", i, 21)) for i in range(20)]
        tx.produce_batch("r", None, keys, encode_values(payloads), [21] * 20)
        out.stage("r", keys, payloads, [21] * 20)
    out.deliver(tx)
    p7 = next(p for p in range(4) if (7, ("row", 7, 20)) in [v for v, _ in _log_records(log, "r", p, start[p])])
    assert boxes[p7].take(start[p7], 100) == []
    others = [p for p in range(4) if p != p7 and log.end_offset("r", p) > start[p]]
    assert others and all(boxes[p].take(start[p], 100) == _log_records(log, "r", p, start[p]) for p in others)


def test_nothing_is_delivered_without_a_commit_or_a_reader(tmp_path: Path) -> None:
    log = EmbeddedLog(tmp_path / "log")
    log.create_topic("r", 2)
    log.create_topic("other", 2)
    ho = HandOff()
    box = ho.subscribe("r", 0)
    out = Outbox(ho)
    assert out.wants("r") and not out.wants("other")
    with pytest.raises(RuntimeError), log.transaction() as tx:
        out.stage("r", [b"1"], [(1, ("row",))], [5])
        tx.produce_batch("r", None, [b"1"], encode_values([(1, ("row",))]), [5])
        raise RuntimeError("the batch fails")
    out.clear()  # what an aborting task does
    assert out.take() == {}
    assert log.end_offset("r", 0) + log.end_offset("r", 1) == 0
    assert box.take(0, 10) == []


# ---------------------------------------------------------------------------------------------- queries

SOURCES = [
    "CREATE STREAM ORDERS (ID INT KEY, CUSTOMER INT, AMOUNT INT, TAGS ARRAY<STRING>, PRICE DECIMAL(6, 2)) "
    "WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE TABLE CUSTOMERS (ID INT PRIMARY KEY, REGION STRING) WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', "
    "PARTITIONS=4);",
    "CREATE STREAM VISITS (ID INT KEY, CUSTOMER INT, PAGE STRING) WITH (KAFKA_TOPIC='visits', VALUE_FORMAT='JSON', "
    "PARTITIONS=4);",
]
ORDERS = [(i, (i * 5) % 9, i % 13) for i in range(300)]
REGION = {c: f"r{c % 4}" for c in range(9)}

QUERIES = {
    # a GROUP BY's repartition topic: written and read by single-input tasks
    "group_by": "CREATE TABLE T AS SELECT CUSTOMER, COUNT(*) AS N, SUM(AMOUNT) AS S, COLLECT_LIST(TAGS) AS TL, "
                "SUM(PRICE) AS P FROM ORDERS GROUP BY CUSTOMER;",
    # a join's re-keyed side (written by a join task) and a GROUP BY after the join (read by a task)
    "join_group_by": "CREATE TABLE T AS SELECT C.REGION, COUNT(*) AS N, COLLECT_LIST(O.TAGS) AS TL FROM ORDERS O "
                     "JOIN CUSTOMERS C ON O.CUSTOMER = C.ID GROUP BY C.REGION;",
    # a stream-stream join of two re-keyed sides, then grouped: q8's shape
    "windowed_join": "CREATE TABLE T AS SELECT O.CUSTOMER, COUNT(*) AS N FROM ORDERS O JOIN VISITS V WITHIN 5 SECONDS "
                     "ON O.CUSTOMER = V.CUSTOMER GROUP BY O.CUSTOMER;",
}


def _produce(engine: Engine, orders: list[tuple[int, int, int]]) -> None:
    with engine.log.transaction() as tx:
        for c, region in REGION.items():
            tx.produce(ProducerRecord("customers", c.to_bytes(4, "big"), json.dumps({"REGION": region}).encode(), 0))
    with engine.log.transaction() as tx:
        for i, customer, amount in orders:
            value = {"CUSTOMER": customer, "AMOUNT": amount, "TAGS": [f"t{amount}", None] if i % 3 else None,
                     "PRICE": amount + 0.25}
            tx.produce(ProducerRecord("orders", i.to_bytes(4, "big"), json.dumps(value).encode(), 10 + i))
            tx.produce(ProducerRecord("visits", i.to_bytes(4, "big"),
                                      json.dumps({"CUSTOMER": (i * 7) % 9, "PAGE": f"p{i}"}).encode(), 12 + i))


def _topics(engine: Engine) -> dict[str, list[list[tuple[bytes | None, bytes | None, int]]]]:
    """The internal topics' and the sink's records (key, value, timestamp) by partition."""
    out = {}
    for info in engine.log.list_topics():
        if info.name.startswith("_confluent-ksql") or info.name == "T":
            parts = []
            for p in range(info.partitions):
                b = engine.log.fetch(info.name, p, 0, 1_000_000)
                # (a changelog's records are stamped with the wall clock)
                times = [0] * len(b.offsets) if info.name.endswith("-changelog") else b.timestamps
                parts.append(list(zip(b.keys, b.values, times, strict=True)))
            out[info.name] = parts
    return out


def _committed(engine: Engine) -> dict[tuple[str, int], int | None]:
    (q,) = engine.queries.values()
    group = q.built.topology.application_id
    return {(t.name, p): engine.log.committed(group, t.name, p)
            for t in q.built.topology.internal_topics() for p in range(t.partitions)}


def _run(tmp_path: Path, sql: str, on: bool) -> tuple[Any, Any]:
    engine = Engine(str(tmp_path / ("on" if on else "off")),
                    {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": 0,
                     handoff.PROPERTY: "true" if on else "false"})
    try:
        for s in SOURCES:
            engine.execute(s)
        _produce(engine, ORDERS[:150])
        engine.execute(sql)
        engine.drain()
        _produce(engine, ORDERS[150:])
        engine.drain()
        return _topics(engine), _committed(engine)
    finally:
        engine.close()


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_a_query_writes_reads_and_commits_the_same_with_and_without_the_handoff(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    taken: list[int] = []
    take = Inbox.take

    def counted(self: Inbox, offset: int, n: int) -> list:
        got = take(self, offset, n)
        taken.append(len(got))
        return got

    monkeypatch.setattr(Inbox, "take", counted)
    off_topics, off_committed = _run(tmp_path, QUERIES[name], False)
    assert taken == []
    on_topics, on_committed = _run(tmp_path, QUERIES[name], True)
    assert sum(taken) > 0  # the readers took records from the writers
    assert on_topics == off_topics
    assert on_committed == off_committed
    assert all(v is not None for k, v in on_committed.items() if "repartition" in k[0].lower())


def test_a_restarted_query_reads_what_its_writers_committed_from_the_topic(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    props = {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": 0, "ksql.service.id": "ho_"}
    handed: list[int] = []
    put = Inbox.put

    def counted(self: Inbox, first: int, pairs: list) -> None:
        handed.append(len(pairs))
        put(self, first, pairs)

    monkeypatch.setattr(Inbox, "put", counted)
    engine = Engine(str(tmp_path), dict(props))
    try:
        shell = DurableStatements(engine)
        for s in SOURCES:
            shell.execute(s)
        shell.execute(QUERIES["group_by"])
        _produce(engine, ORDERS)
        (q,) = engine.queries.values()
        writers = [t for t in q.tasks if getattr(t, "outbox", None) is not None]
        assert writers
        for t in writers:  # the writers commit; the readers never take what was handed to them
            while t.poll():
                pass
        assert sum(handed) == len(ORDERS)  # handed to the readers, which close without taking them
    finally:
        engine.close()
    engine = Engine(str(tmp_path), dict(props))
    try:
        shell = DurableStatements(engine)
        assert shell.replay_errors == []
        engine.drain()
        src = engine.catalog.require("T")
        ks, vs = engine.key_serde(src), engine.value_serde(src)
        latest = {}
        for p in range(4):
            b = engine.log.fetch(src.topic, p, 0, 1_000_000)
            for k, v in zip(b.keys, b.values, strict=True):
                latest[ks.deserialize(k)[0]] = vs.deserialize(v)[:2]
        assert latest == {c: (sum(1 for _, cc, _ in ORDERS if cc == c), sum(a for _, cc, a in ORDERS if cc == c))
                          for c in REGION}
    finally:
        engine.close()
