"""Bad records in the embedded shell are visible in KSQL_PROCESSING_LOG, in ksqlDB's record layout, as on the
server; a library Engine gets the same topic and stream when its properties ask for them."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from ksqlpy.engine import Engine, processing_log
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.engine.processing_log import open_processing_log

BAD_RECORD = ("CREATE STREAM raw (id INT KEY, n STRING) WITH (kafka_topic='t', value_format='JSON', partitions=1); "
              "CREATE STREAM typed (id INT KEY, n INT) WITH (kafka_topic='t', value_format='JSON'); "
              "SET 'auto.offset.reset'='earliest'; CREATE STREAM out AS SELECT * FROM typed; "
              "INSERT INTO raw (id, n) VALUES (1, 'abc');")


def _ksqlpy(data_dir: Path, sql: str) -> str:
    out = subprocess.run([sys.executable, "-m", "ksqlpy", "--data-dir", str(data_dir), "-e", sql],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_a_bad_record_in_the_shell_shows_in_ksql_processing_log(tmp_path: Path) -> None:
    shown = _ksqlpy(tmp_path, BAD_RECORD + " SHOW STREAMS;")
    assert "KSQL_PROCESSING_LOG | default_ksql_processing_log" in shown
    rows = _ksqlpy(tmp_path, "SET 'auto.offset.reset'='earliest'; SELECT message->type AS kind, "
                             "message->deserializationError->`TOPIC` AS src, logger FROM KSQL_PROCESSING_LOG "
                             "EMIT CHANGES LIMIT 1;")
    assert "|0 " in rows and "|t " in rows and "processing.CSAS_OUT_" in rows


def test_a_library_engine_writes_the_topic_when_asked(tmp_path: Path) -> None:
    with Engine(str(tmp_path), {"auto.offset.reset": "earliest",
                                "ksql.logging.processing.topic.auto.create": "true",
                                "ksql.logging.processing.stream.auto.create": "true"}) as engine:
        durable = DurableStatements(engine)
        sink = open_processing_log(engine, engine.properties, "default_", lambda s: durable.run(s, None))
        assert sink is not None and engine.catalog.source("KSQL_PROCESSING_LOG") is not None
        durable.execute(BAD_RECORD)
        engine.drain()
        sink.close()
        batch = engine.log.fetch("default_ksql_processing_log", 0, 0, 10)
        [entry] = [orjson.loads(v) for v in batch.values]
        assert set(entry) == {"logger", "level", "time", "message"}
        assert entry["level"] == "ERROR" and entry["logger"].startswith("processing.CSAS_OUT_")
        message = entry["message"]
        assert message["type"] == 0
        assert set(message["deserializationError"]) == {"target", "errorMessage", "recordB64", "cause", "topic"}
        assert message["deserializationError"]["target"] == "value"
        assert message["deserializationError"]["recordB64"] is None  # rows are not logged by default


def test_a_library_engine_keeps_entries_in_memory_by_default(tmp_path: Path) -> None:
    with Engine(str(tmp_path), {"auto.offset.reset": "earliest"}) as engine:
        assert open_processing_log(engine, engine.properties, "default_", lambda s: None) is None
        engine.execute(BAD_RECORD)
        deadline = time.monotonic() + 10
        while not engine.plog.entries and time.monotonic() < deadline:
            engine.drain(1)
        assert engine.plog.entries[0]["message"]["type"] == 0
        assert not engine.log.topic_exists("default_ksql_processing_log")


def test_entries_logged_before_close_reach_the_topic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the sink's thread never flushes on its own here: what the query logged is still queued when the engine
    # closes, and closing must write it before the log closes - the query's offset is committed by then, so a
    # lost entry never comes back (the shell closed the sink before the engine and lost such entries)
    monkeypatch.setattr(processing_log, "FLUSH_S", 3600.0)
    props = {"auto.offset.reset": "earliest", "ksql.logging.processing.topic.auto.create": "true"}
    engine = Engine(str(tmp_path), props)
    sink = open_processing_log(engine, props, "default_", lambda s: None)
    assert sink is not None
    engine.execute(BAD_RECORD)
    engine.drain()
    assert len(sink.pending) == 1
    engine.close()
    with Engine(str(tmp_path), props) as again:
        batch = again.log.fetch("default_ksql_processing_log", 0, 0, 10)
        assert [orjson.loads(v)["message"]["type"] for v in batch.values] == [0]
