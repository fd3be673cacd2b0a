"""The real server over HTTP/1.1 and HTTP/2 (prior knowledge): statements, queries, errors, endpoints."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from typing import Any

import httpx
import pytest
from server_helpers import ksql, stream_lines

DELIMITED = "application/vnd.ksqlapi.delimited.v1"
V1_JSON = "application/vnd.ksql.v1+json"


def create_stream(client: Any, name: str, partitions: int = 1) -> None:
    body = ksql(client, f"CREATE STREAM {name} (ID INT KEY, V STRING) WITH (kafka_topic='{name.lower()}', "
                        f"partitions={partitions}, value_format='JSON');")
    assert body[0]["@type"] == "currentStatus"
    assert body[0]["commandStatus"]["status"] == "SUCCESS"


def insert(client: Any, name: str, *rows: tuple[int, str]) -> None:
    sql = " ".join(f"INSERT INTO {name} (ID, V) VALUES ({i}, '{v}');" for i, v in rows)
    assert ksql(client, sql) == []


def push_queries(client: Any, source: str = "") -> list[str]:
    """Ids of running push queries (over ``source`` when given: other tests share the server)."""
    return [q["id"] for q in ksql(client, "SHOW QUERIES;")[0]["queries"]
            if q["queryType"] == "PUSH" and (not source or f"FROM {source} " in q["queryString"])]


def wait_until(cond: Any, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def is_h2(client: Any) -> bool:
    return bool(client._transport._pool._http2)


def twin(client: Any) -> httpx.Client:
    """Another client speaking the same protocol (one per thread: a stream blocks its connection)."""
    h2 = is_h2(client)
    return httpx.Client(base_url=str(client.base_url), http1=not h2, http2=h2, timeout=20)


def test_protocol_is_what_was_asked(client: Any) -> None:
    r = client.get("/info")
    assert r.status_code == 200
    assert r.http_version == ("HTTP/2" if is_h2(client) else "HTTP/1.1")


def test_a_busy_connection_is_never_retired(client: Any) -> None:
    """ksqlDB keeps a keep-alive connection however many requests it carries (Hypercorn's default retired
    it after 1000: HTTP/2 clients then saw GOAWAY fail a request in flight)."""
    for _ in range(1100):
        r = client.get("/chc/live")
        assert r.status_code == 200 and "connection" not in r.headers


def test_info_health_metadata(client: Any) -> None:
    info = client.get("/info")
    assert info.headers["content-type"] == "application/json"
    server = info.json()["KsqlServerInfo"]
    assert server["ksqlServiceId"] == "default_" and server["serverStatus"] == "RUNNING"
    assert server["version"].startswith("0.")
    health = client.get("/healthcheck").json()
    assert health["isHealthy"] is True and health["serverState"] == "READY"
    assert set(health["details"]) == {"metastore", "kafka", "commandRunner"}
    meta = client.get("/v1/metadata").json()
    assert meta["clusterId"]["scope"]["clusters"]["ksql-cluster"] == "default_"
    assert meta["clusterId"]["scope"]["path"] == [] and meta["clusterId"]["id"] == ""  # ServerClusterId's shape
    assert client.get("/v1/metadata/id").json() == meta["clusterId"]
    assert "clusterStatus" in client.get("/clusterStatus").json()
    assert client.get("/chc/live").json() == {}
    root = client.get("/", follow_redirects=False)
    assert root.status_code == 307 and root.headers["location"] == "/info"


def test_unknown_route_is_plain_404(client: Any) -> None:
    r = client.get("/no/such/thing")
    assert r.status_code == 404 and r.text == "Not Found"


def test_is_valid_property(client: Any) -> None:
    assert client.get("/is_valid_property/auto.offset.reset").json() is True
    # only the denylist decides there (ksqlDB's KsqlResource.isValidProperty): an unknown name is valid
    assert client.get("/is_valid_property/not.a.property").json() is True
    # (a denylisted name's 400: tests/server/test_rest_properties, whose server has a denylist)


def test_create_insert_push_limit_delimited(client: Any, unique: Any) -> None:
    s = unique("S")
    create_stream(client, s)
    out: dict[str, Any] = {}

    def run() -> None:
        with twin(client) as own, own.stream("POST", "/query-stream", headers={"Accept": DELIMITED},
                                             json={"sql": f"SELECT * FROM {s} EMIT CHANGES LIMIT 2;"}) as r:
            out["status"] = r.status_code
            out["type"] = r.headers["content-type"]
            out["lines"] = [json.loads(x) for x in stream_lines(r) if x.strip()]

    t = threading.Thread(target=run)
    t.start()
    assert wait_until(lambda: len(push_queries(client, s)) > 0)
    insert(client, s, (1, "a"), (2, "b"), (3, "c"))
    t.join(20)
    assert out["status"] == 200 and out["type"] == DELIMITED
    meta, *rows = out["lines"]
    assert meta["columnNames"] == ["ID", "V"] and meta["columnTypes"] == ["INTEGER", "STRING"]
    assert meta["queryId"].startswith(f"transient_{s}_")
    assert rows == [[1, "a"], [2, "b"]]
    assert wait_until(lambda: not push_queries(client, s)), "the push query outlived its LIMIT"


def test_query_endpoint_streamed_row_format(client: Any, unique: Any) -> None:
    s = unique("S")
    create_stream(client, s)
    insert(client, s, (1, "a"), (2, "b"))
    r = client.post("/query", headers={"Accept": V1_JSON},
                    json={"ksql": f"SELECT * FROM {s} EMIT CHANGES LIMIT 2;",
                          "streamsProperties": {"auto.offset.reset": "earliest"}})
    assert r.status_code == 200 and r.headers["content-type"] == V1_JSON
    lines = r.text.split("\n")
    assert lines[0].startswith('[{"header":{"queryId":"transient_')
    assert lines[0].endswith('"schema":"`ID` INTEGER, `V` STRING"}},')
    assert lines[1:] == ['{"row":{"columns":[1,"a"]}},', '{"row":{"columns":[2,"b"]}},',
                         '{"finalMessage":"Limit Reached"}]', '']  # every line ends with a newline
    assert json.loads(r.text)[-1] == {"finalMessage": "Limit Reached"}


def test_pull_query_on_stream_formats(client: Any, unique: Any) -> None:
    s = unique("S")
    create_stream(client, s)
    insert(client, s, (1, "a"), (2, "b"))
    body = client.post("/query-stream", json={"sql": f"SELECT * FROM {s};"}, headers={"Accept": "application/json"})
    assert body.headers["content-type"] == "application/json"
    meta, *rows = body.json()
    # a stream's pull query runs as a transient query: its id is one (a table's is query_<ms>)
    assert meta["queryId"].startswith(f"transient_{s}_") and rows == [[1, "a"], [2, "b"]]
    old = client.post("/query", json={"ksql": f"SELECT V FROM {s} WHERE ID = 2;"}, headers={"Accept": V1_JSON}).json()
    assert old[0]["header"]["schema"] == "`V` STRING"
    assert old[1:] == [{"row": {"columns": ["b"]}}, {"finalMessage": "Query Completed"}]
    # curl's Accept: */* gets the delimited form, as from ksqlDB
    star = client.post("/query-stream", json={"sql": f"SELECT * FROM {s};"}, headers={"Accept": "*/*"})
    assert star.headers["content-type"] == DELIMITED and star.text.count("\n") == 3


def test_pull_query_on_table_answers_from_state(client: Any, unique: Any) -> None:
    s, t = unique("S"), unique("T")
    create_stream(client, s)
    created = ksql(client, f"CREATE TABLE {t} AS SELECT ID, COUNT(*) AS N FROM {s} GROUP BY ID;",
                   streamsProperties={"auto.offset.reset": "earliest"})
    qid = created[0]["commandStatus"]["queryId"]
    assert qid.startswith(f"CTAS_{t}_") and created[0]["commandId"] == f"table/{t}/create"
    insert(client, s, (1, "a"), (1, "b"), (2, "c"))

    def counts() -> Any:
        r = client.post("/query", json={"ksql": f"SELECT * FROM {t} WHERE ID = 1;"}, headers={"Accept": V1_JSON})
        return r.json()

    assert wait_until(lambda: counts()[1:] == [{"row": {"columns": [1, 2]}}])
    assert counts()[0]["header"]["schema"] == "`ID` INTEGER KEY, `N` BIGINT"


def test_show_describe_explain_terminate(client: Any, unique: Any) -> None:
    s, s2 = unique("S"), unique("S2_")
    create_stream(client, s)
    created = ksql(client, f"CREATE STREAM {s2} AS SELECT * FROM {s};")[0]
    qid = created["commandStatus"]["queryId"]
    assert created["commandStatus"]["message"] == f"Created query with ID {qid}"
    assert qid == f"CSAS_{s2}_{created['commandSequenceNumber']}"
    streams = ksql(client, "SHOW STREAMS;")[0]
    assert streams["@type"] == "streams"
    mine = next(x for x in streams["streams"] if x["name"] == s)
    assert mine == {"type": "STREAM", "name": s, "topic": s.lower(), "keyFormat": "KAFKA", "valueFormat": "JSON",
                    "isWindowed": False}
    queries = ksql(client, "SHOW QUERIES;")[0]["queries"]
    q = next(x for x in queries if x["id"] == qid)
    assert q["sinks"] == [s2] and q["sinkKafkaTopics"] == [s2] and q["queryType"] == "PERSISTENT"
    desc = ksql(client, f"DESCRIBE {s};")[0]
    assert desc["@type"] == "sourceDescription"
    d = desc["sourceDescription"]
    assert d["fields"][0] == {"name": "ID", "schema": {"type": "INTEGER", "fields": None, "memberSchema": None},
                              "type": "KEY"}
    assert [x["id"] for x in d["readQueries"]] == [qid] and d["readQueries"][0]["queryType"] == "PERSISTENT"
    assert (d["extended"], d["partitions"], d["replication"], d["statistics"], d["errorStats"]) == (False, 0, 0, "", "")
    ext = ksql(client, f"DESCRIBE {s} EXTENDED;")[0]["sourceDescription"]
    assert ext["extended"] is True and ext["partitions"] == 1 and ext["replication"] == 1
    explain = ksql(client, f"EXPLAIN {qid};")[0]
    assert explain["@type"] == "queryDescription"
    qd = explain["queryDescription"]
    assert qd["id"] == qid and qd["sources"] == [s] and qd["sinks"] == [s2] and qd["state"] == "RUNNING"
    assert client.get(f"/status/stream/{s2}/create").json()["queryId"] == qid
    assert client.get("/status").json()["commandStatuses"][f"stream/{s2}/create"] == "SUCCESS"
    term = ksql(client, f"TERMINATE {qid};")[0]
    assert term["commandId"] == f"terminate/{qid}/execute"
    assert term["commandStatus"]["message"] == "Query terminated."
    assert qid not in [x["id"] for x in ksql(client, "SHOW QUERIES;")[0]["queries"]]
    dropped = ksql(client, f"DROP STREAM {s2};")[0]
    assert dropped["commandStatus"]["message"] == f"Source `{s2}` (topic: {s2}) was dropped."


def test_if_not_exists_is_a_warning(client: Any, unique: Any) -> None:
    s = unique("S")
    create_stream(client, s)
    again = ksql(client, f"CREATE STREAM IF NOT EXISTS {s} (ID INT KEY, V STRING) WITH (kafka_topic='{s.lower()}', "
                         "value_format='JSON');")
    assert again[0]["@type"] == "warning_entity" and again[0]["message"].startswith("Cannot add")


def test_define_and_set_apply_to_the_rest_of_the_request(client: Any, unique: Any) -> None:
    s = unique("S")
    body = ksql(client, f"DEFINE name = '{s}'; CREATE STREAM ${{name}} (ID INT KEY) WITH (kafka_topic='{s.lower()}', "
                        "partitions=1, value_format='JSON'); SET 'auto.offset.reset' = 'earliest'; SHOW PROPERTIES;")
    assert [e["@type"] for e in body] == ["currentStatus", "properties"]
    assert body[0]["commandId"] == f"stream/{s}/create"
    props = {p["name"]: p for p in body[1]["properties"]}
    assert props["ksql.streams.auto.offset.reset"]["value"] == "earliest"  # listed under ksqlDB's name
    assert "ksql.streams.auto.offset.reset" in body[1]["overwrittenProperties"]
    # the SET did not outlive its request
    props = {p["name"]: p for p in ksql(client, "SHOW PROPERTIES;")[0]["properties"]}
    assert props["ksql.streams.auto.offset.reset"]["value"] == "latest"


def test_statement_errors(client: Any, unique: Any) -> None:
    bad = client.post("/ksql", json={"ksql": "CREATE STREAM;"})
    assert bad.status_code == 400 and bad.headers["content-type"] == "application/json"
    body = bad.json()
    assert body["@type"] == "statement_error" and body["error_code"] == 40001
    assert body["statementText"] == "CREATE STREAM;" and body["entities"] == []
    missing = client.post("/ksql", json={"ksql": "DESCRIBE NO_SUCH_THING;"}).json()
    assert missing["error_code"] == 40001 and "NO_SUCH_THING" in missing["message"]
    # (a source that exists: an unknown one is the preparation's 40001 first, test_ksql_query_refusal)
    select = client.post("/ksql", json={"ksql": "SHOW STREAMS; SELECT * FROM KSQL_PROCESSING_LOG EMIT CHANGES;"})
    assert select.status_code == 400
    assert select.json()["error_code"] == 40002 and "'/query'" in select.json()["message"]


def test_request_errors(client: Any) -> None:
    r = client.post("/ksql", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json() == {
        "@type": "generic_error", "error_code": 40000, "message": r.json()["message"]}
    assert r.json()["message"].startswith("Invalid JSON in request")
    assert client.post("/ksql", json={"sql": "SHOW STREAMS;"}).json() == []  # no ksql: no statement, nothing runs
    assert client.post("/ksql", json={"ksql": 5}).status_code == 400
    # unknown fields are ignored, as ksqlDB does; the Content-Type is not checked
    ok = client.post("/ksql", content=b'{"ksql":"SHOW STREAMS;","extra":1}', headers={"Content-Type": "text/plain"})
    assert ok.status_code == 200
    prop = client.post("/ksql", json={"ksql": "SHOW STREAMS;", "streamsProperties": {"no.such.prop": "1"}})
    assert prop.status_code == 400 and "Not recognizable" in prop.json()["message"]
    closed = client.post("/close-query", json={"queryId": "transient_NOPE_1"})
    assert closed.status_code == 400 and closed.json()["message"] == "No query with id transient_NOPE_1"
    wrong = client.post("/query", json={"ksql": "SHOW STREAMS;"})
    assert wrong.status_code == 400 and "not supported for this resource" in wrong.json()["message"]
    stream_err = client.post("/query-stream", json={"sql": "SELECT * FROM NOPE EMIT CHANGES;"})
    assert stream_err.status_code == 400 and stream_err.json()["@type"] == "statement_error"


def test_command_sequence_number_timeout(client: Any) -> None:
    r = client.post("/ksql", json={"ksql": "SHOW STREAMS;", "commandSequenceNumber": 10**9})
    assert r.status_code == 503 and r.json()["error_code"] == 50301


def test_close_query_ends_the_stream(client: Any, unique: Any) -> None:
    s = unique("S")
    create_stream(client, s)
    with client.stream("POST", "/query-stream", json={"sql": f"SELECT * FROM {s} EMIT CHANGES;"}) as r:
        lines = stream_lines(r)
        meta = json.loads(next(lines))
        closed = httpx.post(str(client.base_url) + "/close-query", json={"queryId": meta["queryId"]})
        assert closed.status_code == 200 and closed.content == b""
        assert [x for x in lines if x.strip()] == []  # the response ended
    assert meta["queryId"] not in push_queries(client)


@pytest.mark.parametrize("h2", [False, True], ids=["http1-leaves", "http2-leaves"])
def test_client_going_away_stops_the_push_query(client: Any, unique: Any, h2: bool) -> None:
    s = unique("S")
    create_stream(client, s)
    for path, body in (("/query-stream", {"sql": f"SELECT * FROM {s} EMIT CHANGES;"}),
                       ("/query", {"ksql": f"SELECT * FROM {s} EMIT CHANGES;"})):
        with httpx.Client(base_url=str(client.base_url), http2=h2, http1=not h2, timeout=10) as other:
            with other.stream("POST", path, json=body, headers={"Accept": DELIMITED}) as r:
                lines = stream_lines(r)  # kept alive: closing the iterator closes the response
                qid = json.loads(next(lines))["queryId"]
                assert qid in push_queries(client)
        # the connection is gone: the server must end the query (no leaked consumer)
        assert wait_until(lambda q=qid: q not in push_queries(client)), f"push query leaked after disconnect ({path})"


def test_max_push_queries(client: Any, unique: Any) -> None:
    s = unique("S")
    create_stream(client, s)
    limit = 5  # the module's server runs with ksql.max.push.queries=5
    with httpx.Client(base_url=str(client.base_url), timeout=10) as other:
        streams = []
        try:
            for _ in range(limit):
                r = other.send(other.build_request("POST", "/query-stream",
                                                   json={"sql": f"SELECT * FROM {s} EMIT CHANGES;"}), stream=True)
                streams.append(r)
                assert r.status_code == 200
            over = client.post("/query-stream", json={"sql": f"SELECT * FROM {s} EMIT CHANGES;"})
            assert over.status_code == 400 and over.json()["error_code"] == 40003
        finally:
            for r in streams:
                r.close()
    assert wait_until(lambda: not push_queries(client, s))


def test_inserts_stream(server: Any, unique: Any) -> None:
    with httpx.Client(base_url=server.url, http1=True, http2=False) as h1:
        create_stream(h1, (s := unique("S")))
        r = h1.post("/inserts-stream", content=b'{"target":"x"}\n')
        assert r.status_code == 400 and r.json()["error_code"] == 40004
    with httpx.Client(base_url=server.url, http1=False, http2=True) as h2:
        body = f'{{"target":"{s.lower()}"}}\n{{"ID":1,"V":"a"}}\n{{"id":2,"v":"b"}}\n'.encode()
        r = h2.post("/inserts-stream", content=body)
        assert r.status_code == 200 and r.http_version == "HTTP/2"
        assert [json.loads(x) for x in r.text.splitlines()] == [{"status": "ok", "seq": 0}, {"status": "ok", "seq": 1}]
        bad = h2.post("/inserts-stream", content=f'{{"target":"{s}"}}\n{{"ID":"x"}}\n'.encode(),
                      headers={"Accept": "application/json"})
        err = bad.json()[0]
        assert err["status"] == "error" and err["seq"] == 0 and err["error_code"] == 40000
        unknown = h2.post("/inserts-stream", content=b'{"target":"NO_SUCH"}\n')
        assert unknown.status_code == 400 and "unknown stream/table" in unknown.json()["message"]
        rows = h2.post("/query-stream", json={"sql": f"SELECT * FROM {s};"}, headers={"Accept": "application/json"})
        assert rows.json()[1:] == [[1, "a"], [2, "b"]]


def test_processing_log_stream(client: Any, unique: Any) -> None:
    s = unique("S")
    ksql(client, f"CREATE STREAM {s}_TEXT (ID INT KEY, V STRING) WITH (kafka_topic='{s.lower()}', partitions=1, "
                 "value_format='JSON');")
    ksql(client, f"CREATE STREAM {s}_NUM (ID INT KEY, V INT) WITH (kafka_topic='{s.lower()}', value_format='JSON');")
    qid = ksql(client, f"CREATE STREAM {s}_OUT AS SELECT * FROM {s}_NUM;",
               streamsProperties={"auto.offset.reset": "earliest"})[0]["commandStatus"]["queryId"]
    insert(client, f"{s}_TEXT", (1, "not a number"))

    def logged() -> list[Any]:
        r = client.post("/query-stream", headers={"Accept": "application/json"},
                        json={"sql": "SELECT LOGGER, MESSAGE FROM KSQL_PROCESSING_LOG;"})
        return [row for row in r.json()[1:] if qid in row[0]]

    assert wait_until(logged), "no processing log row"
    logger, message = logged()[0]
    assert logger == f"processing.{qid}.KsqlTopic.Source.deserializer"
    assert message["TYPE"] == 0 and message["DESERIALIZATIONERROR"]["TOPIC"] == s.lower()


@pytest.mark.parametrize("path", ["/ksql", "/query"])
def test_request_size_limit(server: Any, path: str) -> None:
    r = httpx.post(server.url + path, content=b'{"ksql":"' + b"x" * (11 * 1024 * 1024) + b'"}')
    assert r.status_code == 413 and r.json()["error_code"] == 41300


def test_pause_resume(client: Any, unique: Any) -> None:
    s, s2 = unique("S"), unique("P")
    create_stream(client, s)
    qid = ksql(client, f"CREATE STREAM {s2} AS SELECT * FROM {s};")[0]["commandStatus"]["queryId"]

    def state() -> str:
        return next(q["state"] for q in ksql(client, "SHOW QUERIES;")[0]["queries"] if q["id"] == qid)

    paused = ksql(client, f"PAUSE {qid};")[0]
    assert paused["commandId"] == f"pause/{qid}/execute" and paused["commandStatus"]["message"] == "Query paused."
    assert state() == "PAUSED"
    resumed = ksql(client, f"RESUME {qid};")[0]
    assert resumed["commandId"] == f"resume/{qid}/execute" and state() == "RUNNING"
    unknown = client.post("/ksql", json={"ksql": "PAUSE NOT_A_QUERY;"})
    assert unknown.status_code == 400 and unknown.json()["error_code"] == 40001
    ksql(client, f"TERMINATE {qid};")


def test_assert_topic(client: Any, unique: Any) -> None:
    s = unique("S")
    create_stream(client, s)
    ok = ksql(client, f"ASSERT TOPIC {s.lower()};")[0]
    assert ok == {"@type": "assert_topic", "statementText": f"ASSERT TOPIC {s.lower()};", "topicName": s.lower(),
                  "exists": True, "warnings": []}
    failed = client.post("/ksql", json={"ksql": "ASSERT TOPIC no_such_topic_here;"})
    assert failed.status_code == 417 and failed.json()["error_code"] == 41700


def test_pull_query_on_stream_with_limit(client: Any, unique: Any) -> None:
    s = unique("S")
    create_stream(client, s)
    insert(client, s, (1, "a"), (2, "b"), (3, "c"))
    hit = client.post("/query", json={"ksql": f"SELECT * FROM {s} LIMIT 2;"}, headers={"Accept": V1_JSON}).json()
    assert hit[1:] == [{"row": {"columns": [1, "a"]}}, {"row": {"columns": [2, "b"]}}, {"finalMessage": "Limit Reached"}]
    short = client.post("/query", json={"ksql": f"SELECT * FROM {s} LIMIT 5;"}, headers={"Accept": V1_JSON}).json()
    assert short[-1] == {"finalMessage": "Query Completed"} and len(short) == 5


def test_inserts_stream_stops_at_the_first_bad_row(server: Any, unique: Any) -> None:
    s = unique("S")
    with httpx.Client(base_url=server.url, http1=False, http2=True) as h2:
        create_stream(h2, s)
        r = h2.post("/inserts-stream", headers={"Accept": "application/json"},
                    content=f'{{"target":"{s}"}}\n{{"ID":1,"V":"a"}}\n{{"ID":"x"}}\n{{"ID":3,"V":"c"}}\n'.encode())
        acks = r.json()
        assert [a["status"] for a in acks] == ["ok", "error"] and acks[1]["seq"] == 1
        assert acks[1]["message"] == "Can't coerce a field of type class java.lang.String (x) into type INTEGER"
        rows = h2.post("/query-stream", json={"sql": f"SELECT * FROM {s};"}, headers={"Accept": "application/json"})
        assert rows.json()[1:] == [[1, "a"]]  # the rows before the bad one are written, none after


def test_inserts_stream_takes_streams_only_and_every_key_column(server: Any, unique: Any) -> None:
    """ksqlDB's /inserts-stream inserts into streams (``Cannot insert into a table``, 400 before any row) and
    needs a value for each key column of a row (``Key field must be specified: <K>``, an error ack 40000);
    a stream without key columns takes rows as they are."""
    s, t, n = unique("S"), unique("T"), unique("N")
    with httpx.Client(base_url=server.url, http1=False, http2=True) as h2:
        create_stream(h2, s)
        ksql(h2, f"CREATE TABLE {t} (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='{t.lower()}', "
                 f"partitions=1, value_format='JSON'); CREATE STREAM {n} (V STRING) WITH "
                 f"(kafka_topic='{n.lower()}', partitions=1, value_format='JSON');")
        table = h2.post("/inserts-stream", content=f'{{"target":"{t}"}}\n{{"ID":1,"V":"a"}}\n'.encode())
        assert table.status_code == 400 and table.json()["message"] == "Cannot insert into a table", table.text
        for row in ('{"V":"a"}', '{"ID":null,"V":"a"}'):
            r = h2.post("/inserts-stream", headers={"Accept": "application/json"},
                        content=f'{{"target":"{s}"}}\n{{"ID":1,"V":"x"}}\n{row}\n'.encode())
            assert r.json() == [{"status": "ok", "seq": 0},
                                {"@type": "generic_error", "status": "error", "seq": 1, "error_code": 40000,
                                 "message": "Key field must be specified: ID"}], r.text
        r = h2.post("/inserts-stream", content=f'{{"target":"{n}"}}\n{{"V":"a"}}\n'.encode())
        assert [json.loads(x) for x in r.text.splitlines()] == [{"status": "ok", "seq": 0}]


def test_inserts_stream_answers_a_serializer_failure_with_the_generic_error(server: Any, unique: Any) -> None:
    """A row whose values coerce but which the format cannot write (protobuf has no NULL array element) is
    ksqlDB's 50000 'Error in processing inserts...' (not the row's fault in words), and ends the stream;
    a value its column does not take is the row's fault: 40000 with the reason."""
    s = unique("PB")
    with httpx.Client(base_url=server.url, http1=False, http2=True) as h2:
        ksql(h2, f"CREATE STREAM {s} (ID INT KEY, A ARRAY<INT>) WITH (kafka_topic='{s.lower()}', partitions=1, "
                 "format='PROTOBUF');")
        r = h2.post("/inserts-stream", headers={"Accept": "application/json"},
                    content=f'{{"target":"{s}"}}\n{{"ID":1,"A":[1]}}\n{{"ID":2,"A":[1,null]}}\n{{"ID":3}}\n'.encode())
        assert r.json() == [{"status": "ok", "seq": 0},
                            {"@type": "generic_error", "status": "error", "seq": 1, "error_code": 50000,
                             "message": "Error in processing inserts. Check server logs for details."}], r.text
        r = h2.post("/inserts-stream", headers={"Accept": "application/json"},
                    content=f'{{"target":"{s}"}}\n{{"ID":4,"A":["x"]}}\n'.encode())
        assert r.json()[0]["error_code"] == 40000
        assert r.json()[0]["message"] == ("Can't coerce a field of type class io.vertx.core.json.JsonArray ([\"x\"]) "
                                          "into type ARRAY<INTEGER>")


def test_inserts_stream_stamps_rows_with_the_time_of_the_insert(server: Any, unique: Any) -> None:
    """ksqlDB's inserts subscriber produces each row at the current time: a ROWTIME field is not a column
    and does not set the record's timestamp."""
    s = unique("TS")
    before = int(time.time() * 1000)
    with httpx.Client(base_url=server.url, http1=False, http2=True) as h2:
        create_stream(h2, s)
        r = h2.post("/inserts-stream", content=f'{{"target":"{s}"}}\n{{"ID":1,"V":"a","ROWTIME":5}}\n'.encode())
        assert json.loads(r.text.splitlines()[0]) == {"status": "ok", "seq": 0}
        rows = h2.post("/query-stream", json={"sql": f"SELECT ROWTIME, ID, V FROM {s};"},
                       headers={"Accept": "application/json"}).json()[1:]
    assert len(rows) == 1 and rows[0][1:] == [1, "a"] and rows[0][0] >= before


def _read_response(sock: socket.socket, within_s: float = 10.0) -> bytes:
    """One HTTP/1.1 response with a Content-Length body, read off a raw socket."""
    sock.settimeout(within_s)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"the server closed without an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?im)^content-length:\s*(\d+)", head).group(1))  # type: ignore[union-attr]
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "the server closed inside the answer"
        body += chunk
    return head + b"\r\n\r\n" + body


def test_inserts_stream_http1_refusal_keeps_a_bounded_connection_and_ends_an_endless_one(server: Any) -> None:
    """The HTTP/1.x refusal (40004) reads a bounded body first, so the same connection carries the next
    request (a refusal that closed with the body unread made the kernel reset the connection, and the
    client lost the answer now and then); an insert stream that never ends still gets its answer, then
    the connection is closed."""
    body = b'{"target":"x"}\n{"ID":1}\n'
    request = (b"POST /inserts-stream HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
               b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        for _ in range(3):  # one connection, three refusals, three answers
            sock.sendall(request)
            answer = _read_response(sock)
            assert answer.startswith(b"HTTP/1.1 400") and b'"error_code":40004' in answer.replace(b" ", b"")
            assert not re.search(rb"(?im)^connection:\s*close", answer)
        sock.sendall(b"GET /info HTTP/1.1\r\nHost: t\r\n\r\n")
        assert _read_response(sock).startswith(b"HTTP/1.1 200")
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"POST /inserts-stream HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"f\r\n{\"target\":\"x\"}\n\r\n")  # a chunked stream that goes on (no last chunk)
        answer = _read_response(sock)
        assert answer.startswith(b"HTTP/1.1 400") and re.search(rb"(?im)^connection:\s*close", answer)


def test_a_406_before_the_body_keeps_the_connection(server: Any) -> None:
    """The Accept check answers 406 without reading the body; the connection still carries the next
    requests (without body_drain, Hypercorn closed it when the body was still unread - the 3rd request on
    a raw socket found the connection gone)."""
    request = (b"POST /inserts-stream HTTP/1.1\r\nHost: t\r\nAccept: text/plain\r\nContent-Length: 4\r\n\r\n")
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        for i in range(20):
            sock.sendall(request)
            if i % 2:
                time.sleep(0.01)  # the body after the head, in its own segment
            sock.sendall(b"{bad")
            assert _read_response(sock).startswith(b"HTTP/1.1 406"), i
