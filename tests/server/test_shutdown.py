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


@pytest.mark.parametrize("http2", [False, True], ids=["http1", "http2"])
@pytest.mark.parametrize("accept", ["application/vnd.ksql.v1+json", "application/vnd.ksqlapi.delimited.v1"])
def test_sigterm_ends_a_push_stream_with_a_final_message(tmp_path: Any, http2: bool, accept: str) -> None:
    """The stream ends cleanly (no cut frame: the client reads a complete body) and its last element says why:
    a final message in the StreamedRow format, ksqlDB's 50303 error element in the delimited one."""
    server = ServerProcess(str(tmp_path)).start()
    got: list[bytes] = []
    failure: list[BaseException] = []
    try:
        with httpx.Client(base_url=server.url, timeout=30) as c:
            ksql(c, "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', partitions=1, value_format='JSON');")
            ksql(c, "INSERT INTO S (ID, V) VALUES (1, 'a');")
        started = threading.Event()

        def follow() -> None:
            try:
                with httpx.Client(base_url=server.url, timeout=30, http1=not http2, http2=http2) as c2, \
                        c2.stream("POST", "/query-stream", headers={"Accept": accept},
                                  json={"sql": "SELECT * FROM S EMIT CHANGES;",
                                        "properties": {"auto.offset.reset": "earliest"}}) as r:
                    for chunk in r.iter_bytes():
                        got.append(chunk)
                        if b'"a"' in chunk:
                            started.set()
            except BaseException as e:  # noqa: BLE001 - reported below
                failure.append(e)

        t = threading.Thread(target=follow)
        t.start()
        assert started.wait(20)
        assert server.stop(timeout_s=20) == 0, server.log_tail()
        t.join(10)
        assert failure == []
        body = b"".join(got)
        if accept == "application/vnd.ksql.v1+json":
            assert body.rstrip().endswith(b'{"finalMessage":"The server is shutting down"}]'), body
        else:
            last = body.strip().splitlines()[-1]
            assert last == (b'{"@type":"generic_error","error_code":50303,'
                            b'"message":"The server is shutting down"}'), body
    finally:
        server.stop()
