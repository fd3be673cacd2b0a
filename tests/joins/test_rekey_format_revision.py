"""A both-sides-re-keyed join's key format across plan rule revision 10 (``plan.rules``): two KAFKA-keyed
streams joined on a BOOLEAN value column are re-keyed into JSON (KAFKA cannot write a BOOLEAN key; ksqlDB's
``SchemaKStream.selectKey`` sanitizes the key format), where revision 9 kept KAFKA and wrote the key in an
encoding of ksqlpy's own. The format decides the repartition topics' key bytes and the join stores' keys, so
a join planned under revision 9 keeps its layout when its command is replayed after an upgrade: a row held
in the join's window before the restart still joins one that arrives after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine, command_log
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.log.base import ProducerRecord
from ksqlpy.plan.rules import JOIN_KEY_FORMAT_HOLDS_KEY

PROPS = {"auto.offset.reset": "earliest"}
STATEMENTS = [
    "CREATE STREAM L (ID INT KEY, C BOOLEAN, V INT) WITH (kafka_topic='l', key_format='KAFKA', "
    "value_format='JSON', partitions=1);",
    "CREATE STREAM R (ID INT KEY, C BOOLEAN, W INT) WITH (kafka_topic='r', key_format='KAFKA', "
    "value_format='JSON', partitions=1);",
    "CREATE STREAM J WITH (KEY_FORMAT='JSON') AS SELECT L.C, V, W FROM L JOIN R WITHIN 1 MINUTE ON L.C = R.C;",
]
REPARTITION = "Join-right-repartition"


def _repartition_keys(engine: Engine) -> list[bytes | None]:
    topic = next(t.name for t in engine.log.list_topics() if t.name.endswith(REPARTITION))
    return list(engine.log.fetch(topic, 0, 0, 100).keys)


def _run(data_dir: Path, monkeypatch: pytest.MonkeyPatch,
         revision: int | None) -> tuple[list[bytes | None], list[bytes | None], list[bytes]]:
    """The right repartition topic's keys after the first run (created under ``revision``: None the current
    one) and after a restart replays the commands, and J's values: the right row is sent before the restart,
    the left one after."""
    with monkeypatch.context() as m:
        if revision is not None:
            m.setattr(command_log, "PLAN_RULES", revision)
        engine = Engine(str(data_dir), dict(PROPS))
        try:
            shell = DurableStatements(engine)
            for s in STATEMENTS:
                shell.execute(s)
            engine.log.produce(ProducerRecord("r", b"\x00\x00\x00\x01", b'{"C":true,"W":2}', 1000))
            engine.drain(30)
            before = _repartition_keys(engine)
        finally:
            engine.close()
    engine = Engine(str(data_dir), dict(PROPS))
    try:
        assert DurableStatements(engine).replay_errors == []
        engine.log.produce(ProducerRecord("l", b"\x00\x00\x00\x02", b'{"C":true,"V":3}', 2000))
        engine.drain(30)
        values = list(engine.log.fetch("J", 0, 0, 100).values)
        return before, _repartition_keys(engine), values
    finally:
        engine.close()


def test_a_join_created_now_is_keyed_in_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before, after, values = _run(tmp_path, monkeypatch, None)
    assert before == after == [b"true"]
    assert values == [b'{"V":3,"W":2}']


def test_a_join_created_under_revision_9_keeps_its_key_encoding(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    before, after, values = _run(tmp_path, monkeypatch, JOIN_KEY_FORMAT_HOLDS_KEY - 1)
    assert before == after and before != [b"true"]
    assert values == [b'{"V":3,"W":2}']
