"""SIGTERM with open push and PRINT streams: the streams end, the server exits 0, promptly."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest
from server_helpers import ksql

from ksqlpy.testing.rest import ServerProcess


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
