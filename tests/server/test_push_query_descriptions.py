"""SHOW QUERIES EXTENDED lists every live query, as SHOW QUERIES does and as ksqlDB describes them all: a
running push query is there with queryType PUSH, no sink, its projection as value columns, its source, plan
and topology (it was left out: the EXTENDED list held the persistent queries only); EXPLAIN <its id> describes it
the same way (it said the query did not exist)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import httpx
from server_helpers import ksql, stream_lines

from ksqlpy.testing.server_process import ServerProcess


def start_push(client: Any, server: ServerProcess, body: dict[str, Any]) -> tuple[str, threading.Event]:
    """Start a push query on a connection of its own (the same protocol: the big descriptions share no HTTP/2
    connection with it); returns its id, once its header arrived, and the event set when its stream ends."""
    header: dict[str, Any] = {}
    ready, ended = threading.Event(), threading.Event()
    h2 = client.get("/info").http_version == "HTTP/2"
    reader = httpx.Client(base_url=server.url, http1=not h2, http2=h2, timeout=20)

    def read() -> None:
        with reader, reader.stream("POST", "/query-stream", json=body) as r:
            for line in stream_lines(r, 30):
                if line.strip() and not header:
                    header.update(json.loads(line))
                    ready.set()
        ended.set()

    threading.Thread(target=read, daemon=True).start()
    assert ready.wait(20), "no header"
    return header["queryId"], ended


def test_show_queries_extended_describes_a_running_push_query(client: Any, server: ServerProcess,
                                                              unique: Callable[[str], str]) -> None:
    s = unique("PD")
    ksql(client, f"CREATE STREAM {s} (ID INT KEY, V STRING) WITH (kafka_topic='{s.lower()}', partitions=1, "
                 "value_format='JSON');")
    sql = f"SELECT V, ID FROM {s} WHERE V IS NOT NULL EMIT CHANGES;"
    qid, ended = start_push(client, server, {"sql": sql})
    listed = {q["id"]: q for q in ksql(client, "SHOW QUERIES;")[0]["queries"]}
    assert listed[qid]["queryType"] == "PUSH"
    described = {d["id"]: d for d in ksql(client, "SHOW QUERIES EXTENDED;")[0]["queryDescriptions"]}
    assert set(listed) <= set(described), (sorted(listed), sorted(described))
    d = described[qid]
    assert d["queryType"] == "PUSH" and d["state"] == "RUNNING" and d["sinks"] == [] and d["sources"] == [s]
    assert d["statementText"] == sql and d["windowType"] is None
    assert [(f["name"], f["schema"]["type"], f.get("type")) for f in d["fields"]] == [
        ("V", "STRING", None), ("ID", "INTEGER", None)]
    assert f"(topics: [{s.lower()}])" in d["topology"] and d["executionPlan"]
    assert list(d["ksqlHostQueryStatus"].values()) == ["RUNNING"] and d["queryErrors"] == []
    assert d["consumerGroupId"].endswith(f"transient_{qid}")
    # EXPLAIN <id> describes it too (ksqlDB's ExplainExecutor looks up any live query), the id in any case
    for written in (qid, qid.upper()):
        explained = ksql(client, f"EXPLAIN {written};")[0]["queryDescription"]
        assert {k: explained[k] for k in ("id", "queryType", "sinks", "sources", "statementText", "fields")} == {
            k: d[k] for k in ("id", "queryType", "sinks", "sources", "statementText", "fields")}
    ksql(client, f"TERMINATE {qid};")
    assert ended.wait(20), "the push query's stream did not end"
    described = {d["id"] for d in ksql(client, "SHOW QUERIES EXTENDED;")[0]["queryDescriptions"]}
    assert qid not in described


def test_a_running_windowed_push_query_has_no_window_type_and_lists_its_overrides(
        client: Any, server: ServerProcess, unique: Callable[[str], str]) -> None:
    """ksqlDB's QueryDescriptionFactory gives only a persistent query's description a window type (its result
    topic's); a push query's is null even when it aggregates windows. Its overriddenProperties are those it
    was started with (the request's), as a persistent query's are."""
    s = unique("PW")
    ksql(client, f"CREATE STREAM {s} (ID INT KEY, V STRING) WITH (kafka_topic='{s.lower()}', partitions=1, "
                 "value_format='JSON');")
    sql = f"SELECT ID, COUNT(*) AS N FROM {s} WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID EMIT CHANGES;"
    qid, ended = start_push(client, server, {"sql": sql, "properties": {"auto.offset.reset": "earliest"}})
    try:
        d = {d["id"]: d for d in ksql(client, "SHOW QUERIES EXTENDED;")[0]["queryDescriptions"]}[qid]
        explained = ksql(client, f"EXPLAIN {qid};")[0]["queryDescription"]
        for described in (d, explained):
            assert described["windowType"] is None
            assert [v for k, v in described["overriddenProperties"].items()
                    if k.endswith("auto.offset.reset")] == ["earliest"]
    finally:
        ksql(client, f"TERMINATE {qid};")
    assert ended.wait(20), "the push query's stream did not end"
