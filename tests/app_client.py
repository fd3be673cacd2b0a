"""The server app in-process (Starlette's TestClient) once it serves: imported by module name from any test
folder, as ``kafka_broker`` is."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

STARTUP_S = 30.0


def await_serving(client: Any, timeout: float = STARTUP_S) -> None:
    """Wait until ``/info`` answers 200 - the start-up gate opens once the command topic has been read - and
    fail the test if it does not within ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while client.get("/info").status_code != 200:
        assert time.monotonic() < end, f"the server app did not serve /info within {timeout:g} s"
        time.sleep(0.05)


@contextmanager
def serving(app: Any, timeout: float = STARTUP_S) -> Iterator[Any]:
    """A TestClient of ``app`` (its lifespan run: started, and stopped at the end) once it serves."""
    from starlette.testclient import TestClient

    with TestClient(app) as client:
        await_serving(client, timeout)
        yield client
