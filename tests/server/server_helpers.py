"""Helpers shared by the server tests (imported by module name, like the other test folders do)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any


def ksql(client: Any, sql: str, status: int = 200, **extra: Any) -> Any:
    """The body /ksql answers ``sql`` with (``extra``: more request fields); the status must be ``status``."""
    r = client.post("/ksql", json={"ksql": sql, "streamsProperties": {}, **extra})
    assert r.status_code == status, r.text
    return r.json()


def stream_lines(response: Any, limit_s: float = 15.0) -> Iterator[bytes]:
    """Lines of a streamed body as they arrive (a ksqlDB StreamedRow chunk ends after a whole element)."""
    end = time.monotonic() + limit_s
    buf = b""
    for chunk in response.iter_bytes():
        buf += chunk
        *lines, buf = buf.split(b"\n")
        yield from lines
        if time.monotonic() > end:
            raise AssertionError("stream took too long")
    if buf:
        yield buf
