"""The JSON routes' ``produces`` (server/produces.py): an Accept header admitting neither ksqlDB JSON type is
406 ``Not Acceptable`` on every old-API route, before the body is read; no header, either type, a wildcard
or a weighted list with one of them in it is served. Unit rule, then a real server over HTTP/1.1 and HTTP/2."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.server.produces import JSON_ROUTES, admits_json, is_json_route


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
