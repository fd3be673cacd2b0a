"""Observability on a real server: /metrics in Prometheus' text format with counters that match the records
this test produced and a lag that falls to 0 - with the queries run in the server's process and in worker
processes (two per query) alike; DESCRIBE EXTENDED's runtime statistics and consumer offsets; SHOW QUERIES
EXTENDED with per-task lag; /clusterStatus with the stores' lags; pull and push query latencies."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from server_helpers import ksql

from ksqlpy.testing.server_process import ServerProcess

parser = pytest.importorskip("prometheus_client.parser")


def scrape(client: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = client.get("/metrics")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    out = {}
    for family in parser.text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(samples: dict, name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def wait_until(check: Any, timeout_s: float = 20.0) -> Any:
    end = time.monotonic() + timeout_s
    while True:
        got = check()
        if got or time.monotonic() > end:
            return got
        time.sleep(0.1)


RUN_IN = {"inline": {}, "process": {"ksqlpy.workers": "process", "num.stream.threads": 2}}


@pytest.mark.slow
@pytest.mark.parametrize("run_in", sorted(RUN_IN))
def test_metrics_statistics_and_lag(tmp_path: Any, run_in: str) -> None:
    with ServerProcess(str(tmp_path / "data"), RUN_IN[run_in]) as server, \
            httpx.Client(base_url=server.url, timeout=20) as c:
        ksql(c, "CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', partitions=2, value_format='JSON');"
                "CREATE STREAM raw (id INT KEY, v STRING) WITH (kafka_topic='s', value_format='JSON');")
        props = {"auto.offset.reset": "earliest"}
        csas = ksql(c, "CREATE STREAM big AS SELECT * FROM s WHERE v > 2;", streamsProperties=props)
        ctas = ksql(c, "CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;", streamsProperties=props)
        big, counts = csas[0]["commandStatus"]["queryId"], ctas[0]["commandStatus"]["queryId"]
        rows = [(i % 3, i) for i in range(10)]
        ksql(c, " ".join(f"INSERT INTO s (id, v) VALUES ({k}, {v});" for k, v in rows))
        ksql(c, "INSERT INTO raw (id, v) VALUES (7, 'not a number');")
        total = len(rows) + 1

        def caught_up() -> dict | None:
            m = scrape(c)
            lags = [v for (name, labels), v in m.items()
                    if name == "ksqlpy_query_consumer_lag" and ("query_id", big) in labels]
            done = (value(m, "ksqlpy_query_consumed_records_total", query_id=big) == total and lags
                    and all(v == 0 for v in lags))
            return m if done else None

        m = wait_until(caught_up)
        assert m, "the query did not catch up"
        assert value(m, "ksqlpy_query_produced_records_total", query_id=big) == sum(1 for _, v in rows if v > 2)
        assert wait_until(lambda: value(scrape(c), "ksqlpy_query_consumed_records_total", query_id=counts) == total)
        assert value(scrape(c), "ksqlpy_query_produced_records_total", query_id=counts) >= 3
        assert value(m, "ksqlpy_query_processing_errors_total", query_id=big) == 1
        assert value(m, "ksqlpy_query_consumer_lag", query_id=big, topic="s", partition="0") == 0
        assert value(m, "ksqlpy_query_running", query_id=big) == 1
        assert value(m, "ksqlpy_query_batch_processing_seconds_count", query_id=big) >= 1
        assert value(m, "ksqlpy_query_state_bytes", query_id=counts) > 0
        assert value(m, "ksqlpy_query_late_records_total", query_id=counts) == 0
        assert sum(v for (name, labels), v in m.items() if name == "ksqlpy_server_requests_total") >= 4

        pulled = c.post("/query", json={"ksql": "SELECT * FROM counts WHERE id = 1;"})
        assert pulled.status_code == 200
        assert value(scrape(c), "ksqlpy_pull_query_duration_seconds_count") >= 1
        assert value(scrape(c), "ksqlpy_push_query_duration_seconds_count") == 0
        pushed = c.post("/query", json={"ksql": "SELECT * FROM s EMIT CHANGES LIMIT 2;",
                                        "streamsProperties": props})
        assert pushed.status_code == 200 and len(pushed.text.splitlines()) == 3  # header, two rows
        m = wait_until(lambda: (s := scrape(c))[("ksqlpy_push_query_duration_seconds_count", ())] == 1 and s)
        assert m and value(m, "ksqlpy_push_query_duration_seconds_bucket", le="+Inf") == 1
        assert value(m, "ksqlpy_push_queries_total") == 1 and value(m, "ksqlpy_push_queries_active") == 0

        described = ksql(c, "DESCRIBE big EXTENDED;")[0]["sourceDescription"]
        assert "total-messages" in described["statistics"] and "last-message" in described["statistics"]
        source = ksql(c, "DESCRIBE s EXTENDED;")[0]["sourceDescription"]
        assert "consumer-total-messages" in source["statistics"]
        assert "failed-messages" in source["errorStats"]
        assert source["queryOffsetSummaries"] == []  # the groups are those of the queries writing a source
        [summary] = [g for g in described["queryOffsetSummaries"] if g["groupId"].endswith(big)]
        assert summary["topicSummaries"][0]["kafkaTopic"] == "s"
        offsets = summary["topicSummaries"][0]["offsets"]
        assert sum(o["logEndOffset"] for o in offsets) == total
        assert all(o["consumerOffset"] == o["logEndOffset"] for o in offsets)

        [listing] = ksql(c, "SHOW QUERIES EXTENDED;")
        assert listing["@type"] == "query_descriptions"
        [mine] = [d for d in listing["queryDescriptions"] if d["id"] == big]
        assert [t["taskId"] for t in mine["tasksMetadata"]] == ["0_0", "0_1"]
        assert all(t["lag"] == 0 for t in mine["tasksMetadata"])
        explained = ksql(c, f"EXPLAIN {counts};")[0]["queryDescription"]
        assert explained["tasksMetadata"] and explained["tasksMetadata"][0]["taskState"] == "RUNNING"

        lags = c.get("/clusterStatus").json()["clusterStatus"]
        [host] = lags.values()
        mine = {k: v for k, v in host["hostStoreLags"]["stateStoreLags"].items() if k.split("#")[0].endswith(counts)}
        assert mine, host["hostStoreLags"]
        for store in mine.values():
            assert store["lagByPartition"]
            for lag in store["lagByPartition"].values():
                assert lag["offsetLag"] == 0 and lag["currentOffsetPosition"] == lag["endOffsetPosition"]
