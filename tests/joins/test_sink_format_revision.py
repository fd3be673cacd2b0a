"""A join's sink formats across plan rule revision 9 (``plan.rules``): a CREATE ... AS SELECT over a join takes
its formats from the FROM source as written - a key-less FROM stream leaves the sink the default key format -
where revision 8 gave it the join's internal key format. A sink created under revision 8 keeps the format its
records were written in when its command is replayed; one created now keeps the new one."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine, command_log
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.log.base import ProducerRecord

PROPS = {"auto.offset.reset": "earliest"}
STATEMENTS = [
    "CREATE STREAM S (ID INT, V INT) WITH (kafka_topic='s', key_format='NONE', value_format='JSON', partitions=1);",
    "CREATE TABLE T (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='t', key_format='JSON', value_format='JSON', "
    "partitions=1);",
    "CREATE STREAM J AS SELECT S.ID, V, W FROM S JOIN T ON S.ID = T.ID;",
]


def _run(data_dir: Path, monkeypatch: pytest.MonkeyPatch, revision: int | None) -> tuple[str, str, list[bytes]]:
    """J's key format when created (under ``revision``: None the current one) and after a restart replays
    the commands, and the keys of J's records from both runs."""
    with monkeypatch.context() as m:
        if revision is not None:
            m.setattr(command_log, "PLAN_RULES", revision)
        engine = Engine(str(data_dir), dict(PROPS))
        try:
            shell = DurableStatements(engine)
            for s in STATEMENTS:
                shell.execute(s)
            engine.log.produce(ProducerRecord("t", b"1", b'{"W":2}', 1))
            engine.log.produce(ProducerRecord("s", None, b'{"ID":1,"V":3}', 2))
            engine.drain(30)
            created = engine.catalog.source("J").key_format
        finally:
            engine.close()
    engine = Engine(str(data_dir), dict(PROPS))
    try:
        assert DurableStatements(engine).replay_errors == []
        engine.log.produce(ProducerRecord("s", None, b'{"ID":1,"V":4}', 3))
        engine.drain(30)
        keys = list(engine.log.fetch("J", 0, 0, 100).keys)
        return created, engine.catalog.source("J").key_format, keys
    finally:
        engine.close()


def test_a_sink_created_now_takes_the_default_key_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(tmp_path, monkeypatch, None) == ("KAFKA", "KAFKA", [b"\x00\x00\x00\x01"] * 2)


def test_a_sink_created_under_revision_8_keeps_the_joins_key_format(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(tmp_path, monkeypatch, 8) == ("JSON", "JSON", [b"1"] * 2)
