"""``ksql.internal.listener`` (server/internal_listener.py): the server listens there too and serves every
endpoint on it; ``POST /heartbeat`` and ``POST /lag`` only there (400 / 40005 on a public listener); it names
this host for the cluster unless ``ksql.advertised.listener`` is set. A real server on loopback, over HTTP/1.1
and HTTP/2."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")

from ksqlpy.server.config import ConfigError, build_config  # noqa: E402
from ksqlpy.server.internal_listener import ON_PUBLIC_LISTENER, check_internal  # noqa: E402
from ksqlpy.server.membership import advertised_listener  # noqa: E402
from ksqlpy.testing.server_process import ServerProcess, free_port  # noqa: E402

REFUSED = {"@type": "generic_error", "error_code": 40005, "message": ON_PUBLIC_LISTENER}
HEARTBEAT = {"hostInfo": {"host": "10.1.1.1", "port": 8088}, "timestamp": 1}
LAG = {"hostInfo": {"host": "10.1.1.1", "port": 8088}, "hostStoreLags": {"stateStoreLags": {}, "updateTimeMs": 1}}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    port = free_port()
    internal = f"http://127.0.0.1:{port}"
    proc = ServerProcess(str(tmp_path_factory.mktemp("internal")), {
        "ksql.internal.listener": internal, "ksql.logging.processing.stream.auto.create": "false"})
    proc.start()
    try:
        yield proc, internal
    finally:
        proc.stop()


@pytest.fixture(params=["http1", "http2"])
def clients(request: pytest.FixtureRequest, servers: tuple[ServerProcess, str]) -> Iterator[tuple[Any, Any]]:
    h2 = request.param == "http2"
    proc, internal = servers
    with httpx.Client(base_url=proc.url, http1=not h2, http2=h2, timeout=20) as public, \
            httpx.Client(base_url=internal, http1=not h2, http2=h2, timeout=20) as inner:
        yield public, inner


@pytest.mark.parametrize("path, body", [("/heartbeat", HEARTBEAT), ("/lag", LAG)])
def test_internal_endpoints_only_on_the_internal_listener(clients: tuple[Any, Any], path: str, body: Any) -> None:
    public, inner = clients
    r = public.post(path, json=body)
    assert r.status_code == 400 and r.json() == REFUSED, r.text
    assert r.headers["content-type"] == "application/json"
    r = public.post(path, content=b"not json")  # refused before the body is read
    assert r.status_code == 400 and r.json() == REFUSED, r.text
    r = inner.post(path, json=body)
    assert r.status_code == 200 and r.json() == {"isOk": True}, r.text  # HeartbeatResponse, LagReportingResponse


def test_every_other_endpoint_on_both(clients: tuple[Any, Any]) -> None:
    public, inner = clients
    for c in (public, inner):
        assert c.get("/info").status_code == 200
        r = c.post("/ksql", json={"ksql": "SHOW STREAMS;"})
        assert r.status_code == 200, r.text
        r = c.post("/query-stream", json={"sql": "SELECT * FROM NOPE;"})
        assert r.status_code == 400 and r.json()["error_code"] == 40001


def test_the_cluster_names_the_internal_listener(clients: tuple[Any, Any], servers: tuple[ServerProcess, str]) -> None:
    public, _ = clients
    hosts = public.get("/clusterStatus").json()["clusterStatus"]
    assert list(hosts) == [servers[1].removeprefix("http://")]


class _Ctx:
    def __init__(self, tmp: Any, **props: str) -> None:
        self.config = build_config(data_dir=str(tmp), listeners="http://0.0.0.0:8088", overrides=props)


def test_advertised_listener_order(tmp_path: Any) -> None:
    assert advertised_listener(_Ctx(tmp_path)) == "http://localhost:8088"  # type: ignore[arg-type]
    inner = {"ksql.internal.listener": "http://0.0.0.0:8099"}
    assert advertised_listener(_Ctx(tmp_path, **inner)) == "http://localhost:8099"  # type: ignore[arg-type]
    both = {**inner, "ksql.advertised.listener": "http://node1:8088"}
    assert advertised_listener(_Ctx(tmp_path, **both)) == "http://node1:8088"  # type: ignore[arg-type]


def test_listeners_bound(tmp_path: Any) -> None:
    config = build_config(data_dir=str(tmp_path), listeners="http://0.0.0.0:8088",
                          overrides={"ksql.internal.listener": "http://127.0.0.1:8099"})
    assert [lst.url for lst in config.bound_listeners] == ["http://0.0.0.0:8088", "http://127.0.0.1:8099"]
    same = build_config(data_dir=str(tmp_path), listeners="http://0.0.0.0:8088",
                        overrides={"ksql.internal.listener": "http://0.0.0.0:8088"})
    assert len(same.bound_listeners) == 1
    check_internal(same, {"server": ("127.0.0.1", 8088)})  # the public listener is the internal one
    check_internal(build_config(data_dir=str(tmp_path)), {"server": ("127.0.0.1", 1)})  # none set: open
    with pytest.raises(ConfigError, match="scheme"):
        build_config(data_dir=str(tmp_path), overrides={"ksql.internal.listener": "ftp://x:1"})  # at start
