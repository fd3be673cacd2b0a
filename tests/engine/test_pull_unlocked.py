"""Pull queries on tables materialized in this process run without the engine lock (reading committed
state), so a key lookup does not wait for the background runner's batches."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from ksqlpy.engine import Engine
from ksqlpy.engine.pull import runs_unlocked

DDL = "CREATE STREAM src (id STRING KEY, v INT) WITH (kafka_topic='src', value_format='JSON', partitions=1);"


def _wait(pred, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.02)
    return False


def _rows(engine: Engine, sql: str) -> list[tuple]:
    return list(engine.execute(sql)[0].data["rows"])


def test_pull_on_aggregate_and_windowed_tables_reads_committed_state_without_the_lock(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        engine.execute(DDL)
        engine.execute("CREATE TABLE totals AS SELECT id, COUNT(*) AS n, SUM(v) AS s FROM src GROUP BY id;")
        engine.execute("CREATE TABLE win AS SELECT id, COUNT(*) AS n FROM src "
                       "WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY id;")
        engine.execute("CREATE TABLE big AS SELECT * FROM totals WHERE n > 1;")
        engine.start()
        for v in (1, 2, 3):
            engine.execute(f"INSERT INTO src (id, v) VALUES ('a', {v});")
        engine.execute("INSERT INTO src (id, v) VALUES ('b', 10);")
        stmt = engine.parse("SELECT * FROM totals WHERE id = 'a';")[0]
        assert runs_unlocked(engine, stmt)
        assert not runs_unlocked(engine, engine.parse("SELECT * FROM src;")[0])  # streams: a transient query

        got: list[list[tuple]] = []

        def lookup_while_locked() -> None:
            got.append(_rows(engine, "SELECT * FROM totals WHERE id = 'a';"))

        assert _wait(lambda: _rows(engine, "SELECT * FROM totals WHERE id = 'a';") == [("a", 3, 6)])
        assert _wait(lambda: _rows(engine, "SELECT * FROM big;") == [("a", 3, 6)])
        assert _wait(lambda: [r[0] for r in _rows(engine, "SELECT * FROM win WHERE id = 'a';")] == ["a"])
        assert _rows(engine, "SELECT * FROM win WHERE id = 'a';")[0][-1] == 3
        # another thread holding the engine lock (a batch, a statement) does not block the lookup
        with engine.lock:
            t = threading.Thread(target=lookup_while_locked)
            t.start()
            t.join(10)
            assert got == [[("a", 3, 6)]]
    finally:
        engine.close()
