"""Schema-registry formats (AVRO, JSON_SR, PROTOBUF) on a backfill: the workers decode and encode with a
read-only snapshot of the driver's registry (``ksqlpy.backfill.registry``) and give the streaming runtime's
sink (same schema ids), state and processing log - for a stateless query and a windowed aggregation, with
an unreadable record in the input."""

from __future__ import annotations

from typing import Any

import pytest

from bench.backfill import _plog, differences
from ksqlpy.backfill import backfill
from ksqlpy.backfill.registry import SnapshotRegistry, snapshot
from ksqlpy.engine.engine import Engine
from ksqlpy.log.base import ProducerRecord
from ksqlpy.schema_registry import SchemaRegistryError

STATELESS = "CREATE STREAM bf_out AS SELECT k, v * 2 AS v2, n FROM s WHERE n > 0 EMIT CHANGES;"
WINDOWED = ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c, SUM(v) AS sv FROM s WINDOW TUMBLING (SIZE 1 SECOND) "
            "GROUP BY k EMIT CHANGES;")


def _ddl(key_format: str, value_format: str) -> str:
    return (f"CREATE STREAM s (k STRING KEY, v BIGINT, n INT) WITH (KAFKA_TOPIC='s', KEY_FORMAT='{key_format}', "
            f"VALUE_FORMAT='{value_format}', PARTITIONS=2);")


def _engine(path: str, ddl: str) -> Engine:
    engine = Engine(path, {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0})
    engine.execute(ddl)
    for i in range(40):
        n = "NULL" if i % 9 == 0 else str(i % 7 - 2)
        engine.execute(f"INSERT INTO s (ROWTIME, k, v, n) VALUES ({10_000 + i * 97}, 'k{i % 5}', {i * 11}, {n});")
    with engine.log.transaction() as tx:  # unreadable in any of the formats: the processing log
        tx.produce(ProducerRecord("s", None, b"\x00\x00\x00\x00\x63garbage", 14_000, None, 0))
    return engine


FORMATS = [("KAFKA", "AVRO"), ("KAFKA", "JSON_SR"), ("KAFKA", "PROTOBUF"), ("AVRO", "AVRO")]
SINK_REGISTERED_AT_CREATE = {"AVRO", "PROTOBUF", "JSON_SR"}  # every registry format: the statement registers


@pytest.mark.slow
@pytest.mark.parametrize(("key_format", "value_format"), FORMATS, ids=[f"{k}-{v}" for k, v in FORMATS])
@pytest.mark.parametrize("sql", [STATELESS, WINDOWED], ids=["stateless", "windowed"])
def test_registry_formats_equal_streaming(tmp_path: Any, spark: Any, sql: str, key_format: str,
                                          value_format: str) -> None:
    ddl = _ddl(key_format, value_format)
    if value_format not in SINK_REGISTERED_AT_CREATE:
        sql = sql.replace(" AS SELECT", " WITH (VALUE_FORMAT='JSON') AS SELECT", 1)
    ref = _engine(str(tmp_path / "streaming"), ddl)
    plog_ref = _plog(ref)
    ref.execute(sql, {"auto.offset.reset": "earliest"})
    ref.drain()
    eng = _engine(str(tmp_path / "backfill"), ddl)
    plog_bf = _plog(eng)
    result = backfill(eng, sql, spark=spark)
    assert result.records_read == 41 and result.processing_errors >= 1
    assert result.sink_records > 0
    assert differences(ref, eng, result.query_id, sql.startswith("CREATE TABLE"), plog_ref, plog_bf) == []


@pytest.mark.parametrize("fmt", ["AVRO", "PROTOBUF", "JSON_SR"])
def test_a_registry_format_sink_is_not_refused(tmp_path: Any, fmt: str) -> None:
    """The statement registers the sink's schemas (JSON_SR too, as ksqlDB's SchemaRegisterInjector does), so
    the workers' snapshot holds them: the backfill goes on to Spark."""
    eng = _engine(str(tmp_path), _ddl("KAFKA", "JSON"))
    with pytest.raises(AssertionError, match="Spark touched"):
        backfill(eng, f"CREATE STREAM o WITH (VALUE_FORMAT='{fmt}') AS SELECT k, v FROM s EMIT CHANGES;",
                 spark=_NoSpark())


class _NoSpark:
    """Where a refusal comes before Spark is touched: any use of the session fails loudly."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"Spark touched before the refusal (session.{name})")


def test_the_snapshot_reads_and_never_registers(tmp_path: Any) -> None:
    eng = Engine(str(tmp_path))
    eng.execute(_ddl("KAFKA", "AVRO"))
    eng.execute("CREATE STREAM o AS SELECT k, v FROM s EMIT CHANGES;", {"auto.offset.reset": "latest"})
    snap = snapshot(eng.schema_registry)
    worker = SnapshotRegistry(snap["by_id"], snap["versions"])
    latest = eng.schema_registry.latest("O-value")
    assert latest is not None and worker.by_id(latest.id) == latest
    assert worker.register("O-value", latest.schema, latest.schema_type) == latest.id  # what a serializer asks
    with pytest.raises(SchemaRegistryError, match="does not register schemas"):
        worker.register("other-value", latest.schema, latest.schema_type)
    with pytest.raises(SchemaRegistryError, match="does not register schemas"):
        worker.register("O-value", '{"type": "string"}', "AVRO")
