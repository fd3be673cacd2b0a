"""Worker messages read by two threads at once: the engine's watcher and a caller of ``statuses()``.

Every record below fails to deserialize, so the workers send a processing-log message per record while
the test reads statuses in a loop: each message must arrive whole, exactly once.
"""

from __future__ import annotations

import time
from pathlib import Path

from ksqlpy.engine import Engine

N = 20_000


def test_statuses_read_while_the_watcher_reads(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest", "ksqlpy.workers": "process",
                                             "num.stream.threads": 2, "ksql.service.id": "msgs_"})
    try:
        engine.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (KAFKA_TOPIC='msgs_src', PARTITIONS=2, "
                       "VALUE_FORMAT='JSON');")
        engine.execute("CREATE STREAM O AS SELECT ID, V FROM S;")
        (query,) = engine.queries.values()
        with engine.log.transaction() as tx:
            tx.produce_batch("msgs_src", None, [None] * N, [b"{not json"] * N)
        deadline = time.monotonic() + 180
        while engine.plog.count < N and time.monotonic() < deadline:
            query.workers.statuses()  # races the watcher thread for the same connections
        assert engine.plog.count == N
        # statuses are sent every 0.2 s, after the processing-log messages of a batch: wait for the last one
        processed = 0
        while processed < N and time.monotonic() < deadline:
            processed = sum(s.get("processed", 0) for s in query.workers.statuses())
            time.sleep(0.05)
        assert processed == N
        assert all(w.restarts == 0 for w in query.workers.workers)
    finally:
        engine.close()
