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
