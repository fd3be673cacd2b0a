"""An INSERT INTO writes the ROWTIME its query computed, not the target's TIMESTAMP column (``plan.rules``
revision 11, from memory of ksqlDB's ``InsertInto.getSink``: a sink without properties of its own). An
INSERT replayed from a command written under revision 10 keeps writing the column's value, as it did."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine, command_log
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.log.base import ProducerRecord
from ksqlpy.plan.rules import INSERT_KEEPS_ROWTIME
from ksqlpy.plan.topology import WriteSink

PROPS = {"auto.offset.reset": "earliest", "ksql.service.id": "ir_"}
STATEMENTS = [
    "CREATE STREAM SRC (K STRING KEY, TS BIGINT) WITH (kafka_topic='src', value_format='JSON', partitions=1);",
    "CREATE STREAM DST (K STRING KEY, TS BIGINT) WITH (kafka_topic='dst', value_format='JSON', partitions=1, "
    "timestamp='TS');",
    "INSERT INTO DST SELECT * FROM SRC;",
]


def _send(engine: Engine, ts_column: int, rowtime: int) -> None:
    src = engine.catalog.source("SRC")
    assert src is not None
    ks, vs = engine.key_serde(src), engine.value_serde(src)
    engine.log.produce(ProducerRecord(src.topic, ks.serialize(("a",)), vs.serialize((ts_column,)), rowtime))
    engine.drain(30)


def _written(engine: Engine) -> list[int]:
    batch = engine.log.fetch("dst", 0, 0, 1000)
    return list(batch.timestamps)


def _write_sink(engine: Engine) -> WriteSink:
    (query,) = engine.queries.values()
    return next(op for sub in query.built.topology.sub_topologies for op in sub.operators
                if isinstance(op, WriteSink))


def _two_runs(data_dir: Path, monkeypatch: pytest.MonkeyPatch, first_revision: int | None) -> tuple[list, bool]:
    with monkeypatch.context() as m:
        if first_revision is not None:
            m.setattr(command_log, "PLAN_RULES", first_revision)
        engine = Engine(str(data_dir), dict(PROPS))
        try:
            shell = DurableStatements(engine)
            for s in STATEMENTS:
                shell.execute(s)
            _send(engine, 5000, 10)
        finally:
            engine.close()
    engine = Engine(str(data_dir), dict(PROPS))
    try:
        assert DurableStatements(engine).replay_errors == []
        _send(engine, 7000, 20)
        return _written(engine), _write_sink(engine).timestamp_from_column
    finally:
        engine.close()


def test_a_new_insert_writes_the_query_rowtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written, from_column = _two_runs(tmp_path, monkeypatch, None)
    assert written == [10, 20]
    assert not from_column


def test_an_insert_planned_under_revision_10_keeps_the_column(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    written, from_column = _two_runs(tmp_path, monkeypatch, INSERT_KEEPS_ROWTIME - 1)
    assert written == [5000, 7000]
    assert from_column


def test_a_create_as_select_writes_its_timestamp_column(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path), dict(PROPS))
    try:
        engine.execute(STATEMENTS[0])
        engine.execute("CREATE STREAM OUT WITH (kafka_topic='out', timestamp='TS') AS SELECT * FROM SRC;")
        _send(engine, 5000, 10)
        assert _write_sink(engine).timestamp_from_column
        assert list(engine.log.fetch("out", 0, 0, 1000).timestamps) == [5000]
    finally:
        engine.close()
