"""Where a foreign-key join keeps the results it applied (plan rules revision 6, ``plan.rules``).

Kafka Streams' foreign-key join has no store of its own for its results (KTableImpl.doJoinOnForeignKey
materializes its output only when asked), so ksqlDB's query has no topic for one: the subscription and
response topics, the subscription store's changelog and the two tables' ``-Reduce`` changelogs. Ours keeps
the results (and the version counter that orders the responses) in the left table's store. A query created
under revision 5 kept them in ``FkJoin-Result``: replayed from the command topic it keeps that store, and
its results go on from where they were; so do a new query's, with its local state files gone or not.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine, command_log
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.log.base import ProducerRecord

PROPS = {"auto.offset.reset": "earliest", "ksql.service.id": "fk_"}
STATEMENTS = [
    "CREATE TABLE L (ID INT PRIMARY KEY, FK INT, V INT) WITH (kafka_topic='l', format='JSON', partitions=2);",
    "CREATE TABLE R (ID INT PRIMARY KEY, W STRING) WITH (kafka_topic='r', format='JSON', partitions=3);",
    "CREATE TABLE OUT AS SELECT L.ID, V, W FROM L LEFT JOIN R ON L.FK = R.ID;",
]
APP = "_confluent-ksql-fk_query_CTAS_OUT_"  # then the query number (the command's offset), "-"


def _send(engine: Engine, source: str, key: int, value: tuple | None, ts: int) -> None:
    src = engine.catalog.source(source)
    assert src is not None
    vb = None if value is None else engine.value_serde(src).serialize(value)
    engine.log.produce(ProducerRecord(src.topic, engine.key_serde(src).serialize((key,)), vb, ts))


def _changes(engine: Engine, after: dict[int, int] | None = None) -> dict[int, list[tuple[Any, Any]]]:
    """Per partition of OUT, the (key, value) of its records from offset ``after[partition]`` (0) on."""
    src = engine.catalog.source("OUT")
    assert src is not None
    ks, vs = engine.key_serde(src), engine.value_serde(src)
    out = {}
    for p in range(engine.log.partition_count(src.topic) or 0):
        batch = engine.log.fetch(src.topic, p, (after or {}).get(p, 0), 1_000_000)
        out[p] = [(ks.deserialize(k)[0], None if v is None else vs.deserialize(v))
                  for k, v in zip(batch.keys, batch.values, strict=True)]
    return out


def _internal_topics(engine: Engine) -> list[str]:
    return sorted(t.name.removeprefix(APP).split("-", 1)[1] for t in engine.log.list_topics()
                  if t.name.startswith(APP))


def _two_runs(data_dir: Path, monkeypatch: pytest.MonkeyPatch, revision: int | None,
              drop_state: bool = False) -> tuple[list[str], list[tuple[Any, Any]]]:
    """The query over a few rows, a restart (its state files gone if ``drop_state``), more changes: the
    query's internal topics and OUT's changes after the restart."""
    with monkeypatch.context() as m:
        if revision is not None:
            m.setattr(command_log, "PLAN_RULES", revision)
        engine = Engine(str(data_dir), dict(PROPS))
        try:
            shell = DurableStatements(engine)
            for s in STATEMENTS:
                shell.execute(s)
            _send(engine, "R", 1, ("a",), 1)
            for k in range(6):
                _send(engine, "L", k, (1 if k % 2 else 2, k), 2)
            engine.drain(30)
            before = {p: len(records) for p, records in _changes(engine).items()}
        finally:
            engine.close()
    if drop_state:
        shutil.rmtree(data_dir / "state")
    engine = Engine(str(data_dir), dict(PROPS))
    try:
        shell = DurableStatements(engine)
        assert shell.replay_errors == []
        _send(engine, "R", 1, ("b",), 3)  # every odd row's answer changes
        _send(engine, "R", 2, ("c",), 4)  # every even row finds its first right row
        _send(engine, "L", 0, (1, 100), 5)  # moves to foreign key 1
        _send(engine, "L", 1, None, 6)  # deleted
        engine.drain(30)
        return _internal_topics(engine), [c for records in _changes(engine, before).values() for c in records]
    finally:
        engine.close()


EXPECTED_AFTER_RESTART = [
    (1, (1, "b")), (3, (3, "b")), (5, (5, "b")),
    (0, (0, "c")), (2, (2, "c")), (4, (4, "c")),
    (0, (100, "b")), (1, None)]
KAFKA_STREAMS_TOPICS = [
    "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000012-topic",
    "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000027-topic",
    "KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000013-changelog",
    "KafkaTopic_Left-Reduce-changelog",
    "KafkaTopic_Right-Reduce-changelog",
    "Project-changelog",
]


def _by_key(changes: list[tuple[Any, Any]]) -> dict[Any, list[Any]]:
    """Each key's changes in order (a key's records are in one partition)."""
    out: dict[Any, list[Any]] = {}
    for k, v in changes:
        out.setdefault(k, []).append(v)
    return out


@pytest.mark.parametrize("drop_state", [False, True], ids=["local state", "state from changelogs"])
def test_a_new_query_has_no_topic_for_its_results_and_goes_on_after_a_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, drop_state: bool) -> None:
    topics, changes = _two_runs(tmp_path, monkeypatch, None, drop_state)
    assert topics == KAFKA_STREAMS_TOPICS
    assert _by_key(changes) == _by_key(EXPECTED_AFTER_RESTART)


def test_a_query_created_under_revision_5_keeps_its_result_store(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    topics, changes = _two_runs(tmp_path, monkeypatch, 5)
    assert topics == sorted(KAFKA_STREAMS_TOPICS + ["FkJoin-Result-changelog"])
    assert _by_key(changes) == _by_key(EXPECTED_AFTER_RESTART)
