"""Who writes a backfill's output on Kafka (``ksqlpy.backfill.writes``, ``ksqlpy/backfill/writes.py``): the tasks,
a transaction per staged file, where the broker hides aborted transactions; the driver where it does not.

The test broker (tansu) shows aborted records to read_committed readers, so here ``tasks`` is refused loudly,
``auto`` falls back to the driver, and the tasks' transactional path runs only with at-least-once accepted -
each equal to the streaming runtime's run (sink, state, late drops, processing log)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

pytest.importorskip("confluent_kafka")

from bench.backfill import _plog, late, state  # noqa: E402
from bench.backfill import collapse as collapsed  # noqa: E402
from bench.backfill import sink as sink_records  # noqa: E402
from ksqlpy.backfill import BackfillUnsupported, backfill  # noqa: E402
from ksqlpy.backfill.run import marker_groups  # noqa: E402
from ksqlpy.engine.engine import Engine  # noqa: E402
from tests.backfill.conftest import Record, make_engine, produce  # noqa: E402

ACCEPT = "ksqlpy.processing.guarantee.accept.at.least.once"


def _ddl(sfx: str) -> str:
    return (f"CREATE STREAM s{sfx} (k STRING KEY, v INT, txt STRING) WITH (KAFKA_TOPIC='s{sfx}', "
            "VALUE_FORMAT='JSON', PARTITIONS=2);")


def _records() -> list[Record]:
    """Two partitions (a key in one of them), out-of-order timestamps, late records, unreadable values."""
    recs: list[Record] = [(i % 2, f"k{i % 2}{i % 5}".encode(), json.dumps({"V": i, "TXT": str(i)}).encode(),
                           1_000 + i * 300 - (3_000 if i % 9 == 4 else 0)) for i in range(80)]
    recs += [(0, b"k00", b"{not json", 20_000), (1, b"k11", None, 20_100),
             (1, b"k13", json.dumps({"V": 1, "TXT": "x"}).encode(), 20_200)]
    return recs


def _kafka_engine(tmp_path: Any, bootstrap: str, sfx: str, **props: Any) -> Engine:
    engine = Engine(str(tmp_path / "kafka"), {"bootstrap.servers": bootstrap, "ksql.service.id": f"bf{sfx}_",
                                              **props})
    engine.execute(_ddl(sfx))
    return engine


def _query(engine: Engine, sink: str) -> Any:
    return next(q for q in engine.queries.values() if q.sink.name == sink)


def _reference(tmp_path: Any, sfx: str, records: list[Record], sql: str) -> tuple[Engine, list[Any]]:
    ref = make_engine(str(tmp_path / "ref"), _ddl(sfx), records, f"s{sfx}")
    plog = _plog(ref)
    ref.execute(sql, {"auto.offset.reset": "earliest"})
    ref.drain()
    return ref, plog


def _assert_equal(ref: Engine, ref_plog: list[Any], eng: Engine, plog: list[Any], name: str, table: bool) -> None:
    want, got = sink_records(ref, name), sink_records(eng, name)
    assert want
    if table:
        assert collapsed(got) == collapsed(want)
    else:  # each key's records in the streaming order (sub-ranges of a partition are written in offset order)
        def per_key(rs: list[Any]) -> dict[Any, list[Any]]:
            out: dict[Any, list[Any]] = {}
            for p, k, v, ts in rs:
                out.setdefault((p, k), []).append((v, ts))
            return out

        assert per_key(got) == per_key(want)
    assert state(_query(eng, name)) == state(_query(ref, name))
    assert late(_query(eng, name)) == late(_query(ref, name))
    assert sorted(map(repr, plog)) == sorted(map(repr, ref_plog))
    assert ref_plog  # (the input has records the processing log must see)


def _table_sql(sfx: str) -> str:
    return (f"CREATE TABLE o{sfx} AS SELECT k, COUNT(*) AS c, SUM(v) AS sv FROM s{sfx} "
            "WINDOW TUMBLING (SIZE 4 SECONDS, GRACE PERIOD 1 SECOND) GROUP BY k EMIT CHANGES;")


def test_task_writes_refused_where_the_broker_shows_aborted_transactions(tmp_path: Any, bootstrap: str) -> None:
    sfx = uuid.uuid4().hex[:8]
    engine = _kafka_engine(tmp_path, bootstrap, sfx, **{"ksqlpy.backfill.writes": "tasks"})
    try:
        with pytest.raises(BackfillUnsupported) as e:
            backfill(engine, _table_sql(sfx))
        text = str(e.value)
        assert "ksqlpy.backfill.writes=tasks cannot hold" in text
        assert f"the Kafka broker at {bootstrap} shows the records of aborted transactions" in text
        assert ACCEPT in text and "ksqlpy.backfill.writes=auto" in text
        assert engine.catalog.source(f"O{sfx}".upper()) is None  # refused before anything was created
        assert not engine.log.topic_exists(f"O{sfx}".upper())
    finally:
        engine.close()


def test_task_writes_refused_on_the_embedded_log_and_bad_values_named(tmp_path: Any) -> None:
    for value, words in (("tasks", "needs a Kafka log"), ("executors", "Invalid value for ksqlpy.backfill.writes: "
                                                                      "'executors'; expected one of auto, tasks, driver")):
        engine = Engine(str(tmp_path / value), {"ksqlpy.backfill.writes": value})
        engine.execute(_ddl("x"))
        try:
            with pytest.raises(BackfillUnsupported, match=words):
                backfill(engine, _table_sql("x"))
            assert engine.catalog.source("OX") is None
        finally:
            engine.close()


def test_writes_value_checked_with_the_statement(tmp_path: Any) -> None:
    from ksqlpy.errors import KsqlStatementError

    engine = make_engine(str(tmp_path), _ddl("x"), [], "sx")
    try:
        with pytest.raises(KsqlStatementError, match="ksqlpy.backfill.writes"):
            engine.execute(_table_sql("x"), {"ksqlpy.backfill.writes": "executors"})
        assert engine.catalog.source("OX") is None
    finally:
        engine.close()


@pytest.mark.slow
def test_auto_on_tansu_has_the_driver_write_and_equals_streaming(tmp_path: Any, bootstrap: str, spark: Any) -> None:
    sfx = uuid.uuid4().hex[:8]
    records = _records()
    sql = _table_sql(sfx)
    ref, ref_plog = _reference(tmp_path, sfx, records, sql)
    engine = _kafka_engine(tmp_path, bootstrap, sfx)
    plog = _plog(engine)
    try:
        produce(engine, f"s{sfx}", records)
        result = backfill(engine, sql, spark=spark)
        assert result.details["writes"] == "driver"
        assert result.records_read == len(records)
        _assert_equal(ref, ref_plog, engine, plog, f"O{sfx}".upper(), table=True)
        assert marker_groups(engine.log, result.query_id) == []  # the driver's batch counts: deleted at the end
    finally:
        engine.close()
        ref.close()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["table", "stream"])
def test_task_transactions_equal_streaming(tmp_path: Any, bootstrap: str, spark: Any, kind: str) -> None:
    """The tasks' own transactions (at-least-once accepted on tansu): a windowed table with grace and late
    drops, and a stream cut into sub-ranges (several write transactions per partition, in offset order)."""
    sfx = uuid.uuid4().hex[:8]
    records = _records()
    sql = _table_sql(sfx) if kind == "table" else (
        f"CREATE STREAM o{sfx} AS SELECT k, v * 2 AS v2, CAST(txt AS INT) AS n FROM s{sfx} WHERE v % 3 <> 0 "
        "EMIT CHANGES;")
    ref, ref_plog = _reference(tmp_path, sfx, records, sql)
    engine = _kafka_engine(tmp_path, bootstrap, sfx, **{"ksqlpy.backfill.writes": "tasks", ACCEPT: "true",
                                                        "ksqlpy.backfill.task.records": 10})
    plog = _plog(engine)
    try:
        produce(engine, f"s{sfx}", records)
        result = backfill(engine, sql, spark=spark)
        assert result.details["writes"] == "tasks"
        assert result.records_read == len(records)
        if kind == "stream":
            assert result.details["tasks"] > 2  # sub-ranges: more write transactions than partitions
        assert result.sink_records == len(sink_records(engine, f"O{sfx}".upper()))
        _assert_equal(ref, ref_plog, engine, plog, f"O{sfx}".upper(), table=kind == "table")
        # each staged file's written-marker group (one per file) is deleted from the broker when the run ends
        assert marker_groups(engine.log, result.query_id) == []
    finally:
        engine.close()
        ref.close()


def test_a_staged_file_is_written_once_whatever_the_attempts(tmp_path: Any, bootstrap: str) -> None:
    """A second attempt at a file (a retried task, a resumed run) finds its marker and writes nothing; an
    attempt whose transaction failed leaves the marker unset, so the next attempt writes the file."""
    from ksqlpy.backfill import writes
    from ksqlpy.backfill.job import SINK, STATE, SUMMARY
    from ksqlpy.backfill.stages import Out
    from ksqlpy.backfill.staging import StagedFile
    from ksqlpy.log import open_log

    sfx = uuid.uuid4().hex[:8]
    config = {"bootstrap.servers": bootstrap}
    log = open_log(config)
    sink, changelog = f"sink{sfx}", f"chg{sfx}"
    log.create_topic(sink, 1, 1)
    log.create_topic(changelog, 2, 1)
    src = f"src{sfx}"
    log.create_topic(src, 2, 1)
    staged = StagedFile(str(tmp_path), "000001-00000000000000000000")
    out = Out(staged)
    out.add_many(SINK, -1, [b"a", b"b"], [b"1", b"2"], [10, 20])
    out.add_many(STATE, 1, [b"s"], [b"state"])
    out.add(SUMMARY, 1, None, b"")
    out.spill()
    path = staged.commit()
    qid = f"CTAS_{sfx}"
    try:
        assert writes.write_file(config, qid, src, 1, sink, {1: changelog}, path) == (2, 1, False)
        assert writes.write_file(config, qid, src, 1, sink, {1: changelog}, path) == (2, 1, True)
        values = log.fetch(sink, 0, 0).values
        assert values == [b"1", b"2"]
        assert log.fetch(changelog, 1, 0).values == [b"state"]
        with pytest.raises(RuntimeError, match="no state store with a changelog for task partition 1"):
            writes.write_file(config, f"{qid}x", src, 1, sink, {}, path)
        assert log.committed(writes.file_group(f"{qid}x", path), src, 1) is None  # not marked written
    finally:
        log.close()


def test_a_file_writer_allows_a_long_transaction(tmp_path: Any, monkeypatch: Any) -> None:
    """librdkafka aborts a transaction after 60 s by default: a large staged file is given the broker's
    default maximum, unless the engine's properties say otherwise."""
    import ksqlpy.log.kafka as kafka
    from ksqlpy.backfill import writes

    seen: list[tuple[dict[str, Any], str | None]] = []

    class Probe:
        def __init__(self, config: dict[str, Any], *, transactional_id: str | None = None) -> None:
            seen.append((config, transactional_id))
            raise RuntimeError("probe")

    monkeypatch.setattr(kafka, "KafkaLog", Probe)
    for config in ({"bootstrap.servers": "x"}, {"bootstrap.servers": "x", "producer.transaction.timeout.ms": 5}):
        with pytest.raises(RuntimeError, match="probe"):
            writes.write_file(config, "CTAS_Q_1", "src", 0, "sink", {}, str(tmp_path / "000000-1.arrow"))
    assert seen[0] == ({"bootstrap.servers": "x", "producer.transaction.timeout.ms": 900_000},
                       "ksqlpy-backfill-CTAS_Q_1-000000-1")
    assert seen[1][0]["producer.transaction.timeout.ms"] == 5
