"""A task with several inputs takes the record with the smallest timestamp among its inputs' heads, and
does not run ahead while one input is empty but known to have more: records not fetched yet, or - in one
process - records its upstream sub-topology has not processed yet (the repartition topic is only empty
because the upstream has not run). Kafka Streams' PartitionGroup with ``max.task.idle.ms`` (KIP-695).

Before, each upstream task took a whole batch before the join task ran, so the join's stream time was
pushed by one side's batch and the other side's unread records arrived late: with ``GRACE PERIOD 0``
a windowed join lost matches, and a stream-table join read table rows from after its stream record.
So whatever the batch size, the result here is the one of processing one record at a time."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from ksqlpy.log.base import ProducerRecord
from tests.joins.conftest import Harness

BATCHES = [1, 7, 500]


def _persons_and_auctions(seed: int, n: int = 1200) -> tuple[list[tuple[int, int]], list[tuple[int, int, int]]]:
    """One timeline of persons (id, ts) and auctions (id, seller, ts), three auctions per person as in
    Nexmark, sellers among the last few persons (some within the join window, some not)."""
    rnd = random.Random(seed)
    persons: list[tuple[int, int]] = []
    auctions: list[tuple[int, int, int]] = []
    ts = 10_000
    for i in range(n):
        ts += rnd.choice((0, 300, 700, 1500))
        if i % 4 == 0 or not persons:
            persons.append((1000 + len(persons), ts))
        else:
            seller = persons[-1 - rnd.randrange(min(len(persons), 12))][0]
            auctions.append((5000 + i, seller, ts))
    return persons, auctions


def _windowed_pairs(persons: list[tuple[int, int]], auctions: list[tuple[int, int, int]],
                    within_ms: int) -> Counter:
    """What an inner join WITHIN ``within_ms`` gives when every record is processed in time order."""
    at = dict(persons)
    return Counter((seller, aid) for aid, seller, ts in auctions if abs(at[seller] - ts) <= within_ms)


def _set_batch(h: Harness, size: int) -> None:
    for q in h.engine.queries.values():
        for t in q.tasks:
            t.max_batch = size


def _q8_like(h: Harness, partitions: int, select: str) -> None:
    """Persons keyed by id in ``partitions`` partitions; auctions re-keyed by seller, all in the first
    partition of their topic (one upstream task writes the repartition topic, in time order: several
    would interleave their batches in it - see docs/joins.md, "Input alignment")."""
    for name, cols in (("PERSON", "NAME STRING"), ("AUCTION", "SELLER INT")):
        h.sql(f"CREATE STREAM {name} (ID INT KEY, {cols}) WITH (kafka_topic='{name.lower()}', "
              f"value_format='JSON', partitions={partitions});")
    persons, auctions = _persons_and_auctions(partitions)
    for pid, ts in persons:
        h.send("PERSON", pid, {"NAME": f"p{pid}"}, ts)
    src = h.engine.catalog.source("AUCTION")
    assert src is not None
    ks, vs = h.engine.key_serde(src), h.engine.value_serde(src)
    for aid, seller, ts in auctions:
        h.engine.log.produce(ProducerRecord("auction", ks.serialize((aid,)), vs.serialize((seller,)), ts, None, 0))
    h.sql(select)


PAIRS = ("CREATE STREAM O AS SELECT P.ID AS PID, A.ID AS AID FROM PERSON P JOIN AUCTION A "
         "WITHIN 10 SECONDS GRACE PERIOD 0 SECONDS ON P.ID = A.SELLER {where} EMIT CHANGES;")


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("partitions", [1, 2])
@pytest.mark.parametrize("where", ["", "WHERE A.ID % 3 <> 0"])
def test_a_windowed_join_with_no_grace_misses_nothing_whatever_the_batch(h: Harness, batch: int,
                                                                         partitions: int, where: str) -> None:
    """q8's shape: the persons keyed by the join key, the auctions re-keyed by seller through a
    repartition topic, a join WITHIN 10 SECONDS GRACE PERIOD 0 SECONDS; with a WHERE on the auctions
    alone they are filtered before the repartition, so what it holds is never a whole batch."""
    _q8_like(h, partitions, PAIRS.format(where=where))
    _set_batch(h, batch)
    h.run()
    persons, auctions = _persons_and_auctions(partitions)
    if where:
        auctions = [a for a in auctions if a[0] % 3 != 0]
    got = Counter((k, v[0]) for k, v, _ in h.read("O"))
    assert got == _windowed_pairs(persons, auctions, 10_000)


@pytest.mark.parametrize("batch", BATCHES)
def test_a_q8_like_count_with_no_grace_equals_the_default_grace(h: Harness, batch: int) -> None:
    """The join, its WHERE across both sides and a GROUP BY after it (q8 itself): with GRACE 0 the same
    counts as with the default grace, records in time order being never late."""
    sql = ("CREATE TABLE C WITH (key_format='JSON') AS SELECT P.ID AS ID, (P.ROWTIME / 10000) * 10000 AS STARTTIME, COUNT(*) AS N "
           "FROM PERSON P JOIN AUCTION A WITHIN 10 SECONDS GRACE PERIOD 0 SECONDS ON P.ID = A.SELLER "
           "WHERE P.ROWTIME / 10000 = A.ROWTIME / 10000 GROUP BY P.ID, (P.ROWTIME / 10000) * 10000 EMIT CHANGES;")
    _q8_like(h, 1, sql)
    _set_batch(h, batch)
    h.run()
    persons, auctions = _persons_and_auctions(1)
    at = dict(persons)
    want = Counter((seller, at[seller] // 10000 * 10000) for _, seller, ts in auctions
                   if abs(at[seller] - ts) <= 10_000 and at[seller] // 10000 == ts // 10000)
    final: dict[Any, int] = {}
    for k, v, _ in h.read("C"):
        final[k] = v[-1]
    assert final == dict(want)


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("join", ["JOIN", "LEFT JOIN"])
@pytest.mark.parametrize("partitions", [1, 2])
def test_a_re_keyed_stream_reads_the_table_as_of_its_time(h: Harness, batch: int, join: str,
                                                          partitions: int) -> None:
    """A stream-table join whose stream is re-keyed: the table's own topic must not run ahead of the
    stream records the repartition has not delivered yet (each would read a later row). The stream's
    records are in the first partition of its topic (one upstream task)."""
    h.sql(f"CREATE STREAM S (ID INT KEY, FK INT) WITH (kafka_topic='s', value_format='JSON', "
          f"partitions={partitions});")
    h.sql(f"CREATE TABLE T (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON', "
          f"partitions={partitions});")
    rnd = random.Random(5)
    table: dict[int, list[tuple[int, int]]] = {}
    stream = []
    for i in range(600):
        ts = 1000 + i * 10
        if i % 3 == 0:
            k = rnd.randrange(8)
            table.setdefault(k, []).append((ts, i))
            h.send("T", k, {"V": i}, ts)
        else:
            stream.append((i, rnd.randrange(8), ts))
    src = h.engine.catalog.source("S")
    assert src is not None
    ks, vs = h.engine.key_serde(src), h.engine.value_serde(src)
    for sid, fk, ts in stream:
        h.engine.log.produce(ProducerRecord("s", ks.serialize((sid,)), vs.serialize((fk,)), ts, None, 0))
    h.sql(f"CREATE STREAM O AS SELECT S.FK AS FK, S.ID AS SID, T.V AS V FROM S {join} T ON S.FK = T.ID "
          "EMIT CHANGES;")
    _set_batch(h, batch)
    h.run()

    def as_of(k: int, ts: int) -> int | None:
        rows = [v for t, v in table.get(k, []) if t <= ts]
        return rows[-1] if rows else None

    want = sorted((sid, as_of(fk, ts)) for sid, fk, ts in stream
                  if join == "LEFT JOIN" or as_of(fk, ts) is not None)
    assert sorted((v[0], v[1]) for _, v, _ in h.read("O")) == want


def test_no_waiting_for_an_upstream_with_nothing_left(h: Harness) -> None:
    """An input whose upstream has processed everything is not waited for: the other input's records
    are joined at once (a stream-table join whose re-keyed stream side is empty still builds its table)."""
    _q8_like(h, 1, PAIRS.format(where=""))
    _set_batch(h, 7)
    h.run()
    n = len(h.read("O"))
    h.send("PERSON", 999_999, {"NAME": "late"}, 10**9)
    h.run()
    assert len(h.read("O")) == n
    q = next(iter(h.engine.queries.values()))
    assert all(t.lag() == 0 for t in q.tasks if hasattr(t, "lag"))


def test_in_worker_processes_each_waits_for_the_upstream_in_its_own(tmp_path: Any) -> None:
    """``ksqlpy.workers=process``: each worker's join tasks wait for the re-keying tasks it runs itself
    (the others' records come when they come); nothing stalls and the result is whole (default grace)."""
    h = Harness(str(tmp_path), {"ksqlpy.workers": "process", "num.stream.threads": 2})
    try:
        for name, cols in (("PERSON", "NAME STRING"), ("AUCTION", "SELLER INT")):
            h.sql(f"CREATE STREAM {name} (ID INT KEY, {cols}) WITH (kafka_topic='{name.lower()}', "
                  "value_format='JSON', partitions=2);")
        persons, auctions = _persons_and_auctions(2)
        for pid, ts in persons:
            h.send("PERSON", pid, {"NAME": f"p{pid}"}, ts)
        for aid, seller, ts in auctions:
            h.send("AUCTION", aid, {"SELLER": seller}, ts)
        h.sql("CREATE STREAM O AS SELECT P.ID AS PID, A.ID AS AID FROM PERSON P JOIN AUCTION A "
              "WITHIN 10 SECONDS ON P.ID = A.SELLER EMIT CHANGES;")
        h.engine.drain(120)
        assert Counter((k, v[0]) for k, v, _ in h.read("O")) == _windowed_pairs(persons, auctions, 10_000)
    finally:
        h.engine.close()


def test_worker_processes_drain_with_an_empty_input_partition(tmp_path: Any) -> None:
    """A join task whose input partition never had a record pins its start as a single-input task does, so
    the workers' committed positions reach every input's end and a drain finishes (it waited for a
    commit that never came: 'auction-1 committed none of 0')."""
    h = Harness(str(tmp_path), {"ksqlpy.workers": "process", "num.stream.threads": 2})
    try:
        _q8_like(h, 2, PAIRS.format(where=""))  # every auction in the first partition of its topic
        h.engine.drain(60)
        persons, auctions = _persons_and_auctions(2)
        got = Counter((k, v[0]) for k, v, _ in h.read("O"))
        assert sum(got.values()) and set(got) <= set(_windowed_pairs(persons, auctions, 10_000))
    finally:
        h.engine.close()
