"""ksql.timestamp.throw.on.invalid: a timestamp that cannot be extracted stops the query instead of
skipping the record (the default)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlRuntimeError
from ksqlpy.log.base import ProducerRecord

SOURCE = ("CREATE STREAM ev (k STRING KEY, ts STRING, n INT) WITH (kafka_topic='ev', value_format='JSON', "
          "partitions=1, timestamp='ts', timestamp_format='yyyy-MM-dd');")


def _engine(tmp_path: Path, props: dict) -> Engine:
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest", **props})
    engine.execute(SOURCE)
    engine.execute("CREATE STREAM out AS SELECT k, n FROM ev;")
    with engine.log.transaction() as tx:
        for v in ({"TS": "2020-01-02", "N": 1}, {"TS": "garbage", "N": 2}, {"TS": "2020-01-03", "N": 3}):
            tx.produce(ProducerRecord("ev", b"a", orjson.dumps(v), 0, None))
    return engine


def _out(engine: Engine) -> list:
    return [orjson.loads(v) for v in engine.log.fetch("OUT", 0, 0, 10).values]


def test_default_skips_the_record(tmp_path: Path) -> None:
    engine = _engine(tmp_path, {})
    try:
        engine.drain()
        assert _out(engine) == [{"N": 1}, {"N": 3}]
    finally:
        engine.close()


def test_throw_on_invalid_stops_the_query(tmp_path: Path) -> None:
    engine = _engine(tmp_path, {"ksql.timestamp.throw.on.invalid": "true"})
    try:
        with pytest.raises(KsqlRuntimeError, match="Fatal user code error in TimestampExtractor callback for "
                           "record {topic=ev, partition=0, offset=1}"):
            engine.drain()
        assert {"N": 3} not in _out(engine)
    finally:
        engine.close()


def test_skipped_records_are_logged_as_ksqldb_logs_them(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        engine.execute("CREATE STREAM t (k STRING KEY, ts BIGINT, n INT) WITH (kafka_topic='t', "
                       "value_format='JSON', partitions=1, timestamp='ts');")
        engine.execute(SOURCE)
        engine.execute("CREATE STREAM o1 AS SELECT k, n FROM t;")
        engine.execute("CREATE STREAM o2 AS SELECT k, n FROM ev;")
        with engine.log.transaction() as tx:
            for v in ({"TS": 5, "N": 1}, {"TS": None, "N": 2}, {"TS": -5, "N": 3}):
                tx.produce(ProducerRecord("t", b"a", orjson.dumps(v), 0, None))
            tx.produce(ProducerRecord("ev", b"a", orjson.dumps({"TS": "garbage", "N": 4}), 0, None))
        engine.drain()
        errors = [e["message"]["recordProcessingError"] for e in engine.plog.entries]
        # a NULL column and a pattern that does not parse are logged; a negative timestamp is dropped silently
        assert [e["errorMessage"] for e in errors] == ["Failed to extract timestamp from row"] * 2
        assert errors[0]["cause"] == ["Timestamp column value is null"] and errors[1]["cause"]
        assert [orjson.loads(v)["N"] for v in engine.log.fetch("O1", 0, 0, 10).values] == [1]
    finally:
        engine.close()
