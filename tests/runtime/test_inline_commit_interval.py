"""Queries run in the engine process commit on ``commit.interval.ms`` like worker processes, and a clean
stop commits what they hold (the held work is neither lost nor written twice)."""

from __future__ import annotations

from pathlib import Path

from ksqlpy.engine import Engine
from ksqlpy.log import EmbeddedLog

CSAS = "CREATE STREAM OUT WITH (KAFKA_TOPIC='out') AS SELECT ID, V * 2 AS W FROM S;"
SRC = "CREATE STREAM S (ID INT KEY, V INT) WITH (KAFKA_TOPIC='src', PARTITIONS=1, VALUE_FORMAT='JSON');"


def _fill(log: EmbeddedLog, n: int) -> None:
    with log.transaction() as tx:
        tx.produce_batch("src", 0, [i.to_bytes(4, "big") for i in range(n)],
                         [b'{"V": %d}' % i for i in range(n)], [1000 + i for i in range(n)])


def test_a_backlog_is_committed_per_interval_and_on_close(tmp_path: Path) -> None:
    log = EmbeddedLog(str(tmp_path / "log"))
    log.create_topic("src", 1)
    _fill(log, 2500)
    props = {"auto.offset.reset": "earliest", "commit.interval.ms": 3_600_000}
    engine = Engine(str(tmp_path / "data"), props, log=log)
    engine.execute(SRC)
    engine.execute(CSAS)
    (query,) = engine.queries.values()
    (task,) = query.tasks
    assert task.commit_interval_s == 3600.0  # the property reached the inline task
    task.max_batch = 1000
    assert task.poll() == 1000 and task.poll() == 1000
    assert task.pending and log.end_offset("out", 0) == 0  # held: no output, no offset yet
    assert log.committed(task.group, "src", 0) == 0
    engine.close()  # a clean stop commits the two held batches (and closes the log)
    log = EmbeddedLog(str(tmp_path / "log"))
    assert log.end_offset("out", 0) == 2000
    assert log.committed(task.group, "src", 0) == 2000

    engine = Engine(str(tmp_path / "data"), props, log=log)  # the same statements resume the same query
    engine.execute(SRC)
    engine.execute(CSAS)
    engine.drain(10)
    assert log.end_offset("out", 0) == 2500  # each input once
    engine.close()


def test_the_embedded_log_commits_every_batch_unless_an_interval_is_set(tmp_path: Path) -> None:
    """An embedded commit is a local transaction: no reason to hold outputs back by default."""
    engine = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest"})
    engine.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (KAFKA_TOPIC='src', PARTITIONS=1, VALUE_FORMAT='JSON');")
    engine.execute("CREATE STREAM OUT WITH (KAFKA_TOPIC='out') AS SELECT ID, V FROM S;")
    (task,) = next(iter(engine.queries.values())).tasks
    assert task.commit_interval_s == 0
    engine.execute("INSERT INTO S (ID, V) VALUES (1, 1);")
    engine.drain(5)
    assert engine.log.end_offset("out", 0) == 1 and not task.pending
    engine.close()


def test_worker_processes_commit_by_the_rule_inline_queries_follow() -> None:
    """Regression: workers on the embedded log held batches for Kafka Streams' 2 s default, which cost
    ~10 % more CPU per record than committing each batch (what an inline query does there)."""
    from types import SimpleNamespace

    from ksqlpy.runtime.coordinator import worker_commit_interval_ms

    embedded, remote = SimpleNamespace(log=SimpleNamespace(remote_commit=False)), SimpleNamespace(
        log=SimpleNamespace(remote_commit=True))
    assert worker_commit_interval_ms(embedded, {}, {}) == 0  # every batch in its own local transaction
    assert worker_commit_interval_ms(embedded, {}, {"commit.interval.ms": 500}) == 500
    assert worker_commit_interval_ms(embedded, {}, {"ksql.streams.commit.interval.ms": 700}) == 700
    assert worker_commit_interval_ms(remote, {}, {}) == 2000  # ksqlDB's default on Kafka
    assert worker_commit_interval_ms(remote, {"processing.guarantee": "exactly_once_v2"}, {}) == 100
