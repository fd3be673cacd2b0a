"""Query upgrades keep their state however the query runs: in the server's process or in worker processes
(``ksqlpy.workers=process``), and across a restart of either.

An upgraded aggregation keeps its counts and reads nothing twice; an upgraded projection writes the new
form for new records only; a table copied from a table keeps its rows for pull queries. The sink topics
hold one record per input the new logic let through - the proof that no input was processed again.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from server_helpers import ksql
from test_restart import NO_CACHE, V1_JSON, sink_records, wait_for

from ksqlpy.testing.server_process import ServerProcess

EARLIEST = {"auto.offset.reset": "earliest"}


def insert(client: Any, *rows: tuple[int, int]) -> None:
    ksql(client, " ".join(f"INSERT INTO CLICKS (ID, V) VALUES ({i}, {v});" for i, v in rows))


def pull(client: Any, table: str) -> dict[int, list[Any]]:
    r = client.post("/query", json={"ksql": f"SELECT * FROM {table};"}, headers={"Accept": V1_JSON})
    assert r.status_code == 200, r.text
    return {e["row"]["columns"][0]: e["row"]["columns"][1:] for e in r.json() if "row" in e}


def wait_rows(client: Any, table: str, expected: dict[int, list[Any]], timeout: float = 60.0) -> dict[int, list[Any]]:
    import time

    end = time.monotonic() + timeout
    rows: dict[int, list[Any]] = {}
    while time.monotonic() < end:
        rows = pull(client, table)
        if rows == expected:
            break
        time.sleep(0.05)
    return rows


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["inline", "process"])
def test_upgrades_keep_state_in_process_and_in_workers(tmp_path: Any, workers: str) -> None:
    data_dir = str(tmp_path / "data")
    props = {**NO_CACHE, "ksqlpy.workers": workers}
    with ServerProcess(data_dir, props) as first, httpx.Client(base_url=first.url, timeout=30) as c:
        ksql(c, "CREATE STREAM CLICKS (ID INT KEY, V INT) WITH (kafka_topic='clicks', partitions=2, "
                "value_format='JSON');")
        counts = ksql(c, "CREATE TABLE COUNTS AS SELECT ID, COUNT(*) AS N FROM CLICKS GROUP BY ID;",
                      streamsProperties=EARLIEST)[0]["commandStatus"]["queryId"]
        copy = ksql(c, "CREATE STREAM COPY AS SELECT ID, V FROM CLICKS;",
                    streamsProperties=EARLIEST)[0]["commandStatus"]["queryId"]
        latest = ksql(c, "CREATE TABLE LATEST AS SELECT ID, LATEST_BY_OFFSET(V) AS V FROM CLICKS GROUP BY ID;",
                      streamsProperties=EARLIEST)[0]["commandStatus"]["queryId"]
        ksql(c, "CREATE TABLE LATEST_COPY AS SELECT ID, V FROM LATEST;", streamsProperties=EARLIEST)
        insert(c, (1, 1), (1, -1), (2, 5))
        assert wait_for(c, "COUNTS", {1: 2, 2: 1}) == {1: 2, 2: 1}
        assert wait_rows(c, "LATEST_COPY", {1: [-1], 2: [5]}) == {1: [-1], 2: [5]}

        # each upgrade keeps its query id
        for sql, qid in [
            ("CREATE OR REPLACE TABLE COUNTS AS SELECT ID, COUNT(*) AS N FROM CLICKS WHERE V > 0 GROUP BY ID;", counts),
            ("CREATE OR REPLACE STREAM COPY AS SELECT ID, V, V * 10 AS TEN FROM CLICKS WHERE V > 0;", copy),
            ("CREATE OR REPLACE TABLE LATEST AS SELECT ID, LATEST_BY_OFFSET(V) AS V FROM CLICKS WHERE V < 100 "
             "GROUP BY ID;", latest),
        ]:
            assert ksql(c, sql, streamsProperties=EARLIEST)[0]["commandStatus"]["queryId"] == qid
        ksql(c, "CREATE OR REPLACE TABLE LATEST_COPY AS SELECT ID, V, V + 1 AS NEXT FROM LATEST;",
             streamsProperties=EARLIEST)
        insert(c, (1, 1), (1, -1), (3, -1), (2, 200))
        # old counts kept, the new filter on new records only
        assert wait_for(c, "COUNTS", {1: 3, 2: 2}) == {1: 3, 2: 2}
        # rows from before the upgrade keep their values; the appended column is computed from the source's
        # rows the query stored (ksqlDB's KsqlTopic-Reduce), as a pull query reads them through the new projection
        assert wait_rows(c, "LATEST_COPY", {1: [-1, 0], 2: [5, 6], 3: [-1, 0]}) == {
            1: [-1, 0], 2: [5, 6], 3: [-1, 0]}
    assert sink_records(data_dir, "COUNTS") == 3 + 2  # three before, two passing the new filter after
    assert sink_records(data_dir, "COPY") == 3 + 2

    with ServerProcess(data_dir, props) as second, httpx.Client(base_url=second.url, timeout=30) as c:
        assert wait_for(c, "COUNTS", {1: 3, 2: 2}) == {1: 3, 2: 2}
        insert(c, (2, 1), (2, -1))
        assert wait_for(c, "COUNTS", {1: 3, 2: 3}) == {1: 3, 2: 3}
        assert wait_rows(c, "LATEST_COPY", {1: [-1, 0], 2: [-1, 0], 3: [-1, 0]}) == {
            1: [-1, 0], 2: [-1, 0], 3: [-1, 0]}
    # nothing read again after the restart: one more count, one more copied record
    assert sink_records(data_dir, "COUNTS") == 6
    assert sink_records(data_dir, "COPY") == 6
