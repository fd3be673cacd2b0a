"""A query upgrade over REST: one command, the same query id, old counts kept, the new filter applied to new
records only - and all of it again after the server restarts (the replayed upgrade reprocesses nothing)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from server_helpers import ksql
from test_restart import NO_CACHE, sink_records, wait_for

from ksqlpy.testing.server_process import ServerProcess


def insert(client: Any, *rows: tuple[int, int]) -> None:
    ksql(client, " ".join(f"INSERT INTO PAGEVIEWS (ID, V) VALUES ({i}, {v});" for i, v in rows))


@pytest.mark.slow
def test_an_upgraded_ctas_survives_a_restart(tmp_path: Any) -> None:
    data_dir = str(tmp_path / "data")
    with ServerProcess(data_dir, NO_CACHE) as first, httpx.Client(base_url=first.url, timeout=20) as c:
        ksql(c, "CREATE STREAM PAGEVIEWS (ID INT KEY, V INT) WITH (kafka_topic='pageviews', partitions=2, "
                "value_format='JSON');")
        created = ksql(c, "CREATE TABLE COUNTS AS SELECT ID, COUNT(*) AS N FROM PAGEVIEWS GROUP BY ID;",
                       streamsProperties={"auto.offset.reset": "earliest"})[0]
        qid = created["commandStatus"]["queryId"]
        insert(c, (1, 1), (1, -1), (2, 5))
        assert wait_for(c, "COUNTS", {1: 2, 2: 1}) == {1: 2, 2: 1}
        upgraded = ksql(c, "CREATE OR REPLACE TABLE COUNTS AS SELECT ID, COUNT(*) AS N FROM PAGEVIEWS WHERE V > 0 "
                           "GROUP BY ID;", streamsProperties={"auto.offset.reset": "earliest"})[0]
        assert upgraded["commandStatus"]["queryId"] == qid
        assert upgraded["commandStatus"]["message"] == f"Created query with ID {qid}"
        assert upgraded["commandSequenceNumber"] == created["commandSequenceNumber"] + 1  # one command
        insert(c, (1, 1), (1, -1), (3, -1))
        assert wait_for(c, "COUNTS", {1: 3, 2: 1}) == {1: 3, 2: 1}
        refused = c.post("/ksql", json={"ksql": "CREATE OR REPLACE TABLE COUNTS AS SELECT ID, SUM(V) AS N FROM "
                                                "PAGEVIEWS GROUP BY ID;", "streamsProperties": {}})
        assert refused.status_code == 400
        assert refused.json()["message"].startswith("Cannot upgrade data source: DataSource '`COUNTS`' has schema")
    assert sink_records(data_dir, "COUNTS") == 4

    with ServerProcess(data_dir, NO_CACHE) as second, httpx.Client(base_url=second.url, timeout=20) as c:
        queries = ksql(c, "SHOW QUERIES;")[0]["queries"]
        assert [(q["id"], q["state"]) for q in queries] == [(qid, "RUNNING")]
        # the replayed statement is stored as ksqlDB's injectors print it (analysis.sql_formatter)
        assert queries[0]["queryString"].startswith(
            "CREATE OR REPLACE TABLE COUNTS WITH (CLEANUP_POLICY='compact', KAFKA_TOPIC='COUNTS', PARTITIONS=")
        assert queries[0]["queryString"].endswith(
            "AS SELECT\n  PAGEVIEWS.ID ID,\n  COUNT(*) N\nFROM PAGEVIEWS PAGEVIEWS\nWHERE (PAGEVIEWS.V > 0)\n"
            "GROUP BY PAGEVIEWS.ID\nEMIT CHANGES;")
        assert wait_for(c, "COUNTS", {1: 3, 2: 1}) == {1: 3, 2: 1}
        insert(c, (2, 1), (2, -1))
        assert wait_for(c, "COUNTS", {1: 3, 2: 2}) == {1: 3, 2: 2}
    # one sink record per counted input: nothing was read again by the replayed upgrade
    assert sink_records(data_dir, "COUNTS") == 5

    # RESET QUERY (ksqlpy's statement) then recomputes everything with the new filter, on the running server
    with ServerProcess(data_dir, NO_CACHE) as third, httpx.Client(base_url=third.url, timeout=20) as c:
        reset = ksql(c, f"RESET QUERY {qid};")[0]
        assert reset["commandStatus"]["message"].startswith(f"Query {qid} reset to the earliest offsets")
        assert [q["id"] for q in ksql(c, "SHOW QUERIES;")[0]["queries"]] == [qid]
        assert wait_for(c, "COUNTS", {1: 2, 2: 2}) == {1: 2, 2: 2}
