"""The engine's background loop: a failing query goes to ERROR alone; the others keep running."""

from __future__ import annotations

import time
from pathlib import Path

import orjson

from ksqlpy.engine import Engine

DDL = "CREATE STREAM src (id STRING KEY, v INT) WITH (kafka_topic='src', value_format='JSON', partitions=1);"


def _wait(pred, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.02)
    return False


def test_one_failing_query_does_not_stop_the_others(tmp_path: Path) -> None:
    # regression: any non-ksql exception in a poll killed the background thread and every query with it
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest", "ksql.query.retry.backoff.initial.ms": 60000})
    try:
        engine.execute(DDL)
        engine.execute("CREATE STREAM a AS SELECT * FROM src;")
        engine.execute("CREATE STREAM b AS SELECT * FROM src;")
        broken = engine.queries["CSAS_A_0"]

        def boom() -> int:
            raise RuntimeError("disk on fire")

        broken.poll = boom  # type: ignore[method-assign]
        engine.start()
        engine.execute("INSERT INTO src (id, v) VALUES ('k', 1);")
        assert _wait(lambda: len(engine.log.fetch("B", 0, 0, 10)) == 1)
        assert _wait(lambda: broken.state == "ERROR")
        assert engine.catalog.query("CSAS_A_0").state == "ERROR"
        assert any(e["message"]["type"] == 4 for e in engine.plog.entries)
        # EXPLAIN's queryErrors: ksqlDB's QueryError - when (epoch ms), the message, the type
        from ksqlpy.engine.describe import query_details

        errors = query_details(engine, broken)["queryErrors"]
        assert [list(e) for e in errors] == [["timestamp", "errorMessage", "type"]]
        assert errors[0]["errorMessage"] == "disk on fire" and abs(errors[0]["timestamp"] / 1000 - time.time()) < 60
        # the healthy query keeps going after the failure
        engine.execute("INSERT INTO src (id, v) VALUES ('k', 2);")
        assert _wait(lambda: len(engine.log.fetch("B", 0, 0, 10)) == 2)
        assert [orjson.loads(v)["V"] for v in engine.log.fetch("B", 0, 0, 10).values] == [1, 2]
    finally:
        engine.close()
