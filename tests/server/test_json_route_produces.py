"""The JSON routes' ``produces`` (server/produces.py): an Accept header admitting neither ksqlDB JSON type is
406 ``Not Acceptable`` on every old-API route, before the body is read; no header, either type, a wildcard
or a weighted list with one of them in it is served. Unit rule, then a real server over HTTP/1.1 and HTTP/2."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.server.produces import (
    INSERTS,
    JSON_ROUTES,
    PRODUCED,
    STREAMING,
    admits,
    admits_json,
    is_json_route,
    produced_by,
)


@pytest.mark.parametrize("accept, ok", [
    (None, True), ("", True), ("*/*", True), ("application/*", True), ("application/json", True),
    ("application/vnd.ksql.v1+json", True), ("text/html, application/json;q=0.5", True),
    ("application/vnd.ksql.v1+json; charset=utf-8", True), ("*", True),
    ("text/plain", False), ("text/*", False), ("application/xml", False),
    ("application/vnd.ksqlapi.delimited.v1", False), ("application/vnd.ksql.v1+protobuf", False),
    ("text/plain, application/xml;q=0.9", False),
])
def test_accept_rule(accept: str | None, ok: bool) -> None:
    assert admits_json(accept) is ok


def test_routes_covered() -> None:
    for method, path in (("POST", "/ksql"), ("POST", "/ksql/terminate"), ("GET", "/info"), ("GET", "/status"),
                         ("GET", "/status/stream/S/create"), ("GET", "/is_valid_property/x"),
                         ("GET", "/v1/metadata/id"), ("POST", "/heartbeat"), ("POST", "/lag"),
                         ("GET", "/healthcheck"), ("GET", "/clusterStatus"), ("GET", "/v1/metadata")):
        assert is_json_route(method, path), (method, path)
    for method, path in (("GET", "/ksql"), ("POST", "/query"), ("POST", "/query-stream"), ("POST", "/close-query"),
                         ("GET", "/chc/ready"), ("GET", "/"), ("POST", "/inserts-stream"), ("GET", "/status/a/b")):
        assert not is_json_route(method, path), (method, path)
    assert len(JSON_ROUTES) == 12


_CALLS = [("POST", "/ksql", {"ksql": "SHOW STREAMS;"}), ("GET", "/info", None), ("GET", "/healthcheck", None),
          ("GET", "/status", None), ("GET", "/v1/metadata", None), ("GET", "/is_valid_property/auto.offset.reset", None),
          ("GET", "/clusterStatus", None)]


@pytest.mark.parametrize("method, path, body", _CALLS)
def test_non_json_accept_is_406(client: Any, method: str, path: str, body: Any) -> None:
    for accept in ("text/plain", "application/vnd.ksqlapi.delimited.v1", "text/*"):
        r = client.request(method, path, json=body, headers={"Accept": accept})
        assert r.status_code == 406 and r.text == "Not Acceptable", (path, accept, r.status_code, r.text)
    for accept in ("application/json", "application/vnd.ksql.v1+json", "*/*", "text/plain, application/json;q=0.1"):
        r = client.request(method, path, json=body, headers={"Accept": accept})
        assert r.status_code == 200, (path, accept, r.status_code, r.text)


def test_406_comes_before_the_body(client: Any) -> None:
    """Vert.x picks the route before reading the body: a bad body with a bad Accept is 406, not 400."""
    r = client.post("/ksql", content=b"{bad", headers={"Accept": "text/plain"})
    assert r.status_code == 406
    r = client.post("/ksql/terminate", content=b"{bad", headers={"Accept": "text/plain"})
    assert r.status_code == 406
    r = client.post("/ksql", content=b"{bad", headers={"Accept": "application/json"})
    assert r.status_code == 400


# ---------------------------------------------------------------------------- every route's produces

@pytest.mark.parametrize("method, path, produced", [
    ("POST", "/query-stream", STREAMING), ("POST", "/query", STREAMING), ("POST", "/inserts-stream", INSERTS),
    ("POST", "/ksql", PRODUCED), ("GET", "/v1/metadata/id", PRODUCED),
    ("POST", "/close-query", None), ("GET", "/", None), ("GET", "/chc/live", None), ("GET", "/ws/query", None),
    ("GET", "/inserts-stream", None), ("GET", "/backfills", None),
])
def test_each_route_declares_what_it_produces(method: str, path: str, produced: tuple[str, ...] | None) -> None:
    assert produced_by(method, path) == produced


@pytest.mark.parametrize("accept, ok", [
    (None, True), ("*/*", True), ("application/*", True), ("application/json", True),
    ("application/vnd.ksqlapi.delimited.v1", True), ("text/plain, application/json;q=0.2", True),
    ("application/vnd.ksql.v1+json", False), ("application/vnd.ksql.v1+protobuf", False), ("text/plain", False),
    ("text/*", False),
])
def test_inserts_stream_accept_rule(accept: str | None, ok: bool) -> None:
    """/inserts-stream produces the delimited type and application/json only: its acks have no StreamedRow
    form, so ksqlDB's own v1+json is not acceptable there."""
    assert admits(accept, INSERTS) is ok


def test_inserts_stream_refuses_an_accept_it_does_not_produce(client: Any, unique: Any) -> None:
    """406 before anything else the route checks: before the HTTP/2-only refusal (40004) and the header line."""
    s = unique("ACC")
    r = client.post("/ksql", json={"ksql": f"CREATE STREAM {s} (ID STRING KEY, V INT) WITH "
                                           f"(kafka_topic='{s.lower()}', value_format='JSON', partitions=1);"})
    assert r.status_code == 200, r.text
    body = f'{{"target":"{s}"}}\n{{"ID":"a","V":1}}\n'.encode()
    for accept in ("application/vnd.ksql.v1+json", "text/plain", "application/vnd.ksql.v1+protobuf"):
        r = client.post("/inserts-stream", content=body, headers={"Accept": accept})
        assert r.status_code == 406 and r.text == "Not Acceptable", (accept, r.status_code, r.text)
        r = client.post("/inserts-stream", content=b"{bad", headers={"Accept": accept})
        assert r.status_code == 406, (accept, r.status_code, r.text)
    for accept in ("application/json", "application/vnd.ksqlapi.delimited.v1", "*/*"):
        r = client.post("/inserts-stream", content=body, headers={"Accept": accept})
        if r.http_version == "HTTP/2":
            assert r.status_code == 200 and '"status":"ok"' in r.text.replace(" ", ""), (accept, r.text)
        else:  # the route takes it; its handler refuses HTTP/1.x
            assert r.status_code == 400 and r.json()["error_code"] == 40004, (accept, r.text)
            # a bounded body is read before the answer: the connection carries the next request
            assert r.headers.get("connection") != "close"


@pytest.mark.parametrize("path", ["/query", "/query-stream"])
def test_query_routes_refuse_before_the_body(client: Any, path: str) -> None:
    """No route of the query paths produces text/plain: 406 whatever the body holds (it is not read)."""
    field = "ksql" if path == "/query" else "sql"
    for content in (b"{bad", f'{{"{field}": "SELECT * FROM NOPE;"}}'.encode()):
        r = client.post(path, content=content, headers={"Accept": "text/plain"})
        assert r.status_code == 406 and r.text == "Not Acceptable", (content, r.status_code, r.text)
    r = client.post(path, content=b"{bad", headers={"Accept": "application/vnd.ksql.v1+protobuf"})
    assert r.status_code == 400 and r.json()["error_code"] == 40000, r.text


def test_close_query_takes_any_accept(client: Any) -> None:
    r = client.post("/close-query", json={"queryId": "transient_NOPE_1"}, headers={"Accept": "text/plain"})
    assert r.status_code == 400 and r.json()["message"] == "No query with id transient_NOPE_1", r.text
