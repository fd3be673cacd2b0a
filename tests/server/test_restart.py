"""Restart: the command topic brings back the catalog and the same queries, resumed where they stopped.

A persistent aggregation is created and fed, the server is stopped (SIGTERM, then in a second test kill -9),
started again over the same data directory, fed more: the table must be right (nothing lost, nothing
counted twice), the query id unchanged, and the sink topic must hold exactly one update per input.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import httpx
import pytest
from server_helpers import ksql

from ksqlpy.testing.server_process import ServerProcess

V1_JSON = "application/vnd.ksql.v1+json"


NO_CACHE = {"ksql.streams.cache.max.bytes.buffering": 0}


def table_rows(client: Any, table: str) -> dict[int, int]:
    r = client.post("/query", json={"ksql": f"SELECT * FROM {table};"}, headers={"Accept": V1_JSON})
    assert r.status_code == 200, r.text
    return {e["row"]["columns"][0]: e["row"]["columns"][1] for e in r.json() if "row" in e}


def wait_for(client: Any, table: str, expected: dict[int, int], timeout: float = 60.0) -> dict[int, int]:
    end = time.monotonic() + timeout
    rows: dict[int, int] = {}
    while time.monotonic() < end:
        rows = table_rows(client, table)
        if rows == expected:
            return rows
        time.sleep(0.05)
    return rows


def insert(client: Any, *ids: int) -> None:
    ksql(client, " ".join(f"INSERT INTO PAGEVIEWS (ID, V) VALUES ({i}, 'x');" for i in ids))


def sink_records(data_dir: str, topic: str) -> int:
    from ksqlpy.log.embedded import EmbeddedLog

    with EmbeddedLog(os.path.join(data_dir, "log")) as log:
        return sum(log.end_offset(topic, p) - log.start_offset(topic, p)
                   for p in range(log.describe_topic(topic).partitions))


@pytest.mark.slow
@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "kill-9"])
def test_restart_resumes_the_aggregation(tmp_path: Any, stop_signal: int) -> None:
    data_dir = str(tmp_path / "data")
    # the record cache off: the sink holds one record per input, which the count below relies on
    first = ServerProcess(data_dir, NO_CACHE).start()
    try:
        with httpx.Client(base_url=first.url, timeout=20) as c:
            ksql(c, "CREATE STREAM PAGEVIEWS (ID INT KEY, V STRING) WITH (kafka_topic='pageviews', partitions=2, "
                    "value_format='JSON');")
            created = ksql(c, "CREATE TABLE COUNTS AS SELECT ID, COUNT(*) AS N FROM PAGEVIEWS GROUP BY ID;",
                           streamsProperties={"auto.offset.reset": "earliest"})[0]
            qid = created["commandStatus"]["queryId"]
            insert(c, 1, 1, 2, 3, 1)
            assert wait_for(c, "COUNTS", {1: 3, 2: 1, 3: 1}) == {1: 3, 2: 1, 3: 1}
    finally:
        code = first.stop(stop_signal)
    if stop_signal == signal.SIGTERM:
        assert code == 0, first.log_tail()
    assert sink_records(data_dir, "COUNTS") == 5

    second = ServerProcess(data_dir, NO_CACHE).start()
    try:
        with httpx.Client(base_url=second.url, timeout=20) as c:
            queries = ksql(c, "SHOW QUERIES;")[0]["queries"]
            assert [(q["id"], q["state"]) for q in queries] == [(qid, "RUNNING")]
            assert table_rows(c, "COUNTS") == {1: 3, 2: 1, 3: 1}  # state came back with the query
            insert(c, 2, 4, 1)
            assert wait_for(c, "COUNTS", {1: 4, 2: 2, 3: 1, 4: 1}) == {1: 4, 2: 2, 3: 1, 4: 1}
            # new commands continue the sequence; new query ids do not collide with restored ones
            again = ksql(c, "CREATE STREAM COPY AS SELECT * FROM PAGEVIEWS;")[0]
            assert again["commandSequenceNumber"] > created["commandSequenceNumber"]
            assert again["commandStatus"]["queryId"] != qid
    finally:
        second.stop()
    assert sink_records(data_dir, "COUNTS") == 8, "inputs were processed twice or lost across the restart"


@pytest.mark.slow
def test_replay_keeps_terminated_and_dropped_state(tmp_path: Any) -> None:
    """TERMINATE, DROP ... DELETE TOPIC and a re-created source replay to the same catalog, and the
    replayed DROP does not delete the new topic of the same name (its records survive)."""
    data_dir = str(tmp_path / "data")
    with ServerProcess(data_dir) as first, httpx.Client(base_url=first.url, timeout=20) as c:
        ksql(c, "CREATE STREAM A (ID INT KEY, V STRING) WITH (kafka_topic='a', partitions=1, value_format='JSON');")
        qid = ksql(c, "CREATE STREAM B AS SELECT * FROM A;")[0]["commandStatus"]["queryId"]
        ksql(c, f"TERMINATE {qid};")
        ksql(c, "DROP STREAM B DELETE TOPIC;")
        ksql(c, "DROP STREAM A DELETE TOPIC;")
        ksql(c, "CREATE STREAM A (ID INT KEY, W INT) WITH (kafka_topic='a', partitions=1, value_format='JSON');")
        ksql(c, "INSERT INTO A (ID, W) VALUES (1, 7);")
    with ServerProcess(data_dir) as second, httpx.Client(base_url=second.url, timeout=20) as c:
        names = {s["name"] for s in ksql(c, "SHOW STREAMS;")[0]["streams"]}
        assert "A" in names and "B" not in names
        assert ksql(c, "SHOW QUERIES;")[0]["queries"] == []
        r = c.post("/query", json={"ksql": "SELECT * FROM A;"}, headers={"Accept": V1_JSON}).json()
        assert r[0]["header"]["schema"] == "`ID` INTEGER, `W` INTEGER"
        assert r[1] == {"row": {"columns": [1, 7]}}
        statuses = c.get("/status").json()["commandStatuses"]
        assert statuses["stream/A/drop"] == "SUCCESS" and statuses[f"terminate/{qid}/execute"] == "SUCCESS"
