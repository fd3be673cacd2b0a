"""Three (or more) real ``ksqlpy server`` processes with one service id on the test broker."""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import orjson

from ksqlpy.testing.server_process import ServerProcess

SESSION_TIMEOUT_MS = 6000


def cluster_properties(bootstrap: str, service: str, **extra: Any) -> dict[str, Any]:
    return {"bootstrap.servers": bootstrap, "ksql.service.id": service, "session.timeout.ms": SESSION_TIMEOUT_MS,
            "ksql.logging.processing.topic.auto.create": "false",
            "ksql.logging.processing.stream.auto.create": "false", "auto.offset.reset": "earliest",
            "ksql.server.command.response.timeout.ms": 30000, "commit.interval.ms": 200, **extra}


@contextmanager
def cluster(root: str, bootstrap: str, n: int = 3, log_level: str | None = None,
            **extra: Any) -> Iterator[list[ServerProcess]]:
    """``log_level``: the servers' (their ``server.log``; WARNING by default)."""
    service = f"c{uuid.uuid4().hex[:8]}_"
    args = ["--log-level", log_level] if log_level else None
    servers = [ServerProcess(os.path.join(root, f"s{i}"), cluster_properties(bootstrap, service, **extra),
                             startup_timeout_s=120, extra_args=args) for i in range(n)]
    try:
        for s in servers:
            s.start(wait=False)
        for s in servers:
            s.wait_ready()
        yield servers
    finally:
        for s in servers:
            s.stop()


def ksql(server: ServerProcess, sql: str, **extra: Any) -> list[dict[str, Any]]:
    r = httpx.post(server.url + "/ksql", json={"ksql": sql, "streamsProperties": {}, **extra}, timeout=120)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def pull(client: httpx.Client, sql: str, **props: Any) -> tuple[int, list[list[Any]], httpx.Response]:
    r = client.post("/query", json={"ksql": sql, "streamsProperties": props},
                    headers={"Accept": "application/vnd.ksql.v1+json"})
    if r.status_code != 200:
        return r.status_code, [], r
    return 200, [item["row"]["columns"] for item in orjson.loads(r.content) if "row" in item], r


def cluster_status(server: ServerProcess) -> dict[str, Any]:
    return httpx.get(server.url + "/clusterStatus", timeout=10).json()["clusterStatus"]  # type: ignore[no-any-return]


def active_map(server: ServerProcess, qid: str) -> dict[int, str]:
    """Partition -> host (host:port) that /clusterStatus of ``server`` shows active for ``qid``."""
    out = {}
    for host, info in cluster_status(server).items():
        if not info["hostAlive"]:
            continue
        for p in info["activeStandbyPerQuery"].get(qid, {}).get("activePartitions", []):
            out[p["partition"]] = host
    return out


def restores(server: ServerProcess, qid: str, partition: int) -> list[tuple[int, int, float]]:
    """(entries from a warm copy, changelog records replayed, build seconds) of each restore of
    ``partition`` of ``qid`` the server logged (at INFO), oldest first."""
    build = re.compile(rf"restore of {re.escape(qid)} \(build ([\d.]+) s\): (.*)")
    part = re.compile(rf"partition {partition}: (\d+) entries from a warm copy, (\d+) changelog records replayed")
    out = []
    with open(server.log_path, errors="replace") as f:
        for line in f:
            if (b := build.search(line)) and (m := part.search(b[2])):
                out.append((int(m[1]), int(m[2]), float(b[1])))
    return out


def wait_until(check: Callable[[], Any], timeout_s: float, what: str, every_s: float = 0.2) -> Any:
    end = time.monotonic() + timeout_s
    last: Any = None
    while time.monotonic() < end:
        try:
            last = check()
        except (httpx.HTTPError, KeyError, ValueError) as e:
            last = e
        if last and not isinstance(last, Exception):
            return last
        time.sleep(every_s)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def produce(bootstrap: str, topic: str, records: list[tuple[str, dict[str, Any]]]) -> None:
    """STRING keys (KAFKA format: the UTF-8 bytes), JSON values, Java's murmur2 partitioner."""
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random", "linger.ms": 5})
    for key, value in records:
        p.produce(topic, key=key.encode(), value=orjson.dumps(value))
    assert p.flush(30) == 0
