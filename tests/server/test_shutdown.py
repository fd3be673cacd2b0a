"""SIGTERM with open push and PRINT streams: the streams end, the server exits 0, promptly."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest
from server_helpers import ksql

from ksqlpy.testing.server_process import ServerProcess


@pytest.mark.slow
def test_sigterm_ends_open_streams(tmp_path: Any) -> None:
    server = ServerProcess(str(tmp_path)).start()
    ended: dict[str, float] = {}
    try:
        with httpx.Client(base_url=server.url, timeout=30) as c:
            ksql(c, "CREATE STREAM S (ID INT KEY) WITH (kafka_topic='s', partitions=1, value_format='JSON');")

        def follow(name: str, path: str, body: dict[str, Any]) -> None:
            with httpx.Client(base_url=server.url, timeout=30) as c2, c2.stream("POST", path, json=body) as r:
                for _ in r.iter_bytes():
                    pass
            ended[name] = time.monotonic()

        threads = [threading.Thread(target=follow, args=("push", "/query-stream",
                                                         {"sql": "SELECT * FROM S EMIT CHANGES;"})),
                   threading.Thread(target=follow, args=("print", "/query", {"ksql": "PRINT 's';"}))]
        for t in threads:
            t.start()
        time.sleep(1.0)
        stopping = time.monotonic()
        code = server.stop(timeout_s=20)
        for t in threads:
            t.join(10)
        assert code == 0, server.log_tail()
        assert set(ended) == {"push", "print"}
        assert max(ended.values()) - stopping < 4.0, "open streams held up the shutdown"
    finally:
        server.stop()


def test_failed_start_up_exits_1(tmp_path: Any) -> None:
    """Bug: a server whose engine could not open answered 503 forever instead of exiting."""
    (tmp_path / "log").write_text("a file where the log directory should be")
    server = ServerProcess(str(tmp_path), startup_timeout_s=30)
    with pytest.raises(RuntimeError, match="exited with 1"):
        server.start()
    assert "start-up failed" in server.log_tail()


def test_bad_configuration_exits_2(tmp_path: Any) -> None:
    from ksqlpy.server.main import main

    assert main(["--listeners", "ftp://x:1"]) == 2
    assert main([str(tmp_path / "missing.properties")]) == 2
    assert main(["-D", "novalue"]) == 2
