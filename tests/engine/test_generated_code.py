"""The generated pipeline is clean Python: no compile warnings, no NULL checks on constants."""

from __future__ import annotations

import warnings
from pathlib import Path

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord


def test_a_coerced_literal_argument_gets_no_null_check(tmp_path: Path) -> None:
    # TIMESTAMPADD's INTEGER literal is coerced to its BIGINT parameter; the guard once emitted
    # ``10 is None`` (a SyntaxWarning per compile, and a useless test per record)
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        engine.execute("CREATE STREAM t (id STRING KEY, ts TIMESTAMP) WITH (kafka_topic='t', value_format='JSON', "
                       "partitions=1);")
        with warnings.catch_warnings():
            warnings.simplefilter("error", SyntaxWarning)
            engine.execute("CREATE STREAM o AS SELECT id, TIMESTAMPADD(MILLISECONDS, 10, ts) AS later FROM t;")
            engine.log.produce(ProducerRecord("t", b"a", b'{"TS": 5}', 0))
            engine.drain(10)
        src = engine.catalog.source("O")
        batch = engine.log.fetch(src.topic, 0, 0, 10)
        assert [engine.value_serde(src).deserialize(v) for v in batch.values] == [(15,)]
    finally:
        engine.close()
