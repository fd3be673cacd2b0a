"""A real ``ksqlpy server`` on loopback, configured as a new user's would be (ksqlDB's defaults: push
queries start at the latest offset unless the request says otherwise)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("httpx")
pytest.importorskip("hypercorn")

from ksqlpy.testing.server_process import ServerProcess  # noqa: E402


@pytest.fixture(scope="module")
def docs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("docs")), {})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
