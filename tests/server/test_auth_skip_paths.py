"""``authentication.skip.paths`` (server/skip_paths.py, auth.py): the listed paths are served without
authentication - ``*`` any run of characters, the whole normalized path matched -, every other path still
needs credentials; the role check is skipped with the authentication. A real server on loopback, over
HTTP/1.1 and HTTP/2, and /ws/query in process."""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
from starlette.testclient import TestClient  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import ConfigError, build_config  # noqa: E402
from ksqlpy.server.skip_paths import normalized, skip_paths  # noqa: E402
from ksqlpy.testing.server_process import ServerProcess  # noqa: E402

UNAUTHORIZED = {"@type": "generic_error", "error_code": 40100, "message": "Unauthorized"}
SKIPPED = "/info, /v1/metadata*, /ws/*, /status/stream/*"


@pytest.mark.parametrize("path, skipped", [
    ("/info", True), ("/info/", False), ("/infos", False),  # a path without * is the whole path
    ("/v1/metadata", True), ("/v1/metadata/id", True),  # * is any run of characters, none included
    ("/ws/query", True), ("/ws", False),
    ("/status/stream/S/create", True), ("/status/table/T/create", False),
    ("/ksql", False), ("/query-stream", False),
    ("/ws/../ksql", False), ("/ws/./query", True), ("//info", True),  # matched after normalizing
])
def test_pattern(path: str, skipped: bool) -> None:
    pattern = skip_paths(SKIPPED)
    assert pattern is not None
    assert (pattern.fullmatch(normalized(path)) is not None) == skipped


def test_empty_and_invalid_lists(tmp_path: Path) -> None:
    assert skip_paths(None) is None and skip_paths(" , ") is None and skip_paths([]) is None
    assert skip_paths(["/a", "/b*"]) is not None
    with pytest.raises(ConfigError, match="authentication.skip.paths"):
        build_config(data_dir=str(tmp_path), overrides={"authentication.skip.paths": "/a(["})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    tmp = tmp_path_factory.mktemp("skippaths")
    users = tmp / "users.properties"
    users.write_text("fred: letmein,admin\nann: pw,viewer\n")
    proc = ServerProcess(str(tmp / "data"), {
        "authentication.method": "BASIC", "authentication.users.file": str(users),
        "authentication.roles": "admin", "authentication.skip.paths": SKIPPED,
        "ksql.logging.processing.stream.auto.create": "false"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.mark.parametrize("path", ["/info", "/v1/metadata", "/v1/metadata/id"])
def test_skipped_paths_need_no_credentials(client: Any, path: str) -> None:
    for auth in (None, ("nobody", "x"), ("ann", "pw")):  # none, wrong ones, a user without the role
        r = client.get(path, auth=auth)
        assert r.status_code == 200, (path, auth, r.text)


def test_skipped_path_with_no_route_is_the_routers_404(client: Any) -> None:
    r = client.get("/status/stream/NOPE/create")
    assert r.status_code == 404 and r.json()["error_code"] == 40400, r.text


@pytest.mark.parametrize("method, path, body", [
    ("GET", "/healthcheck", None), ("GET", "/status", None), ("GET", "/clusterStatus", None),
    ("POST", "/ksql", {"ksql": "SHOW STREAMS;"}), ("POST", "/query-stream", {"sql": "SELECT 1;"}),
    ("GET", "/ws/../info/", None), ("GET", "/info/", None),
])
def test_other_paths_still_need_credentials(client: Any, method: str, path: str, body: Any) -> None:
    r = client.request(method, path, json=body)
    assert r.status_code == 401 and r.json() == UNAUTHORIZED, (path, r.text)
    assert r.headers["www-authenticate"] == 'Basic realm="KsqlServer"'
    ok = client.request(method, path, json=body, auth=("fred", "letmein"))
    assert ok.status_code != 401


def test_chc_stays_open(client: Any) -> None:
    assert client.get("/chc/live").status_code == 200


def test_ws_under_a_skipped_prefix(tmp_path: Path) -> None:
    users = tmp_path / "users.properties"
    users.write_text("fred: letmein\n")
    config = build_config(data_dir=str(tmp_path / "data"), overrides={
        "ksql.logging.processing.stream.auto.create": "false", "authentication.method": "BASIC",
        "authentication.users.file": str(users), "authentication.skip.paths": "/ws/*"})
    with TestClient(create_app(config)) as c:
        end = time.monotonic() + 30
        while c.get("/info", auth=("fred", "letmein")).status_code != 200 and time.monotonic() < end:
            time.sleep(0.05)
        assert c.get("/info").status_code == 401
        request = quote(json.dumps({"ksql": "SHOW STREAMS;"}))
        with c.websocket_connect("/ws/query?request=" + request) as ws:  # accepted without credentials
            assert "not supported for this resource" in json.loads(ws.receive_text())["error"]
