"""/inserts-stream reads lines in linear time and bounds a line's length
(``ksqlpy.server.inserts.line.max.bytes``): a line past it is refused with an error ack after the rows before
it, nothing of it is kept, and a huge line does not slow other requests."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from ksqlpy.server.inserts import LineSplitter, LineTooLong, line_batches
from ksqlpy.testing.server_process import ServerProcess


def test_lines_split_across_chunks_join_once() -> None:
    s = LineSplitter(100)
    assert s.feed(b'{"a":') == ([], False)
    assert s.feed(b"1}\n\n  \n{") == ([b'{"a":1}'], False)
    assert s.feed(b'"b":2}\n{"c"') == ([b'{"b":2}'], False)
    assert s.rest() == b'{"c"'


def test_a_line_past_the_limit_is_refused_without_keeping_it() -> None:
    s = LineSplitter(10)
    assert s.feed(b"0123\nabcdefghijk") == ([b"0123"], True)  # the partial line is already too long
    s = LineSplitter(10)
    assert s.feed(b"0123456789") == ([], False)  # exactly the limit
    assert s.feed(b"\n") == ([b"0123456789"], False)
    assert s.feed(b"01234567890\n") == ([], True)


def test_a_64mb_line_is_linear_work() -> None:
    """Before: every chunk re-joined and re-scanned the whole buffer (140 s of CPU for 64 MB)."""
    chunk = b"x" * 65536
    s = LineSplitter(1 << 30)
    start = time.process_time()
    for _ in range(1024):
        assert s.feed(chunk) == ([], False)
    lines, too_long = s.feed(b"\n")
    assert not too_long and len(lines[0]) == 64 << 20
    assert time.process_time() - start < 5


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for p in parts:
        yield p


def test_line_batches_raise_after_the_lines_before() -> None:
    import asyncio

    async def run() -> list[Any]:
        got: list[Any] = []
        try:
            async for batch in line_batches(_chunks(b"a\nb\n", b"c\n" + b"y" * 50), limit=20):
                got.append(batch)
        except LineTooLong as e:
            got.append(str(e))
        return got

    got = asyncio.run(run())
    assert got[:2] == [[b"a", b"b"], [b"c"]]
    assert "exceeds 20 bytes" in got[2] and "ksqlpy.server.inserts.line.max.bytes" in got[2]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("inserts")), {
        "ksqlpy.server.inserts.line.max.bytes": "65536", "ksql.logging.processing.stream.auto.create": "false"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def test_over_http2_a_long_line_is_an_error_ack_and_the_rows_before_are_written(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url, http1=False, http2=True, timeout=60) as h2:
        r = h2.post("/ksql", json={"ksql": "CREATE STREAM L (ID INT KEY, V STRING) WITH (kafka_topic='l', "
                                           "partitions=1, value_format='JSON');"})
        assert r.status_code == 200, r.text
        big = b'{"ID": 2, "V": "' + b"v" * (4 << 20) + b'"}\n'
        body = b'{"target": "L"}\n{"ID": 1, "V": "a"}\n' + big + b'{"ID": 3, "V": "c"}\n'
        r = h2.post("/inserts-stream", content=body, headers={"Accept": "application/json"})
        assert r.status_code == 200
        acks = r.json()
        assert [a["status"] for a in acks] == ["ok", "error"]
        assert acks[1]["seq"] == 1 and "exceeds 65536 bytes" in acks[1]["message"]
        rows = h2.post("/query-stream", json={"sql": "SELECT * FROM L;"}, headers={"Accept": "application/json"})
        assert rows.json()[1:] == [[1, "a"]]
        header = h2.post("/inserts-stream", content=b'{"target": "' + b"L" * 70000 + b'"}\n')
        assert header.status_code == 400 and "exceeds 65536 bytes" in header.json()["message"]


def test_a_huge_line_does_not_stall_other_requests(server: ServerProcess) -> None:
    done = threading.Event()

    def upload() -> None:
        with httpx.Client(base_url=server.url, http1=False, http2=True, timeout=120) as h2:
            def body() -> Iterator[bytes]:
                yield b'{"target": "L"}\n{"ID": 9, "V": "'
                for _ in range(1024):  # 64 MB in one line
                    if done.is_set():
                        return
                    yield b"x" * 65536
                yield b'"}\n'
            try:
                h2.post("/inserts-stream", content=body())
            except httpx.HTTPError:
                pass  # the server may end the stream while the client still sends

    t = threading.Thread(target=upload, daemon=True)
    t.start()
    try:
        with httpx.Client(base_url=server.url, timeout=10) as c:
            worst = 0.0
            for _ in range(20):
                start = time.monotonic()
                assert c.get("/info").status_code == 200
                worst = max(worst, time.monotonic() - start)
                time.sleep(0.05)
        assert worst < 2.0
    finally:
        done.set()
        t.join(60)


def test_over_http2_a_header_without_rows_is_answered_and_ends(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url, http1=False, http2=True, timeout=20) as h2:
        r = h2.post("/ksql", json={"ksql": "CREATE STREAM E (ID INT KEY, V STRING) WITH (kafka_topic='e', "
                                           "partitions=1, value_format='JSON');"})
        assert r.status_code == 200, r.text
        as_json = h2.post("/inserts-stream", content=b'{"target": "E"}\n', headers={"Accept": "application/json"})
        assert (as_json.status_code, as_json.json()) == (200, [])
        delimited = h2.post("/inserts-stream", content=b'{"target": "E"}')
        assert (delimited.status_code, delimited.content) == (200, b"")
