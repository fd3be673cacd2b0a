"""A GROUP BY query placed by an earlier release keeps its layout after the upgrade.

Revision 1 of the plan rules (``plan.rules``) keyed GROUP BY's repartition topic in the sink's key format;
revision 2 keys it in the input's (ksqlDB's rule). Over several partitions the format decides which task
holds a group's state, so a query whose state was built under revision 1 and replayed under revision 2
would start the moved groups again from nothing. The command topic records each statement's revision and
the replay plans it under that one: the counts go on from where they were.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from ksqlpy.engine import Engine, command_log
from ksqlpy.engine.command_log import CommandLog, DurableStatements
from ksqlpy.log.base import ProducerRecord
from ksqlpy.plan.topology import TopicKind

PROPS = {"auto.offset.reset": "earliest", "ksql.service.id": "gk_"}
STATEMENTS = [
    "CREATE STREAM S (K INT KEY, V INT) WITH (kafka_topic='s', key_format='KAFKA', value_format='JSON', "
    "partitions=4);",
    "CREATE TABLE T WITH (KEY_FORMAT='JSON') AS SELECT V, COUNT(*) AS C FROM S GROUP BY V;",
]
GROUPS = range(16)


def _send_all(engine: Engine) -> None:
    src = engine.catalog.source("S")
    assert src is not None
    ks, vs = engine.key_serde(src), engine.value_serde(src)
    for i, v in enumerate(GROUPS):
        engine.log.produce(ProducerRecord(src.topic, ks.serialize((i,)), vs.serialize((v,)), 1000 + i))
    engine.drain(30)


def _latest_counts(engine: Engine) -> dict[int, int]:
    src = engine.catalog.source("T")
    assert src is not None
    ks, vs = engine.key_serde(src), engine.value_serde(src)
    latest: dict[int, int] = {}
    for p in range(engine.log.partition_count(src.topic) or 0):
        batch = engine.log.fetch(src.topic, p, 0, 1_000_000)
        for k, v in zip(batch.keys, batch.values, strict=True):
            latest[ks.deserialize(k)[0]] = vs.deserialize(v)[0]
    return latest


def _repartition_format(engine: Engine) -> str:
    (query,) = engine.queries.values()
    (topic,) = [t for t in query.built.topology.topics if t.kind is TopicKind.REPARTITION]
    assert topic.key is not None
    return topic.key.format


def _two_runs(data_dir: Path, monkeypatch: pytest.MonkeyPatch, first_revision: int | None) -> tuple[str, dict]:
    """Run the query over the groups once (under ``first_revision``, None: the current), restart from the
    command topic, send the groups again: the repartition key format after the restart and the counts."""
    with monkeypatch.context() as m:
        if first_revision is not None:
            m.setattr(command_log, "PLAN_RULES", first_revision)
        engine = Engine(str(data_dir), dict(PROPS))
        try:
            shell = DurableStatements(engine)
            for s in STATEMENTS:
                shell.execute(s)
            _send_all(engine)
        finally:
            engine.close()
    engine = Engine(str(data_dir), dict(PROPS))
    try:
        shell = DurableStatements(engine)
        assert shell.replay_errors == []
        _send_all(engine)
        return _repartition_format(engine), _latest_counts(engine)
    finally:
        engine.close()


def test_a_query_placed_under_revision_1_keeps_its_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fmt, counts = _two_runs(tmp_path, monkeypatch, 1)
    assert counts == dict.fromkeys(GROUPS, 2)  # replayed under revision 2: 10 of the 16 groups start again at 1
    assert fmt == "JSON"  # the sink's, as it was placed


def test_a_new_query_groups_in_the_input_key_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fmt, counts = _two_runs(tmp_path, monkeypatch, None)
    assert fmt == "KAFKA"
    assert counts == dict.fromkeys(GROUPS, 2)


def test_a_command_without_a_revision_is_revision_1(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path), dict(PROPS))
    try:
        log = CommandLog(engine.log, "gk_")
        log.ensure_topic()
        old = {"statement": STATEMENTS[0], "streamsProperties": {}, "originalProperties": {}, "version": 1}
        engine.log.produce(ProducerRecord(log.topic, orjson.dumps("stream/S/create"), orjson.dumps(old),
                                          partition=0))
        log.append("table/T/create", STATEMENTS[1], {}, {})
        assert [c.plan_rules for c in log.read_all()] == [1, command_log.PLAN_RULES]
    finally:
        engine.close()
