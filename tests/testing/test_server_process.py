"""ServerProcess cleans up after itself: a server that does not become ready in time is stopped before the
error reaches the test (a leaked server outlives its data directory and keeps restarting its workers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.testing.server_process import ServerProcess


def test_a_server_not_ready_in_time_is_stopped(tmp_path: Path) -> None:
    server = ServerProcess(str(tmp_path / "data"), startup_timeout_s=0.01)
    with pytest.raises(RuntimeError, match="not ready"):
        server.start()
    assert server.proc is None  # stopped and forgotten, not left running
    assert server.exit_code is not None
