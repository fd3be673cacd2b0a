"""Pull queries' consistency tokens over REST (engine/consistency.py): the token element in every wire
format of /query-stream and /query, the bound a request's token sets (requestProperties), and the switch."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")

from ksqlpy.testing.server_process import ServerProcess  # noqa: E402

ON = {"ksql.query.pull.consistency.token.enabled": True}
VECTOR = "request.ksql.query.pull.consistency.offset.vector"


def _token(vector: dict[str, dict[str, int]]) -> str:
    return base64.b64encode(json.dumps({"version": 0, "offsetVector": vector}, separators=(",", ":")).encode()).decode()


@pytest.fixture(scope="module")
def c(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("server")), {"ksql.streams.auto.offset.reset": "earliest"})
    proc.start()
    try:
        with httpx.Client(base_url=proc.url, timeout=20) as client:
            for sql in ["CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='cons_s', partitions=2, "
                        "value_format='JSON');",
                        "CREATE TABLE T AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID;",
                        "INSERT INTO S (ID, V) VALUES (1, 1); INSERT INTO S (ID, V) VALUES (2, 1); "
                        "INSERT INTO S (ID, V) VALUES (1, 1);"]:
                assert client.post("/ksql", json={"ksql": sql}).status_code == 200
            end = time.monotonic() + 15
            while time.monotonic() < end:
                r = client.post("/query", json={"ksql": "SELECT * FROM T WHERE ID = 1;"},
                                headers={"Accept": "application/json"})
                if r.status_code == 200 and "[1,2]" in r.text:
                    break
                time.sleep(0.1)
            yield client
    finally:
        proc.stop()


def _lines(r: httpx.Response) -> list[Any]:
    assert r.status_code == 200, r.text
    return [json.loads(x) for x in r.text.splitlines() if x.strip()]


def _stream(c: httpx.Client, sql: str, props: dict[str, Any] | None = None, token: str | None = None,
            accept: str = "application/vnd.ksqlapi.delimited.v1") -> httpx.Response:
    body: dict[str, Any] = {"sql": sql, "properties": ON if props is None else props}
    if token is not None:
        body["requestProperties"] = {VECTOR: token}
    return c.post("/query-stream", json=body, headers={"Accept": accept})


# keys 1 and 2 land on partitions 0 and 1 (KAFKA INT keys, murmur2): key 1 twice (offsets 0, 1), key 2 once
LOOKUP_1 = _token({"cons_s": {"0": 1}})
SCAN = _token({"cons_s": {"0": 1, "1": 0}})


def test_every_wire_format_ends_a_tables_pull_query_with_the_token(c: httpx.Client) -> None:
    sql = "SELECT * FROM T WHERE ID = 1;"
    assert _lines(_stream(c, sql))[1:] == [[1, 2], {"consistencyToken": LOOKUP_1}]
    body = _stream(c, sql, accept="application/json").json()
    assert body[1:] == [[1, 2], {"consistencyToken": LOOKUP_1}]
    for accept in ("application/vnd.ksql.v1+json", "application/vnd.ksql.v1+protobuf"):
        elements = _stream(c, sql, accept=accept).json()  # one JSON array, an element per line
        assert elements[-1] == {"consistencyToken": {"consistencyToken": LOOKUP_1}}, accept
        assert len(elements) == 3
    old = c.post("/query", json={"ksql": sql, "streamsProperties": ON},
                 headers={"Accept": "application/vnd.ksql.v1+json"}).json()
    assert old[1:] == [{"row": {"columns": [1, 2]}}, {"consistencyToken": {"consistencyToken": LOOKUP_1}}]


def test_a_scan_reads_every_partition_and_an_absent_key_its_own(c: httpx.Client) -> None:
    assert _lines(_stream(c, "SELECT * FROM T;"))[-1] == {"consistencyToken": SCAN}
    assert _lines(_stream(c, "SELECT * FROM T WHERE ID = 1 OR ID = 2;"))[-1] == {"consistencyToken": SCAN}
    empty = _lines(_stream(c, "SELECT * FROM T WHERE ID = 1 AND C > 5;"))
    assert empty[1:] == [{"consistencyToken": LOOKUP_1}]


def test_without_the_switch_there_is_no_token_and_a_requests_token_is_ignored(c: httpx.Client) -> None:
    ahead = _token({"cons_s": {"0": 99}})
    assert _lines(_stream(c, "SELECT * FROM T WHERE ID = 1;", props={}, token=ahead))[1:] == [[1, 2]]
    off = {"ksql.query.pull.consistency.token.enabled": False}
    assert _lines(_stream(c, "SELECT * FROM T WHERE ID = 1;", props=off))[1:] == [[1, 2]]


def test_a_token_the_store_has_reached_is_served_and_merged(c: httpx.Client) -> None:
    for token in (LOOKUP_1, SCAN):
        assert _lines(_stream(c, "SELECT * FROM T WHERE ID = 2;", token=token))[1] == [2, 1]
    merged = _lines(_stream(c, "SELECT * FROM T WHERE ID = 2;", token=_token({"other": {"5": 7}})))[-1]
    got = json.loads(base64.b64decode(merged["consistencyToken"]))
    assert got == {"version": 0, "offsetVector": {"other": {"5": 7}, "cons_s": {"1": 0}}}


def _exhausted(sql: str) -> dict[str, Any]:
    return {"@type": "generic_error", "error_code": 50000,
            "message": f"Unable to execute pull query: {sql}. Exhausted standby hosts to try."}


@pytest.mark.parametrize("accept", ["application/vnd.ksqlapi.delimited.v1", "application/json"])
def test_a_store_behind_the_token_fails_the_run_after_the_header(c: httpx.Client, accept: str) -> None:
    # the store's read fails (NOT_UP_TO_BOUND) when the plan runs, after the header: for HARouting a failure
    # of the only host, so the query ends with its 'Exhausted standby hosts' error element (no rows, no token)
    sql = "SELECT * FROM T WHERE ID = 1;"
    r = _stream(c, sql, token=_token({"cons_s": {"0": 5}}), accept=accept)
    assert r.status_code == 200, r.text
    elements = _lines(r) if accept.endswith("delimited.v1") else r.json()
    assert len(elements) == 2 and elements[0]["columnNames"] == ["ID", "C"]
    assert elements[1] == _exhausted(sql)
    # a bound on the other partition does not hold back a lookup of this one
    ok = _stream(c, sql, token=_token({"cons_s": {"1": 5}}))
    assert _lines(ok)[1] == [1, 2]
    # a topic the store never took in, bounded on the partition read: behind (Kafka Streams' rule)
    r = _stream(c, sql, token=_token({"other": {"0": 0}}), accept=accept)
    elements = _lines(r) if accept.endswith("delimited.v1") else r.json()
    assert elements[1:] == [_exhausted(sql)]


def test_a_scan_fails_when_any_partition_is_behind_on_every_endpoint(c: httpx.Client) -> None:
    sql = "SELECT * FROM T;"
    behind = _token({"cons_s": {"0": 1, "1": 3}})  # partition 0 is as far, partition 1 is not
    body = {"ksql": sql, "streamsProperties": ON, "requestProperties": {VECTOR: behind}}
    for accept in ("application/vnd.ksql.v1+json", "application/json"):
        r = c.post("/query", json=body, headers={"Accept": accept})
        assert r.status_code == 200, r.text
        elements = r.json()  # still one JSON array: the header, then the error element
        assert [list(e) for e in elements] == [["header"], ["errorMessage"]]
        assert elements[1]["errorMessage"] == _exhausted(sql)
    r = _stream(c, sql, token=behind, accept="application/vnd.ksql.v1+json")
    assert r.status_code == 200 and r.json()[-1] == {"errorMessage": _exhausted(sql)}
    # the same bound without partition 1 is reached: every row and the merged token
    assert _lines(_stream(c, sql, token=_token({"cons_s": {"0": 1}})))[-1] == {"consistencyToken": SCAN}


def test_a_token_that_cannot_be_read_is_refused(c: httpx.Client) -> None:
    r = _stream(c, "SELECT * FROM T WHERE ID = 1;", token="not a token")
    assert r.status_code == 400
    assert r.json()["message"] == "Couldn't decode consistency token: not a token"


def test_a_streams_pull_query_has_no_token(c: httpx.Client) -> None:
    lines = _lines(_stream(c, "SELECT * FROM S;"))
    assert all(not (isinstance(x, dict) and "consistencyToken" in x) for x in lines)
    assert len(lines) == 4
