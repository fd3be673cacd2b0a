"""Soak: mixed load against a real server for a bounded time - inserts (/inserts-stream and INSERT VALUES),
push and pull queries, DDL (a query created and dropped again and again), restarts of the server on the same
data directory - with the server's memory and file descriptors sampled as it goes. At the end nothing is lost
or counted twice (a table counting every inserted row, and a second hop counting a copy of the stream, equal
the rows acknowledged), and memory and descriptors stayed flat within each run of the server.

``SOAK_SECONDS`` (default 60 in CI; docs/operations.md has a 30-minute run), ``SOAK_RESTARTS`` (default 2:
SIGTERM and kill -9 by turns),
``SOAK_REPORT`` (write the samples and totals as JSON there). Only loopback traffic; every loop is bounded by
the deadline.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from ksqlpy.testing.server_process import ServerProcess

pytestmark = pytest.mark.slow

SECONDS = float(os.environ.get("SOAK_SECONDS", "60"))
RESTARTS = int(os.environ.get("SOAK_RESTARTS", "2"))
KEYS = 50


class Gate:
    """Load runs while the gate is open; a restart closes it and waits for the operations in flight."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.open = True
        self.busy = 0

    @contextmanager
    def op(self) -> Iterator[bool]:
        with self.cond:
            while not self.open:
                self.cond.wait()
            self.busy += 1
        try:
            yield True
        finally:
            with self.cond:
                self.busy -= 1
                self.cond.notify_all()

    @contextmanager
    def closed(self) -> Iterator[None]:
        with self.cond:
            self.open = False
            while self.busy:
                self.cond.wait()
        try:
            yield
        finally:
            with self.cond:
                self.open = True
                self.cond.notify_all()


def proc_figures(pid: int) -> tuple[int, int]:
    """(resident set in KiB, open file descriptors) of a process."""
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def ksql(c: httpx.Client, sql: str) -> Any:
    r = c.post("/ksql", json={"ksql": sql})
    assert r.status_code == 200, f"{sql} -> {r.status_code} {r.text[:300]}"
    return r.json()


def pull_sum(c: httpx.Client, table: str) -> int:
    r = c.post("/query-stream", json={"sql": f"SELECT * FROM {table};"}, headers={"Accept": "application/json"})
    assert r.status_code == 200, r.text[:300]
    return sum(row[1] for row in r.json()[1:])


def test_soak(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    server = ServerProcess(data, {"ksql.logging.processing.stream.auto.create": "false",
                                  "ksql.max.push.queries": "20"}).start()
    gate = Gate()
    stop = threading.Event()
    counts = {"inserted": 0, "insert_requests": 0, "push": 0, "push_rows": 0, "pull": 0, "ddl": 0, "restarts": 0}
    lock = threading.Lock()
    samples: list[dict[str, Any]] = []
    errors: list[str] = []
    started = time.monotonic()
    incarnation = [0]

    def add(name: str, n: int = 1) -> None:
        with lock:
            counts[name] += n

    def loop(fn: Callable[[httpx.Client, random.Random], None], pause: float, http2: bool = False) -> None:
        rnd = random.Random(hash(fn.__name__))
        while not stop.is_set():
            with gate.op(), httpx.Client(base_url=server.url, http1=not http2, http2=http2, timeout=30) as c:
                try:
                    fn(c, rnd)
                except Exception as e:  # noqa: BLE001 - recorded, fails the test at the end
                    errors.append(f"{fn.__name__}: {type(e).__name__}: {e}"[:500])
            stop.wait(pause)

    def inserts_stream(c: httpx.Client, rnd: random.Random) -> None:
        n = rnd.randint(50, 200)
        body = b'{"target": "SRC"}\n' + b"".join(
            json.dumps({"K": f"k{rnd.randrange(KEYS)}", "V": rnd.randrange(1000)}).encode() + b"\n"
            for _ in range(n))
        r = c.post("/inserts-stream", content=body)
        assert r.status_code == 200, r.text[:300]
        acks = [json.loads(line) for line in r.text.splitlines() if line.strip()]
        assert len(acks) == n and all(a["status"] == "ok" for a in acks), r.text[:300]
        add("inserted", n)
        add("insert_requests")

    def insert_values(c: httpx.Client, rnd: random.Random) -> None:
        ksql(c, f"INSERT INTO SRC (K, V) VALUES ('k{rnd.randrange(KEYS)}', {rnd.randrange(1000)});")
        add("inserted")
        add("insert_requests")

    def push(c: httpx.Client, rnd: random.Random) -> None:
        with c.stream("POST", "/query-stream", json={"sql": "SELECT * FROM SRC EMIT CHANGES LIMIT 20;",
                                                     "properties": {"auto.offset.reset": "earliest"}}) as r:
            assert r.status_code == 200
            rows = sum(1 for line in r.iter_lines() if line.strip()) - 1
        add("push")
        add("push_rows", rows)

    def pull(c: httpx.Client, rnd: random.Random) -> None:
        r = c.post("/query-stream", json={"sql": f"SELECT * FROM COUNTS WHERE K = 'k{rnd.randrange(KEYS)}';"})
        assert r.status_code == 200, r.text[:300]
        add("pull")

    def ddl(c: httpx.Client, rnd: random.Random) -> None:
        n = counts["ddl"]
        ksql(c, f"CREATE STREAM TMP{n} AS SELECT * FROM SRC WHERE V % 7 = 0;")
        ksql(c, f"DROP STREAM TMP{n} DELETE TOPIC;")
        add("ddl")

    def sampler() -> None:
        while not stop.is_set():
            proc = server.proc
            if proc is not None and proc.poll() is None:
                try:
                    rss, fds = proc_figures(proc.pid)
                except OSError:
                    rss, fds = 0, 0
                if rss:
                    samples.append({"t": round(time.monotonic() - started, 1), "run": incarnation[0],
                                    "rss_kib": rss, "fds": fds, "inserted": counts["inserted"]})
            stop.wait(max(1.0, SECONDS / 200))

    with httpx.Client(base_url=server.url, timeout=30) as c:
        ksql(c, "CREATE STREAM SRC (K STRING KEY, V INT) WITH (kafka_topic='src', partitions=4, value_format='JSON');")
        ksql(c, "CREATE TABLE COUNTS AS SELECT K, COUNT(*) AS N FROM SRC GROUP BY K;")
        ksql(c, "CREATE STREAM COPY AS SELECT K, V FROM SRC;")
        ksql(c, "CREATE TABLE COPY_COUNTS AS SELECT K, COUNT(*) AS N FROM COPY GROUP BY K;")

    threads = [threading.Thread(target=loop, args=(inserts_stream, 0.05, True)),
               threading.Thread(target=loop, args=(insert_values, 0.02)),
               threading.Thread(target=loop, args=(push, 0.5, True)),
               threading.Thread(target=loop, args=(pull, 0.05)),
               threading.Thread(target=loop, args=(ddl, 2.0)),
               threading.Thread(target=sampler)]
    for t in threads:
        t.start()
    try:
        deadline = started + SECONDS
        restart_at = [started + SECONDS * (i + 1) / (RESTARTS + 1) for i in range(RESTARTS)]
        while time.monotonic() < deadline and not errors:
            if restart_at and time.monotonic() >= restart_at[0]:
                restart_at.pop(0)
                with gate.closed():  # every other restart is a kill -9: the embedded log loses nothing either way
                    if incarnation[0] % 2 == 0:
                        assert server.stop(timeout_s=30) == 0, server.log_tail()
                    else:
                        server.kill()
                    incarnation[0] += 1
                    server.start()
                    add("restarts")
            time.sleep(0.2)
    finally:
        stop.set()
        for t in threads:
            t.join(60)
    try:
        assert errors == [], errors[:5]
        with httpx.Client(base_url=server.url, timeout=30) as c:
            end = time.monotonic() + 120
            while True:
                out, copied = pull_sum(c, "COUNTS"), pull_sum(c, "COPY_COUNTS")
                if (out, copied) == (counts["inserted"],) * 2 or time.monotonic() > end:
                    break
                time.sleep(0.5)
        report = {"seconds": SECONDS, "counts": counts, "records_out": {"COUNTS": out, "COPY_COUNTS": copied},
                  "samples": samples}
        if os.environ.get("SOAK_REPORT"):
            Path(os.environ["SOAK_REPORT"]).write_text(json.dumps(report, indent=1))
        print(f"\nsoak: {counts}, out: {report['records_out']}, {len(samples)} samples")
        assert out == counts["inserted"], "rows lost or counted twice (COUNTS)"
        assert copied == counts["inserted"], "rows lost or counted twice (COPY -> COPY_COUNTS)"
        assert counts["push"] > 0 and counts["pull"] > 0 and counts["ddl"] > 0
        assert counts["restarts"] == RESTARTS
        for run in sorted({s["run"] for s in samples}):
            flat(run, [s for s in samples if s["run"] == run])
    finally:
        server.stop()


def flat(run: int, series: list[dict[str, Any]]) -> None:
    """Within one run of the server, after the first third (warm-up: imports, caches, the first queries),
    descriptors stay within a small band and memory does not keep growing: the last quarter's median is
    within 25 % (and 30 MiB) of the middle's."""
    if len(series) < 8:
        return
    steady = series[len(series) // 3:]
    fds = [s["fds"] for s in steady]
    assert max(fds) - min(fds) <= 40, f"run {run}: descriptors not flat: {fds}"
    half = len(steady) // 2
    early = statistics.median(s["rss_kib"] for s in steady[:half])
    late = statistics.median(s["rss_kib"] for s in steady[-max(1, len(steady) // 4):])
    assert late <= early * 1.25 + 30 * 1024, f"run {run}: memory grew from {early} KiB to {late} KiB"
