"""A task committing on ``commit.interval.ms`` (as worker processes do) rather than per batch.

Held batches write nothing until the commit: no output, no changelog record, no input offset; the
commit then writes them all at once, each state change on the changelog once (a store flushed after
every batch sends only what changed since its previous flush). A failed commit discards the held
batches and the task resumes from its committed position.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ksqlpy.engine import Engine


def _keys(engine: Engine, topic: str) -> Counter[bytes]:
    """How often each key occurs on ``topic``."""
    out: Counter[bytes] = Counter()
    offset = engine.log.start_offset(topic, 0)
    while True:
        b = engine.log.fetch(topic, 0, offset, 10_000)
        if not b.offsets:
            return out
        out.update(b.keys)
        offset = b.next_offset


def _records(engine: Engine, topic: str) -> int:
    info = engine.log.describe_topic(topic)
    assert info is not None
    return sum(engine.log.end_offset(topic, p) - engine.log.start_offset(topic, p) for p in range(info.partitions))


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    e = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": 0})
    yield e
    e.close()


def _setup(engine: Engine) -> tuple[object, str]:
    engine.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (KAFKA_TOPIC='ci_src', PARTITIONS=1, VALUE_FORMAT='JSON');")
    engine.execute("CREATE TABLE T WITH (KAFKA_TOPIC='ci_out') AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID;")
    (query,) = engine.queries.values()
    (task,) = query.tasks
    task.max_batch = 10
    task.commit_interval_s = 3600.0
    changelog = next(t.name for t in engine.log.list_topics() if t.name.endswith("-changelog"))
    return task, changelog


def test_batches_are_held_until_caught_up_then_committed_together(engine: Engine) -> None:
    task, changelog = _setup(engine)
    for i in range(20):  # two batches of 10, each touching its own 10 keys
        engine.execute(f"INSERT INTO S (ID, V) VALUES ({i}, {i});")
    assert task.poll() == 10 and task.poll() == 10
    assert task.pending
    assert _records(engine, "ci_out") == 0 and _records(engine, changelog) == 0
    assert engine.log.committed(task.group, "ci_src", 0) == 0
    assert task.poll() == 0  # caught up: the held batches commit now
    assert not task.pending
    assert _records(engine, "ci_out") == 20
    # each of the 20 keys' changes went to the changelog once: batch 1's were not sent again with batch 2's
    # (the aggregator's own bookkeeping keys change in both batches: once per flush)
    counts = _keys(engine, changelog)
    assert sum(1 for n in counts.values() if n == 1) == 20 and max(counts.values()) == 2
    assert engine.log.committed(task.group, "ci_src", 0) == 20


def test_a_key_changed_in_two_held_batches_reaches_the_store_with_its_last_value(engine: Engine) -> None:
    task, changelog = _setup(engine)
    for _ in range(20):
        engine.execute("INSERT INTO S (ID, V) VALUES (7, 1);")
    assert task.poll() == 10 and task.poll() == 10 and task.poll() == 0
    assert max(_keys(engine, changelog).values()) == 2  # one change per flush
    (result,) = engine.execute("SELECT * FROM T WHERE ID = 7;")
    assert result.data["rows"] == [(7, 20)]  # the pull query reads the store's committed state


def test_a_failed_commit_discards_the_held_batches_and_rewinds(engine: Engine) -> None:
    task, changelog = _setup(engine)
    for i in range(20):
        engine.execute(f"INSERT INTO S (ID, V) VALUES ({i % 5}, {i});")
    assert task.poll() == 10 and task.poll() == 10
    task.discard()
    assert task.position == 0 and not task.pending
    task.commit_interval_s = 0.0
    while task.poll():
        pass
    assert _records(engine, "ci_out") == 20  # processed once: the discarded work left nothing behind
    assert engine.log.committed(task.group, "ci_src", 0) == 20
