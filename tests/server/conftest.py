"""Fixtures: a REAL ``ksqlpy server`` subprocess on a free 127.0.0.1 port, and httpx clients over
HTTP/1.1 and HTTP/2 (cleartext, prior knowledge) - always stopped at the end of the test or module."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("hypercorn")
pytest.importorskip("h2")

from app_client import serving  # noqa: E402

from ksqlpy.testing.server_process import ServerProcess  # noqa: E402

# the processing log's stream and topic left out: listings hold only what a test module creates
NO_PROCESSING_LOG = {"ksql.logging.processing.stream.auto.create": "false",
                     "ksql.logging.processing.topic.auto.create": "false"}

_names = itertools.count()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server per test module (start-up is ~1.5 s); tests use unique source/topic names."""
    proc = ServerProcess(str(tmp_path_factory.mktemp("server")), {"ksql.max.push.queries": "5", "ksql.server.command.response.timeout.ms": "1000"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture(params=["http1", "http2"])
def client(request: pytest.FixtureRequest, server: ServerProcess) -> Iterator[Any]:
    """An httpx client speaking HTTP/1.1, or HTTP/2 with prior knowledge (no Upgrade)."""
    h2 = request.param == "http2"
    with httpx.Client(base_url=server.url, http1=not h2, http2=h2, timeout=20) as c:
        yield c


@pytest.fixture
def unique() -> Callable[[str], str]:
    """Fresh upper-case names, so tests sharing a server never collide."""
    def make(prefix: str) -> str:
        return f"{prefix}{next(_names)}_{int(time.time() * 1000) % 100000}".upper()

    return make


@pytest.fixture(scope="module")
def quiet_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The server app in-process (Starlette's TestClient), serving, without the processing log's stream
    and topic; one per test module."""
    from ksqlpy.server.app import create_app
    from ksqlpy.server.config import build_config

    config = build_config(data_dir=str(tmp_path_factory.mktemp("app")), overrides=NO_PROCESSING_LOG)
    with serving(create_app(config)) as c:
        yield c
