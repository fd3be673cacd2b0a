"""A backfill requested over REST from a real ``ksqlpy server`` while it serves: ``ksqlpy.backfill`` as a
request property, the run's status entry (``GET /backfills``), the metrics, EXPLAIN's task offsets, the
session reused by a second backfill, TERMINATE cancelling with the statement rolled back."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.engine.engine import Engine
from tests.backfill.conftest import _java, produce

pytestmark = pytest.mark.slow
httpx = pytest.importorskip("httpx")
pytest.importorskip("hypercorn")

SMALL = "CREATE STREAM s (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);"
BIG = "CREATE STREAM big (k STRING KEY, v INT) WITH (KAFKA_TOPIC='big', VALUE_FORMAT='JSON', PARTITIONS=2);"
SPARK = {"ksqlpy.backfill": "spark"}


def _records(n: int) -> list[tuple[int, bytes, bytes, int]]:
    # a key stays in one partition
    return [((i % 5) % 2, f"k{i % 5}".encode(), json.dumps({"V": i}).encode(), 1_000 + i) for i in range(n)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    if not _java():
        pytest.skip("Java is not installed: the Spark backfill tests need a JVM")
    from ksqlpy.testing.server_process import ServerProcess

    data = str(tmp_path_factory.mktemp("server"))
    engine = Engine(data)  # the history, written before the server starts (its DDL in the command log)
    statements = DurableStatements(engine)
    statements.execute(SMALL)
    statements.execute(BIG)
    produce(engine, "s", _records(2000))
    produce(engine, "big", _records(400_000))
    engine.close()
    proc = ServerProcess(data, {"spark.master": "local[2]", "ksql.server.command.response.timeout.ms": "5000"},
                         startup_timeout_s=120)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def _ksql(c: Any, sql: str, props: dict[str, str] | None = None) -> Any:
    r = c.post("/ksql", json={"ksql": sql, "streamsProperties": props or {}})
    assert r.status_code == 200, r.text
    return r.json()


def _query_id(entities: Any) -> str:
    return str(entities[0]["commandStatus"]["queryId"])


def _until_done(c: Any, qid: str, timeout_s: float = 600) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        r = c.get(f"/backfills/{qid}")
        assert r.status_code == 200, r.text
        status = r.json()
        if status["phase"] in ("DONE", "FAILED", "CANCELLED") or time.monotonic() > deadline:
            return dict(status)
        time.sleep(0.5)


def test_backfill_over_rest_with_status_metrics_and_a_reused_session(server: Any) -> None:
    with httpx.Client(base_url=server.url, timeout=60) as c:
        entities = _ksql(c, "CREATE TABLE o AS SELECT k, COUNT(*) AS c FROM s GROUP BY k EMIT CHANGES;", SPARK)
        qid = _query_id(entities)
        assert entities[0]["commandStatus"]["message"] == f"Created query with ID {qid}"
        listed = c.get("/backfills").json()["backfills"]
        assert [b["queryId"] for b in listed] == [qid]
        status = _until_done(c, qid)
        assert status["phase"] == "DONE", status
        assert status["recordsRead"] == status["recordsTotal"] == 2000
        assert [(p["partition"], p["offset"], p["endOffset"]) for p in status["partitions"]] == [(0, 1200, 1200),
                                                                                                  (1, 800, 800)]
        assert status["etaSeconds"] == 0.0 and status["sinkRecords"] == 5
        metrics = c.get("/metrics").text
        assert f'ksqlpy_backfill_records_read{{partition="0",query_id="{qid}"}} 1200.0' in metrics
        assert f'ksqlpy_backfill_running{{query_id="{qid}"}} 0.0' in metrics
        # the query runs on: its table answers pull queries with the whole history's counts
        r = c.post("/query", json={"ksql": "SELECT * FROM o WHERE k='k1';", "streamsProperties": {}},
                   headers={"Accept": "application/vnd.ksql.v1+json"})
        rows = r.json()
        assert rows[1]["row"]["columns"] == ["k1", 400], r.text
        shown = _ksql(c, "SHOW QUERIES;")[0]["queries"]
        assert next(q for q in shown if q["id"] == qid)["state"] == "RUNNING"
        # a second backfill in the same server: the Spark session is up already
        qid2 = _query_id(_ksql(c, "CREATE STREAM f AS SELECT k, v FROM s WHERE v > 100 EMIT CHANGES;", SPARK))
        status2 = _until_done(c, qid2)
        assert status2["phase"] == "DONE" and status2["sinkRecords"] == 1899
        assert status2["startupSeconds"] <= 5
        assert c.get("/backfills/NO_SUCH_QUERY").status_code == 404


def test_terminate_over_rest_cancels_and_rolls_back(server: Any) -> None:
    with httpx.Client(base_url=server.url, timeout=60) as c:
        qid = _query_id(_ksql(c, "CREATE STREAM big_out AS SELECT k, v * 2 AS v2 FROM big EMIT CHANGES;", SPARK))
        explained = _ksql(c, f"EXPLAIN {qid};")[0]["queryDescription"]
        assert explained["state"] == "BACKFILLING" and explained["backfill"]["recordsTotal"] == 400_000
        _ksql(c, f"TERMINATE {qid};")
        status = _until_done(c, qid)
        assert status["phase"] == "CANCELLED", status
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the rollback's DROP goes through the command topic
            streams = [s["name"] for s in _ksql(c, "SHOW STREAMS;")[0]["streams"]]
            topics = [t["name"] for t in _ksql(c, "SHOW TOPICS;")[0]["topics"]]
            if "BIG_OUT" not in streams and "BIG_OUT" not in topics:
                break
            time.sleep(0.5)
        assert "BIG_OUT" not in streams and "BIG_OUT" not in topics
        # and the statement can be run again
        qid2 = _query_id(_ksql(c, "CREATE STREAM big_out AS SELECT k, v * 2 AS v2 FROM big EMIT CHANGES;", SPARK))
        assert _until_done(c, qid2)["phase"] == "DONE"
