"""One trailing slash is no part of a route's path (server/trailing_slash.py): ``/ksql/`` is served as ``/ksql``,
as Vert.x's router matches ksqlDB's routes, and nothing is redirected; two slashes, or a doubled leading one,
name no route. A real server over HTTP/1.1 and HTTP/2 (conftest's ``client``)."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest
from app_client import serving  # noqa: E402

from ksqlpy.server.trailing_slash import route_path


def test_route_path() -> None:
    assert [route_path(p) for p in ("/", "/info", "/info/", "/info//", "/status/a/b/c/")] == [
        "/", "/info", "/info", "/info/", "/status/a/b/c"]


@pytest.mark.parametrize("path, key", [("/info/", "KsqlServerInfo"), ("/healthcheck/", "isHealthy"),
                                       ("/status/", "commandStatuses"), ("/v1/metadata/", "version"),
                                       ("/clusterStatus/", "clusterStatus")])
def test_get_routes_with_a_trailing_slash(client: Any, path: str, key: str) -> None:
    r = client.get(path)
    assert r.status_code == 200, r.text
    assert key in r.json() and r.headers["content-type"] == "application/json"


def test_post_routes_with_a_trailing_slash(client: Any) -> None:
    r = client.post("/ksql/", json={"ksql": "SHOW STREAMS;"})
    assert r.status_code == 200 and r.json()[0]["@type"] == "streams", r.text
    r = client.post("/query-stream/", json={"sql": "SELECT * FROM NOPE;"})
    assert r.status_code == 400 and r.json()["error_code"] == 40001, r.text
    r = client.post("/query/", json={"ksql": "SHOW STREAMS;"})
    assert r.status_code == 400 and "not supported for this resource" in r.json()["message"], r.text
    r = client.get("/status/stream/NOPE/create/")  # a route with parameters
    assert r.status_code == 404 and r.json()["error_code"] == 40400, r.text
    r = client.get("/is_valid_property/auto.offset.reset/")
    assert r.status_code == 200 and r.json() is True, r.text


def test_no_redirect_and_no_second_slash(client: Any, server: Any) -> None:
    for path in ("/info//", "/ksql//"):
        r = client.get(path)
        assert r.status_code == 404 and r.text == "Not Found", (path, r.text)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:  # as sent, not as httpx joins it
        s.sendall(b"GET //info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    assert data.split(b"\r\n")[0].split()[1] == b"404", data[:200]


def test_the_accept_check_still_applies(client: Any) -> None:
    r = client.get("/info/", headers={"Accept": "text/html"})
    assert r.status_code == 406, r.text


def test_websocket_path_with_a_trailing_slash(tmp_path: Any) -> None:
    import warnings
    from urllib.parse import quote

    pytest.importorskip("fastapi")
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")

    from ksqlpy.server.app import create_app
    from ksqlpy.server.config import build_config

    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as c:
        with c.websocket_connect("/ws/query/?request=" + quote(json.dumps({"ksql": "SHOW STREAMS;"}))) as ws:
            assert "not supported for this resource" in json.loads(ws.receive_text())["error"]
