"""Cross-origin requests (server/cors.py), ksqlDB's CORS set-up: off without ``access.control.allow.origin``;
with it, an origin the list does not match is refused with 403 (40300) on every route before the gate and
authentication, a preflight is answered 204 with the allowed methods and headers, and every other answer to an
allowed origin carries the origin and ``Access-Control-Allow-Credentials``. The rule's units, then a real
server over HTTP/1.1 and HTTP/2, with and without authentication, and a WebSocket handshake."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from app_client import await_serving  # noqa: E402
from starlette.testclient import TestClient, WebSocketDenialResponse  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402
from ksqlpy.server.cors import CorsPolicy, origin_pattern  # noqa: E402
from ksqlpy.testing.server_process import ServerProcess  # noqa: E402

REJECTED = {"@type": "generic_error", "error_code": 40300, "message": "CORS Rejected - Invalid origin"}
DEFAULT_METHODS = "GET,POST,HEAD"
DEFAULT_HEADERS = "X-Requested-With,Content-Type,Accept,Origin"


@pytest.mark.parametrize("allowed, origin, ok", [
    ("http://foo.com", "http://foo.com", True),
    ("http://foo.com", "http://foo.com:8080", False),
    ("http://foo.com", "https://foo.com", False),
    ("http://foo.com", "http://wibble.com", False),
    ("http://foo.com", "http://fooxcom", False),  # '.' is literal
    ("http://wibble.com, http://foo.com", "http://foo.com", True),  # a list, blanks trimmed
    ("http://wibble.com,http://foo.com", "http://wibble.com", True),
    ("*", "http://anything.example:1234", True),
    ("http://*.foo.com", "http://wibble.foo.com", True),
    ("http://*.foo.com", "http://a.b.foo.com", True),  # '*' is any run of characters
    ("http://*.foo.com", "http://foo.com", False),
    ("http://*.foo.com", "https://wibble.foo.com", False),
    ("http://foo.com:*", "http://foo.com:8088", True),
])
def test_origin_rule(allowed: str, origin: str, ok: bool) -> None:
    assert (origin_pattern(allowed).fullmatch(origin) is not None) is ok


def test_policy_from_config() -> None:
    assert CorsPolicy.from_config({}) is None and CorsPolicy.from_config({"access.control.allow.origin": " "}) is None
    policy = CorsPolicy.from_config({"access.control.allow.origin": "*"})
    assert policy is not None and (policy.methods, policy.headers) == (DEFAULT_METHODS, DEFAULT_HEADERS)
    custom = CorsPolicy.from_config({"access.control.allow.origin": "*", "access.control.allow.methods": "DELETE, PATCH",
                                     "access.control.allow.headers": "X-Custom,Content-Type"})
    assert custom is not None and (custom.methods, custom.headers) == ("DELETE,PATCH", "X-Custom,Content-Type")


def _start(tmp_path: Path, props: dict[str, str]) -> ServerProcess:
    server = ServerProcess(str(tmp_path / "data"), {"ksql.logging.processing.stream.auto.create": "false", **props})
    server.start(wait=False)
    try:
        server.wait_ready(auth=("fred", "letmein")) if "authentication.method" in props else server.wait_ready()
    except BaseException:
        server.stop()
        raise
    return server


@pytest.fixture(scope="module")
def cors_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = _start(tmp_path_factory.mktemp("cors"), {"access.control.allow.origin": "http://foo.com,http://*.bar.com"})
    try:
        assert httpx.post(server.url + "/ksql", json={"ksql": "CREATE STREAM CS (ID INT KEY, V STRING) WITH (kafka_topic="
                                                               "'cs', partitions=1, value_format='JSON');"}).status_code == 200
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("h2", [False, True], ids=["http1", "http2"])
def test_allowed_refused_and_preflight(cors_server: ServerProcess, h2: bool) -> None:
    with httpx.Client(base_url=cors_server.url, http1=not h2, http2=h2, timeout=20) as c:
        # not a CORS request: nothing added
        plain = c.post("/ksql", json={"ksql": "SHOW STREAMS;"})
        assert plain.status_code == 200 and "access-control-allow-origin" not in plain.headers
        for origin in ("http://foo.com", "http://x.bar.com"):
            ok = c.post("/ksql", json={"ksql": "SHOW STREAMS;"}, headers={"Origin": origin})
            assert ok.status_code == 200 and ok.json()[0]["@type"] == "streams"
            assert ok.headers["access-control-allow-origin"] == origin
            assert ok.headers["access-control-allow-credentials"] == "true"
            assert "access-control-allow-methods" not in ok.headers  # a preflight's only
        # every answer to an allowed origin carries it: a streamed query, an error, a probe
        with c.stream("POST", "/query-stream", json={"sql": "SELECT * FROM CS;"},
                      headers={"Origin": "http://foo.com"}) as streamed:
            assert streamed.status_code == 200 and streamed.headers["access-control-allow-origin"] == "http://foo.com"
        bad = c.post("/ksql", json={"ksql": "DROP STREAM NOPE;"}, headers={"Origin": "http://foo.com"})
        assert bad.status_code == 400 and bad.headers["access-control-allow-origin"] == "http://foo.com"
        for method, path in (("POST", "/ksql"), ("POST", "/query-stream"), ("GET", "/info"), ("GET", "/chc/ready"),
                             ("GET", "/healthcheck"), ("POST", "/close-query"), ("OPTIONS", "/ksql")):
            refused = c.request(method, path, json={"ksql": "SHOW STREAMS;"} if method == "POST" else None,
                                headers={"Origin": "http://evil.com"})
            assert refused.status_code == 403 and refused.json() == REJECTED, (method, path)
            assert "access-control-allow-origin" not in refused.headers
        pre = c.options("/query-stream", headers={"Origin": "http://foo.com", "Access-Control-Request-Method": "POST",
                                                  "Access-Control-Request-Headers": "content-type"})
        assert pre.status_code == 204 and pre.content == b""
        assert pre.headers["access-control-allow-origin"] == "http://foo.com"
        assert pre.headers["access-control-allow-credentials"] == "true"
        assert pre.headers["access-control-allow-methods"] == DEFAULT_METHODS
        assert pre.headers["access-control-allow-headers"] == DEFAULT_HEADERS
        # a preflight from an origin not allowed, and an OPTIONS that is no preflight (no route: 405)
        assert c.options("/ksql", headers={"Origin": "http://evil.com",
                                           "Access-Control-Request-Method": "POST"}).status_code == 403
        assert c.options("/ksql", headers={"Origin": "http://foo.com"}).status_code == 405


def test_preflight_needs_no_credentials(tmp_path: Path) -> None:
    """The CORS handler runs before authentication: a browser's preflight carries no credentials."""
    users = tmp_path / "users.properties"
    users.write_text("fred: letmein,admin\n")
    server = _start(tmp_path, {"access.control.allow.origin": "*", "access.control.allow.methods": "POST,DELETE",
                               "access.control.allow.headers": "Authorization,Content-Type",
                               "authentication.method": "BASIC", "authentication.users.file": str(users)})
    try:
        with httpx.Client(base_url=server.url, timeout=20) as c:
            origin = {"Origin": "http://any.where:3000"}
            pre = c.options("/ksql", headers={**origin, "Access-Control-Request-Method": "POST"})
            assert pre.status_code == 204 and pre.headers["access-control-allow-origin"] == "http://any.where:3000"
            assert pre.headers["access-control-allow-methods"] == "POST,DELETE"
            assert pre.headers["access-control-allow-headers"] == "Authorization,Content-Type"
            denied = c.post("/ksql", json={"ksql": "SHOW STREAMS;"}, headers=origin)
            assert denied.status_code == 401 and denied.json()["error_code"] == 40100
            assert denied.headers["access-control-allow-origin"] == "http://any.where:3000"
            ok = c.post("/ksql", json={"ksql": "SHOW STREAMS;"}, headers=origin, auth=("fred", "letmein"))
            assert ok.status_code == 200 and ok.headers["access-control-allow-credentials"] == "true"
    finally:
        server.stop()


def test_not_configured_adds_nothing(tmp_path: Path) -> None:
    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with TestClient(create_app(config)) as c:
        _ready(c)
        r = c.get("/info", headers={"Origin": "http://wibble.com"})
        assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
        assert c.options("/ksql", headers={"Origin": "http://wibble.com",
                                           "Access-Control-Request-Method": "POST"}).status_code == 405


def test_websocket_handshake(tmp_path: Path) -> None:
    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false",
                                                             "access.control.allow.origin": "http://foo.com"})
    with TestClient(create_app(config)) as c:
        _ready(c)
        c.post("/ksql", json={"ksql": "CREATE STREAM CW (ID INT KEY, V STRING) WITH (kafka_topic='cw', partitions=1, "
                                      "value_format='JSON');"})
        with pytest.raises(WebSocketDenialResponse) as denied:
            with c.websocket_connect("/ws/query?request=%7B%22ksql%22%3A%22SELECT%20*%20FROM%20CW%20EMIT%20CHANGES%3B"
                                     "%22%7D", headers={"Origin": "http://evil.com"}):
                pass
        assert denied.value.status_code == 403 and denied.value.json() == REJECTED
        with c.websocket_connect("/ws/query?request=%7B%22ksql%22%3A%22SELECT%20*%20FROM%20CW%20EMIT%20CHANGES%3B%22%7D",
                                 headers={"Origin": "http://foo.com"}) as ws:
            assert "ID" in ws.receive_text()  # the schema, the socket accepted


def _ready(c: Any) -> None:
    await_serving(c, 30)
