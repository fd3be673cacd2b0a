"""A member thread given partitions builds its tasks' stores from the server's warm copies
(``ownership.warm_copy``): its restore phase replays nothing the copy already holds."""

from __future__ import annotations

from pathlib import Path

from ksqlpy.engine import Engine
from ksqlpy.engine.metrics import stores
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.query_tasks import build_tasks
from ksqlpy.runtime.task import init_all
from ksqlpy.runtime.workers import WorkerContext
from ksqlpy.server import ownership


def test_member_stores_start_from_the_servers_copies(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest"})
    worker = None
    try:
        engine.execute("CREATE STREAM s (k STRING KEY, v INT) WITH (kafka_topic='s', format='JSON', partitions=2);")
        engine.execute("CREATE TABLE t AS SELECT k, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY k;")
        for i in range(40):
            engine.execute(f"INSERT INTO s (k, v) VALUES ('k{i % 7}', {i});")
        engine.drain()
        (query,) = [q for q in engine.queries.values() if q.topology.persistent]
        copies = {(kv.topic, kv.partition): kv for kv in stores(query)}
        assert copies and all(kv.checkpoint() > 0 for kv in copies.values())
        for (topic, p), kv in copies.items():
            assert ownership.warm_copy(engine, topic, p) is kv

        ctx = WorkerContext(engine.log, ProcessingLog(), engine.effective_properties(), str(tmp_path / "member"))
        ctx.copies = lambda changelog, partition: ownership.warm_copy(engine, changelog, partition)
        worker = build_tasks(ctx, query.topology)
        init_all(worker.tasks)
        built = [kv for kv in stores(worker) if kv.topic is not None]
        assert built and all(ownership.warm_copy(engine, kv.topic, kv.partition) is not kv for kv in built)
        for kv in built:
            copy = copies[(kv.topic, kv.partition)]
            assert kv.restored == 0 and kv.seeded == len(dict(copy.range(b"", None)))
            assert dict(kv.range(b"", None)) == dict(copy.range(b"", None))

        # a context without copies (a worker process) restores from the changelog
        cold_ctx = WorkerContext(engine.log, ProcessingLog(), engine.effective_properties(), str(tmp_path / "cold"))
        cold = build_tasks(cold_ctx, query.topology)
        init_all(cold.tasks)
        assert all(kv.seeded == 0 and kv.restored > 0 for kv in stores(cold) if kv.topic is not None)
        cold.close()
    finally:
        if worker is not None:
            worker.close()
        engine.close()
